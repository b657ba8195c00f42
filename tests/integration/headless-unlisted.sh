#!/bin/bash
# headless-unlisted: `bwgate --headless --auto-allowlisted --unlisted wait`
# runs allowlisted commands at once, keeps the allowlist's denials, and
# leaves the rest waiting for the operator on the control socket (plain
# --auto-allowlisted denies them; plain --headless makes everything wait).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
start_console --headless --auto-allowlisted --unlisted wait ||
    { ok_if "the console starts" false; done_testing; exit; }
assert_match "the console says what it does with the rest" \
    "$(cat "$T/console.err")" "the rest waits for the operator"
(cd "$P" && timeout 30 "$BWGATE" run -- touch listed) > /dev/null 2>&1
assert_eq "an allowlisted command runs at once" "$?" 0
ok_if "  its file is there" test -e "$P/listed"
(cd "$P" && timeout 30 "$BWGATE" run -- rm listed) > /dev/null 2>&1
assert_eq "an allowlist denial stays a denial" "$?" 77
ok_if "  the file is still there" test -e "$P/listed"
(cd "$P" && exec "$BWGATE" run -- sh -c 'echo hi > unlisted') \
    > /dev/null 2>&1 &
RPID=$!
pending_id() {
	(cd "$P" && "$BWGATE" list --json 2>/dev/null) |
	    jq -e -r '.[] | select(.state == "pending") | .id'
}
ok_if "another command waits for the operator" wait_for 20 pending_id
ok_unless "  and has not run" test -e "$P/unlisted"
(cd "$P" && "$BWGATE" approve "$(pending_id)") > /dev/null
wait "$RPID"
assert_eq "  approved on the control socket, it runs" "$?/$(cat "$P/unlisted" 2>/dev/null)" 0/hi
"$BWGATE" --headless --unlisted maybe > /dev/null 2> "$T/bad.err"
assert_eq "--unlisted takes wait or deny" "$?" 125
stop_console
done_testing
