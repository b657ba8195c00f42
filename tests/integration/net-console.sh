#!/bin/bash
# A new host is a live question (issue 28): a request with named hosts
# that connects to a host no rule allows is held while the console asks;
# the control socket lists the question ("wants") and answers it: allow
# once, allow for this project (the operator's own rules for it, never
# the project's file; later requests reach it without a question), deny.
# The wait is bounded by the approval timeout; a headless console with
# --auto-allowlisted denies at once naming the host; the audit log records
# every host decision.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project)
net_registry "host questions" reg.test other.test third.test fourth.test
export BWGATE_NET_HOSTS="$T/hosts"

ctl() {
	printf '%s\n' "$1" | "$PEER" -t 10 -n 1 -w ok "$CTL"
}
list() {
	"$BWGATE" list --json --socket "$S"
}
wants_of() {
	list | jq -r ".[] | select(.id == $1) | .wants // empty"
}
state_of() {
	list | jq -r ".[] | select(.id == $1) | .state"
}
wants() {
	[ "$(wants_of "$1")" = "$2" ]
}
is_state() {
	[ "$(state_of "$1")" = "$2" ]
}
# Submit a request in the background (its output in $T/$1.out).
submit() {
	local name=$1; shift
	(cd "$P" && "$BWGATE" run --json "$@" > "$T/$name.out" 2> "$T/$name.err"
	    echo $? > "$T/$name.rc") &
}

start_console --headless --approval-timeout 30
kill_srv() { kill "$SRV" 2>/dev/null; }
TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null; kill_srv"

# 1. Asking for hosts needs the operator; then a new host is a question.
submit a --domain "$ALLOW" -- sh -c "curl -sS -p http://other.test:$PORT/file.txt"
ok_if "a request with hosts waits for approval" wait_for 10 is_state 1 pending
assert_eq "the list shows its hosts" \
	"$(list | jq -c '.[] | select(.id == 1) | .domains')" "[\"$ALLOW\"]"
ctl '{"type":"approve","id":1}' > /dev/null
ok_if "the connection to a new host is held: the row wants it" \
	wait_for 20 wants 1 "other.test:$PORT"
ok_unless "the request has not finished meanwhile" test -e "$T/a.rc"
assert_eq "the row says where the name leads (the test's names are loopback)" \
	"$(list | jq -r '.[] | select(.id == 1) | .wants_resolves_to')" \
	"a loopback address"
assert_match "the agent socket cannot answer it" \
	"$(printf '{"type":"host","id":1,"answer":"once"}\n' | "$PEER" -t 10 -n 1 "$S")" \
	'forbidden'
assert_match "the control socket refuses a bad answer" \
	"$(ctl '{"type":"host","id":1,"answer":"always"}')" \
	"must be once, project or deny"
assert_match "allow once" "$(ctl '{"type":"host","id":1,"answer":"once"}')" \
	'"ok"'
ok_if "the request ends" wait_for 20 test -s "$T/a.rc"
assert_eq "the held connection went through" "$(jq -r .stdout "$T/a.out")" \
	"hello from the registry"
assert_eq "the report counts the host" \
	"$(jq -c '[.network.hosts[] | .host]' "$T/a.out")" '["other.test"]'
rec=$(jq -c 'select(.record == "host" and .id == 1)' "$AUDIT")
assert_eq "the audit log has the decision" \
	"$(jq -r '"\(.host):\(.port) \(.decision)"' <<<"$rec")" \
	"other.test:$PORT allow-once"
assert_match "and who made it" "$(jq -r .by <<<"$rec")" '.'
ok_if "no question left" test -z "$(wants_of 1)"

# 2. Deny: the client gets the refusal with the host and how to allow it.
submit b --domain "$ALLOW" -- sh -c "curl -sS http://other.test:$PORT/file.txt"
wait_for 10 is_state 2 pending
ctl '{"type":"approve","id":2}' > /dev/null
ok_if "deny: asked" wait_for 20 wants 2 "other.test:$PORT"
assert_match "bwgate list shows the question" \
	"$("$BWGATE" list --socket "$S")" \
	"wants other.test:$PORT \\(resolves to a loopback address\\)"
