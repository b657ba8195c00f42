#!/bin/bash
# codex-wait: an operator slower than the client. With the documented setup
# (tests/agents/setup/codex.toml, tool_timeout_sec = 3600), a run the
# operator approves after 310 s (longer than the 300 s Codex otherwise
# allows a call, whatever progress the server sends) still reaches the
# model. With a client timeout set short (tool_timeout_sec = 5) and an
# operator who takes 40 s, Codex gives up on the call: the request must be
# withdrawn then (or when the session ends), never left for the operator
# to approve into a run nobody waits for.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project

start_mock openai || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
codex_config "$SETUP/codex.toml"

# 1. The client gives up first.
script '[
 {"tool": "mcp__bwgate__run", "arguments": {"command": "touch given-up.txt #after40"}},
 {"text": "all done"}]'
start=$(date +%s)
LIMIT=60 codex_exec "go" -c mcp_servers.bwgate.tool_timeout_sec=5
took=$(( $(date +%s) - start ))
assert_eq "the call reached the console" \
    "$(request_of "touch given-up.txt" | jq length)" 1
assert_eq "a client timeout of 5 s: codex exec finishes the script" \
    "$RC/$(tail -n 1 "$T/codex.out")" "0/all done"
ok_if "  before the operator decides (took ${took} s)" test "$took" -lt 40
assert_match "  the model is told the call timed out" "$(tool_result 0)" \
    "timed out|timeout"
ok_if "  the console withdraws the request" \
    wait_for 10 state_is "touch given-up.txt" withdrawn
id=$(request_of "touch given-up.txt" | jq -r '.[0].id')
(cd "$P" && bwgate approve "$id") > /dev/null 2>&1
ok_unless "  an approval after that is refused" test "$?" -eq 0
ok_unless "  and nothing ran" wait_for 5 test -e "$P/given-up.txt"

# 2. The operator takes 310 s, past the 300 s Codex allows a call unless
# told otherwise; the documented setup (tool_timeout_sec = 3600) waits.
script '[
 {"tool": "mcp__bwgate__run", "arguments": {"command": "echo after-the-wait #after310"}},
 {"text": "all done"}]'
LIMIT=420 codex_exec "go"
assert_eq "an operator taking 310 s: codex exec finishes the script" \
    "$RC/$(tail -n 1 "$T/codex.out")" "0/all done"
assert_eq "  the command ran once approved" \
    "$(state_of "echo after-the-wait")" finished
assert_match "  its output reached the model" "$(tool_result 0)" "after-the-wait"
agents_teardown
done_testing
