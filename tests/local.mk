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
check_PROGRAMS += tests/unit/test-gitscan
tests_unit_test_gitscan_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_gitscan_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-gitscan
check_PROGRAMS += tests/unit/test-limiter
tests_unit_test_limiter_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_limiter_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-limiter
check_PROGRAMS += tests/unit/test-report
tests_unit_test_report_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_report_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-report
check_PROGRAMS += tests/unit/test-report-text
tests_unit_test_report_text_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_report_text_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-report-text
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
# the undo manifest read back: every field there, of its type, in range
check_PROGRAMS += tests/unit/test-undo-check
tests_unit_test_undo_check_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_undo_check_LDADD = $(UNIT_LDADD) -lm
TESTS += tests/unit/test-undo-check
check_PROGRAMS += tests/unit/test-display
tests_unit_test_display_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_display_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-display
# console core: protocol codec and queue
check_PROGRAMS += tests/unit/test-protocol tests/unit/test-queue
tests_unit_test_protocol_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_protocol_LDADD = $(UNIT_LDADD)
tests_unit_test_queue_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_queue_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-protocol tests/unit/test-queue
# terminal UI: pure formatting (core + ui/format.c only, no curses)
check_PROGRAMS += tests/unit/test-format
tests_unit_test_format_SOURCES = %D%/unit/test-format.c ui/text.c ui/text.h \
	ui/format.c ui/format.h
tests_unit_test_format_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ui
tests_unit_test_format_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_format_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-format
# direct file writes: rules, paths beneath the project, diff, message, verdict
check_PROGRAMS += tests/unit/test-filewrite
tests_unit_test_filewrite_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_filewrite_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-filewrite
check_PROGRAMS += tests/unit/test-helper-write
tests_unit_test_helper_write_SOURCES = %D%/unit/test-helper-write.c \
	src/sandbox/helper-write.c
