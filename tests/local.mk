# Unit tests (cmocka, TAP) and integration tests (shell, TAP), all run by 'make check'.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
AM_TESTS_ENVIRONMENT = \
	CMOCKA_MESSAGE_OUTPUT=TAP; export CMOCKA_MESSAGE_OUTPUT; \
	BWGATE=$(abs_top_builddir)/bwgate; export BWGATE; \
	BWGATE_SRCDIR=$(abs_top_srcdir); export BWGATE_SRCDIR; \
	BWGATE_BUILDDIR=$(abs_top_builddir); export BWGATE_BUILDDIR;

UNIT_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(CMOCKA_CFLAGS)
UNIT_LDADD = $(CORE_LIBS) $(CMOCKA_LIBS)

if ENABLE_TESTS
check_PROGRAMS += tests/unit/test-sandbox
tests_unit_test_sandbox_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sandbox_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-sandbox
check_PROGRAMS += tests/unit/test-report
tests_unit_test_report_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_report_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-report
check_PROGRAMS += tests/unit/test-snapshot
tests_unit_test_snapshot_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_snapshot_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-snapshot
check_PROGRAMS += tests/unit/test-monitor
tests_unit_test_monitor_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_monitor_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-monitor
check_PROGRAMS += tests/unit/test-observe
tests_unit_test_observe_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_observe_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-observe
# console core: protocol codec and queue
check_PROGRAMS += tests/unit/test-protocol tests/unit/test-queue
tests_unit_test_protocol_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_protocol_LDADD = $(UNIT_LDADD)
tests_unit_test_queue_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_queue_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-protocol tests/unit/test-queue
# terminal UI: pure formatting (core + ui/format.c only, no curses)
check_PROGRAMS += tests/unit/test-format
tests_unit_test_format_SOURCES = %D%/unit/test-format.c ui/format.c ui/format.h
tests_unit_test_format_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
tests_unit_test_format_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_format_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-format
# shell parser
check_PROGRAMS += tests/unit/test-shparse
tests_unit_test_shparse_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_shparse_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-shparse
endif
# Fuzz target (libFuzzer with -DFUZZ_LIBFUZZER; here a mutation smoke run).
check_PROGRAMS += tests/fuzz/fuzz-protocol
tests_fuzz_fuzz_protocol_SOURCES = %D%/fuzz/fuzz-protocol.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h
tests_fuzz_fuzz_protocol_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_protocol_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-protocol
# Shell parser fuzz target; tests/fuzz/run-shparse.sh runs libFuzzer on it.
check_PROGRAMS += tests/fuzz/fuzz-shparse
tests_fuzz_fuzz_shparse_SOURCES = %D%/fuzz/fuzz-shparse.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h
tests_fuzz_fuzz_shparse_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_shparse_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-shparse
EXTRA_DIST += %D%/fuzz/run-shparse.sh %D%/fuzz/shparse.dict
# The parser against the real bash: the commands bash runs, word for word.
TESTS += %D%/fuzz/shparse-vs-bash.sh
EXTRA_DIST += %D%/fuzz/shparse-vs-bash.sh %D%/fuzz/shparse-vs-bash.py
# Violation observer parsers (error output, paths) fuzz target.
check_PROGRAMS += tests/fuzz/fuzz-observe
tests_fuzz_fuzz_observe_SOURCES = %D%/fuzz/fuzz-observe.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h
tests_fuzz_fuzz_observe_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_observe_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-observe

EXTRA_DIST += %D%/integration/libtest.sh
ENGINE_TESTS = \
	%D%/integration/exec-basic.sh \
	%D%/integration/exec-confine.sh \
	%D%/integration/exec-changes.sh \
	%D%/integration/exec-concurrent.sh \
	%D%/integration/exec-events.sh
TESTS += $(ENGINE_TESTS)
EXTRA_DIST += $(ENGINE_TESTS)
# The console: real sockets, the real binary, a raw protocol peer.
check_PROGRAMS += tests/integration/console-peer
tests_integration_console_peer_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_integration_console_peer_LDADD = $(CJSON_LIBS)
CONSOLE_TESTS = \
	%D%/integration/console-basic.sh \
	%D%/integration/console-badinput.sh \
	%D%/integration/console-lifecycle.sh \
	%D%/integration/console-load.sh \
	%D%/integration/console-uid.sh \
	%D%/integration/agent-env.sh \
	%D%/integration/sh-compat.sh \
	%D%/integration/git-workflow.sh \
	%D%/integration/newcomer.sh \
	%D%/integration/project-socket.sh
TESTS += $(CONSOLE_TESTS)
EXTRA_DIST += $(CONSOLE_TESTS) %D%/integration/console-lib.sh
# Violation observer (seccomp user notification), through bwgate exec.
TESTS += %D%/integration/violations.sh
EXTRA_DIST += %D%/integration/violations.sh
# allowlist: verdicts, layering, rule validation, option grammar
if ENABLE_TESTS
check_PROGRAMS += tests/unit/test-allowlist
tests_unit_test_allowlist_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_allowlist_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-allowlist
endif
TESTS += %D%/integration/check.sh
EXTRA_DIST += %D%/integration/check.sh
# The terminal UI, driven through a private tmux server.
UI_TESTS = \
	%D%/integration/ui-approve.sh \
	%D%/integration/ui-deny.sh \
	%D%/integration/ui-mounts.sh \
	%D%/integration/ui-layout.sh \
	%D%/integration/ui-flood.sh \
	%D%/integration/ui-quit.sh \
	%D%/integration/ui-rule.sh \
	%D%/integration/ui-tmux.sh
TESTS += $(UI_TESTS)
EXTRA_DIST += $(UI_TESTS) %D%/integration/ui-lib.sh
# The core's layering (nm over the archives) and no curses in the core.
TESTS += %D%/build/layers.sh
EXTRA_DIST += %D%/build/layers.sh
