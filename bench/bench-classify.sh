#!/bin/sh
# bench-classify.sh: allowlist classification rate (target >= 100,000/s).
# Run by bench/run with BWGATE_BUILDDIR and BWGATE_DATADIR set.
set -u
exec "$BWGATE_BUILDDIR/bench/bench-classify" "${BENCH_SECONDS:-2}"
