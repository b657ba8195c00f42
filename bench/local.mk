# Benchmarks: run by hand with 'make bench' (never part of 'make check').
EXTRA_DIST += %D%/run %D%/bench-exec.sh %D%/bare-bwrap.sh %D%/bench-proxy.sh %D%/bench-remote.sh
bench: all
	$(SHELL) $(srcdir)/%D%/run $(abs_top_builddir) $(abs_top_srcdir)
.PHONY: bench

# Large-tree benchmark of the change report: 'make bench-large'.
noinst_PROGRAMS += bench/bench-snapshot
bench_bench_snapshot_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
bench_bench_snapshot_LDADD = $(CORE_LIBS)
EXTRA_DIST += %D%/bench-snapshot.sh
bench-large: all
	bash $(srcdir)/%D%/bench-snapshot.sh $(abs_top_builddir)
.PHONY: bench-large

# Live monitor overhead on a write-heavy command: 'make bench-monitor'.
noinst_PROGRAMS += bench/bench-monitor
bench_bench_monitor_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
bench_bench_monitor_LDADD = $(CORE_LIBS)
EXTRA_DIST += %D%/bench-monitor.sh
bench-monitor: all
	bash $(srcdir)/%D%/bench-monitor.sh $(abs_top_builddir)
.PHONY: bench-monitor

# Violation observer cost (per write call, a compile, start-up): part of
# 'make bench' (bench/run runs every bench-*.sh).
EXTRA_DIST += %D%/bench-observe.sh

# Allowlist classifications per second (run by bench/run).
noinst_PROGRAMS += bench/bench-classify
bench_bench_classify_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
bench_bench_classify_LDADD = $(CORE_LIBS)
EXTRA_DIST += %D%/bench-classify.sh

# The console end to end (run by bench/run): bwgate run against bare bwrap,
# and 1,000 queued requests answered.
EXTRA_DIST += %D%/bench-console.sh %D%/bench-soak.sh

# What the project's git watcher saves on a large project (run by
# bench/run, or alone: BWGATE=_build/bwgate bash bench/bench-gitwatch.sh).
EXTRA_DIST += %D%/bench-gitwatch.sh

# Project size, writers side by side, notification cost on a real build
# (run by bench/run).
EXTRA_DIST += %D%/bench-scale.sh

# Undo on against off: a build, sed -i over 10,000 files, a 1 GiB file
# (run by bench/run).
EXTRA_DIST += %D%/bench-undo.sh
bench: tests/integration/console-peer

# The shell parser: linear time on long inputs, rate on typical commands.
noinst_PROGRAMS += bench/bench-parse
bench_bench_parse_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
bench_bench_parse_LDADD = $(CORE_LIBS)
EXTRA_DIST += %D%/bench-parse.sh

# Real agent commands (tests/corpus) through the allowlist: the share allowed
# at once and the share that reaches the operator in sandboxed mode (run by
# bench/run; 'python3 bench/corpus.py --list CLASS' prints a class).
EXTRA_DIST += %D%/bench-corpus.sh %D%/corpus.py \
	tests/corpus/README.md tests/corpus/commands.jsonl \
	tests/corpus/roots.json tests/corpus/node-bins.json \
	tests/corpus/extract.py tests/corpus/node_bins.py