ok_if "bwgate host answers it" \
	"$BWGATE" host --socket "$S" --note "not today" 2 deny
wait_for 20 test -s "$T/b.rc"
assert_match "deny: the client is told the host, who and how to allow it" \
	"$(jq -r .stdout "$T/b.out")" \
	"other.test:$PORT is not among.*denied by .*not today.*--domain other.test:$PORT"
assert_eq "deny: the report lists the refusal" \
	"$(jq -c '[.network.refused[] | .host]' "$T/b.out")" '["other.test"]'
assert_eq "deny: audited" \
	"$(jq -r 'select(.record == "host" and .id == 2) | .decision' "$AUDIT")" deny

# 3. Allow for this project: into the operator's own rules for it, never
#    the project's file; the next request reaches it without a question.
submit c --domain "$ALLOW" -- sh -c "curl -sS http://third.test:$PORT/file.txt"
wait_for 10 is_state 3 pending
ctl '{"type":"approve","id":3}' > /dev/null
ok_if "project: asked" wait_for 20 wants 3 "third.test:$PORT"
ctl '{"type":"host","id":3,"answer":"project"}' > /dev/null
wait_for 20 test -s "$T/c.rc"
assert_eq "project: this run reached it" "$(jq -r .stdout "$T/c.out")" \
	"hello from the registry"
assert_eq "project: kept in the operator's per-project rules" \
	"$(cat "$XDG_CONFIG_HOME"/bwgate/projects/*.json | jq -c .domains)" \
	"[\"private:third.test:$PORT\"]"
ok_unless "project: not in the project's own file" test -e "$P/.bwgate.json"
assert_eq "project: audited" \
	"$(jq -r 'select(.record == "host" and .id == 3) | .decision' "$AUDIT")" \
	allow-project
submit d --domain "$ALLOW" -- \
	sh -c "curl -sS http://third.test:$PORT/file.txt"
wait_for 10 is_state 4 pending
ctl '{"type":"approve","id":4}' > /dev/null
wait_for 20 test -s "$T/d.rc"
assert_eq "project: the next request reaches it without a question" \
	"$(jq -r .stdout "$T/d.out")" "hello from the registry"
ok_unless "project: no question was asked" \
	grep -q '"record":"host","id":4' "$AUDIT"

# The MCP run tool asks for hosts and gets the network story back.
coproc MCP { cd "$P" && exec "$BWGATE" mcp 2>"$T/mcp.err"; }
MCPPID=$MCP_PID
send() { printf '%s\n' "$1" >&"${MCP[1]}"; }
expect() {
	local line
	while IFS= read -r -t 30 line <&"${MCP[0]}"; do
		if printf '%s' "$line" | jq -e "$1" >/dev/null 2>&1; then
			printf '%s' "$line"
			return 0
		fi
	done
	return 1
}
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
expect '.id == 1' >/dev/null
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"run\",\"arguments\":{\"command\":\"curl -sS http://reg.test:$PORT/file.txt\",\"domains\":[\"$ALLOW\"]}}}"
ok_if "mcp: the run with domains waits for the operator" wait_for 10 is_state 5 pending
ctl '{"type":"approve","id":5}' > /dev/null
res=$(expect '.id == 2')
assert_eq "mcp: the output came back" \
	"$(printf '%s' "$res" | jq -r .result.structuredContent.stdout)" \
	"hello from the registry"
assert_eq "mcp: with the network story" \
	"$(printf '%s' "$res" | jq -c '[.result.structuredContent.network.hosts[] | .host]')" \
	'["reg.test"]'
eval "exec ${MCP[1]}>&-"
wait "$MCPPID"

