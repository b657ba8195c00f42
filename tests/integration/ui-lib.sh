# ui-lib.sh: drive the real console UI inside a private tmux server
# (source after libtest.sh). Everything polls with a deadline; nothing
# sleeps a fixed time.
#
#	ui_start COLS LINES [OPTIONS...]	bwgate in $P in a tmux window
#	screen [PANE]				the visible screen
#	check_screen WHAT SECONDS REGEX		one TAP line; dumps the screen
#	keys KEY...				tmux send-keys to the console
#	agent NAME ARGS...			bwgate run ARGS in the background
#	wait_agent SECONDS NAME			until it exited ($T/NAME.rc)
#	console_exited SECONDS			until the console exited

if ! command -v tmux > /dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed"
	exit 0
fi

TMUX_SOCK="$T/tmux.sock"
S="$XDG_RUNTIME_DIR/bwgate/agent.sock"
# A fixed socket for every console and client of the test (the default is
# one per project: project-socket.sh tests that).
export BWGATE_SOCKET="$S"
mkdir -p -m 0700 "$XDG_RUNTIME_DIR/bwgate"
unset TMUX TMUX_PANE

# Test rules: a long-running allowed command; everything else as shipped.
mkdir -p "$XDG_CONFIG_HOME/bwgate"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"sleep","command":["sleep"],"verdict":"allow","profile":"readonly","reason":"waits"}
]}
JSON
chmod 0644 "$XDG_CONFIG_HOME/bwgate/allowlist.json"

tm() {
	tmux -S "$TMUX_SOCK" -f /dev/null "$@"
}

# The tmux server (and so the console, and the agents waiting on it) goes
# first; done_testing then waits until nothing of the test is left.
TEARDOWN="tmux -S '$TMUX_SOCK' kill-server 2>/dev/null"

ui_start() {
	local cols="$1" lines="$2"; shift 2
	# Ids go on from a project's last console (console-history.sh):
	# each console of these tests counts from 1.
	rm -rf "$XDG_STATE_HOME/bwgate/ids"
	{
		echo '#!/bin/sh'
		printf 'cd %s || exit 125\n' "$(shell_q "$P")"
		# UI_ENV: NAME=VALUE words for the console alone (not tmux).
		[ -n "${UI_ENV:-}" ] && printf 'env %s ' "$UI_ENV"
		printf '%s --log %s' "$(shell_q "$BWGATE")" \
		    "$(shell_q "$T/console.log")"
		for a in "$@"; do printf ' %s' "$(shell_q "$a")"; done
		printf ' 2> %s\n' "$(shell_q "$T/console.err")"
		printf 'echo $? > %s\n' "$(shell_q "$T/console.rc")"
		echo 'exec sleep 3600'
	} > "$T/console.sh"
	chmod +x "$T/console.sh"
	rm -f "$T/console.rc"
	tm new-session -d -s ui -x "$cols" -y "$lines" "$T/console.sh"
	if ! wait_for 10 sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    grep -q 'queue '"; then
		echo "# the console did not start:"
		screen | sed 's/^/# /'
		sed 's/^/# /' "$T/console.err" 2>/dev/null
		return 1
	fi
}

# Single-quote for sh.
shell_q() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

screen() {
	tm capture-pane -p -t "${1:-ui}"
}

# Poll the screen until it matches an extended regex.
wait_screen() {
	local deadline=$(( $(date +%s) + $1 ))
	while ! screen "${3:-ui}" | grep -Eq -- "$2"; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.05
	done
}

check_screen() {
	local what="$1"
	TESTS_RUN=$((TESTS_RUN + 1))
	if wait_screen "$2" "$3" "${4:-ui}"; then
		echo "ok $TESTS_RUN - $what"
	else
		test_failed "$what" "the screen to match /$3/ within $2 s" \
		    "$(screen "${4:-ui}" | grep -v '^ *$' | tail -n 3)"
		echo "# the whole screen:"
		screen "${4:-ui}" | sed 's/^/# |/'
	fi
}

keys() {
	tm send-keys -t ui "$@"
}

agent() {
	local name="$1"; shift
	rm -f "$T/$name.rc"
	{
		# A small environment, as an agent's: the agent's variables
		# become --setenv lines of the argv the panes show.
		( cd "$P" && exec env -i PATH="$PATH" HOME="$HOME" \
		    LANG=C.UTF-8 XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
		    XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" BWGATE_SOCKET="$S" \
		    "$BWGATE" run "$@" \
		    > "$T/$name.out" 2> "$T/$name.err" < /dev/null )
		echo $? > "$T/$name.rc"
	} > /dev/null 2>&1 &
}

wait_agent() {
	wait_for "$1" test -s "$T/$2.rc"
}

agent_rc() {
	cat "$T/$1.rc" 2>/dev/null
}

# Kill the tmux server and wait until the console it ran is gone (its
# pane's shell dies with the server, so console.rc is never written).
ui_stop() {
	tm kill-server 2>/dev/null
	wait_for 10 ui_console_gone
}
ui_console_gone() {
	! pgrep -f -- "--log $T/console.log" > /dev/null
}

console_exited() {
	wait_for "$1" test -s "$T/console.rc"
}
