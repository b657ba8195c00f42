#!/bin/bash
# console-basic: headless --auto-allowlisted console and its agent clients.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"

out=$("$BWGATE" run -- true 2>&1); rc=$?
assert_eq "no console: exit 125" "$rc" 125
assert_match "no console: says how to start one" "$out" "start one with 'bwgate'"

start_console --headless --auto-allowlisted
assert_eq "prints the export line" "$(head -1 "$T/console.out")" \
    "export BWGATE_SOCKET=$S"
assert_eq "socket is 0600" "$(stat -c %a "$S")" 600
assert_eq "socket dir is 0700" "$(stat -c %a "$(dirname "$S")")" 700

"$BWGATE" run -- true; assert_eq "allowlisted true: exit 0" "$?" 0
out=$("$BWGATE" run -- echo hello 2>/dev/null)
assert_eq "stdout streams back" "$out" hello
err=$("$BWGATE" run -- ls /nonexistent-x 2>&1 >/dev/null); rc=$?
assert_eq "the command's exit status" "$rc" 2
assert_match "its stderr streams back" "$err" "nonexistent-x"
assert_eq "change summary on stderr: one line, nothing about a read-only project" \
    "$("$BWGATE" run -- true 2>&1 | unnested)" "bwgate: no changes in the project"
printf 'a\0b\377' > "$P/bin.dat"
"$BWGATE" run -- cat bin.dat > "$T/bin.out" 2>/dev/null
ok_if "binary output arrives intact" cmp "$P/bin.dat" "$T/bin.out"

out=$("$BWGATE" run -- touch new.txt 2>&1); rc=$?
assert_eq "writer runs" "$rc" 0
ok_if "writer's file is in the project" test -f "$P/new.txt"
assert_match "writer's change report" "$out" "1 created"
assert_match "writer's change report lists the file" "$out" "[+] new.txt"

err=$("$BWGATE" run -- sh -c 'echo hi > x' 2>&1); rc=$?
assert_eq "ask verdict headless: denied (77)" "$rc" 77
assert_match "the reason names the operator" "$err" "needs an operator"
ok_unless "denied command did not run" test -e "$P/x"
err=$("$BWGATE" run -- rm new.txt 2>&1); rc=$?
assert_eq "deny rule: 77" "$rc" 77
assert_match "deny reason" "$err" "never delete in tests"

out=$("$BWGATE" sh -c 'echo from-sh' 2>/dev/null); rc=$?
assert_eq "bwgate sh -c" "$out/$rc" "from-sh/0"
ln -s "$BWGATE" "$T/bwgate-sh"
out=$("$T/bwgate-sh" -c 'printf "%s" one' 2>/dev/null)
assert_eq "bwgate-sh -c" "$out" one
"$BWGATE" sh 2>/dev/null; assert_eq "sh without -c: a usage error (2, as a shell)" "$?" 2

"$BWGATE" run --json -- echo j > "$T/j.json" 2>/dev/null
assert_eq "--json prints the report" "$(jq -r .stdout "$T/j.json")" "j"

mkdir -p "$T/outside"
err=$("$BWGATE" run --cwd "$T/outside" -- true 2>&1); rc=$?
assert_eq "cwd outside the project: 125" "$rc" 125
assert_match "says it is outside" "$err" "outside the project"
err=$("$BWGATE" run --cwd "$P/missing" -- true 2>&1)
assert_match "missing cwd named" "$err" "$P/missing"
(cd "$P/src" && "$BWGATE" run -- ls a.txt > "$T/ls.out" 2>/dev/null)
assert_eq "runs in the agent's cwd" "$(cat "$T/ls.out")" a.txt

# A second console on the same socket must not steal it.
(cd "$P" && "$BWGATE" --headless > /dev/null 2> "$T/second.err"); rc=$?
assert_eq "live socket not stolen: 125" "$rc" 125
assert_match "says a console listens" "$(cat "$T/second.err")" \
    "already listening"
"$BWGATE" run -- true; assert_eq "first console still serves" "$?" 0

stop_console
assert_eq "SIGTERM: clean exit" "$CRC" 0
ok_unless "socket removed" test -e "$S"
ok_unless "control socket removed" test -e "$CTL"
ok_if "audit log is valid JSON lines" audit_valid
assert_eq "audit log is 0600" "$(stat -c %a "$AUDIT")" 600
ok_if "audit has the denial by rule" grep -q '"by":"allowlist"' "$AUDIT"
ok_if "audit has results with change reports" jq -se \
    'map(select(.record=="result" and .report.changes.created != null)) |
    length > 0' "$AUDIT"
