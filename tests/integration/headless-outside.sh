#!/bin/bash
# headless-outside: a headless console's log names each change no running
# request made ("changed outside any request"), and not the request's own.
# Kept in step by files: the command waits for one the test creates.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
start_console --headless ||
    { ok_if "the console starts" false; done_testing; exit; }
(cd "$P" && exec "$BWGATE" run -- sh -c \
    'touch own1; while [ ! -e go ]; do sleep 0.1; done') \
    > /dev/null 2>&1 &
RPID=$!
pending_id() {
	(cd "$P" && "$BWGATE" list --json 2>/dev/null) |
	    jq -e -r '.[] | select(.state == "pending") | .id'
}
ok_if "the writer waits for the operator" wait_for 20 pending_id
(cd "$P" && "$BWGATE" approve "$(pending_id)") > /dev/null
ok_if "the writer wrote" wait_for 20 test -e "$P/own1"
touch "$P/host1"
ok_if "the log names the host's change" wait_for 20 grep -q \
    'changed outside any request: created host1$' "$T/console.err"
ok_unless "  and not the request's own" grep -q \
    'changed outside any request: created own1' "$T/console.err"
touch "$P/go"
wait "$RPID"
assert_eq "the writer ended well" "$?" 0
stop_console
done_testing
