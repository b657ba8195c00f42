#!/bin/bash
# codex-mcp: the real Codex CLI (`codex exec`) with bwgate's MCP server set
# up as doc/agents.md shows it (tests/agents/setup/codex.toml in
# ~/.codex/config.toml), against a headless console whose operator answers
# on the control socket: the run tool's output and change report, the
# operator's deny note and a file write reach the model.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project

start_mock openai || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
codex_config "$SETUP/codex.toml"

script '[
 {"tool": "mcp__bwgate__run", "arguments": {"command": "echo via-codex > codex-made.txt; cat codex-made.txt"}},
 {"tool": "mcp__bwgate__run", "arguments": {"command": "echo no > denied.txt #deny"}},
 {"tool": "mcp__bwgate__write_file", "arguments": {"path": "src/w.txt", "content": "written\n"}},
 {"text": "all done"}]'
codex_exec "go"
assert_eq "codex exec ran the script to the end" \
    "$RC/$(tail -n 1 "$T/codex.out")" "0/all done"
assert_match "the model is offered the run tool" "$(offered_tools)" \
    "^mcp__bwgate__run$"

assert_eq "run: the console ran the command as sent" \
    "$(request_of "echo via-codex" | jq -r '.[0] | "\(.command)|\(.state)"')" \
    "echo via-codex > codex-made.txt; cat codex-made.txt|finished"
assert_eq "  the file is in the project" "$(cat "$P/codex-made.txt" 2>/dev/null)" via-codex
res=$(tool_result 0)
assert_match "  its output reaches the model" "$res" "via-codex"
assert_match "  and its change report" "$res" "codex-made\\.txt"
res=$(tool_result 1)
assert_match "a denied run: the note reaches the model" "$res" "not this one"
ok_unless "  nothing was written" test -e "$P/denied.txt"
assert_eq "write_file: written through the console" \
    "$(cat "$P/src/w.txt" 2>/dev/null)" written
assert_match "  the model is told what changed" "$(tool_result 2)" "src/w\\.txt"
agents_teardown
done_testing
