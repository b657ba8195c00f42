#!/bin/bash
# undo-one-number: a request has one number. When the undo store's own
# run id differs from the request's number (request #1 was refused, so
# request #2 is the store's first run), the report says `bwgate undo 2`,
# `bwgate undo 2` puts back request #2, `bwgate undo 1` refuses (request #1
# has no run) and leaves #2 alone, `undo --list` names the request, and
# the undone request reads "undone" in the console's list, `show` and
# `bwgate log`; `bwgate log` shows exit statuses (a failed command never
# reads "finished"). `--run ID` takes the store's own id.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
echo hello > src/a.txt

pending_id() {
	"$BWGATE" list --json 2>/dev/null |
	    jq -e -r '.[] | select(.state == "pending") | .id'
}
# approved NAME CMD...: an agent's request, approved; its JSON report in
# $T/NAME.json, what the agent read in $T/NAME.err.
approved() {
	local name="$1" rpid
	shift
	"$BWGATE" run --json -- "$@" > "$T/$name.json" 2> "$T/$name.err" &
	rpid=$!
	ok_if "$name: the request waits" wait_for 20 pending_id
	"$BWGATE" approve "$(pending_id)" > /dev/null
	wait "$rpid"
}

start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
# #1: refused by the deny rule: no run, no store id.
"$BWGATE" run -- rm src/a.txt > /dev/null 2>&1
ok_if "request #1 is refused" test "$("$BWGATE" list --json |
    jq -r '.[] | select(.id == 1) | .state')" = denied
# #2: the store's first run.
approved second sh -c 'echo bad > src/a.txt; echo n > new.txt'
ok_if "request #2 can be undone" \
    test "$(jq -r '.undo.possible' "$T/second.json")" = true
ok_if "  its report names request 2 ($(jq -c .undo "$T/second.json"))" \
    test "$(jq -r '.undo.request' "$T/second.json")" = 2
ok_if "  the store's own id differs (the test means something)" \
    test "$(jq -r '.undo.id' "$T/second.json")" != 2
# What the agent reads.
"$BWGATE" run -- sh -c 'echo x > x.txt' > "$T/third.out" 2> "$T/third.err" &
rpid=$!
wait_for 20 pending_id
"$BWGATE" approve "$(pending_id)" > /dev/null
wait "$rpid"
assert_match "the agent reads bwgate undo 3 for request #3" \
    "$(cat "$T/third.err")" "undo: bwgate undo 3 "
# #4: a failed command.
approved fourth sh -c 'echo f > f.txt; exit 3'

"$BWGATE" undo --list > "$T/list" 2>&1
assert_match "undo --list has a request column" "$(head -1 "$T/list")" \
    "^REQUEST +RUN "
assert_match "  naming request #2" "$(cat "$T/list")" '^#2 +1 '
"$BWGATE" undo --list --json > "$T/list.json"
ok_if "  and in JSON" test "$(jq -r '.[] | select(.id == 1) | .request' \
    "$T/list.json")" = 2

"$BWGATE" undo 1 > "$T/u1" 2>&1
rc=$?
ok_if "bwgate undo 1 refuses: request #1 has no run (rc $rc)" test "$rc" = 125
assert_match "  and says so" "$(cat "$T/u1")" "request #1"
ok_if "  request #2's change stays" test "$(cat src/a.txt)" = bad -a -e new.txt

"$BWGATE" undo 2 > "$T/u2" 2>&1
rc=$?
ok_if "bwgate undo 2 puts back request #2 ($(tail -1 "$T/u2"))" test "$rc" = 0
assert_match "  it names the request" "$(tail -1 "$T/u2")" "^request #2 undone"
ok_if "  its file is back" test "$(cat src/a.txt)" = hello
ok_unless "  what it made is gone" test -e new.txt
ok_if "  request #3's file stays" test -e x.txt
ok_if "the audit's undo record names request 2" \
    grep -q '"record":"undo".*"id":2' "$AUDIT"
ok_if "the console lists #2 as undone" test "$("$BWGATE" list --json |
    jq -r '.[] | select(.id == 2) | .undone')" = true
assert_match "  and in its text list" "$("$BWGATE" list)" '^2 +undone '
assert_match "show 2 says undone" "$("$BWGATE" show 2)" "state +undone"
"$BWGATE" log > "$T/log"
assert_match "bwgate log has an exit column" "$(head -1 "$T/log")" \
    "STATE +EXIT"
assert_match "  #2 reads undone" "$(cat "$T/log")" '^2 +[^ ]+ +undone +0 '
assert_match "  #4 reads its exit status" "$(cat "$T/log")" \
    '^4 +[^ ]+ +exit 3 +3 '
ok_unless "  no row reads finished" grep -q ' finished ' "$T/log"
"$BWGATE" undo --run 1 > "$T/r1" 2>&1
assert_match "--run 1 is the store's run 1: request #2, undone already" \
    "$(cat "$T/r1")" "request #2 was undone already"
"$BWGATE" undo --request 3 --dry-run > "$T/r3" 2>&1
ok_if "--request N still works (the same as N)" test $? = 0
stop_console
assert_match "without the console, show 2 still says undone" \
    "$("$BWGATE" show 2)" "state +undone"
assert_match "  and log" "$("$BWGATE" log)" '^2 +[^ ]+ +undone '
done_testing
