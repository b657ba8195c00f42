#!/bin/sh
# bench-corpus.sh: the allowlist on real agent commands (issue 30):
# tests/corpus/commands.jsonl classified by 'bwgate check'; the share allowed
# at once (target >= 93 %), the share that reaches the operator in sandboxed
# mode (target <= 2 %), and the largest classes of what still asks.
# Run by bench/run with BWGATE and BWGATE_SRCDIR set.
set -u
exec python3 "$BWGATE_SRCDIR/bench/corpus.py" --bwgate "$BWGATE" \
	--corpus "$BWGATE_SRCDIR/tests/corpus/commands.jsonl"
