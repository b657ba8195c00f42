#!/bin/bash
# args-fd: bwrap's options reach it through a descriptor (--args FD), never
# its command line: the agent's environment (bwrap's --setenv) does not show
# in the process list, which every local user can read.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
mark="bwgate-mark-$$-$RANDOM"
(cd "$P" && BWGATE_T_MARK="$mark" exec "$BWGATE" run -- sh -c \
    'printenv BWGATE_T_MARK; exec sleep 345') > "$T/run.out" 2> "$T/run.err" &
RPID=$!
pending_id() {
	"$BWGATE" list --json 2>/dev/null |
	    jq -e -r '.[] | select(.state == "pending") | .id'
}
ok_if "the request waits for the operator" wait_for 20 pending_id
(cd "$P" && "$BWGATE" approve "$(cd "$P" && pending_id)") > /dev/null
ok_if "the agent's variable reaches the command" \
    wait_for 30 grep -qx -- "$mark" "$T/run.out"
# (the mark comes from a file: no command line of the test's shows it)
echo "$mark" > "$T/mark"
ok_unless "  and is in no command line of the host" \
    sh -c 'ps -eo args= | grep -qF -f "$1"' sh "$T/mark"
ok_if "bwrap read its options from a descriptor" \
    sh -c 'ps -eo args= | grep -qE -- "^[^ ]*bwrap --args [0-9]+ -- "'
kill -TERM "$RPID" 2>/dev/null
wait "$RPID" 2>/dev/null
stop_console
done_testing
