#!/bin/bash
# waits: the time an operator takes, and an agent that gives up. Through the
# documented hook, the Bash call's own timeout (short here: the model asks
# for 5 s) bounds the wait for approval: the request is withdrawn, the model
# is told why and `claude -p` ends; an approval inside the timeout runs the
# command. A Claude Code session interrupted while its command runs gets
# the command killed; one interrupted while its MCP run waits, and a Codex
# session interrupted the same way, get the request withdrawn: nothing is
# left waiting for an operator to approve by mistake later.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project

start_mock anthropic || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
mkdir -p "$HOME/.claude"
cp "$SETUP/claude-hook.json" "$HOME/.claude/settings.json"

# 1. An approval inside the Bash call's timeout, then a wait longer than it.
script '[
 {"tool": "Bash", "input": {"command": "echo approved-later #after2", "description": "x", "timeout": 60000}},
 {"text": "all done"}]'
claude_p "go"
assert_match "an approval inside the timeout: the command ran, its output reached the model" \
    "$(tool_result 0)" "^approved-later"
script '[
 {"tool": "Bash", "input": {"command": "touch late.txt #hold", "description": "x", "timeout": 5000}},
 {"text": "all done"}]'
claude_bg "go"
ok_if "a wait past the call's 5 s timeout: the console withdraws the request within 20 s" \
    wait_for 20 state_is "touch late.txt" withdrawn
ok_if "  claude -p ends within 30 s more" wait_for 30 eval '! kill -0 '"$CLPID"
kill -KILL "$CLPID" 2>/dev/null; wait "$CLPID" 2>/dev/null
assert_eq "  having finished the script" "$(claude_out .result)" "all done"
assert_match "  the model is told it timed out" "$(tool_result 0 | tr '\n' ' ')" \
    "^\\[error\\].*(timed out|timeout|withdrawn)"
id=$(request_of "touch late.txt" | jq -r '.[0].id')
(cd "$P" && bwgate approve "$id") > /dev/null 2>&1
ok_unless "  an approval after that is refused" test "$?" -eq 0
ok_unless "  and nothing ran" wait_for 5 test -e "$P/late.txt"

# 2. Claude Code interrupted while its command runs.
script '[
 {"tool": "Bash", "input": {"command": "tail -f /dev/null; touch slept.txt", "description": "x", "timeout": 600000}},
 {"text": "all done"}]'
claude_bg "go"
ok_if "a long command runs" wait_for 30 state_is "tail -f /dev/null" running
kill -INT "$CLPID"
ok_if "claude -p ends on SIGINT" wait_for 20 eval '! kill -0 '"$CLPID"
kill -KILL "$CLPID" 2>/dev/null; wait "$CLPID" 2>/dev/null
ok_if "  the console kills the command it ran" \
    wait_for 20 state_is "tail -f /dev/null" killed
ok_unless "  which never finished" test -e "$P/slept.txt"

# 3. Claude Code interrupted while its MCP run waits for the operator.
(cd "$P" && sh "$SETUP/claude-mcp.sh") > /dev/null 2>&1
cp "$SETUP/claude-mcp.json" "$HOME/.claude/settings.json"
script '[
 {"tool": "mcp__bwgate__run", "input": {"command": "touch mcp-late.txt #hold"}},
 {"text": "all done"}]'
claude_bg "go"
ok_if "an MCP run waits for the operator" \
    wait_for 30 state_is "touch mcp-late.txt" pending
kill -INT "$CLPID"
ok_if "claude -p ends on SIGINT" wait_for 20 eval '! kill -0 '"$CLPID"
kill -KILL "$CLPID" 2>/dev/null; wait "$CLPID" 2>/dev/null
ok_if "  the console withdraws the request" \
    wait_for 20 state_is "touch mcp-late.txt" withdrawn
agents_teardown

# 4. Codex interrupted while its MCP run waits for the operator.
start_mock openai || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
codex_config "$SETUP/codex.toml"
script '[
 {"tool": "mcp__bwgate__run", "arguments": {"command": "touch codex-late.txt #hold"}},
 {"text": "all done"}]'
codex_bg "go"
ok_if "a Codex MCP run waits for the operator" \
    wait_for 30 state_is "touch codex-late.txt" pending
kill -INT "$CXPID"
ok_if "codex exec ends on SIGINT" wait_for 20 eval '! kill -0 '"$CXPID"
kill -KILL "$CXPID" 2>/dev/null; wait "$CXPID" 2>/dev/null
ok_if "  the console withdraws the request" \
    wait_for 20 state_is "touch codex-late.txt" withdrawn
ok_unless "  nothing ran" test -e "$P/codex-late.txt"
agents_teardown
done_testing