ok_if "audit leaves out output text" \
    test -z "$(jq -c 'select(.record=="result") | .report.stdout // empty' "$AUDIT")"

# A stale socket (console gone) is replaced.
"$PEER" -S "$S"
if [ -S "$S" ]; then
	start_console --headless --auto-allowlisted
	"$BWGATE" run -- true
	assert_eq "stale socket replaced" "$?" 0
	stop_console
else
	skip "stale socket replaced" "could not create a stale socket"
fi

# Consoles starting at once over a stale socket: one wins, the others say
# so (the stale check, unlink and bind happen under a lock).
"$PEER" -S "$S"
pids=
for i in 1 2 3 4 5 6 7 8 9; do
	(cd "$P" && exec "$BWGATE" --headless --auto-allowlisted \
	    > "$T/race$i.out" 2> "$T/race$i.err") &
	pids="$pids $!"
done
settled() {
	local n=0 f
	for f in "$T"/race?.out; do
		if grep -q '^export' "$f" || [ -s "${f%.out}.err" ]; then
			n=$((n + 1))
		fi
	done
	[ "$n" = 9 ]
}
wait_for 20 settled
assert_eq "racing consoles: exactly one listens" \
    "$(cat "$T"/race?.out | grep -c '^export')" 1
assert_eq "the others say a console listens" \
    "$(cat "$T"/race?.err | grep -c 'already listening')" 8
"$BWGATE" run -- true
assert_eq "the winner serves" "$?" 0
# shellcheck disable=SC2086
kill -TERM $pids 2>/dev/null
for p in $pids; do wait "$p" 2>/dev/null; done
# The lock is what decides: while something holds it, even a stale socket
# is not taken over.
"$PEER" -S "$S"
flock -n "$S.lock" sh -c "cd '$P' && timeout 10 '$BWGATE' --headless \
    > /dev/null 2> '$T/locked.err'; echo \$? > '$T/locked.rc'"
assert_eq "socket lock held elsewhere: 125" "$(cat "$T/locked.rc")" 125
assert_match "and it says why" "$(cat "$T/locked.err")" "holds '$S.lock'"

# The FIFO: plain lines and JSON lines; results go to the audit log.
start_console --headless --auto-allowlisted --fifo "$T/fifo"
ok_if "FIFO created" test -p "$T/fifo"
echo 'touch from-fifo' > "$T/fifo"
echo '{"type":"submit","command":"touch from-json","agent":"fifo-agent"}' \
    > "$T/fifo"
echo 'not json {' > "$T/fifo"
ok_if "plain FIFO line ran" wait_for 10 test -f "$P/from-fifo"
ok_if "JSON FIFO line ran" wait_for 10 test -f "$P/from-json"
ok_if "FIFO results in the audit log" wait_for 10 sh -c \
    "[ \$(jq -c 'select(.record==\"result\")' '$AUDIT' | wc -l) -ge 2 ]"
ok_if "FIFO agent name recorded" grep -q '"agent":"fifo-agent"' "$AUDIT"
stop_console
ok_unless "FIFO removed" test -e "$T/fifo"

# The console reaps its own jobs only: a child it did not start (here one
# it inherits across exec) is left to whoever waits for it.
rm -f "$T/console.out"
(cd "$P" && sleep 1 & echo $! > "$T/other.pid"
 exec "$BWGATE" --headless --auto-allowlisted > "$T/console.out" \
    2> "$T/console.err") &
CPID=$!
TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null"
wait_for 10 grep -q '^export' "$T/console.out"
other=$(cat "$T/other.pid")
zombie() { read -r st < "/proc/$other/stat" && st=${st##*) } && [ "${st%% *}" = Z ]; }
ok_if "a child that is not a job exits" wait_for 10 zombie
"$BWGATE" run -- true
assert_eq "a job runs (and is reaped) meanwhile" "$?" 0
ok_if "the other child is still there to be waited for" zombie
stop_console

# A console that cannot build a sandbox does not start (it would refuse
# every request with a policy's 77 instead of bwrap's 125).
(cd "$P" && BWGATE_BWRAP=/nonexistent/bwrap timeout 20 "$BWGATE" --headless \
    > "$T/nobwrap.out" 2> "$T/nobwrap.err")
assert_eq "without bwrap the console refuses to start: 125" "$?" 125
assert_match "  in doctor's words, with the fix" "$(cat "$T/nobwrap.err")" \
    "no sandbox can be built here: bwrap not found at '/nonexistent/bwrap'.*fix: install bubblewrap"
ok_unless "  and never listened" grep -q '^export BWGATE_SOCKET=' "$T/nobwrap.out"
done_testing
