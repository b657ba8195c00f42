#!/bin/sh
# run-shparse.sh: a short fuzzing pass over the shell parser, for CI.
#
# With clang's libFuzzer (Debian: apt-get install clang) it builds
# tests/fuzz/fuzz-shparse.c with -fsanitize=fuzzer,address,undefined and
# runs it for FUZZ_SECONDS (default 60) from the seed corpus with the
# shell-token dictionary. Without it, it builds the plain driver with
# ASan/UBSan (cc) and runs FUZZ_ITERATIONS (default 500000) mutated
# inputs. Any crash, leak, sanitizer report or failed check is a failure.
# Then, with python3, shparse-vs-bash.py compares the parser with bash on
# FUZZ_BASH_PROGRAMS (2000) generated programs (a new seed each run).
#
# Usage: tests/fuzz/run-shparse.sh [--plain]
# Environment: FUZZ_SECONDS, FUZZ_ITERATIONS, FUZZ_WORKDIR (kept; crash
# inputs land there), CC (plain mode compiler).
set -eu

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
mode=auto
[ "${1:-}" = "--plain" ] && mode=plain
seconds=${FUZZ_SECONDS:-60}
iterations=${FUZZ_ITERATIONS:-500000}
if [ -n "${FUZZ_WORKDIR:-}" ]; then
	work=$FUZZ_WORKDIR
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-shparse.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

# The parser needs only the string helpers; no configure run required.
printf '#define _GNU_SOURCE 1\n' > "$work/autoconf.h"
srcs="$srcdir/src/shell/shlex*.c $srcdir/src/shell/shparse*.c
    $srcdir/src/util/strv.c $srcdir/src/util/buf.c $srcdir/src/util/xalloc.c
    $srcdir/tests/fuzz/fuzz-shparse.c
    $srcdir/tests/fuzz/mutate.c"
cflags="-g -O1 -fno-omit-frame-pointer -I$work -I$srcdir/src/util -I$srcdir/src/shell"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"

have_libfuzzer() {
	command -v clang >/dev/null 2>&1 || return 1
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	    > "$work/probe.c"
	clang -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" \
	    >/dev/null 2>&1
}

# The parser against bash on generated programs (needs python3 and bash).
differential() {
	if command -v python3 >/dev/null 2>&1; then
		SHPARSE_DRIVER=$1 python3 "$srcdir/tests/fuzz/shparse-vs-bash.py" \
		    "${FUZZ_BASH_PROGRAMS:-2000}" "$(date +%s)"
	fi
}

if [ "$mode" = auto ] && have_libfuzzer; then
	echo "# libFuzzer: ${seconds}s"
	# shellcheck disable=SC2086
	clang $cflags $san -fsanitize=fuzzer -DFUZZ_LIBFUZZER $srcs \
	    -o "$work/fuzz-shparse"
	# shellcheck disable=SC2086
	clang $cflags $srcs -o "$work/plain"
	mkdir -p "$work/corpus"
	"$work/plain" --write-seeds "$work/corpus"
	status=0
	"$work/fuzz-shparse" -max_total_time="$seconds" -max_len=4096 \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -dict="$srcdir/tests/fuzz/shparse.dict" \
	    -artifact_prefix="$work/" "$work/corpus" \
	    > "$work/log" 2>&1 || status=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)' \
	    "$work/log" || true
	if [ "$status" -ne 0 ]; then
		tail -n 60 "$work/log"
		ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* \
		    2>/dev/null || true
		echo "not ok 1 - libFuzzer found a problem (exit $status)"
		exit 1
	fi
	echo "ok 1 - libFuzzer ran ${seconds}s without a finding"
	differential "$work/plain"
	exit 0
fi

echo "# plain driver under ASan/UBSan: $iterations mutated inputs"
# shellcheck disable=SC2086
${CC:-cc} $cflags $san $srcs -o "$work/plain"
FUZZ_ITERATIONS=$iterations "$work/plain"
differential "$work/plain"
