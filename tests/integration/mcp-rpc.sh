#!/bin/bash
# mcp-rpc: `bwgate mcp` as a JSON-RPC 2.0 peer, without any SDK: malformed
# input gets JSON-RPC errors (never a crash), EOF ends it cleanly, ping is
# answered while a run waits for the operator, and a cancelled run is
# withdrawn from the console.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"

"$BWGATE" doctor --json > "$T/doctor.json" 2>/dev/null
assert_eq "doctor: the MCP server starts and answers initialize" \
    "$(jq -c '.checks[] | select(.name == "mcp server") | .ok' "$T/doctor.json")" true
ok_unless "doctor's check leaves no state behind" test -e "$XDG_STATE_HOME/bwgate"

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
{
	echo "$INIT"
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	echo 'not json at all'
	echo '{"jsonrpc":"2.0","id":2,"method":'
	echo '[{"jsonrpc":"2.0","id":3,"method":"ping"}]'
	echo '{"jsonrpc":"1.0","id":4,"method":"ping"}'
	echo '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}'
	echo '{"jsonrpc":"2.0","id":5,"method":42}'
	echo '{"jsonrpc":"2.0","id":6,"method":"no/such"}'
	echo '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}'
	echo '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}'
	echo '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope"}}'
	echo '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"run","arguments":{"command":7}}}'
	echo '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"run","arguments":"ls"}}'
	echo '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/a.txt","offset":0}}}'
	echo '{"jsonrpc":"2.0","method":"no/such/notification"}'
	echo '{"jsonrpc":"2.0","id":"s","result":{}}'
	echo '{"jsonrpc":"2.0","id":13,"method":"ping"}'
	echo '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"run","arguments":{"command":"true"}}}'
	printf '{"jsonrpc":"2.0","id":15,"method":"ping"'	# cut off by EOF
} | timeout 20 "$BWGATE" mcp > "$T/out.jsonl" 2> "$T/err"
rc=$?
assert_eq "EOF: clean exit 0" "$rc" 0
ok_if "every reply is one JSON-RPC 2.0 object per line" \
    jq -e -s 'all(.jsonrpc == "2.0")' "$T/out.jsonl"
err_of() {
	jq -c "select(.id == $1) | .error.code" "$T/out.jsonl"
}
nulls=$(jq -c 'select(.id == null) | .error.code' "$T/out.jsonl" | tr '\n' ' ')
assert_eq "parse errors and invalid requests without an id" \
    "$nulls" "-32700 -32700 -32600 -32600 "
assert_eq "initialize: our revision" \
    "$(jq -r 'select(.id == 1) | .result.protocolVersion' "$T/out.jsonl")" 2025-06-18
assert_eq "jsonrpc 1.0: invalid request" "$(err_of 4)" -32600
assert_eq "method not a string: invalid request" "$(err_of 5)" -32600
assert_eq "unknown method: method not found" "$(err_of 6)" -32601
assert_eq "params not an object: invalid params" "$(err_of 7)" -32602
assert_eq "tools/call without a name: invalid params" "$(err_of 8)" -32602
assert_eq "unknown tool: invalid params" "$(err_of 9)" -32602
assert_eq "mistyped argument: invalid params" "$(err_of 10)" -32602
assert_eq "arguments not an object: invalid params" "$(err_of 11)" -32602
assert_eq "offset 0: invalid params" "$(err_of 12)" -32602
assert_eq "ping still answered after all that" \
    "$(jq -c 'select(.id == 13) | .result' "$T/out.jsonl")" '{}'
assert_match "run without a console: a tool error saying how to start one" \
    "$(jq -r 'select(.id == 14) | .result.content[0].text' "$T/out.jsonl")" \
    "no console at .*start one with 'bwgate'"
assert_eq "notifications and responses get no reply" \
    "$(jq -s 'length' "$T/out.jsonl")" 16
ok_unless "nothing on stderr" test -s "$T/err"

# Interactive: a run waiting for the operator, ping meanwhile, cancel.
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
coproc MCP { exec "$BWGATE" mcp 2>"$T/mcp.err"; }
MCPPID=$MCP_PID
CLEANUP_EXTRA="kill -KILL $CPID $MCPPID 2>/dev/null"
send() { printf '%s\n' "$1" >&"${MCP[1]}"; }
# Read replies until one matches a jq filter (with a deadline).
expect() {
	local line
	while IFS= read -r -t 10 line <&"${MCP[0]}"; do
		printf '%s\n' "$line" >> "$T/session.jsonl"
		if printf '%s' "$line" | jq -e "$1" >/dev/null 2>&1; then
			printf '%s' "$line"
			return 0
		fi
	done
	return 1
}
send "$INIT"
expect '.id == 1' >/dev/null
send '{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"run","arguments":{"command":"sleep 30"},"_meta":{"progressToken":"tok"}}}'
p=$(expect '.method == "notifications/progress"')
assert_match "progress: queued with the verdict" \
    "$(printf '%s' "$p" | jq -r .params.message)" "^request 1 queued \\(allow: waits"
assert_eq "progress carries the client's token" \
    "$(printf '%s' "$p" | jq -r .params.progressToken)" tok
p=$(expect '.method == "notifications/progress"')
assert_eq "progress: then waiting for approval" \
    "$(printf '%s' "$p" | jq -c '[.params.message, .params.progress]')" \
    '["request 1 is waiting for approval",2]'
send '{"jsonrpc":"2.0","id":"p","method":"ping"}'
ok_if "ping answered while the run waits" expect '.id == "p" and .result == {}'
send '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r1","reason":"changed my mind"}}'
withdrawn() {
	"$BWGATE" list --json | jq -e '.[] | select(.id == 1 and .state == "withdrawn")'
}
ok_if "cancelled while waiting: withdrawn in the console" wait_for 10 withdrawn
send '{"jsonrpc":"2.0","id":"p2","method":"ping"}'
expect '.id == "p2"' >/dev/null
ok_unless "no reply for the cancelled call" grep -q '"id":"r1"' "$T/session.jsonl"
exec {MCPIN}>&-
eval "exec ${MCP[1]}>&-"
wait "$MCPPID"
assert_eq "EOF with the console up: exit 0" "$?" 0
stop_console
done_testing
