#!/bin/bash
# remote-basic: one console, two executors standing in for two machines
# (their own projects, runtime directories and network namespaces),
# linked by `bwgate connect` through a real sshd on loopback. Approve on
# one, deny on the other, an allowlisted command at once; each machine's
# requests keyed by its host; nothing runs on the console's machine; a
# never-linked executor's request is denied after its --linger, and a
# process that is no `bwgate connect` ssh cannot link.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/remote-lib.sh"

why=$(sshd_missing)
if [ -n "$why" ]; then
	skip "remote links over ssh" "$why"
	done_testing; exit
fi
if ! start_sshd; then
	skip "remote links over ssh" "sshd cannot run here: $(sshd_why)"
	stop_sshd; done_testing; exit
fi
mkdir -p "$T/machine-a" "$T/machine-b" "$T/machine-c"

start_operator || { ok_if "the console starts" false; done_testing; exit; }
start_executor machine-a || { ok_if "executor a starts" false; done_testing; exit; }
start_executor machine-b || { ok_if "executor b starts" false; done_testing; exit; }
start_executor machine-c --linger 3 ||
    { ok_if "executor c starts" false; done_testing; exit; }
[ -n "${NS_NOTE:-}" ] && echo "# $NS_NOTE"
assert_eq "bwgate hosts: none linked yet" "$(ohosts)" \
    "no machine linked (bwgate connect HOST:PROJECT links one)"
assert_eq "  --json: an empty array" "$(ohosts --json)" "[]"
out=$(cd "$T" && BWGATE_SOCKET="$T/none/agent.sock" "$BWGATE" hosts 2>&1)
assert_eq "no console: bwgate hosts exits 125, as list does" "$?" 125
assert_match "  saying so" "$out" "^bwgate: no console at "
assert_eq "  in one line" "$(wc -l <<<"$out")" 1
link machine-a
link machine-b
ok_if "machine-a links through ssh" wait_for 20 linked machine-a
ok_if "machine-b links through ssh" wait_for 20 linked machine-b
# Everything below goes through both links: without them, stop here
# (failed) rather than wait out each of its deadlines in turn.
linked machine-a && linked machine-b || { done_testing; exit; }
# Both listed, linked, each with the project it serves there.
hosts_are() {
	[ "$(ohosts --json | jq -r 'map("\(.host) \(.state) \(.project) \(.pending)") | sort | join(",")')" = "$1" ]
}
ok_if "bwgate hosts --json lists machine-a and machine-b, linked, with their projects" \
    wait_for 10 hosts_are "machine-a linked $T/machine-a/proj 0,machine-b linked $T/machine-b/proj 0"
out=$(ohosts)
assert_match "  the text names machine-a, linked since, its project" "$out" \
    "machine-a +linked [0-9-]+ [0-9:]+ +0 +0 $T/machine-a/proj"
assert_match "  and machine-b" "$out" \
    "machine-b +linked [0-9-]+ [0-9:]+ +0 +0 $T/machine-b/proj"
assert_eq "  one line each, under a header" "$(wc -l <<<"$out")" 3
sed 's/^/# /' <<<"$out"
cat "$T"/machine-*/connect.err | sed 's/^/# connect: /'

# Approve on machine-a: it runs there, in a's project.
mrun machine-a -- sh -c 'echo made on $(cat file.txt) > made' \
    > "$T/a.out" 2> "$T/a.err" &
RA=$!
ok_if "a's request shows in the console, keyed by its host" \
    wait_for 20 oid machine-a pending made
id=$(oid machine-a pending made)
assert_eq "  bwgate hosts counts it pending on machine-a" \
    "$(ohosts --json | jq -r '.[] | select(.host == "machine-a") | "\(.pending) \(.running)"')" "1 0"
assert_match "  its agent is named with the host" \
    "$(olist | jq -r ".[] | select(.id == $id) | .agent")" '^machine-a:pid '
