#!/bin/bash
# hook-port (issue 41): the Claude Code hook can ask for a named local port.
# A Bash call that is `bwgate run --domain private:HOST:PORT -- CMD` goes to
# the console as that request (not into a sandbox, where no console is
# reachable); approved, CMD reaches the server on the host's loopback. Any
# other option keeps the ordinary route. The hint for a refused local
# connection says how to ask.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project)
net_registry "hook port" reg.test
export BWGATE_NET_HOSTS="$T/hosts"
start_console --headless --approval-timeout 60
TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null; kill $SRV 2>/dev/null"

# hook CMD: the hook's rewritten command for a Bash call of CMD.
hook() {
	jq -n --arg c "$1" --arg cwd "$P" '{hook_event_name:"PreToolUse",
	    tool_name:"Bash", tool_input:{command:$c}, cwd:$cwd,
	    session_id:"s1"}' |
	    "$BWGATE" hook claude-code --socket "$S" > "$T/hook.out" 2>"$T/hook.err"
	jq -r '.hookSpecificOutput.updatedInput.command' "$T/hook.out"
}
pending() {
	"$BWGATE" list --json --socket "$S" |
	    jq -e 'map(select(.state == "pending")) | last | .id'
}

cmd=$(hook "bwgate run --domain $ALLOW -- curl -sS http://reg.test:$PORT/file.txt")
assert_match "the hook sends bwgate run with the port asked for" "$cmd" \
    "'?[^ ]*bwgate'? run '--domain' '$ALLOW' '--' 'curl'"
ok_unless "not through bwgate sh" grep -q ' sh --cwd-fd' <<<"$cmd"
(cd "$P" && sh -c "$cmd" > "$T/a.out" 2> "$T/a.err"; echo $? > "$T/a.rc") &
wait_for 20 pending
"$BWGATE" list --json --socket "$S" > "$T/list.json"
assert_match "the request names the host" "$(jq -c '.[-1]' "$T/list.json")" \
    "\"$ALLOW\""
"$BWGATE" approve --socket "$S" "$(pending)" > /dev/null 2>&1
wait_for 60 test -s "$T/a.rc"
[ "$(cat "$T/a.rc")" = 0 ] || sed "s/^/# /" "$T/a.err"
assert_eq "approved, it ran" "$(cat "$T/a.rc")" 0
assert_eq "and reached the host's local server" "$(cat "$T/a.out")" \
    "hello from the registry"

for c in "bwgate run --socket /tmp/x --domain $ALLOW -- true" \
    "bwgate run --domain $ALLOW -- true > out" "bwgate run -- true" \
    "bwgate run --domain $ALLOW -- \$(id)" "bwgate run --domain $ALLOW"; do
	ok_if "any other form goes through bwgate sh: $c" \
	    grep -q ' sh --cwd-fd=3 -c ' <<<"$(hook "$c")"
done

# The hint for a refused local connection says how to ask.
(cd "$P" && "$BWGATE" run --json -- "$PY" -c "import urllib.request
urllib.request.urlopen('http://127.0.0.1:$PORT/file.txt')" > "$T/b.out" \
    2>/dev/null; echo $? > "$T/b.rc") &
wait_for 20 pending
"$BWGATE" approve --socket "$S" "$(pending)" > /dev/null 2>&1
wait_for 60 test -s "$T/b.rc"
assert_match "the hint names --domain private:HOST:PORT" \
    "$(jq -r '[.. | .hint? // empty] | join(" ")' "$T/b.out")" \
    "--domain private:127\.0\.0\.1:PORT"
done_testing
