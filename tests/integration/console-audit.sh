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
# The first request is taken on; its approval cannot be recorded, so it
# waits (it would start once the log can be written: fault-audit.sh).
("$BWGATE" run -- touch not-recorded > "$T/first.out" 2>&1; echo $? > "$T/first.rc") &
ok_if "the console says the log cannot be written" \
    wait_for 10 grep -q 'nothing starts until it can be written' "$T/console.log"
ok_unless "an approval the log could not record: the command did not run" \
    test -e "$P/not-recorded"
ok_unless "its agent has no answer the log does not hold" test -s "$T/first.rc"
out=$("$BWGATE" run -- touch later 2>&1); rc=$?
assert_eq "a new request is refused at once (125)" "$rc" 125
assert_match "and why" "$out" "audit log cannot be written"
ok_unless "it did not run either" test -e "$P/later"
kill -TERM "$CPID" 2>/dev/null
ok_if "when the console stops, the waiting agent is told" \
    wait_for 15 test -s "$T/first.rc"
ok_unless "the approved command never ran" test -e "$P/not-recorded"
done_testing