assert_match "  with the argv the executor built" \
    "$(olist | jq -r ".[] | select(.id == $id) | .command")" "made"
ok_unless "  it has not run" test -e "$T/machine-a/proj/made"
(cd "$OP/proj" && "$BWGATE" approve "$id") > /dev/null 2>&1
assert_eq "  approved in the console" "$?" 0
wait "$RA"; rc=$?
assert_eq "a's agent: exit 0" "$rc" 0
assert_eq "  it ran on machine-a, in its project" \
    "$(cat "$T/machine-a/proj/made" 2>/dev/null)" "made on data of machine-a"
ok_unless "  nothing ran on the console's machine" test -e "$OP/proj/made"
ok_if "  the console shows it finished" wait_for 10 oid machine-a finished made
assert_match "  the agent got the change report" "$(cat "$T/a.err")" "1 created"

out=$(cd "$OP/proj" && "$BWGATE" show "$(oid machine-a finished made)" 2>&1)
assert_match "  bwgate show names its host" "$out" "machine-a"

# bwgate undo on the operator's machine never undoes a remote run here:
# it says where and how, and the line it gives works there.
ida=$(oid machine-a finished made)
out=$(cd "$OP/proj" && "$BWGATE" undo "$ida" 2>&1)
assert_eq "bwgate undo of a's run here fails" "$?" 125
assert_match "  naming the machine and the two ways" "$out" \
    "request #$ida ran on machine-a, not here: undo it from the console \(select it, u\), or there: bwgate undo --project [^ ]*machine-a/proj [0-9]+$"
ok_if "  nothing undone on machine-a" test -e "$T/machine-a/proj/made"
there=$(sed -n 's/.*or there: //p' <<<"$out")
# shellcheck disable=SC2046,SC2086
out=$(cd "$T/machine-a/proj" && env $(machine_env machine-a) \
    ${there/bwgate/$BWGATE} 2>&1)
assert_match "  the line it gives undoes it on machine-a" "$out" "undone"
ok_unless "  there" test -e "$T/machine-a/proj/made"

# Approved with another profile and an extra mount: the executor runs
# exactly that (its audit log has the profile and the argv it ran).
mkdir -p "$T/machine-a/extra"
echo "extra of machine-a" > "$T/machine-a/extra/note"
mrun machine-a --json -- sh -c "cat '$T/machine-a/extra/note'; echo x > edited" \
    > "$T/a2.out" 2> "$T/a2.err" &
RA=$!
ok_if "a's second request shows" wait_for 20 oid machine-a pending edited
(cd "$OP/proj" && "$BWGATE" approve --profile readonly \
    --ro "$T/machine-a/extra" "$(oid machine-a pending edited)") > /dev/null 2>&1
assert_eq "  approved with --profile readonly --ro EXTRA" "$?" 0
wait "$RA"
EA="$T/machine-a/state/bwgate/audit.jsonl"
ran() {	# the executor's report of the run, as it recorded it
	jq -c -s 'last(.[] | select(.record == "result" and
	    (.report.argv[-1] | contains("edited")))) | .report' "$EA"
}
assert_eq "  the executor ran it with the readonly profile" \
    "$(ran | jq -r '.profile + " " + .sandbox.profile')" "readonly readonly"
assert_eq "  the project read-only, the extra path mounted read-only" \
    "$(ran | jq -r --arg p "$T/machine-a/proj" --arg e "$T/machine-a/extra" \
    '[.sandbox.mounts[] | select(.path == $p or .path == $e) | .mode] | join(" ")')" \
    "ro ro"
assert_eq "  the argv it ran binds the extra path" \
    "$(ran | jq -r --arg e "$T/machine-a/extra" \
    '[.bwrap_argv | indices($e)[] as $i | .[$i - 2]] | join(" ")')" "--ro-bind-fd"
assert_eq "  its agent read the extra path" \
    "$(jq -r .stdout "$T/a2.out")" "extra of machine-a"
