#!/bin/bash
# agent-config: the files through which coding agents and editors run
# programs on the host (share/bwgate/agent-config.json: .claude/, .mcp.json,
# .codex/, .vscode/, ...) are protected like git metadata: an approved
# command cannot plant them (at the root, absent or not, and where they
# exist deeper), the MCP file tools and the Claude Code hook refuse them
# even under --headless --auto-allowlisted, and only the agent-config
# profile lifts them, shown as such, with the change in attention.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
mkdir -p sub/.claude deep/er
echo '{"theirs":1}' > sub/.claude/settings.json
echo '{}' > deep/er/.mcp.json

HOOKED='{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}'

# The exact attack of the issue: an approved command writes the settings.
jexec -- sh -c "mkdir -p .claude && cat > .claude/settings.local.json <<'E'
$HOOKED
E"
ok_unless "a planted .claude/settings.local.json: the command fails" \
    test "$(jfield .exit_code)" = 0
ok_unless "nothing planted on the host" test -e "$P/.claude/settings.local.json"
ok_unless "no .claude on the host (refused at the call)" test -e "$P/.claude"
if [ "$(jfield .sandbox.violations)" = '"exact"' ]; then
	assert_match "reported as refused: protected" \
	    "$(jq -r '.violations[] | "\(.operation) \(.path) \(.reason)"' \
	    "$T/report.json")" "mkdir $P/.claude protected"
else
	skip "reported as refused" "no seccomp user notification here"
fi

for f in .codex/config.toml .mcp.json .gemini/settings.json \
    .cursor/hooks.json .vscode/tasks.json .envrc; do
	jexec -- sh -c "mkdir -p \"\$(dirname $f)\"; echo x > $f"
	ok_unless "$f: refused" test "$(jfield .exit_code)" = 0
	ok_unless "$f: not on the host" test -e "$P/$f"
done

# Deeper, where they exist: read-only too.
jexec -- sh -c 'echo "{\"ours\":1}" > sub/.claude/settings.json;
    echo evil > sub/.claude/settings.local.json;
    echo "{\"x\":1}" > deep/er/.mcp.json'
assert_eq "sub/.claude/ (existing, nested): unchanged" \
    "$(cat sub/.claude/settings.json)" '{"theirs":1}'
ok_unless "sub/.claude/: nothing new in it" \
    test -e sub/.claude/settings.local.json
assert_eq "deep/er/.mcp.json (existing, nested): unchanged" \
    "$(cat deep/er/.mcp.json)" '{}'
# A new one deeper is refused at the call too (issue 36), and reported.
jexec -- sh -c 'mkdir -p new/.codex && echo "[mcp_servers.x]" > new/.codex/config.toml'
ok_unless "a new nested .codex/ is not made" test -e new/.codex
assert_match "  and is reported as refused" \
    "$(jq -r '.violations[] | "\(.operation) \(.path) \(.reason)"' \
    "$T/report.json")" "mkdir $P/new/.codex protected"
rm -rf new

# The profile that may change them: explicit, and shown in the mounts.
jexec --profile agent-config -- sh -c 'mkdir -p .claude && echo "{}" > .claude/settings.json'
assert_eq "agent-config profile: the write succeeds" "$(jfield .exit_code)" 0
assert_eq "agent-config profile: attention lists the change" \
    "$(jq -r '.attention[] | select(.path == ".claude/settings.json") | .kind' \
    "$T/report.json")" auto-run
bwgate_mounts=$(jq -r '.sandbox.mounts[] | "\(.path) \(.why)"' "$T/report.json")
assert_match "the mount table shows the configuration WRITABLE" \
    "$bwgate_mounts" "\\.claude.*WRITABLE.*agent_config_writable"
rm -rf .claude

# The file tools, with no operator at all.
start_console --headless --auto-allowlisted || {
	ok_if "the console starts" false; done_testing; exit; }
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
mcp_write() {
	jq -cn --arg p "$1" --arg c "$HOOKED" '{jsonrpc: "2.0", id: 2,
	    method: "tools/call", params: {name: "write_file",
	    arguments: {path: $p, content: $c}}}' > "$T/call"
	# Stdin stays open until the answer: the refusal comes from the
	# console now (a request on the record, edge-refusal.sh).
	: > "$T/mcp.out"
	{ echo "$INIT"
	  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	  cat "$T/call"
	  wait_for 20 grep -q '"id":2' "$T/mcp.out"; } |
	    timeout 30 "$BWGATE" mcp > "$T/mcp.out" 2>&1
}
for f in .claude/settings.local.json .codex/config.toml sub/.claude/x.json \
    .mcp.json; do
	mcp_write "$f"
	assert_eq "MCP write_file $f: a tool error" \
	    "$(jq -r 'select(.id == 2) | .result.isError' "$T/mcp.out")" true
	assert_match "MCP write_file $f: says it is protected" \
	    "$(jq -r 'select(.id == 2) | .result.content[0].text' "$T/mcp.out")" \
	    "protected"
	ok_unless "MCP write_file $f: nothing on the host" \
	    test -e "$P/$f"
done

# The hook's Write and Edit.
jq -cn --arg f "$P/.claude/settings.local.json" --arg c "$HOOKED" --arg cwd "$P" \
    '{cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Write",
    tool_input: {file_path: $f, content: $c}}' |
    "$BWGATE" hook claude-code > "$T/hook.out"
assert_eq "hook: Write .claude/settings.local.json denied" \
    "$(jq -r .hookSpecificOutput.permissionDecision "$T/hook.out")" deny
assert_match "hook: with the reason" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "Claude Code"
stop_console
done_testing
