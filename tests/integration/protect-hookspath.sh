#!/bin/bash
# protect-hookspath: the hooks git really runs are protected (issue 36). In
# a repository whose own config says core.hooksPath .githooks, a command in
# the project profile -- run directly, and through a console in
# --auto-sandboxed mode, where no one is asked -- cannot rewrite
# .githooks/pre-commit, add a hook there or plant the directory when it is
# absent; a config file the repository includes from inside the project
# cannot be changed either (it could set core.fsmonitor); the agent-config
# profile is the explicit way to change the hooks. The host's next
# `git commit` runs the operator's hook, not the command's.
#
# The refusal of a name that does not exist yet (a new hook, an absent
# hooks directory) is the observer's decision at the call: it needs
# seccomp user notification (doctor says so); without it that part is
# skipped with the reason.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

command -v git > /dev/null || { skip "hooksPath" "git is not installed"
	done_testing; exit; }
P=$(new_project)
cd "$P" || exit 1
git init -q . || exit 1
git config user.email t@example.org
git config user.name t
git config core.hooksPath .githooks
mkdir .githooks
printf '#!/bin/sh\necho operator-hook >> "%s/hook.log"\n' "$T" \
    > .githooks/pre-commit
chmod 755 .githooks/pre-commit
cp .githooks/pre-commit "$T/pre-commit.orig"
echo a > a.txt
git add -A && git commit -qm one || exit 1
: > "$T/hook.log"

EVIL='#!/bin/sh
touch "$HOME/pwned"'

# The issue's attack: an approved command rewrites the hook.
jexec -- sh -c "printf '%s\n' '$EVIL' > .githooks/pre-commit"
ok_unless "rewriting .githooks/pre-commit: the command fails" \
    test "$(jfield .exit_code)" = 0
ok_if "  the hook on the host is the operator's" \
    cmp -s .githooks/pre-commit "$T/pre-commit.orig"
jexec -- sh -c "rm -f .githooks/pre-commit; printf '%s\n' '$EVIL' > .githooks/pre-commit"
ok_if "removing and rewriting it: still the operator's" \
    cmp -s .githooks/pre-commit "$T/pre-commit.orig"
jexec -- sh -c 'mv .githooks .gh-old && mkdir .githooks'
ok_if "moving the directory away fails: the hooks stay" \
    cmp -s .githooks/pre-commit "$T/pre-commit.orig"
ok_unless "  nothing moved on the host" test -e .gh-old
jexec -- chmod 644 .githooks/pre-commit
assert_eq "chmod of the hook: refused" "$(stat -c %a .githooks/pre-commit)" 755

# A new hook beside it: refused at the call (observer).
notify=$("$BWGATE" doctor 2>&1 | grep -c "notifications available")
jexec -- sh -c "printf '%s\n' '$EVIL' > .githooks/post-commit"
if [ "$notify" -gt 0 ]; then
	ok_unless "a new hook .githooks/post-commit: not on the host" \
	    test -e .githooks/post-commit
else
	skip "a new hook .githooks/post-commit" \
	    "no seccomp user notification here (the observer decides creations)"
fi

# The host's next commit runs the operator's hook only.
echo b >> a.txt
git commit -qam two
assert_eq "the host's git commit ran the operator's hook" \
    "$(cat "$T/hook.log")" operator-hook
ok_unless "and nothing the command planted" test -e "$HOME/pwned"

# An included config inside the project: read, and protected too.
printf '[core]\n\tbare = false\n' > shared.gitconfig
git config include.path ../shared.gitconfig
jexec -- sh -c 'printf "[core]\n\tfsmonitor = touch pwned-fsmonitor\n" >> shared.gitconfig'
assert_eq "an included config: unchanged" "$(cat shared.gitconfig)" \
    "$(printf '[core]\n\tbare = false')"
git status > /dev/null 2>&1
ok_unless "  git status on the host ran nothing" test -e pwned-fsmonitor

# An absent hooks directory: cannot be planted.
git config core.hooksPath .hooks-later
jexec -- sh -c "mkdir .hooks-later && printf '%s\n' '$EVIL' > .hooks-later/pre-commit"
if [ "$notify" -gt 0 ]; then
	ok_unless "an absent core.hooksPath directory: not planted" \
	    test -e .hooks-later/pre-commit
else
	skip "an absent core.hooksPath directory" \
	    "no seccomp user notification here (the observer decides creations)"
fi
rm -rf .hooks-later
git config core.hooksPath .githooks

# Through a console in sandboxed mode: the policy the console built (with
# the hooks it read) is the one the exec runs.
start_console --headless --auto-sandboxed || {
	ok_if "the console starts" false; done_testing; exit; }
"$BWGATE" run -- sh -c "printf '%s\n' '$EVIL' > .githooks/pre-commit" \
    > "$T/run.out" 2>&1
ok_if "sandboxed mode: the hook is still the operator's" \
    cmp -s .githooks/pre-commit "$T/pre-commit.orig"
"$BWGATE" run -- sh -c 'echo fine > plain.txt' > /dev/null 2>&1
assert_eq "  an ordinary write still runs" "$(cat plain.txt 2>/dev/null)" fine
# The MCP file tools and the Claude Code hook refuse it before asking.
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
jq -cn --arg c "$EVIL" '{jsonrpc: "2.0", id: 2, method: "tools/call",
    params: {name: "write_file", arguments: {path: ".githooks/pre-commit",
    content: $c}}}' > "$T/call"
# Stdin stays open until the answer: the refusal comes from the console
# (a request on the record, edge-refusal.sh).
: > "$T/mcp.out"
{ echo "$INIT"
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  cat "$T/call"
  wait_for 20 grep -q '"id":2' "$T/mcp.out"; } |
    timeout 30 "$BWGATE" mcp > "$T/mcp.out" 2>&1
assert_eq "MCP write_file .githooks/pre-commit: a tool error" \
    "$(jq -r 'select(.id == 2) | .result.isError' "$T/mcp.out")" true
assert_match "  naming core.hooksPath and the agent-config profile" \
    "$(jq -r 'select(.id == 2) | .result.content[0].text' "$T/mcp.out")" \
    "hooksPath.*agent-config"
jq -cn --arg f "$P/.githooks/pre-commit" --arg c "$EVIL" --arg cwd "$P" \
    '{cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Write",
    tool_input: {file_path: $f, content: $c}}' |
    "$BWGATE" hook claude-code > "$T/hook.out"
assert_eq "hook: Write .githooks/pre-commit denied" \
    "$(jq -r .hookSpecificOutput.permissionDecision "$T/hook.out")" deny
ok_if "  the hook on the host is the operator's" \
    cmp -s .githooks/pre-commit "$T/pre-commit.orig"
stop_console

# The explicit way: the agent-config profile.
jexec --profile agent-config -- sh -c 'echo "# changed" >> .githooks/pre-commit'
assert_eq "agent-config profile: the hook may change" "$(jfield .exit_code)" 0
assert_match "  and it did" "$(tail -1 .githooks/pre-commit)" "# changed"
done_testing
