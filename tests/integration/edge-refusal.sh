#!/bin/bash
# edge-refusal: a write the agent adapters refuse themselves (bwgate mcp's
# write_file and edit_file, the Claude Code hook's Write) to a protected
# file (.envrc), and a Bash command the user's Claude Code deny rule
# refuses in the hook, are on the record like a command a deny rule
# refuses, and so are the hook's own blocks (no console, unreadable input):
# with
# a console, a request with verdict deny in the queue, `bwgate log` and
# the audit log; with none, a "refused" record in the audit log that
# `bwgate log` lists. Nothing is written either way.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1

mcp() {	# LINE: the reply to id 2
	: > "$T/mcp.out"
	{ printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$1"
	  wait_for 60 grep -q '"id":2' "$T/mcp.out"; } |
	    BWGATE_SOCKET="$S" timeout 90 "$BWGATE" mcp --project "$P" > "$T/mcp.out" 2>/dev/null
	jq -c 'select(.id == 2)' "$T/mcp.out"
}
call() {	# TOOL ARGUMENTS-JSON
	mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"'"$1"'","arguments":'"$2"'}}'
}
hook_write() {	# FILE: the hook's answer to a Write of FILE
	jq -cn --arg f "$P/$1" --arg cwd "$P" \
	    '{cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Write",
	    tool_input: {file_path: $f, content: "export X=1\n"}}' |
	    BWGATE_SOCKET="$S" "$BWGATE" hook claude-code 2> "$T/hook.err"
}
hook_bash() {	# COMMAND: the hook's decision on a Bash call of it
	jq -cn --arg c "$1" --arg cwd "$P" \
	    '{cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
	    tool_input: {command: $c}}' |
	    BWGATE_SOCKET="$S" "$BWGATE" hook claude-code 2> "$T/hook.err" |
	    jq -r .hookSpecificOutput.permissionDecision
}
refused_records() {	# EDGE PATH: the audit's refused records of it
	jq -c --arg e "$1" --arg p "$2" \
	    'select(.record == "refused" and .edge == $e and .path == $p)' \
	    "$AUDIT" 2>/dev/null | wc -l
}

# No console: the audit log has each refusal.
out=$(call write_file '{"path":".envrc","content":"export X=1\n"}')
assert_eq "no console: mcp write_file .envrc is a tool error" \
    "$(jq -r .result.isError <<< "$out")" true
assert_match "  that says it is protected" \
    "$(jq -r '.result.content[0].text' <<< "$out")" "protected"
ok_if "  the audit log has the refusal" test "$(refused_records mcp .envrc)" = 1
echo 'export A=1' > .envrc
out=$(call edit_file '{"path":".envrc","old_text":"A=1","new_text":"A=2"}')
assert_eq "no console: mcp edit_file .envrc is a tool error" \
    "$(jq -r .result.isError <<< "$out")" true
ok_if "  the audit log has it too" test "$(refused_records mcp .envrc)" = 2
assert_eq "  .envrc unchanged" "$(cat .envrc)" 'export A=1'
rm .envrc
assert_eq "no console: the hook denies Write .envrc" \
    "$(hook_write .envrc | jq -r .hookSpecificOutput.permissionDecision)" deny
ok_if "  the audit log has it" test "$(refused_records hook .envrc)" = 1
# The user's own Claude Code deny rule for Bash.
mkdir -p .claude
echo '{"permissions":{"deny":["Bash(touch:*)"]}}' > .claude/settings.local.json
assert_eq "no console: the hook denies touch (the user's deny rule)" \
    "$(hook_bash 'touch cut-one')" deny
ok_if "  the audit log has it" test "$(jq -c \
    'select(.record == "refused" and .command == "touch cut-one")' \
    "$AUDIT" | wc -l)" = 1
# The hook's own blocks: a Bash call with no console to run it, input it
# cannot read.
jq -cn --arg cwd "$P" '{cwd: $cwd, hook_event_name: "PreToolUse",
    tool_name: "Bash", tool_input: {command: "echo unreached"}}' |
    BWGATE_SOCKET="$S" "$BWGATE" hook claude-code > /dev/null 2>&1
assert_eq "no console: the hook blocks a Bash call (exit 2)" "$?" 2
ok_if "  the audit log has it: project, tool, command and why" test "$(jq -c \
    --arg p "$P" 'select(.record == "refused" and .edge == "hook" and
    .project == $p and .tool == "Bash" and .command == "echo unreached" and
    (.reason | test("console")))' "$AUDIT" | wc -l)" = 1
printf '{"cwd": "%s", "tool_name": "Ba' "$P" |
    BWGATE_SOCKET="$S" "$BWGATE" hook claude-code > /dev/null 2>&1
assert_eq "hook input that is no JSON: blocked (exit 2)" "$?" 2
ok_if "  the audit log has that too" test "$(jq -c 'select(.record ==
    "refused" and .edge == "hook" and (.reason | test("hook input")))' \
    "$AUDIT" | wc -l)" = 1
"$BWGATE" log > "$T/log"
assert_match "bwgate log lists the refusals" "$(cat "$T/log")" \
    '^- +[^ ]+ +refused +- +deny +.+ +write_file \.envrc'
assert_match "  the hook's too" "$(cat "$T/log")" \
    '^- +[^ ]+ +refused +- +deny +claude-code +Write \.envrc'
assert_match "  and its block for want of a console" "$(cat "$T/log")" \
    '^- +[^ ]+ +refused +- +deny +claude-code +.*echo unreached'

# With a console: a request the console refuses by its verdict.
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
out=$(call write_file '{"path":".envrc","content":"export X=1\n"}')
assert_eq "console: mcp write_file .envrc is a tool error" \
    "$(jq -r .result.isError <<< "$out")" true
"$BWGATE" list --json > "$T/list.json"
ok_if "  a request in the queue, verdict deny, denied" test "$(jq -r \
    '[.[] | select(.write.path != null and (.write.path | endswith(".envrc")))
    | "\(.verdict) \(.state)"] | .[0]' "$T/list.json")" = "deny denied"
assert_eq "console: the hook denies Write .envrc" \
    "$(hook_write .envrc | jq -r .hookSpecificOutput.permissionDecision)" deny
ok_if "  a second request in the queue" test "$(jq -r \
    '[.[] | select(.write.path != null and (.write.path | endswith(".envrc")))]
    | length' <("$BWGATE" list --json))" = 2
ok_if "  both in the audit log as requests" test "$(jq -c \
    'select(.record == "request" and (.request.write.path // "" | endswith(".envrc")))' \
    "$AUDIT" | wc -l)" = 2
assert_eq "console: the hook denies touch (the user's deny rule)" \
    "$(hook_bash 'touch cut-two')" deny
ok_if "  a request the console denied, saying who refused it" test "$(jq -r \
    '[.[] | select(.command == "touch cut-two") | "\(.verdict) \(.state) \(.reason)"]
    | .[0]' <("$BWGATE" list --json) | cut -c 1-29)" = "deny denied refused by hook: "
stop_console
ok_unless "the refused commands did not run" test -e cut-one -o -e cut-two
assert_match "bwgate log shows them denied" "$("$BWGATE" log)" \
    '^[0-9]+ +[^ ]+ +denied +- +deny '
ok_unless "nothing was written" test -e .envrc
done_testing
