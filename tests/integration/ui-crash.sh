#!/bin/bash
# ui-crash: a crash signal gives the terminal back (out of the alternate
# screen, the modes from before curses, echo on) with async-signal-safe
# calls only, and the console dies of that signal, also when it crashed
# inside malloc (tests/fault/malloccrash.c).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
for sig in SEGV ABRT; do
	ui_start 100 30 || { done_testing; exit 1; }
	assert_eq "SIG$sig: the console is on the alternate screen" \
	    "$(tm display -p -t ui '#{alternate_on}')" 1
	# The console: the process started with this test's debug log.
	pid=$(pgrep -f -- "--log $T/console.log")
	kill -"$sig" "$pid"
	console_exited 10
	assert_eq "SIG$sig: the console dies of it" "$(cat "$T/console.rc")" \
	    $((128 + $(kill -l "$sig")))
	assert_eq "SIG$sig: the alternate screen is left" \
	    "$(tm display -p -t ui '#{alternate_on}')" 0
	# The pane now runs sleep: the terminal echoes what is typed only if
	# its modes were put back (curses runs it raw, without echo).
	keys "typed-after-$sig"
	check_screen "SIG$sig: the terminal echoes again" 5 "typed-after-$sig"
	tm kill-server
	wait_for 10 sh -c "! tmux -S '$TMUX_SOCK' ls"
done

# A crash inside malloc (a shim holds the allocator's lock and raises
# SIGSEGV there): a handler that allocates, flushes stdio or calls curses
# would wait for that lock forever; this one must still give the terminal
# back and die.
SHIM="$BWGATE_BUILDDIR/tests/fault/libmalloccrash.so"
ASAN_OFF="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
UI_ENV="LD_PRELOAD=$SHIM BWGATE_FAULT_CRASH=$T/crash-now $ASAN_OFF"
ui_start 100 30 || { done_testing; exit 1; }
unset UI_ENV
: > "$T/crash-now"
# A handler that hangs is killed, so nothing is left behind.
console_exited 10 || pkill -KILL -f -- "--log $T/console.log"
assert_eq "SEGV in malloc: the console dies of it" \
    "$(cat "$T/console.rc" 2>/dev/null)" $((128 + $(kill -l SEGV)))
assert_eq "SEGV in malloc: the alternate screen is left" \
    "$(tm display -p -t ui '#{alternate_on}')" 0
keys "typed-after-malloc"
check_screen "SEGV in malloc: the terminal echoes again" 5 "typed-after-malloc"
tm kill-server
done_testing