ok_unless "  and could not write the project" test -e "$T/machine-a/proj/edited"

# Deny on machine-b.
mrun machine-b -- sh -c 'echo x > denied' > /dev/null 2> "$T/b.err" &
RB=$!
ok_if "b's request shows, keyed by machine-b" wait_for 20 oid machine-b pending denied
id=$(oid machine-b pending denied)
(cd "$OP/proj" && "$BWGATE" deny --note "not on b" "$id") > /dev/null 2>&1
wait "$RB"; rc=$?
assert_eq "b's agent: denied (77)" "$rc" 77
assert_match "  with the operator's note" "$(cat "$T/b.err")" "not on b"
# Queued, then waiting, in one loop pass of the executor: sent once.
assert_eq "  its waiting state crossed the link once" \
    "$(grep -c '(machine-b #[0-9]*): pending received' "$OP/console.log")" 1
ok_unless "  nothing ran on b" test -e "$T/machine-b/proj/denied"
ok_unless "  a's requests are not b's" \
    ohas '.[] | select(.host == "machine-b" and (.command | contains("made")))'

# An allowlisted command runs at once on its machine, and is shown.
out=$(mrun machine-b -- cat file.txt 2>/dev/null)
assert_eq "an allowlisted command runs at once on b" "$out" "data of machine-b"
ok_if "  and the console shows it" wait_for 10 oid machine-b finished cat

# The audit log keys remote records by host and project.
A="$XDG_STATE_HOME/bwgate/audit.jsonl"
ok_if "the audit log records a's approval with host and project" \
    jq -e -s "any(.[]; .record == \"remote-decision\" and .host == \"machine-a\" and .project == \"$T/machine-a/proj\")" "$A"
ok_if "  and b's end" jq -e -s 'any(.[]; .record == "remote-ended" and .host == "machine-b" and .request.state == "denied")' "$A"

log=$(cd "$OP/proj" && "$BWGATE" log --json 2>/dev/null)
assert_eq "bwgate log lists a's request by host, finished" \
    "$(jq -r '.[] | select(.command | contains("made")) | "\(.agent | sub(":.*"; "")) \(.state) \(.exit_status)"' <<<"$log")" \
    "machine-a finished 0"
assert_eq "  and b's, denied" \
    "$(jq -r '.[] | select(.command | contains("denied")) | "\(.agent | sub(":.*"; "")) \(.state)"' <<<"$log")" \
    "machine-b denied"

# machine-c was never linked: its request waits, then is denied after
# --linger (3 s), never run.
mrun machine-c -- sh -c 'echo x > never' > /dev/null 2> "$T/c.err"
assert_eq "a never-linked machine's request is denied (77)" "$?" 77
assert_match "  naming the limit" "$(cat "$T/c.err")" "no console linked for 3 seconds"
ok_unless "  it did not run" test -e "$T/machine-c/proj/never"
ok_unless "  the console never saw it" \
    ohas '.[] | select(.command | contains("never"))'

# A process that is no ssh of `bwgate connect` cannot link, even with
# the link socket at hand.
LS=$(ls "$XDG_RUNTIME_DIR"/bwgate/*.link.sock)
python3 - "$LS" > "$T/py.out" 2>&1 <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
  s.sendall(b'{"type":"link","executor":"x","project":"/p"}\n' +
      json.dumps({"type": "request", "request": {"id": 1, "state": "pending",
      "verdict": "ask", "command": "forged"}}).encode() + b'\n')
  s.settimeout(10)
  print("closed" if s.recv(4096) == b"" else "answered")
except (BrokenPipeError, ConnectionResetError):
  print("closed")
EOF
assert_eq "a direct link is closed at once" "$(cat "$T/py.out")" closed
ok_if "  and refused on the record" jq -e -s 'any(.[]; .record == "refused" and .socket == "link")' "$A"
ok_unless "  its request never shows" ohas '.[] | select(.command == "forged")'

done_testing
