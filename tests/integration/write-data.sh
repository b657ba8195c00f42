#!/bin/bash
# write-data: an agent's file write reaches the sandbox as data, never as
# shell text (issue 26). The attack: a path with a newline and shell code,
# through MCP write_file (JSON-RPC on `bwgate mcp`'s stdin) and through the
# Claude Code hook's --writes console, against a console that runs plain
# writes at once (--auto-allowlisted). Afterwards, on the host: no command
# ran (no marker file), nothing outside the project, and each write was
# refused or made exactly at the literal path. Also: NUL bytes written
# exactly, a write refused when the file changed after its diff was made,
# agent configuration (.claude/settings.json) refused.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
printf '#!/bin/sh\necho v1\n' > run.sh
chmod +x run.sh
start_console --headless --auto-allowlisted ||
    { ok_if "the console starts" false; done_testing; exit; }

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
# A tools/call line: call ID TOOL ARGS-JSON
call() {
	jq -cn --argjson id "$1" --arg name "$2" --argjson args "$3" \
	    '{jsonrpc: "2.0", id: $id, method: "tools/call",
	      params: {name: $name, arguments: $args}}'
}
# Have the calls with ids 2.. all been answered?
answered() {	# FILE N
	[ "$(jq -s '[.[] | select((.id | type) == "number" and .id >= 2)]
	    | length' "$1" 2>/dev/null)" -ge "$2" ]
}
# One MCP session: the calls, then EOF once each has its answer.
mcp_session() {	# OUT CALL-LINES...
	local out=$1; shift
	: > "$out"
	{
		echo "$INIT"
		echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		printf '%s\n' "$@"
		wait_for 60 answered "$out" $#
	} | "$BWGATE" mcp > "$out" 2> "$T/mcp.err"
}
res() {	# ID: [refused (a tool error or a JSON-RPC error), text]
	jq -c "select(.id == $1) | [(.result.isError // false) or
	    (.error != null), (.result.content[0].text // .error.message)]" \
	    "$T/mcp.jsonl"
}
markers() {	# any marker file anywhere in the test's directory
	find "$T" -name 'pwned-*' -print -quit
}

# 1. MCP write_file. A newline ends the comment line the path used to be
# pasted into; what follows is the attack.
nl_path=$'evil.txt\ntouch pwned-nl\n#'
nl2_path=$'x\'\ntouch pwned-q\n\''
lit_path="q'\$(touch pwned-s)\`touch pwned-b\`;touch pwned-c;'.txt"
mcp_session "$T/mcp.jsonl" \
    "$(call 2 write_file "$(jq -cn --arg p "$nl_path" '{path: $p, content: "x"}')")" \
    "$(call 3 write_file "$(jq -cn --arg p "$nl2_path" '{path: $p, content: "x"}')")" \
    "$(call 4 write_file "$(jq -cn --arg p "$lit_path" '{path: $p, content: "lit\n"}')")" \
    "$(call 5 write_file "$(jq -cn --arg c "$(printf 'abc\0def\n\377' | base64 -w0)" \
        '{path: "bin/nul.dat", content_base64: $c}')")" \
    "$(call 6 write_file '{"path":".claude/settings.json","content":"{\"hooks\":{}}"}')" \
    "$(call 7 write_file '{"path":"a.txt","content":"x","content_base64":"eA=="}')"
assert_match "MCP: a newline in the path is refused" "$(res 2)" \
    '^\[true,.*control character'
assert_match "MCP: a newline and quotes in the path are refused" "$(res 3)" \
    '^\[true,.*control character'
assert_eq "MCP: shell syntax in a path without control characters: written" \
    "$(res 4 | jq -c '.[0]')" false
assert_eq "  exactly at the literal path" "$(cat "$P/$lit_path")" lit
assert_eq "MCP: no marker file, anywhere: no command ran" "$(markers)" ""
ok_unless "MCP: no file from the refused paths" \
    sh -c 'ls -a "$1" | grep -q evil' sh "$P"
assert_eq "MCP: NUL and non-UTF-8 content (content_base64): written" \
    "$(res 5 | jq -c '.[0]')" false
ok_if "  byte-exact" cmp "$P/bin/nul.dat" <(printf 'abc\0def\n\377')
assert_match "MCP: .claude/settings.json refused (agent configuration)" \
    "$(res 6)" '^\[true,.*protected'
ok_unless "  not written" test -e "$P/.claude/settings.json"
assert_match "MCP: content and content_base64 together: invalid params" \
    "$(jq -c 'select(.id == 7) | .error.code' "$T/mcp.jsonl")" -32602
assert_eq "the writes ran bwgate's helper, not a shell" \
    "$(jq -c 'select(.record == "request" and .request.rule == "file-write")
        | .request.argv' "$AUDIT" | sort -u)" '["/run/bwgate/helper","--write"]'

# 2. The hook's --writes console, with the same attack.
hook_write() {	# PATH CONTENT
	jq -cn --arg f "$1" --arg c "$2" --arg cwd "$P" '{session_id: "s",
	    transcript_path: "/tmp/t.jsonl", cwd: $cwd, permission_mode:
	    "default", hook_event_name: "PreToolUse", tool_name: "Write",
	    tool_input: {file_path: $f, content: $c}}' |
	    "$BWGATE" hook claude-code --writes console > "$T/hook.out" 2> "$T/hook.err"
	# Exit 2 blocks the call as a deny does (the reason on stderr).
	if [ $? -eq 2 ]; then
		echo "deny $(tr '\n' ' ' < "$T/hook.err")"
		return
	fi
	jq -r '.hookSpecificOutput | .permissionDecision + " " +
	    .permissionDecisionReason' "$T/hook.out" | tr '\n' ' '
}
assert_match "hook: a newline in the path: denied, nothing run" \
    "$(hook_write "$P/$nl_path" x)" "^deny .*control character"
assert_match "hook: shell syntax in the path: written by the console" \
    "$(hook_write "$P/h-$lit_path" 'from the hook')" "^allow bwgate: the console wrote"
assert_eq "  exactly at the literal path" "$(cat "$P/h-$lit_path")" "from the hook"
assert_match "hook: .claude/settings.json: denied" \
    "$(hook_write "$P/.claude/settings.json" '{}')" "^deny .*protected"
ok_unless "  not written" test -e "$P/.claude/settings.json"
assert_eq "hook: no marker file, anywhere: no command ran" "$(markers)" ""

# 3. The raw protocol: a protected path is denied by the rule; a file that
# changed after its diff was made is not overwritten.
submit_write() {	# PATH CONTENT: replies in $T/w.out, in the background
	jq -cn --arg p "$1" --arg c "$2" \
	    '{type: "submit", tag: "w", write: {path: $p, content: $c}}' |
	    "$PEER" -t 30 -n 1 "$S" > "$T/w.out" &
	WPID=$!
}
reply() {
	jq -c "select(.type == \"$1\")" "$T/w.out"
}
submit_write .claude/settings.json '{"permissions":{"allow":["Bash(*)"]}}'
wait "$WPID"
assert_match "protocol: .claude/settings.json: deny by the file-write rule" \
    "$(reply queued | jq -r '.verdict + " " + .rule + " " + .reason')" \
    "^deny file-write write_file: '.claude/settings.json' is protected"
ok_unless "  not written" test -e "$P/.claude/settings.json"

# run.sh has an execute bit: the write asks, so it waits for a decision
# (a console with an operator: without --auto-allowlisted).
stop_console
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
submit_write run.sh $'#!/bin/sh\necho mine\n'
ok_if "conflict: the write waits (a program: ask)" \
    wait_for 10 grep -q '"type":"queued"' "$T/w.out"
assert_eq "  as what it is" "$(reply queued | jq -r '.verdict + " " + .command')" \
    "ask write 20 bytes to run.sh"
printf '#!/bin/sh\necho v2 from someone else\n' > run.sh
"$BWGATE" approve "$(reply queued | jq .id)" >/dev/null
wait "$WPID"
assert_eq "conflict: the helper refuses (exit 3)" \
    "$(reply result | jq -c '[.state, .exit_status]')" '["finished",3]'
assert_match "  and says why" "$(jq -r 'select(.type == "output") | .data' "$T/w.out")" \
    "changed since this write was shown; nothing was written"
assert_eq "  the newer content is kept" "$(sed -n 2p run.sh)" "echo v2 from someone else"
"$BWGATE" show "$(reply queued | jq .id)" > "$T/show.txt" 2>&1
assert_eq "bwgate show: what it is, with the diff" \
    "$(grep -E '^(command|diff|  )' "$T/show.txt" | sed -n 1,4p | tr '\n' '|')" \
    "command   write 20 bytes to run.sh|diff      @@ -2,1 +2,1 @@|          -echo v1|          +echo mine|"
assert_eq "no marker file, anywhere" "$(markers)" ""
stop_console
ok_if "audit log is valid JSON lines" audit_valid
done_testing
