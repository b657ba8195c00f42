#!/bin/bash
# console-lifecycle: operator decisions, timeouts, kills, disconnects,
# shutdown and a console killed outright.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"

# Is a process with exactly these arguments alive?
running() {
	ps -eo args= | grep -qx -- "$1"
}

# The state of request $1 as the control socket lists it.
state_of() {
	"$BWGATE" list --json | jq -r ".[] | select(.id == $1) | .state"
}

# Is request $1 in state $2 now? (for wait_for: evaluated on every poll)
state_is() {
	test "$(state_of "$1")" = "$2"
}

# --- headless without --auto-allowlisted: the operator decides ---
start_console --headless
"$BWGATE" run -- echo approved > "$T/a.out" 2> "$T/a.err" &
RUNPID=$!
ok_if "request waits (listed pending)" wait_for 10 \
    sh -c "\"$BWGATE\" list | grep -q 'pending.*echo approved'"
ok_if "client says it waits for approval" wait_for 10 \
    grep -q "request 1 is waiting for approval" "$T/a.err"
"$BWGATE" approve 1; assert_eq "bwgate approve" "$?" 0
wait $RUNPID; assert_eq "approved run exits 0" "$?" 0
assert_eq "its output" "$(cat "$T/a.out")" approved
assert_match "client said it was approved" "$(cat "$T/a.err")" \
    "request 1 approved"
ok_if "decision by the operator in the audit log" \
    sh -c "jq -c 'select(.record==\"decision\" and .id==1)' '$AUDIT' |
    grep -q '\"by\":\"operator\".*control socket'"

"$BWGATE" run -- echo nope > /dev/null 2> "$T/d.err" &
RUNPID=$!
wait_for 10 state_is 2 pending
"$BWGATE" deny --note "not today" 2; assert_eq "bwgate deny" "$?" 0
wait $RUNPID; assert_eq "denied run exits 77" "$?" 77
assert_match "operator's note reaches the agent" "$(cat "$T/d.err")" \
    "denied by the operator: not today"
err=$("$BWGATE" approve 2 2>&1); rc=$?
assert_eq "approving a denied request fails" "$rc" 1
assert_match "and says why" "$err" "cannot approve request 2: it is denied"
"$BWGATE" deny 999 2>/dev/null; assert_eq "unknown id fails" "$?" 1

# The operator widens the sandbox while approving.
mkdir -p "$T/extra"
"$BWGATE" run -- touch "$T/extra/f" > /dev/null 2>&1 &
RUNPID=$!
wait_for 10 state_is 3 pending
"$BWGATE" approve --rw "$T/extra" 3
wait $RUNPID; assert_eq "approved with an extra writable path" "$?" 0
ok_if "the command wrote there" test -f "$T/extra/f"
ok_if "the edit is in the audit log" sh -c \
    "jq -c 'select(.record==\"decision\" and .id==3) | .edits.rw[0]' '$AUDIT' |
    grep -q extra"

# Kill a running request.
"$BWGATE" run -- sleep 341 > /dev/null 2>&1 &
RUNPID=$!
wait_for 10 state_is 4 pending
"$BWGATE" approve 4
ok_if "sleep runs" wait_for 10 running "sleep 341"
"$BWGATE" kill 4; assert_eq "bwgate kill" "$?" 0
wait $RUNPID; rc=$?
ok_if "killed run exits with a signal status" test "$rc" -ge 128
assert_eq "state killed" "$(state_of 4)" killed
ok_unless "the sandboxed process is gone" running "sleep 341"

# Disconnect while pending: the request is withdrawn.
printf '{"type":"submit","command":"sleep 342"}\n' | "$PEER" -t 10 -w queued "$S" >/dev/null
ok_if "pending request withdrawn when its agent leaves" \
    wait_for 10 state_is 5 withdrawn

# Denied without a note: said once, not twice.
"$BWGATE" run -- echo nope > /dev/null 2> "$T/n.err" &
RUNPID=$!
wait_for 10 state_is 6 pending
"$BWGATE" deny 6
wait $RUNPID; assert_eq "denied without a note: 77" "$?" 77
assert_eq "the agent reads who denied it, and that there was no note" \
    "$(grep denied "$T/n.err")" "bwgate: denied by the operator (no note)"

# A request that runs into its timeout: said in words, with the time,
# and its own exit status (not a kill's 143).
"$BWGATE" run --timeout 1 -- sleep 345 > /dev/null 2> "$T/to.err" &
RUNPID=$!
wait_for 10 state_is 7 pending
"$BWGATE" approve 7
wait $RUNPID; assert_eq "timed out: exit status 124" "$?" 124
assert_match "the agent reads that it timed out, and after how long" \
    "$(cat "$T/to.err")" "the command timed out after [0-9.]+ s"
ok_unless "no internal state name" grep -q "timed-out" "$T/to.err"
stop_console

# Approval timeout denies.
start_console --headless --approval-timeout 1
err=$("$BWGATE" run -- true 2>&1); rc=$?
assert_eq "approval timeout: 77" "$rc" 77
assert_match "says no decision came" "$err" "timeout: no decision within 1 seconds"
stop_console

# --- auto mode: disconnect while running, shutdown ---
start_console --headless --auto-allowlisted
printf '{"type":"submit","command":"sleep 343"}\n' | "$PEER" -t 10 -w started "$S" >/dev/null
ok_if "running request killed when its agent leaves" wait_for 15 sh -c \
    "jq -c 'select(.record==\"result\")' '$AUDIT' | grep -q '\"state\":\"killed\".*agent disconnected'"
ok_unless "its sandbox is gone" running "sleep 343"

# SIGTERM: the running command is killed and its agent told.
"$BWGATE" run -- sleep 344 > /dev/null 2> "$T/t.err" &
RUNPID=$!
wait_for 10 running "sleep 344"
stop_console
assert_eq "console exits 0 on SIGTERM" "$CRC" 0
wait $RUNPID; rc=$?
ok_if "agent got a result (signal status)" test "$rc" -ge 128
assert_match "agent told why" "$(cat "$T/t.err")" "shutting down"
ok_unless "sandbox gone after shutdown" running "sleep 344"
ok_unless "sockets removed" test -e "$S"
assert_eq "audit ends with console-stop" \
    "$(tail -1 "$AUDIT" | jq -r .record)" console-stop

# SIGKILL: the sandbox dies with the console, nothing is left behind.
ls -A "$P" | sort > "$T/before"
start_console --headless --auto-allowlisted
"$BWGATE" run -- sleep 345 > /dev/null 2> "$T/k.err" &
RUNPID=$!
ok_if "sleep runs before SIGKILL" wait_for 10 running "sleep 345"
kill -KILL "$CPID"; wait "$CPID" 2>/dev/null
wait $RUNPID; assert_eq "agent: 125 when the console dies" "$?" 125
ok_if "sandbox died with the console" wait_for 10 sh -c '! ps -eo args= | grep -qx "sleep 345"'
ok_if "no exec child left" wait_for 10 sh -c "! ps -eo args= | grep -q '^$BWGATE exec.*sleep 345'"
ls -A "$P" | sort > "$T/after"
ok_if "no placeholder left in the project" wait_for 5 cmp "$T/before" "$T/after"
ok_if "audit log still readable" audit_valid
start_console --headless --auto-allowlisted
"$BWGATE" run -- true; assert_eq "a new console replaces the dead one's socket" "$?" 0
stop_console

done_testing
