#!/bin/sh
# shparse-vs-bash.sh: run the differential test of the shell parser against
# bash (shparse-vs-bash.py) from 'make check'; skipped without python3.
srcdir=${BWGATE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
exec python3 "$srcdir/tests/fuzz/shparse-vs-bash.py" "${SHPARSE_VS_BASH_COUNT:-300}" 1
