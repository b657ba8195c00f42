#!/bin/bash
# claude-rules: the documented hook keeps what Claude Code does on its own.
# The user's deny rule ("permissions": {"deny": ["Bash(touch:*)"]}) still
# refuses `touch`, and a `cd` carries over to the next Bash call, as both
# do without the hook (the control run shows it for this Claude Code).
. "$(dirname "$0")/lib.sh"
need_clients
agent_project

start_mock anthropic || { ok_if "the mock starts" false; done_testing; exit; }
turns='[
 {"tool": "Bash", "input": {"command": "touch by-touch.txt", "description": "x"}},
 {"tool": "Bash", "input": {"command": "cd src", "description": "x"}},
 {"tool": "Bash", "input": {"command": "pwd; echo there > there.txt", "description": "x"}},
 {"text": "all done"}]'
mkdir -p "$HOME/.claude"

# Control: Claude Code alone, with the user's deny rule.
echo '{"permissions": {"deny": ["Bash(touch:*)"]}}' > "$HOME/.claude/settings.json"
script "$turns"
claude_p "go" --allowedTools Bash
assert_eq "without the hook: the session ran" "$RC/$(claude_out .result)" "0/all done"
ok_unless "without the hook: the deny rule refuses touch" test -e "$P/by-touch.txt"
assert_match "  and the model is told" "$(tool_result 0)" "^\\[error\\]"
assert_eq "without the hook: cd carries over to the next call" \
    "$(tool_result 2)" "$P/src"
ok_if "  the next call wrote in src/" test -e "$P/src/there.txt"
rm -f "$P/src/there.txt"

# The documented hook, with the same deny rule.
jq -s '.[0] * .[1]' "$SETUP/claude-hook.json" - > "$HOME/.claude/settings.json" \
    <<< '{"permissions": {"deny": ["Bash(touch:*)"]}}'
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
script "$turns"
claude_p "go"
assert_eq "with the hook: the session ran" "$RC/$(claude_out .result)" "0/all done"
ok_unless "with the hook: the user's deny rule still refuses touch" \
    test -e "$P/by-touch.txt"
assert_match "  and the model is told" "$(tool_result 0)" "^\\[error\\]"
assert_eq "  the console never ran it" \
    "$(request_of "touch by-touch.txt" | jq '[.[] | select(.state == "finished")] | length')" 0
# (bwgate's own lines, such as "waiting for approval" on a loaded
# machine, may come first: the output is stdout and stderr together)
assert_eq "with the hook: cd carries over to the next call" \
    "$(tool_result 2 | grep -v '^bwgate: ' | head -n 1)" "$P/src"
ok_if "  the next call wrote in src/" test -e "$P/src/there.txt"
ok_unless "  not in the project's top" test -e "$P/there.txt"
agents_teardown
done_testing
