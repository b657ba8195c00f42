#!/bin/bash
# console-history: one history per project. Request ids go on from the
# project's last console instead of restarting at 1; `bwgate show ID`
# gives this project's request (never another project's with the same
# id, even when BWGATE_SOCKET names that project's console); `bwgate log`
# reads the project's history from the audit log without a console,
# filtered by state, agent and time.
. "$(dirname "$0")/libtest.sh"

P=$(new_project one)
Q=$(new_project two)
AUDIT="$XDG_STATE_HOME/bwgate/audit.jsonl"

# A headless console in project $1 (allowlisted commands run, the rest is
# refused); its pid in CPID, its socket printed in $T/c.out.
start_in() {
	rm -f "$T/c.out"
	( cd "$1" && exec "$BWGATE" --headless --auto-allowlisted \
	    --log "$T/console.log" > "$T/c.out" 2> "$T/c.err" ) &
	CPID=$!
	TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null"
	wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/c.out"
}
stop_it() {
	kill -TERM "$CPID"; wait "$CPID" 2>/dev/null
	TEARDOWN=""
}
run_in() {	# dir, agent name, command...
	local d="$1" a="$2"; shift 2
	( cd "$d" && "$BWGATE" run --agent "$a" -- "$@" ) > /dev/null 2>&1
}

start_in "$P"
run_in "$P" alice ls
run_in "$P" bob make all
stop_it
start_in "$Q"
run_in "$Q" carol cat src/a.txt
SQ=$(sed -n 's/^export BWGATE_SOCKET=//p' "$T/c.out")
# While Q's console runs, P's history is asked from P.
out=$(cd "$P" && "$BWGATE" show 1 2>&1)
assert_match "show 1 in P gives P's request, not the running Q's" "$out" \
    'command +ls'
assert_match "  and names the project" "$out" "project +$P"
out=$(cd "$Q" && "$BWGATE" show 1 2>&1)
assert_match "show 1 in Q gives Q's" "$out" 'command +cat src/a\.txt'
out=$(cd "$P" && BWGATE_SOCKET="$SQ" "$BWGATE" show 1 2>&1)
assert_match "BWGATE_SOCKET names Q's console: Q's, and it says so" "$out" \
    "project +$Q"
stop_it
# No console now: the log holds P's 1 and Q's 1 (the newer).
out=$(cd "$P" && "$BWGATE" show 1 2>&1)
assert_match "from the log, show 1 in P is P's" "$out" 'command +ls'
assert_match "  with the state its records give" "$out" 'state +finished'
ok_unless "  not the state it had when it came" grep -q 'pending' <<<"$out"

start_in "$P"
run_in "$P" alice echo third
( cd "$P" && BWGATE_AGENT=dave "$BWGATE" sh -c 'echo fourth' ) > /dev/null 2>&1
stop_it
out=$(cd "$P" && "$BWGATE" show 3 2>&1)
assert_match "a new console of P goes on at id 3" "$out" 'command +echo third'
out=$(cd "$P" && "$BWGATE" show 5 2>&1); rc=$?
assert_eq "an id P never gave: exit 1" "$rc" 1
assert_match "  naming the project" "$out" "no request 5 in project '$P'"

# The history without a console.
out=$(cd "$P" && "$BWGATE" log)
assert_eq "log: P's four requests, and only those" \
    "$(printf '%s\n' "$out" | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" \
    "1 2 3 4 "
assert_match "  with their states" "$out" '2 .* denied +- +ask'
ok_unless "  nothing of Q" grep -q 'src/a.txt' <<<"$out"
assert_eq "--state denied" \
    "$(cd "$P" && "$BWGATE" log --state denied --json | jq -c 'map(.id)')" '[2]'
assert_eq "--agent alice" \
    "$(cd "$P" && "$BWGATE" log --agent alice --json | jq -c 'map(.id)')" '[1,3]'
assert_eq "bwgate sh is named by BWGATE_AGENT" \
    "$(cd "$P" && "$BWGATE" log --agent dave --json | jq -c 'map(.command)')" \
    '["echo fourth"]'
assert_eq "--since 1h: all" \
    "$(cd "$P" && "$BWGATE" log --since 1h --json | jq length)" 4
assert_eq "--since a time to come: none" \
    "$(cd "$P" && "$BWGATE" log --since 2999-01-01 --json | jq length)" 0
err=$(cd "$P" && "$BWGATE" log --since yesterday 2>&1); rc=$?
assert_eq "--since nonsense: 125" "$rc" 125
assert_match "  says what it takes" "$err" "not 90s, 15m, 2h, 3d or a time"
assert_eq "--project from elsewhere" \
    "$(cd "$T" && "$BWGATE" log --project "$Q" --json | jq -c 'map(.command)')" \
    '["cat src/a.txt"]'
done_testing
