#!/bin/bash
# ui-small: the small things of issue 15. The A form leaves no stray
# border when it shrinks and asks where the rule goes; rule paths in the detail pane wrap between path
# components, never inside a name. (The quit question is in
# ui-attention.sh.) Narrow (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)

# Bottom corners of boxes on the screen.
corners() {
	screen | grep -c '└\|^ *+-*+ *$\|mqqq'
}

# The detail's verdict line and its continuations end between path
# components (at a '/', a blank or the opening parenthesis).
rule_path_wraps_cleanly() {
	screen | awk '
	    /^verdict allow/ { on = 1 }
	    /^reason/ { on = 0 }
	    on { n++; line[n] = $0 }
	    END {
		if (n < 1) exit 1
		for (i = 1; i < n; i++)
			if (line[i] !~ /[\/ (]$/) exit 1
		s = ""
		for (i = 1; i <= n; i++) { t = line[i]; sub(/^ +/, "", t); s = s t }
		exit (s ~ /allowlist\.json:seq\)/) ? 0 : 1
	    }'
}

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	ui_start "$cols" "$lines" || return 1

	agent one -- seq 1 3
	wait_agent 20 one
	check_screen "$L: #1 ran" 10 ' 1 .*seq 1 3'
	check_screen "$L: the detail names the rule file" 5 'verdict allow'
	ok_if "$L: the rule path wraps between components" \
	    wait_for 5 rule_path_wraps_cleanly

	agent two -- sh -c 'echo a b > x'
	check_screen "$L: #2 waits" 10 '^! +2 '
	keys A p Enter
	check_screen "$L: the form grows with an error" 5 'the rule was not kept'
	keys e
	check_screen "$L: e: exact again, the error gone" 5 'scope: this exact'
	ok_unless "$L: no error left" sh -c "tmux -S '$TMUX_SOCK' \
	    capture-pane -p -t ui | grep -q 'the rule was not kept'"
	assert_eq "$L: one box on the screen, no stray border" "$(corners)" 1
	check_screen "$L: A asks where: this project by default" 5 \
	    'where: this project only'
	keys w
	check_screen "$L: w: every project" 5 'where: every project'
	keys Escape
	check_screen "$L: closed" 5 'no rule added'
	assert_eq "$L: no border left at all" "$(corners)" 0
	# The approve question shows every profile digit, however narrow
	# (it was cut at 50 columns: "... 3 build,:").
	keys a
	check_screen "$L: a: every profile's digit is on the screen" 5 \
	    '5 git-write'
	check_screen "$L: and how to cancel" 5 'Esc cancel'
	keys Escape
	check_screen "$L: cancelled" 5 '#2 not approved'
	ok_unless "$L: nothing of the question is left" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'git-write, Esc'"
	keys d Enter
	wait_agent 20 two
	ui_stop
}

# 80x24 with the agent's environment in the detail: the lines the
# operator decides on come before it, in sight without scrolling.
ui_start 80 24 || { done_testing; exit 1; }
agent env -- env FOO=1 sh -c 'echo x > y'
check_screen "80x24: #1 waits" 10 '^! +1 '
check_screen "80x24: the state line is in sight" 5 '^state pending'
ok_if "80x24: it comes before the environment block" sh -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
    awk '/^state pending/ { s = NR } /^environment/ { e = NR }
    END { exit !(s && (!e || s < e)) }'"
keys d Enter
wait_agent 20 env
ui_stop

run_layout 50 40
run_layout 160 50

# Mouse, when configured (console.mouse; off by default): a click selects
# a request, the wheel scrolls the pane under it. X10 reports, as a
# terminal sends them: ESC [ M, then 32 + button, column, row (from 1).
mouse() {	# button column row (0-based)
	keys -l "$(printf '\033[M%b%b%b' \
	    "\\$(printf %o $((32 + $1)))" \
	    "\\$(printf %o $((33 + $2)))" \
	    "\\$(printf %o $((33 + $3)))")"
}
mouse_layout() {
	local cols="$1" lines="$2" drow="$3" L="mouse $1x$2"
	ui_start "$cols" "$lines" || return 1
	agent one -- seq 1 3
	wait_agent 20 one
	agent two -- seq 1 4
	wait_agent 20 two
	check_screen "$L: follow shows #2" 10 '^ detail +#2'
	mouse 0 5 1
	check_screen "$L: a click on the first row selects #1" 5 \
	    '^ detail +#1 +1-'
	check_screen "$L: a click is a move by hand" 5 'follow paused'
	mouse 65 5 "$drow"
	check_screen "$L: the wheel scrolls the detail" 5 '^ detail +#1 +4-'
	mouse 64 5 "$drow"
	check_screen "$L: and back" 5 '^ detail +#1 +1-'
	ui_stop
}
echo '{"console": {"mouse": true}}' > "$XDG_CONFIG_HOME/bwgate/config.json"
mouse_layout 50 40 12
mouse_layout 160 50 25
done_testing
