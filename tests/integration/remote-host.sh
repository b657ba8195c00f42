#!/bin/bash
# remote-host: a named-hosts request on each of two ssh-linked machines
# asks about a new host; the question shows in the one console, on the
# right machine's request, and the operator's answer (bwgate host) goes to
# that machine's executor: deny on machine-a (its agent is told who
# denied it), allow once on machine-b (its executor's audit log has the
# console's decision), then allow for the project on machine-a: the rule
# is written there, in that executor's rules, not the operator's, and
# a's next request to that host is not asked about.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/remote-lib.sh"

why=$(sshd_missing)
command -v curl > /dev/null || why="${why:-no curl}"
if [ -n "$why" ]; then
	skip "host questions over a link" "$why"
	done_testing; exit
fi
if ! start_sshd; then
	skip "host questions over a link" "sshd cannot run here: $(sshd_why)"
	stop_sshd; done_testing; exit
fi
# Names for the machines' proxies; nothing needs to answer on the port.
printf '127.0.0.1 reg.test other.test\n' > "$T/hosts"
MACHINE_ENV_EXTRA="BWGATE_NET_HOSTS=$T/hosts"
PORT=9
mkdir -p "$T/machine-a" "$T/machine-b"
start_operator || { ok_if "the console starts" false; done_testing; exit; }
for m in machine-a machine-b; do
	start_executor "$m" ||
	    { ok_if "executor $m starts" false; done_testing; exit; }
	link "$m"
	ok_if "$m links" wait_for 20 linked "$m"
done

wants() {
	[ "$(olist | jq -r --arg h "$1" '.[] | select(.host == $h and .wants != null) | .wants // empty')" = "$2" ]
}
for m in machine-a machine-b; do
	(mrun "$m" --json --domain "private:reg.test:$PORT" -- \
	    sh -c "curl -sS -m 20 http://other.test:$PORT/x" > "$T/$m.out" \
	    2> "$T/$m.err"; echo $? > "$T/$m.rc") &
	ok_if "$m: the request waits in the console" wait_for 20 oid "$m" pending curl
	(cd "$OP/proj" && "$BWGATE" approve "$(oid "$m" pending curl)") \
	    > /dev/null 2>&1
	ok_if "$m: its new host is a question on its own row" \
	    wait_for 20 wants "$m" "other.test:$PORT"
done
ida=$(olist | jq -r 'first(.[] | select(.host == "machine-a" and .wants != null) | .id)')
idb=$(olist | jq -r 'first(.[] | select(.host == "machine-b" and .wants != null) | .id)')
ok_if "bwgate host denies a's" \
    sh -c "cd '$OP/proj' && '$BWGATE' host --note 'not from a' $ida deny"
ok_if "a's request ends" wait_for 30 test -s "$T/machine-a.rc"
assert_match "a's agent is told who denied the host, and why" \
    "$(jq -r .stdout "$T/machine-a.out")" "denied by console .*not from a"
assert_eq "a's report lists the refusal" \
    "$(jq -c '[.network.refused[] | .host]' "$T/machine-a.out")" '["other.test"]'
ok_unless "b's question is still open" test -s "$T/machine-b.rc"
ok_if "bwgate host allows b's once" \
    sh -c "cd '$OP/proj' && '$BWGATE' host $idb once"
ok_if "b's request ends" wait_for 30 test -s "$T/machine-b.rc"
ok_if "b's executor recorded the console's allow-once" \
    jq -e -s 'any(.[]; .record == "host" and .decision == "allow-once" and (.by | startswith("console ")))' \
    "$T/machine-b/state/bwgate/audit.jsonl"

# "project" on a's second question: the rule goes to a's rules.
rm -f "$T/machine-a.rc"
(mrun machine-a --json --domain "private:reg.test:$PORT" -- \
    sh -c "curl -sS -m 20 http://other.test:$PORT/y" > "$T/machine-a.out" \
    2> "$T/machine-a.err"; echo $? > "$T/machine-a.rc") &
ok_if "a's second request waits" wait_for 20 oid machine-a pending /y
(cd "$OP/proj" && "$BWGATE" approve "$(oid machine-a pending /y)") > /dev/null 2>&1
ok_if "  it asks about the host again" wait_for 20 wants machine-a "other.test:$PORT"
ida=$(olist | jq -r 'first(.[] | select(.host == "machine-a" and .wants != null) | .id)')
ok_if "bwgate host allows it for a's project" \
    sh -c "cd '$OP/proj' && '$BWGATE' host $ida project"
ok_if "  the request ends" wait_for 30 test -s "$T/machine-a.rc"
ok_if "  the rule is in a's rules, on machine-a" \
    grep -rqs "other.test:$PORT" "$T/machine-a/config/bwgate"
ok_unless "  not in the operator's" grep -rqs "other.test" "$XDG_CONFIG_HOME"
ok_if "  a's executor recorded allow-project by the console" \
    jq -e -s 'any(.[]; .record == "host" and .decision == "allow-project" and (.by | startswith("console ")))' \
    "$T/machine-a/state/bwgate/audit.jsonl"
# a's next request to that host: no question, it ends on its own.
rm -f "$T/machine-a.rc"
(mrun machine-a --json --domain "private:reg.test:$PORT" -- \
    sh -c "curl -sS -m 20 http://other.test:$PORT/z" > "$T/machine-a.out" \
    2> "$T/machine-a.err"; echo $? > "$T/machine-a.rc") &
ok_if "a's third request waits for approval" wait_for 20 oid machine-a pending /z
(cd "$OP/proj" && "$BWGATE" approve "$(oid machine-a pending /z)") > /dev/null 2>&1
ok_if "  it ends without a question (the rule holds there)" \
    wait_for 15 test -s "$T/machine-a.rc"
# Nothing listens on the port: the proxy let it through and the
# connection itself failed.
assert_eq "  the proxy let it through (nothing listens there)" \
    "$(jq -r '[.network.refused[] | .why] | join(",")' "$T/machine-a.out")" \
    "cannot connect to other.test:$PORT: Connection refused"
done_testing
