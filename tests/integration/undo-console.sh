#!/bin/bash
# undo-console: a run made through one console is undone after that
# console exited and another started for the same project. The store is
# the project's (state directory), not the console's: `bwgate undo ID`
# still finds it, and `bwgate undo --request N` finds request N's run in
# the audit log (request ids go on from one console to the next).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
echo hello > src/a.txt
echo keep > src/b.txt

pending_id() {
	"$BWGATE" list --json 2>/dev/null |
	    jq -e -r '.[] | select(.state == "pending") | .id'
}
# approved NAME CMD...: an agent's request, approved by the operator; its
# report in $T/NAME.json.
approved() {
	local name="$1" rpid
	shift
	"$BWGATE" run --json -- "$@" > "$T/$name.json" 2> "$T/$name.err" &
	rpid=$!
	ok_if "$name: the request waits" wait_for 20 pending_id
	"$BWGATE" approve "$(pending_id)" > /dev/null
	wait "$rpid"
	rc=$?
	ok_if "$name: it ran ($(tail -1 "$T/$name.err"))" test "$rc" = 0
}
# A console that goes on from the project's last one (start_console
# restarts the ids).
start_next_console() {
	rm -f "$T/console.out"
	(cd "$P" && exec "$BWGATE" --log "$T/console.log" --headless \
	    > "$T/console.out" 2> "$T/console.err") &
	CPID=$!
	wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/console.out"
}

start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
approved first sh -c 'echo bad > src/a.txt; mv src/b.txt src/c.txt; echo n > new.txt'
u1=$(jq -r '.undo.id' "$T/first.json")
ok_if "the first console's run can be undone (undo $u1)" \
    test "$(jq -r '.undo.possible' "$T/first.json")" = true
approved second sh -c 'echo two > two.txt'
u2=$(jq -r '.undo.id' "$T/second.json")
stop_console
ok_if "the first console is gone" test -n "$CRC"

start_next_console || { ok_if "the next console starts" false; done_testing; exit; }
approved third sh -c 'echo three > three.txt'
ok_if "the next console's run can be undone too" \
    test "$(jq -r '.undo.possible' "$T/third.json")" = true
# Request ids go on: the first console's #1 is still the first run.
"$BWGATE" undo --dry-run --request 1 > "$T/dry" 2>&1
rc=$?
ok_if "--request 1 resolves through the audit log ($(tail -1 "$T/dry"))" \
    test "$rc" = 0
assert_match "  to the first request" "$(head -1 "$T/dry")" "^request #1"
"$BWGATE" undo --request 1 > "$T/out" 2>&1
rc=$?
ok_if "the first console's request undone, from the next ($(tail -1 "$T/out"))" \
    test "$rc" = 0
ok_if "  its file is back" test "$(cat src/a.txt)" = hello -a \
    "$(cat src/b.txt)" = keep
ok_unless "  what it made is gone" test -e new.txt -o -e src/c.txt
ok_if "  the later runs' files stay" test -e two.txt -a -e three.txt
"$BWGATE" undo --run "$u2" > "$T/out" 2>&1
ok_if "bwgate undo --run ID of the first console's other run works" test $? = 0
ok_unless "  its file is gone" test -e two.txt
"$BWGATE" undo --request 1 > "$T/out" 2>&1
assert_match "undoing it again: nothing to do" "$(cat "$T/out")" \
    "undone already"
"$BWGATE" undo --request 99 > "$T/out" 2>&1
ok_if "an unknown request: an error" test $? = 125
assert_match "  that says so" "$(cat "$T/out")" "no finished request #99"
stop_console
ok_if "both undos are in the audit log" test "$(grep -c '"record":"undo"' \
    "$XDG_STATE_HOME/bwgate/audit.jsonl")" -ge 2
done_testing
