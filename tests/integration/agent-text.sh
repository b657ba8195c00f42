#!/bin/bash
# agent-text: what the agent reads after a run is short and true (issue
# 37). A clean allowlisted reader gets one line, and never "read-only"
# (models took it for a fact about the project); writes the sandbox's
# private home discarded are one line; refusals a command got past (exit
# 0: the offline network, git's index lock) are one line without advice
# to ask for network or git-write; a connection to 0.0.0.0 or :: (a
# server's probe whether its port is free) is no refusal at all; a failed
# command still gets each refusal with its hint, once; a denial reads
# "denied by the operator: NOTE". bwgate --help lists the console's
# options and points at ?.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
rm -rf "$P/.git"
git init -q "$P"
git -C "$P" add src/a.txt
git -C "$P" -c user.name=t -c user.email=t@t commit -qm a

start_console --headless --auto-sandboxed

# 1. A clean allowlisted reader: one line.
out=$("$BWGATE" run -- ls 2>&1 >/dev/null); rc=$?
out=$(unnested <<< "$out")
assert_eq "ls: exit 0" "$rc" 0
assert_eq "ls: one line on stderr" "$out" "bwgate: no changes in the project (exact)"
ok_unless "  that never says read-only" grep -q "read-only" <<< "$out"

# 2. Writes to the private home: one line, however many.
out=$("$BWGATE" run -- sh -c 'mkdir -p ~/.cache/t; echo a > ~/.cache/t/a;
    echo b > ~/.toolrc; echo c > ~/.cache/t/c' 2>&1 >/dev/null)
assert_eq "home writes: one line for them all" \
    "$(grep -c discarded <<< "$out")" 1
assert_match "  which counts them" "$out" "discarded 5 writes outside the project"
ok_unless "  and repeats no hint" grep -q "hint:" <<< "$out"

# 3. An offline check the command got past (exit 0): one line, no advice
# to ask for network.
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -n "$PY" ]; then
	out=$("$BWGATE" run -- python3 -c '
import socket
for a in (("192.0.2.1", 443), ("192.0.2.2", 443)):
    try: socket.create_connection(a, 1)
    except OSError: pass
print("built")' 2>&1)
	assert_match "offline check, exit 0: one line" "$out" \
	    "went on without the network \\(off\\): 2 connections refused"
	ok_unless "  no advice to ask for network" grep -q "ask the operator" <<< "$out"
	ok_unless "  no 'refused connect' line" grep -q "refused connect" <<< "$out"
	# A server's probe of its own port: nothing to report.
	out=$("$BWGATE" run -- python3 -c '
import socket
for fam, host in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
    s = socket.socket(fam)
    try: s.connect((host, 8123))
    except OSError: pass
s = socket.socket(); s.bind(("0.0.0.0", 8123)); s.listen(); print("up")' 2>&1 |
	    unnested)
	assert_eq "bind probes on 0.0.0.0 and :: are no refusal" "$out" \
	    "up
bwgate: no changes in the project (exact)"
	# A failed command: each refusal, its hint said once.
	out=$("$BWGATE" run -- python3 -c '
import socket, sys
for a in (("192.0.2.1", 443), ("192.0.2.2", 443)):
    try: socket.create_connection(a, 1)
    except OSError: pass
sys.exit(3)' 2>&1)
	assert_eq "failed: both refusals listed" \
	    "$(grep -c "refused connect" <<< "$out")" 2
	assert_eq "  the shared hint once" "$(grep -c "hint:" <<< "$out")" 1
else
	skip "offline checks" "python3 is not installed"
fi

# 4. git status under the project profile: git's index refresh is no
# refusal the agent must act on.
out=$("$BWGATE" run -- sh -c 'git status > /dev/null; echo x > f.txt' 2>&1)
assert_match "git status: the run's change" "$out" "\\+ f\\.txt"
ok_unless "  no 'refused create .git/index.lock'" grep -q "refused" <<< "$out"
ok_unless "  no advice to ask for git-write" grep -q "git-write" <<< "$out"
assert_le() { ok_if "$1" test "$2" -le "$3"; }
assert_le "  index.lock named at most once" \
    "$(grep -c "index.lock" <<< "$out")" 1
stop_console

# 5. A denial, worded as the hook and the MCP server word it.
start_console --headless
"$BWGATE" run -- sh -c 'echo x > denied.txt' > /dev/null 2> "$T/den.err" &
RUNPID=$!
wait_for 20 sh -c "\"$BWGATE\" list 2>/dev/null | grep -q pending"
id=$("$BWGATE" list 2>/dev/null | awk '/pending/ { print $1; exit }')
id=${id#\#}
"$BWGATE" deny --note "not today" "$id" > /dev/null
wait "$RUNPID"
assert_match "bwgate run: denied by the operator, with the note" \
    "$(cat "$T/den.err")" "^bwgate: denied by the operator: not today$"
stop_console

# bwgate --help: the console's options too, and where the keys are.
out=$("$BWGATE" --help); rc=$?
assert_eq "--help: exit 0" "$rc" 0
assert_match "--help lists the console's options" "$out" \
    "--auto-sandboxed.*--approval-timeout"
assert_match "  and points at ? for the keys" "$out" "\\? lists the keys"
done_testing
