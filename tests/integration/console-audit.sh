#!/bin/bash
# console-audit: an approval is on disk before its command starts; when the
# audit log cannot be written or synced, the console starts nothing and
# says why.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1

# Record sizes of this console: start, request, decision.
start_console --headless --auto-allowlisted --audit "$T/measure.jsonl"
"$BWGATE" run -- touch measured > /dev/null 2>&1
assert_eq "a command runs with a healthy log" "$?" 0
stop_console
size_of() { jq -c "select(.record == \"$1\")" "$T/measure.jsonl" | head -1 | wc -c; }
S=$(size_of console-start) R=$(size_of request) D=$(size_of decision)
ok_if "the log has the records measured" test "$S" -gt 0 -a "$R" -gt 0 -a "$D" -gt 40

# A log with room for the console's start and the request but not for the
# decision that approves it (RLIMIT_FSIZE; SIGXFSZ ignored, so writes fail
# with EFBIG as on a full disk).
limit_kb=$(( (S + R + D) / 1024 + 2 ))
fill=$(( limit_kb * 1024 - S - R - D / 2 - 40 ))
pad=$(( fill - 28 ))
printf '{"record":"filler","x":"%s"}\n' "$(head -c "$pad" /dev/zero | tr '\0' a)" \
    > "$T/audit.jsonl"
rm -f "$T/console.out"
(cd "$P" && trap '' XFSZ && ulimit -f "$limit_kb" && exec "$BWGATE" \
    --log "$T/console.log" --headless --auto-allowlisted \
    --audit "$T/audit.jsonl" > "$T/console.out" 2> "$T/console.err") &
CPID=$!
CLEANUP_EXTRA="kill -KILL $CPID 2>/dev/null"
TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null"
wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/console.out"
out=$("$BWGATE" run -- touch not-recorded 2>&1); rc=$?
ok_unless "an approval the log could not record: the command did not run" \
    test -e "$P/not-recorded"
ok_if "the agent is told it failed" test "$rc" -ne 0
assert_match "and why" "$out" "audit log cannot record it"
out=$("$BWGATE" run -- touch later 2>&1)
ok_unless "nothing starts afterwards either" test -e "$P/later"
assert_match "and it says why" "$out" "audit log"
assert_match "the console log says so" "$(cat "$T/console.log")" \
    "no command will start"
done_testing