# 3b. One command connecting to two new hosts at once: two questions,
#     both shown (the oldest is "wants", the other "wants_also"), each
#     answered on its own, the oldest first.
submit h --domain "$ALLOW" -- sh -c "
	curl -sS http://other.test:$PORT/file.txt > other.out 2>&1 &
	curl -sS http://fourth.test:$PORT/file.txt > fourth.out 2>&1; wait"
wait_for 10 is_state 6 pending
ctl '{"type":"approve","id":6}' > /dev/null
both() {
	[ "$(list | jq -c '.[] | select(.id == 6) | [.wants] + .wants_also | sort')" = \
	    "[\"fourth.test:$PORT\",\"other.test:$PORT\"]" ]
}
ok_if "two hosts at once: both questions are out" wait_for 20 both
first=$(wants_of 6); second=$(list | jq -r '.[] | select(.id == 6) | .wants_also[0]')
listed=$("$BWGATE" list --socket "$S")
assert_match "bwgate list shows the oldest" "$listed" " wants $first "
assert_match "and the other after it" "$listed" "also wants $second"
assert_match "the first answer goes to the oldest" \
	"$(ctl '{"type":"host","id":6,"answer":"once"}')" '"ok"'
ok_if "then the other is the one asked" wait_for 20 wants 6 "$second"
ok_if "bwgate host denies it" "$BWGATE" host --socket "$S" 6 deny
ok_if "two hosts at once: the request ends" wait_for 20 test -s "$T/h.rc"
assert_eq "the one allowed was reached" "$(cat "$P/${first%%.*}.out")" \
	"hello from the registry"
assert_match "the one denied was refused with the hint" \
	"$(cat "$P/${second%%.*}.out")" "${second} is not among.*--domain ${second}"
assert_eq "both decisions audited" \
	"$(jq -r 'select(.record == "host" and .id == 6) | "\(.host):\(.port) \(.decision)"' "$AUDIT" | sort)" \
	"$(printf '%s\n' "$first allow-once" "$second deny" | sort)"
stop_console

# 4. The wait is bounded by the approval timeout.
rm -f "$AUDIT"
start_console --headless --approval-timeout 1
submit e --domain "$ALLOW" -- sh -c "curl -sS http://other.test:$PORT/file.txt"
wait_for 10 is_state 1 pending
ctl '{"type":"approve","id":1}' > /dev/null
ok_if "timeout: the request ends" wait_for 30 test -s "$T/e.rc"
assert_match "timeout: denied, saying so" "$(jq -r .stdout "$T/e.out")" \
	"no decision within 1 seconds"
assert_eq "timeout: audited" \
	"$(jq -r 'select(.record == "host" and .id == 1) | .by' "$AUDIT")" timeout
stop_console

# 5. Headless with --auto-allowlisted never allows a new host: at once.
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<JSON
{"version":1,
 "profiles":{"reg":{"description":"the test registry","domains":["$ALLOW"]}},
 "rules":[{"id":"curl","pattern":"curl *","verdict":"allow","profile":"reg","reason":"test"}]}
JSON
rm -f "$AUDIT"
start_console --headless --auto-allowlisted
submit f -- curl -sS "http://reg.test:$PORT/file.txt"
wait_for 30 test -s "$T/f.rc"
assert_eq "headless: the profile's host is reached" "$(jq -r .stdout "$T/f.out")" \
	"hello from the registry"
submit g -- curl -sS "http://other.test:$PORT/file.txt"
wait_for 30 test -s "$T/g.rc"
assert_match "headless: a new host is denied at once, named, with the hint" \
	"$(jq -r .stdout "$T/g.out")" \
	"other.test:$PORT is not among.*never allows a new host.*--domain other.test:$PORT"
assert_eq "headless: audited" \
	"$(jq -r 'select(.record == "host") | .by' "$AUDIT" | sort -u)" headless
stop_console
kill_srv
done_testing
