#!/bin/sh
# bench-parse.sh: the shell parser's time on long inputs (linear, not
# quadratic) and its rate on typical commands. Run by bench/run.
set -u
exec "$BWGATE_BUILDDIR/bench/bench-parse"
