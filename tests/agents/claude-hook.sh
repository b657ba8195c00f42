#!/bin/bash
# claude-hook: the real Claude Code with the documented PreToolUse hook
# (tests/agents/setup/claude-hook.json in ~/.claude/settings.json) against a
# headless console whose operator answers on the control socket. The model's
# Bash calls are rewritten and run sandboxed: a write outside the project
# leaves nothing on the host (and the report says so), a write inside is in the change
# report, and the output, the exit status, the change report and the
# operator's deny note reach the model's next request. With --writes
# console, a Write the console made is reported to the model as done.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project
# Outside the project: the home directory (the sandbox shows an empty,
# private one and discards what is written there).
OUT="$HOME/outside.txt"

start_mock anthropic || { ok_if "the mock starts" false; done_testing; exit; }
# Each turn: inside and outside writes, an operator's denial, a failure.
turns='[
 {"tool": "Bash", "input": {"command": "echo in > made-inside.txt; echo out > '"$OUT"'; echo status=$?", "description": "writes"}},
 {"tool": "Bash", "input": {"command": "cat made-inside.txt #deny", "description": "read"}},
 {"tool": "Bash", "input": {"command": "echo failing; exit 3", "description": "fail"}},
 {"text": "all done"}]'

# Without the hook, Claude Code's own Bash writes outside: the check below
# can fail.
script "$turns"
claude_p "go" --allowedTools Bash
assert_eq "without the hook: Claude Code ran the turns" "$RC/$(claude_out .result)" "0/all done"
ok_if "without the hook: the write outside the project happened" test -e "$OUT"
rm -f "$OUT" "$P/made-inside.txt"

# With the hook, as doc/agents.md shows it.
mkdir -p "$HOME/.claude"
cp "$SETUP/claude-hook.json" "$HOME/.claude/settings.json"
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
script "$turns"
claude_p "go"
assert_eq "with the hook: claude -p ran the script to the end" \
    "$RC/$(claude_out .result)" "0/all done"

r=$(request_of "echo in > made-inside.txt")
assert_eq "the first call became a console request, exactly the model's command" \
    "$(jq -r '.[0].command' <<< "$r")" \
    'echo in > made-inside.txt; echo out > '"$OUT"'; echo status=$?'
assert_eq "  the operator approved it and it ran" "$(jq -r '.[0].state' <<< "$r")" finished
ok_unless "the write outside the project did not reach the host" test -e "$OUT"
assert_eq "the write inside the project did" "$(cat "$P/made-inside.txt" 2>/dev/null)" in
res=$(tool_result 0)
assert_match "the next request carries the output" "$res" "^status=[0-9]"
assert_match "  and the report names the write outside, not made on the host" \
    "$res" "'$OUT'"
assert_match "  and the change report naming the file made inside" "$res" \
    "made-inside\\.txt"

res=$(tool_result 1)
assert_match "the operator's deny note reaches the model" "$res" "not this one"
ok_unless "  the denied command's output does not" grep -q '^in$' <<< "$res"
assert_eq "  the console records the denial" \
    "$(request_of "cat made-inside.txt" | jq -r '.[0].state')" denied

res=$(tool_result 2)
assert_match "a failing command: its output reaches the model" "$res" "failing"
assert_match "  with its exit status, as an error" "$(tr '\n' ' ' <<< "$res")" \
    "^\\[error\\].*(Exit code|exit) 3"

# The same hook with --writes console (doc/agents.md: "add --writes console
# to the command"): the console writes the file, and the model is told the
# write succeeded, not that it failed.
jq '.hooks.PreToolUse[0].hooks[0].command += " --writes console"' \
    "$SETUP/claude-hook.json" > "$HOME/.claude/settings.json"
script '[
 {"tool": "Write", "input": {"file_path": "'"$P"'/src/by-console.txt", "content": "console-written\n"}},
 {"text": "all done"}]'
claude_p "go"
assert_eq "--writes console: the session ran" "$RC/$(claude_out .result)" "0/all done"
assert_eq "  the console wrote the file" \
    "$(cat "$P/src/by-console.txt" 2>/dev/null)" console-written
assert_eq "  as a console request" \
    "$(request_of "bytes to src/by-console.txt" | jq -r '.[0].state')" finished
res=$(tool_result 0)
ok_unless "  the model is not told it failed" grep -q '^\[error\]' <<< "$res"
assert_match "  it is told the file was written" "$res" "src/by-console\.txt"
assert_eq "  Claude Code counts no permission denial" \
    "$(claude_out '.permission_denials | length')" 0

# An Edit through --writes console: the console makes the edit, and the
# model reads "done" in a denial (the documented limit: Claude Code's hook
# output has nothing that reports a tool's result as done without running
# it, and its own edit would no longer find the text).
script '[
 {"tool": "Read", "input": {"file_path": "'"$P"'/src/a.txt"}},
 {"tool": "Edit", "input": {"file_path": "'"$P"'/src/a.txt", "old_string": "hello", "new_string": "edited by the console"}},
 {"text": "all done"}]'
claude_p "go"
assert_eq "--writes console, Edit: the session ran" "$RC/$(claude_out .result)" "0/all done"
assert_eq "  the console made the edit" "$(cat "$P/src/a.txt" 2>/dev/null)" \
    "edited by the console"
assert_eq "  as a console request" \
    "$(request_of "bytes to src/a.txt" | jq -r '.[0].state')" finished
assert_match "  the model reads that it is done, in a denial" \
    "$(tool_result 1)" "^\\[error\\].*bwgate: done: the console wrote 'src/a\\.txt'"
assert_eq "  which Claude Code counts as a permission denial" \
    "$(claude_out '[.permission_denials[].tool_name] | join(",")')" Edit

# The hook as documented, an ordinary Write: claude -p asks nobody, so its
# own permission check refuses the write the hook lets through, unless
# --permission-mode acceptEdits (doc/agents.md says so).
cp "$SETUP/claude-hook.json" "$HOME/.claude/settings.json"
script '[
 {"tool": "Write", "input": {"file_path": "'"$P"'/src/plain.txt", "content": "plain\n"}},
 {"text": "all done"}]'
claude_p "go"
ok_unless "claude -p without acceptEdits: the Write is refused" \
    test -e "$P/src/plain.txt"
assert_eq "  as a permission denial" \
    "$(claude_out '[.permission_denials[].tool_name] | join(",")')" Write
claude_p "go" --permission-mode acceptEdits
assert_eq "with --permission-mode acceptEdits: written" \
    "$(cat "$P/src/plain.txt" 2>/dev/null)" plain
agents_teardown
done_testing
