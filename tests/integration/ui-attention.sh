#!/bin/bash
# ui-attention: a request that starts waiting rings the bell (a tmux window
# alert) and puts the pending count in the pane title and @bwgate_pending;
# F is sticky and shown in the queue title; moving by hand pauses follow
# until the next pending request; `a` on what the selection left behind
# says so instead of failing on a finished request; p/P reach pending
# requests scrolled out of view; the quit question is asked once.
# Narrow (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)

tmval() {
	tm display -p -t ui "$1"
}

title_is() {
	[ "$(tmval '#{pane_title}')" = "$1" ]
}

restart() {
	ui_stop
}

run_layout() {
	local cols="$1" lines="$2" L="$1x$2" n
	ui_start "$cols" "$lines" || return 1
	check_screen "$L: follow is on, shown in the queue title" 10 \
	    '^ queue +proj +0 pending +follow +0 run'

	agent one -- touch one.txt
	check_screen "$L: pending request" 10 '^! +1 .*touch one'
	ok_if "$L: the bell rang (tmux window alert)" wait_for 10 \
	    sh -c "[ \"\$(tmux -S '$TMUX_SOCK' display -p -t ui \
	    '#{window_bell_flag}')\" = 1 ]"
	ok_if "$L: the pane title counts what waits" wait_for 10 \
	    title_is "bwgate proj: 1 pending"
	assert_eq "$L: @bwgate_pending" \
	    "$(tm show-options -w -v -t ui @bwgate_pending)" 1
	keys a a
	wait_agent 20 one
	assert_eq "$L: approved" "$(agent_rc one)" 0
	ok_if "$L: the title clears when nothing waits" wait_for 10 \
	    title_is "bwgate proj"
	ok_if "$L: @bwgate_pending unset" wait_for 10 sh -c \
	    "[ -z \"\$(tmux -S '$TMUX_SOCK' show-options -w -v -t ui \
	    @bwgate_pending 2>/dev/null)\" ]"

	agent two -- echo two
	wait_agent 20 two
	check_screen "$L: #2 ran" 10 ' 2 .*echo two'
	keys k
	check_screen "$L: k selects #1 by hand" 5 '^ detail +#1'
	check_screen "$L: follow paused, shown" 5 'follow paused'

	agent three -- touch three.txt
	check_screen "$L: a new pending request ends the pause" 10 \
	    '^ detail +#3'
	check_screen "$L: follow on again" 5 '^ queue +proj +1 pending +follow '
	keys a a
	wait_agent 20 three
	assert_eq "$L: a approves the request follow selected" \
	    "$(agent_rc three)" 0

	keys F
	check_screen "$L: F turns follow off" 5 '^ queue .*follow off'
	agent four -- touch four.txt
	check_screen "$L: #4 waits" 10 '^! +4 .*touch four'
	check_screen "$L: follow off: the selection stays" 5 '^ detail +#3'
	keys a
	check_screen "$L: a on a finished request says so" 5 \
	    '#3 is finished: only a pending'
	ok_unless "$L: never 'cannot approve'" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'cannot approve'"
	keys p
	check_screen "$L: p selects the pending request" 5 '^ detail +#4'
	keys a a
	wait_agent 20 four
	assert_eq "$L: and a approves it" "$(agent_rc four)" 0

	# Many waiting: the one selected by hand stays; the others are
	# counted when out of view and reached with p/P.
	keys F
	check_screen "$L: F: follow again" 5 '^ queue .* follow +0 run'
	for n in $(seq 5 44); do
		agent "w$n" -- touch "w$n.txt"
	done
	check_screen "$L: 40 pending" 20 '^ queue +proj +40 pending'
	check_screen "$L: follow keeps the oldest pending one" 5 '^ detail +#5'
	keys G
	check_screen "$L: G: the newest, follow paused" 5 '^ detail +#44'
	check_screen "$L: pending out of view are counted" 5 \
	    '40 pending \(([0-9]+ out of view|\+[0-9]+): p\)'
	agent w45 -- touch w45.txt
	check_screen "$L: #45 arrives" 10 '^ queue +proj +41 pending'
	check_screen "$L: a pending request is never taken away" 5 \
	    '^ detail +#44'
	keys p
	check_screen "$L: p: the next pending" 5 '^ detail +#45'
	keys p
	check_screen "$L: p goes round to the first" 5 '^ detail +#5'
	keys P
	check_screen "$L: P: the previous (round)" 5 '^ detail +#45'
	ok_if "$L: the title counts 41" wait_for 10 \
	    title_is "bwgate proj: 41 pending"

	keys q
	check_screen "$L: the quit question, asked once" 5 \
	    '^41 pending will be denied, 0 running'
	ok_unless "$L: no 'Quit? ... Quit?'" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'Quit?.*Quit?'"
	keys y
	console_exited 20
	wait_agent 20 w45
	assert_eq "$L: quitting denied what waited" "$(agent_rc w45)" 77
	restart
}

run_layout 50 40
rm -f "$P"/*.txt
run_layout 160 50

# Configured: no bell; a pause lasts until F.
cat > "$XDG_CONFIG_HOME/bwgate/config.json" <<'JSON'
{"console": {"bell": false, "follow_resume": false}}
JSON
ui_start 50 40 || { done_testing; exit 1; }
agent one -- echo one
wait_agent 20 one
agent two -- echo two
wait_agent 20 two
check_screen "no bell: #2 ran" 10 ' 2 .*echo two'
keys k
check_screen "no bell: k selects #1" 5 '^ detail +#1'
agent three -- touch three.txt
check_screen "no bell: #3 waits" 10 '^! +3 .*touch three'
ok_if "no bell: the marker is still set" wait_for 10 \
    title_is "bwgate proj: 1 pending"
assert_eq "bell false: no window alert" "$(tmval '#{window_bell_flag}')" 0
check_screen "follow_resume false: the selection stays" 5 '^ detail +#1'
check_screen "follow_resume false: still paused" 5 'follow paused'
keys F
check_screen "F: follow takes it to #3" 5 '^ detail +#3'
keys d Enter
wait_agent 20 three
assert_eq "denied" "$(agent_rc three)" 77
done_testing
