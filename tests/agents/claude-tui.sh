#!/bin/bash
# claude-tui: the real Claude Code, interactive (its terminal UI, not -p),
# in a private tmux server, with the documented PreToolUse hook
# (tests/agents/setup/claude-hook.json in ~/.claude/settings.json) against
# a headless console whose operator answers on the control socket. The
# first-run dialogs (theme, API key, trusting the folder) are answered in
# a pre-seeded ~/.claude.json; the prompt is typed with tmux send-keys. The
# model's Bash calls run through bwgate, sandboxed: a write outside the
# project leaves nothing on the host, the output and the report reach the
# model's next request, the operator's deny note too, and the TUI shows
# what bwgate said. Everything polls with a deadline.
. "$(dirname "$0")/lib.sh"
need_clients
command -v tmux > /dev/null 2>&1 || {
	ok_if "tmux is installed" false; done_testing; exit 1; }
agent_project
OUT="$HOME/outside.txt"
TMUX_SOCK="$T/tmux.sock"
unset TMUX TMUX_PANE
tm() {
	tmux -S "$TMUX_SOCK" -f /dev/null "$@"
}
# The tmux server (Claude Code in it) goes first, then the console.
TEARDOWN="tmux -S '$TMUX_SOCK' kill-server 2>/dev/null; agents_teardown"

screen() {
	tm capture-pane -p -J -t tui
}
# Poll the screen until it matches an extended regex, at most SECONDS.
on_screen() {	# REGEX
	screen | grep -Eq -- "$1"
}
check_screen() {	# WHAT SECONDS REGEX
	if wait_for "$2" on_screen "$3"; then
		ok_if "$1" true
	else
		ok_if "$1 (the screen matches /$3/ within $2 s)" false
		screen | grep -v '^ *$' | tail -n 30 | sed 's/^/# |/'
	fi
}

start_mock anthropic || { ok_if "the mock starts" false; done_testing; exit; }
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
mkdir -p "$HOME/.claude"
cp "$SETUP/claude-hook.json" "$HOME/.claude/settings.json"
# What a first run asks once, answered: the theme and onboarding, the API
# key from the environment (approved by its last 20 characters), trusting
# the project's folder.
jq -n --arg p "$P" '{hasCompletedOnboarding: true, theme: "dark",
    customApiKeyResponses: {approved: ["test"], rejected: []},
    projects: {($p): {hasTrustDialogAccepted: true,
        hasCompletedProjectOnboarding: true}}}' > "$HOME/.claude.json"

script "$(jq -cn --arg out "$OUT" '[
 {tool: "Bash", input: {command: ("echo tui-ran > tui.txt; echo out > " + $out + "; cat tui.txt"), description: "writes"}},
 {tool: "Bash", input: {command: "echo no > denied.txt #deny", description: "denied"}},
 {text: "all done in the tui"}]')"

# Claude Code in the pane, with the environment every client here gets.
{
	echo '#!/bin/bash'
	declare -f client_exec
	printf 'T=%q MOCK_URL=%q\n' "$T" "$MOCK_URL"
	printf 'cd %q || exit 125\n' "$P"
	echo 'client_exec claude'
} > "$T/claude-tui.sh"
chmod +x "$T/claude-tui.sh"
tm new-session -d -s tui -x 140 -y 50 "$T/claude-tui.sh"
check_screen "the TUI starts, without a first-run dialog" 60 'Claude Code v[0-9]'
# Keys sent before the TUI reads its input would be lost: type once the
# input box and its footer are drawn (the box puts a no-break space after
# its ❯).
check_screen "the input box is ready" 30 'shift\+tab to cycle|for shortcuts'
tm send-keys -t tui -l "go"
check_screen "the prompt is in the input box" 10 '❯.go'
tm send-keys -t tui Enter
check_screen "the session runs to the model's last answer" 90 'all done in the tui'

r=$(request_of "echo tui-ran")
assert_eq "the Bash call became a console request, exactly the model's command" \
    "$(jq -r '.[0].command' <<< "$r")" \
    "echo tui-ran > tui.txt; echo out > $OUT; cat tui.txt"
assert_eq "  the operator approved it and it ran" \
    "$(jq -r '.[0] | "\(.state) by \(.by)"' <<< "$r")" "finished by operator"
assert_match "  it asked: Claude Code in tmux passes TMUX on to its commands" \
    "$(jq -r '.[0] | "\(.verdict): \(.reason)"' <<< "$r")" \
    "^ask: .*environment sets TMUX"
ok_unless "the write outside the project did not reach the host" test -e "$OUT"
assert_eq "the write inside the project did" "$(cat "$P/tui.txt" 2>/dev/null)" tui-ran
res=$(tool_result 0)
assert_match "the next request carries the output" "$res" "^tui-ran$"
assert_match "  and the report on the write outside, not made on the host" \
    "$res" "'$OUT'"
assert_match "  and the change report naming the file made inside" "$res" "tui\\.txt"
check_screen "the TUI shows bwgate's messages under the call" 5 'bwgate: '
assert_match "the operator's deny note reaches the model" "$(tool_result 1)" \
    "not this one"
ok_unless "  the denied command did not run" test -e "$P/denied.txt"
# The denied call is folded ("1 failed"); the transcript (ctrl+o) shows
# each call whole.
tm send-keys -t tui C-o
check_screen "  and the TUI's transcript shows it" 10 'not this one'
check_screen "  with the first call's output" 5 '^[^(+]*tui-ran'
check_screen "  and its change report" 5 'bwgate: +\+ tui\.txt'
check_screen "  and the report on the write outside the project" 5 \
    "discarded a write outside the"
check_screen "  naming it" 5 "home/outside\\.txt"
agents_teardown
done_testing
