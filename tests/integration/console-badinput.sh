#!/bin/bash
# console-badinput: bad input never takes the console down or loses work.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
start_console --headless --auto-allowlisted

# One bad line on a connection: the error reply for it.
bad() {
	printf '%s\n' "$1" | "$PEER" -t 10 -n 1 "$S" | grep '"type":"error"'
}

assert_match "malformed JSON" "$(bad '{"type":"submit",')" \
    '"code":"invalid".*malformed JSON'
assert_match "not an object" "$(bad '[1]')" 'must be a JSON object'
assert_match "unknown type" "$(bad '{"type":"frob"}')" \
    "unknown message type 'frob'"
assert_match "missing field" "$(bad '{"type":"submit","tag":"t"}')" \
    '"tag":"t".*missing field .command.'
assert_match "mistyped field" \
    "$(bad '{"type":"submit","command":"true","timeout":"x"}')" \
    "field 'timeout'"
assert_match "wrong version" "$(bad '{"v":9,"type":"submit"}')" \
    'unsupported protocol version 9'
assert_match "decisions refused on the agent socket" \
    "$(bad '{"type":"approve","id":1}')" '"code":"forbidden"'
assert_match "cancel of someone else's request" \
    "$(bad '{"type":"cancel","id":99999}')" '"code":"unknown-id"'
out=$(printf '{"type":"submit","command":"\377"}\n' |
    "$PEER" -t 10 -n 1 "$S")
assert_match "invalid UTF-8" "$out" 'invalid UTF-8 at byte'

# A line over 1 MiB: error, and the same connection still works after it.
{ head -c 1100000 /dev/zero | tr '\0' 'x'; printf '\n'
  printf '{"type":"submit","tag":"after","command":"true"}\n'; } |
    "$PEER" -t 20 -n 2 "$S" > "$T/long.out"
assert_match "line over 1 MiB" "$(cat "$T/long.out")" '"code":"too-long"'
assert_match "next line on that connection served" \
    "$(grep '"type":"result"' "$T/long.out")" '"tag":"after".*"exit_status":0'

# Several bad lines and a good one in one write.
printf '%s\n' '{' '{"type":1}' '' '{"type":"submit","tag":"ok","command":"echo k"}' |
    "$PEER" -t 10 -n 3 "$S" > "$T/mixed.out"
assert_eq "two errors for two bad lines (blank ignored)" \
    "$(grep -c '"type":"error"' "$T/mixed.out")" 2
assert_match "good line after bad ones" "$(cat "$T/mixed.out")" \
    '"type":"output".*"data":"k\\n"'

# Half a line, then the client vanishes.
printf '{"type":"submit","comm' | "$PEER" -x "$S"
# Lots of garbage bytes, then vanish.
head -c 300000 /dev/urandom | "$PEER" -x "$S"
"$BWGATE" run -- true
assert_eq "still serving after clients vanished mid-line" "$?" 0
ok_if "console still running" kill -0 "$CPID"

# A client that never reads while its command prints a lot.
printf '{"type":"submit","command":"cat /dev/zero"}\n' | "$PEER" -x "$S"
"$BWGATE" run -- echo alive > "$T/alive" 2>/dev/null
assert_eq "others served while a client went away" "$(cat "$T/alive")" alive

fds=$(fd_count "$CPID")
for i in $(seq 20); do printf 'garbage\n' | "$PEER" -t 5 -n 1 "$S" > /dev/null; done
ok_if "no descriptor leak from bad clients" \
    wait_for 5 fds_at_most "$fds"

stop_console
assert_eq "clean exit" "$CRC" 0
ok_if "audit log valid" audit_valid
done_testing
