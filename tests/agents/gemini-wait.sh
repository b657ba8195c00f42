#!/bin/bash
# gemini-wait: an operator slower than the client, with Gemini CLI. It
# gives up on an MCP call after the server's "timeout" (ms; 600 s when
# unset), whatever progress the server sends. With the documented setup
# (tests/agents/setup/gemini.json, "timeout": 3600000), a run the operator
# approves after 310 s (past the 300 s Codex allows unless told otherwise)
# still reaches the model as the command's result. With a timeout set short
# (5 s) and an operator who takes 40 s, Gemini CLI cancels the call: the
# request must be withdrawn then, never left for the operator to approve
# into a run nobody waits for; a command still running when it gives up is
# killed; a session interrupted (Ctrl-C) while its run waits gets the
# request withdrawn.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project

start_mock gemini || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator

# 1. The client gives up first.
jq '.mcpServers.bwgate.timeout = 5000' "$SETUP/gemini.json" > "$T/short.json"
gemini_config "$T/short.json"
gemini_policy "$SETUP/gemini-policy.toml"
script '[
 {"tool": "mcp_bwgate_run", "input": {"command": "touch given-up.txt #after40"}},
 {"text": "all done"}]'
start=$(date +%s)
LIMIT=60 gemini_p "go"
took=$(( $(date +%s) - start ))
assert_eq "the call reached the console" \
    "$(request_of "touch given-up.txt" | jq length)" 1
assert_eq "a timeout of 5 s: gemini -p finishes the script" \
    "$RC/$(gemini_out .response)" "0/all done"
ok_if "  before the operator decides (took ${took} s)" test "$took" -lt 40
assert_match "  the model is told the call timed out" "$(tool_result 0)" \
    "timed out|timeout"
ok_if "  the console withdraws the request" \
    wait_for 10 state_is "touch given-up.txt" withdrawn
id=$(request_of "touch given-up.txt" | jq -r '.[0].id')
(cd "$P" && bwgate approve "$id") > /dev/null 2>&1
ok_unless "  an approval after that is refused" test "$?" -eq 0
ok_unless "  and nothing ran" wait_for 5 test -e "$P/given-up.txt"

# A command that outlives the call: Gemini CLI cancels it, the console
# kills it.
script '[
 {"tool": "mcp_bwgate_run", "input": {"command": "tail -f /dev/null; touch slept.txt"}},
 {"text": "all done"}]'
LIMIT=60 gemini_p "go"
assert_eq "a command running past the 5 s timeout: gemini -p finishes" \
    "$RC/$(gemini_out .response)" "0/all done"
ok_if "  the console kills the command" \
    wait_for 20 state_is "tail -f /dev/null" killed
ok_unless "  which never finished" test -e "$P/slept.txt"

# Gemini CLI interrupted while its run waits for the operator.
gemini_config "$SETUP/gemini.json"
gemini_policy "$SETUP/gemini-policy.toml"
script '[
 {"tool": "mcp_bwgate_run", "input": {"command": "touch gemini-late.txt #hold"}},
 {"text": "all done"}]'
# Its own process group, as in a terminal: Ctrl-C signals the group (Gemini
# CLI's relaunched node and the MCP server with it).
set -m
(cd "$P" && client_exec gemini -p go --output-format json < /dev/null \
    > "$T/gemini.json" 2> "$T/gemini.err") &
GMPID=$!
set +m
ok_if "a Gemini CLI run waits for the operator" \
    wait_for 60 state_is "touch gemini-late.txt" pending
kill -INT -- -"$GMPID"
ok_if "gemini -p ends on Ctrl-C (SIGINT to its process group)" \
    wait_for 20 eval '! kill -0 -- -'"$GMPID"
kill -KILL -- -"$GMPID" 2>/dev/null; wait "$GMPID" 2>/dev/null
ok_if "  the console withdraws the request" \
    wait_for 20 state_is "touch gemini-late.txt" withdrawn
ok_unless "  nothing ran" test -e "$P/gemini-late.txt"

# 2. The operator takes 310 s; the documented setup ("timeout": 3600000)
# waits, and the command's result is what the model reads.
gemini_config "$SETUP/gemini.json"
gemini_policy "$SETUP/gemini-policy.toml"
script '[
 {"tool": "mcp_bwgate_run", "input": {"command": "echo after-the-wait #after310"}},
 {"text": "all done"}]'
start=$(date +%s)
LIMIT=420 gemini_p "go"
took=$(( $(date +%s) - start ))
assert_eq "an operator taking 310 s: gemini -p finishes the script" \
    "$RC/$(gemini_out .response)" "0/all done"
ok_if "  after the operator's 310 s (took ${took} s)" test "$took" -ge 300
assert_eq "  the command ran once approved" \
    "$(state_of "echo after-the-wait")" finished
res=$(tool_result 0)
assert_match "  its output reached the model" "$res" "after-the-wait"
ok_unless "  as the command's result, not an error" grep -q '^\[error\]' <<< "$res"
agents_teardown
done_testing
