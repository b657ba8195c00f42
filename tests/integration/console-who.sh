#!/bin/bash
# console-who: who asks and why. `bwgate run --agent --description`, the
# MCP client's own name and its run tool's description, the Claude Code
# hook's session and its Bash call's description reach the console (list,
# audit log) as data: a description full of shell syntax is shown exactly
# and runs nothing.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
start_console --headless --auto-allowlisted || exit 1
field() {	# ID FIELD
	"$BWGATE" list --json | jq -r ".[] | select(.id == $1) | .$2 // empty"
}

"$BWGATE" run --agent builder --description "check the make version" \
    -- sleep 0 > /dev/null 2>&1
assert_eq "run --agent names the agent" "$(field 1 agent)" builder
assert_eq "run --description is the request's why" "$(field 1 description)" \
    "check the make version"
assert_match "  and the audit log keeps it" \
    "$(grep '"record":"request"' "$AUDIT" | head -1)" \
    '"description":"check the make version"'
long=$(head -c 2100 /dev/zero | tr '\0' x)
err=$("$BWGATE" run --description "$long" -- true 2>&1); rc=$?
assert_eq "a description over 2000 bytes is refused" "$rc" 125
assert_match "  naming the field" "$err" "field 'description' is longer"

# The MCP client's name and the run tool's description. (The session
# stays open until the call's answer: at EOF the server stops.)
mcp_session() {	# OUT ARGS...: the lines on stdin
	local out="$1"; shift
	rm -f "$T/in"; mkfifo "$T/in"
	"$BWGATE" mcp "$@" < "$T/in" > "$out" 2>&1 &
	local mp=$!
	exec 7> "$T/in"
	cat >&7
	wait_for 30 grep -q '"id":1,' "$out"
	exec 7>&-
	wait "$mp"
}
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-client","version":"1"}}}'
printf '%s\n' "$INIT" \
 '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"command":"sleep 0","description":"see that it works"}}}' |
    mcp_session "$T/mcp.out" --project "$P"
assert_eq "the MCP client's name becomes the agent" "$(field 2 agent)" \
    "mcp test-client"
assert_eq "  the run tool's description the why" "$(field 2 description)" \
    "see that it works"
printf '%s\n' "$INIT" \
 '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"command":"sleep 0"}}}' |
    mcp_session "$T/mcp2.out" --agent named --project "$P"
assert_eq "  unless --agent names it" "$(field 3 agent)" named

# The hook: the session and the Bash call's description, through the one
# quoting function; a hostile description is shown as it is and runs
# nothing.
evil=$'list it\n$(touch pwned-d) `touch pwned-b` \x27; touch pwned-q; \x27'
jq -cn --arg d "$evil" --arg cwd "$P" '{session_id: "0123456789abcdef",
    transcript_path: "/tmp/t.jsonl", cwd: $cwd, permission_mode: "default",
    hook_event_name: "PreToolUse", tool_name: "Bash",
    tool_input: {command: "sleep 0", description: $d}}' |
    "$BWGATE" hook claude-code > "$T/hook.out" 2> "$T/hook.err"
assert_eq "the hook answers" "$?" 0
cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")
sh -c "$cmd" > /dev/null 2>&1
assert_eq "the hook's session names the agent" "$(field 4 agent)" \
    "claude-code 01234567"
assert_eq "  its description is the why, exactly" "$(field 4 description)" \
    "$evil"
ok_unless "  and nothing of it ran" sh -c "find '$T' -name 'pwned-*' | grep -q ."
assert_eq "the command's environment does not get them" \
    "$("$BWGATE" list --json | jq -r '.[] | select(.id == 4) | .env_changed // [] | map(select(startswith("BWGATE_"))) | length')" 0

stop_console
done_testing
