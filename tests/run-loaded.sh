#!/bin/sh
# run-loaded: run a command while every CPU is kept busy (stress-ng), the
# way the suite meets a loaded machine.
#
#	tests/run-loaded.sh make check
set -u
command -v stress-ng >/dev/null 2>&1 || {
	echo "run-loaded: stress-ng is missing (apt-get install stress-ng)" >&2
	exit 1
}
stress-ng --cpu "$(nproc)" --timeout 5400s --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
"$@"
