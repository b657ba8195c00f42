#!/bin/bash
# claude-mcp: the real Claude Code with bwgate's MCP server, set up as
# doc/agents.md shows it (tests/agents/setup/claude-mcp.sh run in the
# project, tests/agents/setup/claude-mcp.json as the user's settings),
# against a headless console whose operator answers on the control socket:
# the run tool's output and change report, the operator's deny note and a
# file write reach the model; Claude Code's own Bash is not offered.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project

start_mock anthropic || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
(cd "$P" && sh "$SETUP/claude-mcp.sh") > "$T/mcp-add.out" 2>&1
assert_eq "the documented 'claude mcp add' line works" "$?" 0
mkdir -p "$HOME/.claude"
cp "$SETUP/claude-mcp.json" "$HOME/.claude/settings.json"

script '[
 {"tool": "mcp__bwgate__run", "input": {"command": "echo via-mcp > mcp-made.txt; cat mcp-made.txt"}},
 {"tool": "mcp__bwgate__run", "input": {"command": "echo no > denied.txt #deny"}},
 {"tool": "mcp__bwgate__write_file", "input": {"path": "src/w.txt", "content": "written\n"}},
 {"text": "all done"}]'
claude_p "go"
assert_eq "claude -p ran the script to the end" "$RC/$(claude_out .result)" "0/all done"

assert_eq "run: the console ran the command as sent" \
    "$(request_of "echo via-mcp" | jq -r '.[0] | "\(.command)|\(.state)"')" \
    "echo via-mcp > mcp-made.txt; cat mcp-made.txt|finished"
assert_eq "  the file is in the project" "$(cat "$P/mcp-made.txt" 2>/dev/null)" via-mcp
res=$(tool_result 0)
assert_match "  its output reaches the model" "$res" "via-mcp"
assert_match "  and its change report" "$res" "mcp-made\\.txt"
res=$(tool_result 1)
assert_match "a denied run: the note reaches the model" "$res" "not this one"
ok_unless "  nothing was written" test -e "$P/denied.txt"
tools=$(offered_tools)
assert_match "the model is offered the run tool" "$tools" "^mcp__bwgate__run$"
ok_unless "  and not Claude Code's own Bash (the setup denies it)" \
    grep -qx Bash <<< "$tools"
assert_eq "write_file: written through the console" \
    "$(cat "$P/src/w.txt" 2>/dev/null)" written
assert_match "  the model is told what changed" "$(tool_result 2)" "src/w\\.txt"
assert_eq "  one console request (the file write)" \
    "$(request_of "bytes to src/w.txt" | jq -r '.[0].state')" finished
agents_teardown
done_testing
