# Benchmarks: run by hand with 'make bench' (never part of 'make check').
EXTRA_DIST += %D%/run %D%/bench-exec.sh
bench: all
	$(SHELL) $(srcdir)/%D%/run $(abs_top_builddir) $(abs_top_srcdir)
.PHONY: bench
