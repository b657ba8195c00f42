#!/bin/bash
# fuzz-hook.sh: run fuzz-hook.py (the Claude Code hook against generated
# input, with an oracle) from 'make check': FUZZ_HOOK_COUNT inputs (300;
# `make fuzz` runs more). A project with a link out of it, a dangling link
# and a subdirectory, in a temp dir removed at exit.
. "$BWGATE_SRCDIR/tests/integration/libtest.sh"
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
P=$(new_project)
mkdir -p "$P/sub" "$P/.github/workflows" "$T/outside"
ln -s "$T/outside" "$P/link"
ln -s "$T/outside/target" "$P/dangling"
python3 "$BWGATE_SRCDIR/tests/fuzz/fuzz-hook.py" "$BWGATE" "$P" "$T/outside" \
    "${FUZZ_HOOK_COUNT:-300}" "${FUZZ_SEED:-26}"