tests_unit_test_helper_write_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_helper_write_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-helper-write
# spawn: descriptor map, signals, exec errors, failure paths (fork and
# pipe2 wrapped so they can be made to fail)
check_PROGRAMS += tests/unit/test-spawn
tests_unit_test_spawn_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_spawn_LDFLAGS = -Wl,--wrap=fork,--wrap=clone,--wrap=pipe2
tests_unit_test_spawn_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-spawn
# domains: host patterns and address classes for the proxy
check_PROGRAMS += tests/unit/test-domains
tests_unit_test_domains_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_domains_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-domains
# fdpass: descriptors over a unix socket, none leaked
check_PROGRAMS += tests/unit/test-fdpass
tests_unit_test_fdpass_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_fdpass_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-fdpass
# file: atomic writes and mkdir -p; sizes in one unit system (units.h)
check_PROGRAMS += tests/unit/test-file
tests_unit_test_file_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_file_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-file
# jsoncheck: what cJSON would lose, named by member (issue 26)
check_PROGRAMS += tests/unit/test-jsoncheck
tests_unit_test_jsoncheck_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_jsoncheck_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-jsoncheck
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
# The protocol decoder with an oracle: exact round trip or a refusal
# naming the hostile field (issue 26).
check_PROGRAMS += tests/fuzz/fuzz-roundtrip
tests_fuzz_fuzz_roundtrip_SOURCES = %D%/fuzz/fuzz-roundtrip.c
tests_fuzz_fuzz_roundtrip_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_roundtrip_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-roundtrip
# The rules-file parser with an oracle (issue 26).
check_PROGRAMS += tests/fuzz/fuzz-rules
tests_fuzz_fuzz_rules_SOURCES = %D%/fuzz/fuzz-rules.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h
tests_fuzz_fuzz_rules_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_rules_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-rules
# The Claude Code hook against generated input, with an oracle (fails
# closed, never allows what it cannot route, no objection only inside).
TESTS += %D%/fuzz/fuzz-hook.sh
EXTRA_DIST += %D%/fuzz/fuzz-hook.sh %D%/fuzz/fuzz-hook.py
# `make fuzz`: the oracle targets for longer (FUZZ_SCALE times the
# bounded runs of 'make check'; each prints how long it ran).
# First run (2026-11-27, 2 shared cores, nice): roundtrip 500000 messages
# in 314 s, rules 2000000 files in 67 s, protocol 20000000 lines in 162 s,
# mcp 2000000 lines in 23 s, hook 15000 calls in 43 s; all clean.
FUZZ_SCALE = 100
fuzz: all tests/fuzz/fuzz-roundtrip tests/fuzz/fuzz-rules \
    tests/fuzz/fuzz-protocol tests/fuzz/fuzz-mcp
	@set -e; for t in fuzz-roundtrip:5000 fuzz-rules:20000 \
	    fuzz-protocol:200000 fuzz-mcp:20000; do \
		n=$${t#*:}; t=$${t%%:*}; s=$$(date +%s); \
		FUZZ_ITERATIONS=$$(($$n * $(FUZZ_SCALE))) tests/fuzz/$$t; \
		echo "# $$t: $$(($$n * $(FUZZ_SCALE))) inputs in $$(($$(date +%s) - $$s)) s"; \
	done; s=$$(date +%s); \
	$(AM_TESTS_ENVIRONMENT) FUZZ_HOOK_COUNT=$$((300 * $(FUZZ_SCALE) / 2)) \
	    $(SHELL) $(srcdir)/tests/fuzz/fuzz-hook.sh; \
	echo "# fuzz-hook: $$((300 * $(FUZZ_SCALE) / 2)) inputs in $$(($$(date +%s) - $$s)) s"
.PHONY: fuzz
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
# bwgate mcp's JSON-RPC handling and tools (src/cli/mcp-*.c) fuzz target.
check_PROGRAMS += tests/fuzz/fuzz-mcp
tests_fuzz_fuzz_mcp_SOURCES = %D%/fuzz/fuzz-mcp.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h src/cli/cmd-mcp.c src/cli/cmd-run.c \
	src/cli/mcp-rpc.c src/cli/mcp-tools.c src/cli/mcp-run.c \
	src/cli/mcp-path.c src/cli/mcp-files.c src/cli/summary.c \
	src/cli/edge-refusal.c
tests_fuzz_fuzz_mcp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli
tests_fuzz_fuzz_mcp_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_mcp_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-mcp
# The file-write message between console and helper (write-proto.h), with
# oracles: one encoding, round trip, truncation refused.
check_PROGRAMS += tests/fuzz/fuzz-write
tests_fuzz_fuzz_write_SOURCES = %D%/fuzz/fuzz-write.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h src/sandbox/helper-write.c
tests_fuzz_fuzz_write_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_write_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-write
# Violation observer parsers (error output, paths) fuzz target.
check_PROGRAMS += tests/fuzz/fuzz-observe
tests_fuzz_fuzz_observe_SOURCES = %D%/fuzz/fuzz-observe.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h
tests_fuzz_fuzz_observe_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_observe_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-observe
# The display escaper: safe and unambiguous (decodes back) on every input.
check_PROGRAMS += tests/fuzz/fuzz-display
tests_fuzz_fuzz_display_SOURCES = %D%/fuzz/fuzz-display.c %D%/fuzz/mutate.c \
	%D%/fuzz/mutate.h
tests_fuzz_fuzz_display_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_fuzz_display_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/fuzz-display
# The one shell-quoting function against the real bash and dash.
check_PROGRAMS += tests/fuzz/shquote-vs-shell
tests_fuzz_shquote_vs_shell_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_fuzz_shquote_vs_shell_LDADD = $(CORE_LIBS)
TESTS += tests/fuzz/shquote-vs-shell

EXTRA_DIST += %D%/integration/libtest.sh %D%/integration/libgitattack.sh \
	%D%/integration/lib-net.sh %D%/integration/undo-gen.py
ENGINE_TESTS = \
	%D%/integration/exec-basic.sh \
	%D%/integration/exec-confine.sh \
	%D%/integration/contain-net.sh \
	%D%/integration/pod-world.sh \
	%D%/integration/pod-access.sh \
	%D%/integration/pod-console.sh \
	%D%/integration/pod-pids.sh \
	%D%/integration/pod-pids-nocg.sh \
	%D%/integration/pod-services.sh \
	%D%/integration/net-domains.sh \
	%D%/integration/net-console.sh \
	%D%/integration/net-clients.sh \
	%D%/integration/net-node.sh \
	%D%/integration/net-guard.sh \
	%D%/integration/ui-net.sh \
	%D%/integration/contain-limits.sh \
	%D%/integration/contain-emfile.sh \
	%D%/integration/contain-files.sh \
	%D%/integration/contain-setid.sh \
	%D%/integration/exec-changes.sh \
	%D%/integration/undo.sh \
	%D%/integration/undo-rollback.sh \
	%D%/integration/undo-excluded.sh \
	%D%/integration/undo-append.sh \
	%D%/integration/undo-clone.sh \
	%D%/integration/undo-console.sh \
	%D%/integration/undo-one-number.sh \
	%D%/integration/project-find.sh \
	%D%/integration/undo-plan-lines.sh \
	%D%/integration/console-memory.sh \
	%D%/integration/ui-output-disk.sh \
	%D%/integration/edge-refusal.sh \
	%D%/integration/ui-undone.sh \
	%D%/integration/changes-methods.sh \
	%D%/integration/changes-unsound.sh \
	%D%/integration/changes-random.sh \
	%D%/integration/console-writers.sh \
	%D%/integration/exec-concurrent.sh \
	%D%/integration/exec-events.sh \
	%D%/integration/exec-events-by.sh \
	%D%/integration/exec-attention.sh \
	%D%/integration/exec-executed.sh \
	%D%/integration/helper-gate.sh \
	%D%/integration/observe-wakeup.sh
TESTS += $(ENGINE_TESTS)
EXTRA_DIST += $(ENGINE_TESTS)
# Containment (issue 9): attacks against the real binary.
check_PROGRAMS += tests/integration/memwrite tests/integration/decide-race
tests_integration_decide_race_LDADD = -lpthread
CONTAIN_TESTS = \
	%D%/integration/contain-decide.sh \
	%D%/integration/contain-nested.sh \
	%D%/integration/decide-fifo.sh \
	%D%/integration/decide-resolve.sh \
	%D%/integration/contain-root.sh \
	%D%/integration/contain-git.sh \
	%D%/integration/contain-gitscan.sh \
	%D%/integration/contain-door.sh \
	%D%/integration/contain-bindrace.sh \
	%D%/integration/contain-gitwatch.sh
TESTS += $(CONTAIN_TESTS)
EXTRA_DIST += $(CONTAIN_TESTS)
# The console: real sockets, the real binary, a raw protocol peer.
check_PROGRAMS += tests/integration/console-peer
tests_integration_console_peer_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_integration_console_peer_LDADD = $(CJSON_LIBS)
# A socket planted by another user (console-trust.sh).
check_PROGRAMS += tests/integration/fake-console
TESTS += %D%/integration/console-trust.sh
EXTRA_DIST += %D%/integration/console-trust.sh
CONSOLE_TESTS = \
	%D%/integration/console-basic.sh \
	%D%/integration/console-sandboxed.sh \
	%D%/integration/console-who.sh \
	%D%/integration/rules-suggest.sh \
	%D%/integration/console-audit.sh \
	%D%/integration/console-badinput.sh \
	%D%/integration/console-lifecycle.sh \
	%D%/integration/console-load.sh \
	%D%/integration/console-uid.sh \
	%D%/integration/console-reload.sh \
	%D%/integration/console-show.sh \
	%D%/integration/console-history.sh \
	%D%/integration/console-rerun.sh \
	%D%/integration/console-warm.sh \
	%D%/integration/console-processes.sh \
	%D%/integration/console-prestart.sh \
	%D%/integration/console-prestart-idle.sh \
	%D%/integration/console-exact.sh \
	%D%/integration/agent-env.sh \
	%D%/integration/sh-compat.sh \
	%D%/integration/git-workflow.sh \
	%D%/integration/git-ops.sh \
	%D%/integration/newcomer.sh \
	%D%/integration/project-socket.sh
TESTS += $(CONSOLE_TESTS)
EXTRA_DIST += $(CONSOLE_TESTS) %D%/integration/console-lib.sh
# Executors on other machines, linked over a real sshd (issue 40).
REMOTE_TESTS = \
	%D%/integration/remote-basic.sh \
	%D%/integration/remote-drop.sh \
	%D%/integration/remote-host.sh \
	%D%/integration/remote-pin.sh \
	%D%/integration/remote-ui.sh \
	%D%/integration/remote-trust.sh
TESTS += $(REMOTE_TESTS)
EXTRA_DIST += $(REMOTE_TESTS) %D%/integration/remote-lib.sh
# Violation observer (seccomp user notification), through bwgate exec.
TESTS += %D%/integration/violations.sh
EXTRA_DIST += %D%/integration/violations.sh
# allowlist: verdicts, layering, rule validation, option grammar
if ENABLE_TESTS
check_PROGRAMS += tests/unit/test-allowlist
tests_unit_test_allowlist_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_allowlist_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-allowlist
# the semantic-trap table (tests/policy/semantics.txt) and the new keys
check_PROGRAMS += tests/unit/test-allowlist-table
tests_unit_test_allowlist_table_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_allowlist_table_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-allowlist-table
endif
EXTRA_DIST += %D%/policy/semantics.txt
TESTS += %D%/integration/check.sh
# git's allow rule only for the project's own top-level repository
TESTS += %D%/integration/allowlist-git.sh
EXTRA_DIST += %D%/integration/allowlist-git.sh
EXTRA_DIST += %D%/integration/check.sh
# what a command needs, verdict gaps, secrets (issue 41)
TESTS += %D%/integration/check-needs.sh
EXTRA_DIST += %D%/integration/check-needs.sh
TESTS += %D%/integration/check-measure.sh
EXTRA_DIST += %D%/integration/check-measure.sh
TESTS += %D%/integration/display-cli.sh
EXTRA_DIST += %D%/integration/display-cli.sh
TESTS += %D%/integration/trust-narrow.sh
EXTRA_DIST += %D%/integration/trust-narrow.sh
# The terminal UI, driven through a private tmux server.
UI_TESTS = \
	%D%/integration/ui-approve.sh \
	%D%/integration/ui-crash.sh \
	%D%/integration/ui-deny.sh \
	%D%/integration/ui-danger.sh \
	%D%/integration/ui-stake.sh \
	%D%/integration/ui-marks.sh \
	%D%/integration/ui-needs.sh \
	%D%/integration/ui-mounts.sh \
	%D%/integration/ui-layout.sh \
	%D%/integration/ui-waiting.sh \
	%D%/integration/agent-text.sh \
	%D%/integration/ui-live-owner.sh \
	%D%/integration/ui-flood.sh \
	%D%/integration/ui-quit.sh \
	%D%/integration/ui-services.sh \
	%D%/integration/ui-demo.sh \
	%D%/integration/ui-rule.sh \
	%D%/integration/ui-tmux.sh \
	%D%/integration/ui-display.sh \
	%D%/integration/ui-attention.sh \
	%D%/integration/ui-honest.sh \
	%D%/integration/ui-report.sh \
	%D%/integration/ui-git.sh \
	%D%/integration/ui-undo.sh \
	%D%/integration/ui-undo-earlier.sh \
	%D%/integration/ui-find.sh \
	%D%/integration/ui-small.sh
TESTS += $(UI_TESTS)
EXTRA_DIST += $(UI_TESTS) %D%/integration/ui-lib.sh
# The core's layering (nm over the archives) and no curses in the core.
TESTS += %D%/build/layers.sh
TESTS += %D%/build/door.sh
EXTRA_DIST += %D%/build/door.sh
# One way to resolve a path: realpath, openat2, pathwalk only where named.
TESTS += %D%/build/resolve.sh
EXTRA_DIST += %D%/build/resolve.sh
EXTRA_DIST += %D%/build/layers.sh
# The agent setups the real-client tests run are the ones doc/agents.md shows.
TESTS += %D%/build/agents-doc.sh
EXTRA_DIST += %D%/build/agents-doc.sh
# The console's key table and the KEYS list of bwgate(1) agree.
TESTS += %D%/build/keys-doc.sh
EXTRA_DIST += %D%/build/keys-doc.sh
# The variables only the tests set are read in one place (testhook.h).
TESTS += %D%/build/testhooks.sh
EXTRA_DIST += %D%/build/testhooks.sh
TESTS += %D%/build/quickstart-progress.sh
EXTRA_DIST += %D%/build/quickstart-progress.sh
# bwgate --version and NEWS agree; the man pages render cleanly.
TESTS += %D%/build/docs.sh
EXTRA_DIST += %D%/build/docs.sh
# One shell-quoting function: no quoting idiom by hand elsewhere.
TESTS += %D%/build/quoting.sh
EXTRA_DIST += %D%/build/quoting.sh
# Fault injection: a shim that fails writes and syncs of the audit log.
# (A shared object: built by hand, as automake builds no .so without libtool;
# no sanitizer flags, it is preloaded into whatever binary is tested.)
# A second one crashes the process inside malloc (ui-crash.sh).
check_DATA = tests/fault/libauditfault.so tests/fault/libmalloccrash.so
tests/fault/libauditfault.so: $(srcdir)/tests/fault/auditfault.c
	@$(MKDIR_P) tests/fault
	$(AM_V_CC)$(CC) -O1 -g -Wall -Wextra -shared -fPIC -o $@ \
	    $(srcdir)/tests/fault/auditfault.c -ldl
tests/fault/libmalloccrash.so: $(srcdir)/tests/fault/malloccrash.c
	@$(MKDIR_P) tests/fault
	$(AM_V_CC)$(CC) -O1 -g -Wall -Wextra -shared -fPIC -o $@ \
	    $(srcdir)/tests/fault/malloccrash.c -ldl -lpthread
CLEANFILES += $(check_DATA)
EXTRA_DIST += %D%/fault/auditfault.c %D%/fault/malloccrash.c
FAULT_TESTS = %D%/integration/fault-audit.sh %D%/integration/fault-kill.sh
TESTS += $(FAULT_TESTS)
EXTRA_DIST += $(FAULT_TESTS)
# Agent reach: bwgate mcp against the official MCP SDK (node), JSON-RPC
# robustness without any SDK, and the Claude Code hook.
MCP_TESTS = \
	%D%/integration/mcp-sdk.sh \
	%D%/integration/mcp-rpc.sh \
	%D%/integration/hook-claude.sh \
	%D%/integration/hook-port.sh \
	%D%/integration/agent-config.sh \
	%D%/integration/args-fd.sh \
	%D%/integration/headless-unlisted.sh \
	%D%/integration/headless-outside.sh \
	%D%/integration/discovery.sh \
	%D%/integration/console-write.sh \
	%D%/integration/write-data.sh \
	%D%/integration/ui-write.sh
TESTS += $(MCP_TESTS)
# File names that are not UTF-8 through the MCP file tools (path_base64).
TESTS += %D%/integration/mcp-names.sh
EXTRA_DIST += %D%/integration/mcp-names.sh
# The agent's edge (issue 26): refusals naming the field, the hook
# failing closed, the environment in the verdict, JSON output as UTF-8.
EDGE_TESTS = \
	%D%/integration/edge-env.sh \
	%D%/integration/edge-hook.sh \
	%D%/integration/edge-input.sh \
	%D%/integration/edge-json.sh
TESTS += $(EDGE_TESTS)
EXTRA_DIST += $(EDGE_TESTS) %D%/integration/fakeconsole.py
EXTRA_DIST += $(MCP_TESTS) %D%/mcp/package.json %D%/mcp/package-lock.json \
	%D%/mcp/client.mjs
# The MCP SDK that mcp-sdk.sh installs into the build tree (npm ci).
clean-local: clean-mcp-sdk
clean-mcp-sdk:
	rm -rf tests/mcp-sdk
.PHONY: clean-mcp-sdk

# The randomised change-report test at length (issue 25): many more
# rounds than `make check` runs; CHANGES_RANDOM_SEED=N repeats a run.
EXTRA_DIST += %D%/integration/changes-random.py
check-long: all
	CHANGES_RANDOM_COUNT=$${CHANGES_RANDOM_COUNT:-1000}; \
	export CHANGES_RANDOM_COUNT; \
	$(MAKE) $(AM_MAKEFLAGS) check \
	    TESTS="tests/integration/changes-random.sh"
.PHONY: check-long

# The whole suite while every CPU is busy: no test may depend on timing.
EXTRA_DIST += %D%/run-loaded.sh
check-loaded: all
	$(SHELL) $(srcdir)/tests/run-loaded.sh $(MAKE) $(AM_MAKEFLAGS) check
.PHONY: check-loaded

# The real Claude Code, Codex CLI and Gemini CLI driven through bwgate
# against scripted model APIs (issue 31). Not in `make check`: install.sh
# fetches the pinned clients from npm (about 850 MB) into the build tree
# first. `make
# check-agents` (./quickstart check-agents, a pass of its own in .ci/run)
# installs them and runs only these.
AGENT_TESTS = \
	%D%/agents/claude-hook.sh \
	%D%/agents/claude-mcp.sh \
	%D%/agents/claude-rules.sh \
	%D%/agents/claude-tui.sh \
	%D%/agents/codex-mcp.sh \
	%D%/agents/codex-wait.sh \
	%D%/agents/gemini-mcp.sh \
	%D%/agents/gemini-wait.sh \
	%D%/agents/planted.sh \
	%D%/agents/waits.sh
if AGENT_TESTS_IN_CHECK
TESTS += $(AGENT_TESTS)
endif
EXTRA_DIST += $(AGENT_TESTS) %D%/agents/lib.sh %D%/agents/install.sh \
	%D%/agents/mock-anthropic.mjs %D%/agents/mock-openai.mjs \
	%D%/agents/mock-gemini.mjs \
	%D%/agents/package.json %D%/agents/package-lock.json \
	%D%/agents/setup/claude-hook.json %D%/agents/setup/claude-mcp.json \
	%D%/agents/setup/claude-mcp.sh %D%/agents/setup/codex.toml \
	%D%/agents/setup/gemini.json
check-agents: all
	$(SHELL) $(srcdir)/tests/agents/install.sh tests/agents-clients
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(AGENT_TESTS)"
clean-local: clean-agent-clients
clean-agent-clients:
	rm -rf tests/agents-clients
.PHONY: check-agents clean-agent-clients

# The node net-node.sh runs (one with NODE_USE_ENV_PROXY), pinned in
# tests/node/package-lock.json, from npm into the build tree: ./quickstart
# check makes it before the suite; without it net-node.sh skips and says so.
EXTRA_DIST += %D%/node/install.sh %D%/node/package.json \
	%D%/node/package-lock.json
node-client:
	$(SHELL) $(srcdir)/tests/node/install.sh tests/node-client
clean-local: clean-node-client
clean-node-client:
	rm -rf tests/node-client
.PHONY: node-client clean-node-client

# Mutation testing: break each listed security check in a scratch copy of
# the tree and make sure its tests fail (tests/mutation.sh; not in `make
# check`: it rebuilds once per mutation).
mutation:
	$(SHELL) $(top_srcdir)/tests/mutation.sh $(MUTATION_FLAGS)
.PHONY: mutation
EXTRA_DIST += %D%/mutation.sh %D%/mutations.list

if ENABLE_TESTS
# audit: every commit fsync'd, a failing fsync fails it (fsync wrapped)
check_PROGRAMS += tests/unit/test-audit
tests_unit_test_audit_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_audit_LDFLAGS = -Wl,--wrap=fsync
tests_unit_test_audit_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-audit
# agent configuration table: paths inside the project only, depth matching
check_PROGRAMS += tests/unit/test-agentcfg
tests_unit_test_agentcfg_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_agentcfg_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-agentcfg
# protect: what a run may not make or change (every table entry, depths,
# globs, lifts, git-write's allowlist, core.hooksPath), against an oracle
check_PROGRAMS += tests/unit/test-protect
tests_unit_test_protect_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_protect_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test-protect
endif
# No stand-in files: the project inside as it is, nothing on the host.
TESTS += %D%/integration/contain-as-is.sh
EXTRA_DIST += %D%/integration/contain-as-is.sh
# a project rule file that cannot be used is ignored with a warning
TESTS += %D%/integration/rules-invalid.sh
EXTRA_DIST += %D%/integration/rules-invalid.sh
# the hooks git runs (core.hooksPath, the config's includes) are protected
TESTS += %D%/integration/protect-hookspath.sh
EXTRA_DIST += %D%/integration/protect-hookspath.sh
# every open flag that writes is in the recorded calls' report
TESTS += %D%/integration/changes-flags.sh
EXTRA_DIST += %D%/integration/changes-flags.sh
# the report and doctor say what the limits really cover
TESTS += %D%/integration/contain-limits-honest.sh
EXTRA_DIST += %D%/integration/contain-limits-honest.sh
# the door refuses links inside the project too (file tools, protected)
TESTS += %D%/integration/door-symlinks.sh
EXTRA_DIST += %D%/integration/door-symlinks.sh
# the project's rule file through the door: FIFO, links, huge, directory
TESTS += %D%/integration/door-rulefile.sh
EXTRA_DIST += %D%/integration/door-rulefile.sh
# a manifest in the undo store missing a field or out of range: refused
TESTS += %D%/integration/undo-manifest.sh
EXTRA_DIST += %D%/integration/undo-manifest.sh
# undo tells a reused inode number by the birth time
TESTS += %D%/integration/undo-inode-reuse.sh
EXTRA_DIST += %D%/integration/undo-inode-reuse.sh
# a refusal tells a command nothing about the host's files
TESTS += %D%/integration/violations-hostinfo.sh
EXTRA_DIST += %D%/integration/violations-hostinfo.sh
# one way to start a program: only spawn.c forks or execs (nm)
TESTS += %D%/build/spawn.sh
TESTS += %D%/build/fdpass.sh
EXTRA_DIST += %D%/build/fdpass.sh
EXTRA_DIST += %D%/build/spawn.sh %D%/build/lib-imports.sh
# runs from two pid namespaces (both PID 1) keep their cgroups apart
TESTS += %D%/integration/contain-cgroup-ns.sh
EXTRA_DIST += %D%/integration/contain-cgroup-ns.sh
# Per-test times of a make check run (tests/test-times.sh says how).
EXTRA_DIST += %D%/test-times.sh
