#!/bin/bash
# edge-input: hostile JSON is refused at the edge with the field named,
# never truncated or turned into something else: a \u0000 (cJSON would
# cut the string there), a lone surrogate, control characters in paths.
# Against the console socket (the protocol decoder) and bwgate mcp; the
# host is checked afterwards.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
start_console --headless --auto-allowlisted || { ok_if "the console starts" false; done_testing; exit; }

bad() {	# LINE: the error reply for it
	printf '%s\n' "$1" | "$PEER" -t 10 -n 1 "$S" | grep '"type":"error"'
}
assert_match "socket: \\u0000 in a command: refused, naming it" \
    "$(bad '{"type":"submit","tag":"n","command":"true\u0000; touch '"$P"'/cut"}')" \
    "\"tag\":\"n\".*field 'command' holds a NUL character"
assert_match "socket: \\u0000 in a write's content" \
    "$(bad '{"type":"submit","write":{"path":"'"$P"'/w.txt","content":"abc\u0000def\n"}}')" \
    "field 'write.content' holds a NUL character"
assert_match "socket: a lone surrogate in a command" \
    "$(bad '{"type":"submit","command":"echo \ud800"}')" \
    "field 'command' holds a lone UTF-16 surrogate"
assert_match "socket: a newline in a write's path" \
    "$(bad '{"type":"submit","write":{"path":"'"$P"'/a\n#x","content":"x"}}')" \
    "field 'write.path' holds a control character \\(U\\+000A"
assert_match "socket: a newline in cwd" \
    "$(bad '{"type":"submit","command":"true","cwd":"'"$P"'\nx"}')" \
    "field 'cwd' holds a control character"
assert_match "socket: an escape character in an extra path" \
    "$(bad '{"type":"submit","command":"true","rw":["'"$P"'/\u001b[2J"]}')" \
    "field 'rw\\[0\\]' holds a control character \\(U\\+001B"
assert_match "socket: a C1 control in a path" \
    "$(bad '{"type":"submit","command":"true","cwd":"'"$P"'/\u009b"}')" \
    "field 'cwd' holds a control character \\(U\\+009B"
long=$(head -c 5000 /dev/zero | tr '\0' a)
assert_match "socket: an over-long path" \
    "$(bad '{"type":"submit","command":"true","cwd":"/'"$long"'"}')" \
    "field 'cwd' is longer than 4095 bytes"
assert_match "socket: a control character in an env name" \
    "$(bad '{"type":"submit","command":"true","env":{"A\nB":"1"}}')" \
    "field 'env' has an invalid variable name"
assert_match "socket: a key with \\u0000 is named as a key" \
    "$(bad '{"type":"submit","command":"true","env":{"A\u0000B":"1"}}')" \
    "a key in 'env' holds a NUL character"
# A raw NUL byte (not \u0000): an error reply, never silence.
assert_match "socket: a line of one NUL byte gets an error" \
    "$(printf '\0\n' | "$PEER" -t 10 -n 1 "$S" | grep '"type":"error"')" \
    "NUL byte"
assert_match "socket: a NUL byte after spaces gets an error" \
    "$(printf ' \0{"type":"submit","command":"touch cut"}\n' |
    "$PEER" -t 10 -n 1 "$S" | grep '"type":"error"')" "NUL byte"
ok_unless "nothing was written or run" test -e "$P/w.txt" -o -e "$P/cut" -o -e "$P/a"
out=$(printf '%s\n' '{"type":"submit","command":"printf \"%s|\" \"\ud83d\ude00\" \"\u00e9\""}' |
    "$PEER" -t 20 -n 1 -w queued "$S")
assert_match "socket: a surrogate pair and other escapes still work" "$out" \
    '"type":"queued"'

# bwgate mcp: the same refusals as tool errors, nothing written.
mcp() {	# LINE: the reply to id 2; stdin open until it comes
	: > "$T/mcp.out"
	{ printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$1"
	  wait_for 60 grep -q '"id":2' "$T/mcp.out"; } |
	    BWGATE_SOCKET="$S" timeout 90 "$BWGATE" mcp --project "$P" > "$T/mcp.out" 2>/dev/null
	jq -c 'select(.id == 2)' "$T/mcp.out"
}
call() {	# TOOL ARGUMENTS-JSON-TEXT (raw, escapes as written)
	mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"'"$1"'","arguments":'"$2"'}}'
}
out=$(call write_file '{"path":"nul.txt","content":"abc\u0000def\n"}')
assert_eq "mcp write_file with \\u0000: a tool error" "$(jq -r .result.isError <<< "$out")" true
assert_match "  naming the field" "$(jq -r '.result.content[0].text' <<< "$out")" \
    "field 'params.arguments.content' holds a NUL character \\(\\\\u0000\\): refused, not cut short"
ok_unless "  no 3-byte file (nor any)" test -e "$P/nul.txt"
out=$(call write_file '{"path":"a\n#b","content":"x"}')
assert_match "mcp write_file with a newline in the path: an error naming it" \
    "$out" "field 'arguments.path' holds a control character \\(U\\+000A"
ok_unless "  nothing written" test -e "$P/a"
out=$(call run '{"command":"echo \ud800"}')
assert_match "mcp run with a lone surrogate: a tool error naming it" \
    "$(jq -r '"\(.result.isError) \(.result.content[0].text)"' <<< "$out")" \
    "true.*field 'params.arguments.command' holds a lone UTF-16 surrogate"
out=$(call run '{"command":"true\u0000; touch cut"}')
assert_match "mcp run with \\u0000: refused" "$(jq -r .result.content[0].text <<< "$out")" \
    "holds a NUL character"
ok_unless "  the tail did not run" test -e "$P/cut"
out=$(mcp '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\ud800"}}')
assert_eq "mcp: a surrogate outside a tool call: invalid params" \
    "$(jq -r .error.code <<< "$out")" -32602
stop_console
done_testing
