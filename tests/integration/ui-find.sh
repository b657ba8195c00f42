#!/bin/bash
# ui-find: finding things. / searches the focused pane as it is typed
# (n/N, highlight, the match counted in the title, Esc ends); f filters
# the queue live and starts empty; @ shows one agent; z zooms the focused
# pane; ? shows the colour legend; the agent column stays at 120 columns.
# Narrow (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
# Ages in the queue and elapsed times in titles change while a test looks:
# "now" becomes "1m ago", and a column right-aligned by its width moves.
AGES='s/[0-9]+[smh]\b|\bnow\b|\b[0-9]+:[0-9]{2}(:[0-9]{2})?\b/AGE/g; s/AGE ago/AGE/g; s/ +/ /g'

# The screen without its status line (its messages come and expire on
# their own) once two looks 0.3 s apart agree (a pane a loaded machine
# has not finished drawing is not the screen), into file $1.
settled() {
	local a="$1.a"
	wait_for 20 sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    sed -E '$AGES' | head -n -1 > '$a'; sleep 0.3
	    tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    sed -E '$AGES' | head -n -1 > '$1'; cmp -s '$a' '$1'"
}

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	ui_start "$cols" "$lines" || return 1
	agent one -- seq 1 2000
	wait_agent 20 one
	agent two -- echo other
	wait_agent 20 two
	check_screen "$L: both ran" 10 ' 2 .*echo other .*exit 0'

	# Search the output of #1.
	keys k
	check_screen "$L: #1 selected" 5 '^ detail +#1'
	keys Tab Tab Tab
	check_screen "$L: output focused" 5 '\[output\].* #1|output +#1'
	keys /
	check_screen "$L: / in a pane: a search prompt" 5 '^search output'
	keys 1 5 0
	check_screen "$L: incremental: matches counted as typed" 5 \
	    '/150 1/1'
	ok_if "$L: the match is highlighted" bash -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -e -t ui |
	    grep -q \$'\\e\\\\[7m150'"
	keys Enter
	check_screen "$L: Enter keeps it" 5 'n: next match'
	keys n
	check_screen "$L: n: the next match" 5 '/150 2/1'
	keys n n
	check_screen "$L: n n: further" 5 '/150 4/1'
	check_screen "$L: the match is on screen" 5 '(^| )1500$'
	keys N
	check_screen "$L: N: back one" 5 '/150 3/1'
	keys Escape
	check_screen "$L: Esc ends the search" 5 '(output|report) +#1 +[0-9]'
	ok_unless "$L: its n/N hint is gone with it" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'n: next match'"
	ok_unless "$L: no search in the title" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '/150 '"

	# The queue filter: live, and empty each time.
	keys f
	check_screen "$L: f: the filter prompt" 5 '^filter the queue'
	# At 50 columns the prompt's label is a line above the status line
	# and the text follows ">:" there; wide, it follows the label.
	keys o t h e r
	check_screen "$L: filtered as typed" 5 '^ +2 .*echo other'
	# "o" alone lets #1 through (its verdict "allow"): the filter is
	# whole once the prompt shows every key typed.
	check_screen "$L: the prompt has the text" 5 \
	    '^(filter the queue.*|>): other *$'
	ok_if "$L: #1 hidden" wait_for 5 sh -c \
	    "! tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'seq 1 2000'"
	keys Enter
	keys f
	check_screen "$L: f again starts empty" 5 '^(filter the queue.*|>): *$'
	check_screen "$L: and shows every request" 5 'seq 1 2000'
	keys Escape

	# One agent: back to the queue, select #1.
	keys Tab Tab g
	check_screen "$L: queue focused, #1 selected" 5 '^ detail +#1'
	keys @
	check_screen "$L: @: one agent" 5 'only this agent'
	ok_unless "$L: the other agent's request is hidden" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'echo other'"
	keys @
	check_screen "$L: @ again: every agent" 5 'echo other'

	# Zoom.
	keys Tab
	check_screen "$L: detail focused" 5 '^ detail +#1'
	keys z
	check_screen "$L: z: the detail alone" 5 '^ detail .*\[zoom: z\]'
	ok_unless "$L: no queue" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '^ queue '"
	keys z
	check_screen "$L: z again: the layout" 5 '^ queue '

	# The legend.
	# (The status line is left out: its messages come and expire on
	# their own; the box is drawn over the panes.)
	settled "$T/before-help"
	keys '?'
	check_screen "$L: ? the keys" 5 'keys \(j k space b g G scroll'
	keys G
	check_screen "$L: G: the end, the colour legend" 5 'Colours \(as the panes'
	check_screen "$L: legend: created" 5 '\+ created'
	keys g
	check_screen "$L: g: the top again" 5 'approve'
	ok_unless "$L: the legend scrolled away" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '\+ created'"
	keys Space
	ok_if "$L: space: a page down (the first key scrolled away)" \
	    wait_for 5 sh -c "! tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    grep -q 'approve the selected request once'"
	check_screen "$L: the box still open" 5 'keys \(j k space b g G scroll'
	keys q
	check_screen "$L: closed" 5 '^ queue '
	settled "$T/after-help"
	ok_if "$L: nothing of the box is left (the screen is as before)" \
	    cmp -s "$T/before-help" "$T/after-help" ||
	    diff "$T/before-help" "$T/after-help" | sed 's/^/# /'
	ui_stop
}

run_layout 50 40
run_layout 160 50

# 120 columns: the queue is 60 wide and still names the agent.
ui_start 120 40 || { done_testing; exit 1; }
agent one -- echo at-120
wait_agent 20 one
check_screen "120 columns: the agent column" 10 '^ +1 pid [0-9]'
done_testing
