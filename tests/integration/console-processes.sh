#!/bin/bash
# console-processes (issue 39): the processes one `bwgate run -- true`
# through a console makes, counted by following the console with strace
# (every clone, clone3, fork and vfork that makes a process, not a
# thread), from a quiet console with its prestarted sandbox waiting to
# the same again after the request:
#  - a prestarted sandbox taken (the usual case): 5, the next warm exec
#    and the sandbox it makes ahead (bwrap, bwrap's init in the new PID
#    namespace, the helper, the helper's delegate). The command is the
#    helper itself (exec), the request's exec the warm one that waited.
#    It was 6 before issue 39: the delegate was forked twice.
#  - a prestarted sandbox missed (another working directory): 4 more, the
#    request's own sandbox; it was 5.
# The console's execs are its children (pgrep -P), as in console-warm.sh.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

if ! command -v strace > /dev/null; then
	echo "1..0 # SKIP strace is not installed (quickstart installs it)"
	exit 0
fi
P=$(new_project)
cd "$P" || exit 1
mkdir sub

# LeakSanitizer cannot work under ptrace, and at each exit it would clone
# a tracer of its own that a count would take for ours: off here (an
# AddressSanitizer build; nothing else reads it).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# The console under strace: CPID is strace's, CON the console's.
REAL=$BWGATE
printf '#!/bin/sh\nexec strace -f -qq -o "%s" -e trace=clone,clone3,fork,vfork "%s" "$@"\n' \
    "$T/st" "$REAL" > "$T/straced"
chmod +x "$T/straced"
if ! strace -f -qq -o /dev/null -e trace=clone true 2> /dev/null; then
	echo "1..0 # SKIP strace cannot trace here (ptrace refused)"
	exit 0
fi
BWGATE="$T/straced"
export BWGATE_LOG="$T/exec.log"	# the warm execs say when they are ready
start_console --headless --auto-allowlisted
BWGATE=$REAL
CON=$(pgrep -P "$CPID")
TEARDOWN="kill -TERM $CON 2>/dev/null; wait $CPID 2>/dev/null"

# Processes made so far: successful calls without CLONE_THREAD (a call
# strace splits, <unfinished ...>, counts at its first line).
made() {
	grep -E '(clone3?|v?fork)\(' "$T/st" | grep -v -e CLONE_THREAD \
	    -e 'resumed>' -e '= -1 ' | wc -l
}
# A warm exec of the console's holding a prestarted sandbox, not $1.
prestarted() {
	local p
	for p in $(pgrep -P "$CON"); do
		[ "$p" != "${1:-}" ] &&
		    grep -qa -- '--prestart' "/proc/$p/cmdline" 2>/dev/null &&
		    waiting_for_policy_of "$p" &&
		    pgrep -P "$p" -x bwrap > /dev/null &&
		    { echo "$p"; return 0; }
	done
	return 1
}
# waiting_for_policy with the console's pid (CPID is strace here).
waiting_for_policy_of() {
	local CPID=$CON
	waiting_for_policy "$1"
}
# Sandboxes made ahead that are ready (their helper and delegate up, the
# helper answered): at least $1.
ready() {
	[ "$(grep -c 'prestarted: waiting for a request' "$T/exec.log")" -ge "$1" ]
}
# Quiet: no process made for a second (the sandbox made ahead is ready).
quiet() {
	local a b
	a=$(made)
	sleep 1
	b=$(made)
	[ "$a" = "$b" ]
}
field() { jq -r "$1" "$T/r.json"; }

# The first request has nothing predicted: it makes the first prediction.
"$BWGATE" run --json -- true > "$T/r.json" 2> /dev/null < /dev/null
assert_eq "a first request runs" "$(field .exit_code)" 0
ok_if "a sandbox is made ahead" wait_for 20 prestarted
ok_if "  and is ready" wait_for 20 ready 1
ok_if "  and the console is quiet" wait_for 20 quiet
w=$(prestarted)

n0=$(made)
"$BWGATE" run --json -- true > "$T/r.json" 2> /dev/null < /dev/null
assert_eq "the next one runs" "$(field .exit_code)" 0
assert_eq "  in the prestarted sandbox" "$(field .sandbox.prestarted)" true
next() { prestarted "$w"; }
ok_if "  another sandbox is made ahead" wait_for 20 next
ok_if "  and is ready" wait_for 20 ready 2
ok_if "  and the console is quiet" wait_for 20 quiet
n1=$(made)
echo "# a request taking the prestarted sandbox made $((n1 - n0)) processes"
ok_if "  it made 5 processes (not 6): $((n1 - n0))" test $((n1 - n0)) -eq 5
w=$(prestarted)

# Another working directory: another sandbox than the one made ahead.
(cd sub && "$BWGATE" run --json -- true > "$T/r.json" 2> /dev/null \
    < /dev/null)
assert_eq "a request from another directory runs" "$(field .exit_code)" 0
assert_eq "  in a sandbox of its own" "$(field .sandbox.prestarted)" null
ok_if "  another sandbox is made ahead" wait_for 20 next
ok_if "  and is ready" wait_for 20 ready 3
ok_if "  and the console is quiet" wait_for 20 quiet
n2=$(made)
echo "# a request missing the prestarted sandbox made $((n2 - n1)) processes"
ok_if "  it made 9 processes (not 11): $((n2 - n1))" test $((n2 - n1)) -eq 9

kill -TERM "$CON"
wait "$CPID"
TEARDOWN=
done_testing
