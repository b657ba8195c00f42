#!/bin/bash
# ui-waiting: nothing that waits for the operator is ever hidden, and the
# console says where it is (issue 37). A kept filter (f seq Enter) still
# shows a request that was pending when it was typed, in a group of its own
# above the rows the filter matches, counted apart in the title, and p
# finds it; a host question counts as pending in the queue title, the tmux
# pane title, the window name and @bwgate_pending, and with two questions
# at once the a/A/d keys stay on the status line; the queue title and the
# tmux titles name the project; the agent column is readable; the DANGER
# prompt, a host question's port, a running row's time and u's preview fit
# 50 columns. Wide (140x40) and narrow (50x40, a tmux side pane) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project shop)
net_registry "waiting work in sight" reg.test other.test third.test
TEARDOWN="$TEARDOWN; kill $SRV 2>/dev/null"

tmux_says() {
	tm display-message -p -t ui "$1"
}

# The rows of the queue pane (the lines before the detail's title).
queue_rows() {
	screen | sed -n '2,/detail /p'
}

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	UI_ENV="BWGATE_NET_HOSTS=$T/hosts" ui_start "$cols" "$lines" ||
	    return 1

	# Where it is: the project's name on the title line and in tmux.
	check_screen "$L: the queue title names the project" 5 \
	    '^ queue +shop +0 pending'
	ok_if "$L: so does the tmux pane title" wait_for 5 sh -c \
	    "[ \"\$(tmux -S '$TMUX_SOCK' display-message -p -t ui \
	    '#{pane_title}')\" = 'bwgate shop' ]"
	assert_eq "$L: and the window's name (the console has it alone)" \
	    "$(tmux_says '#{window_name}')" "bwgate shop"

	# The agent column, readable at both widths.
	agent one --agent codex -- seq 1 3
	wait_agent 20 one
	check_screen "$L: the agent column names codex" 5 \
	    '^ +1 codex +[0-9]+s seq 1 3'
	agent two --agent claude-code -- seq 4 6
	wait_agent 20 two
	if [ "$cols" -ge 100 ]; then
		check_screen "$L: and claude-code, whole" 5 \
		    '^ +2 claude-code +[0-9]+s seq 4 6'
	else
		check_screen "$L: and claude-code, as far as it fits" 5 \
		    '^ +2 claude… +[0-9]+s seq 4 6'
	fi

	# A filter never hides work that waits: a request already pending
	# when the filter is typed is shown apart, above what it matches.
	agent three --agent codex -- sh -c 'echo x > y.txt'
	check_screen "$L: #3 waits" 10 '^! +3 codex .*sh -c'
	keys f s e q Enter
	check_screen "$L: the filter is kept" 5 'filter: seq'
	check_screen "$L: the waiting request is shown apart, under a heading" \
	    10 '^ 1 waiting outside the filter'
	ok_if "$L: its row first, then what the filter matches" wait_for 5 \
	    sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    sed -n '2,/detail /p' | tr '\n' '|' | grep -Eq \
	    '^ 1 waiting outside[^|]*\|! +3 codex [^|]*sh -c[^|]*\| matching[^|]*\| +1 codex +[^|]*seq 1 3[^|]*\| +2 claude'"
	if [ "$cols" -ge 100 ]; then
		check_screen "$L: the title counts it apart" 5 \
		    'shop +1 pending \(1 outside the filter\)'
	else
		check_screen "$L: the title counts it apart" 5 \
		    'shop +1 pending \(1 unfiltered\)'
	fi
	keys j
	check_screen "$L: j goes on to what the filter matches" 5 \
	    '^request #1 '
	keys p
	check_screen "$L: p finds it" 5 '^request #3 '
	ok_unless "$L: no 'nothing waits' answer" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'nothing waits'"
	assert_eq "$L: @bwgate_pending counts it" \
	    "$(tmux_says '#{@bwgate_pending}')" 1
	keys d Enter
	wait_agent 20 three
	keys f Escape
	check_screen "$L: the filter is gone" 5 'queue +shop +0 pending +[^[]*$'

	# A host question is pending, everywhere; two at once keep a/A/d.
	agent four --json --domain "$ALLOW" -- sh -c "
		curl -sS http://other.test:$PORT/file.txt > other.out 2>&1 &
		curl -sS http://third.test:$PORT/file.txt > third.out 2>&1
		wait"
	check_screen "$L: #4 waits" 10 '^! +4 .* pending'
	keys a a
	if [ "$cols" -ge 100 ]; then
		check_screen "$L: the row shows the question" 20 \
		    "^! +4 .* wants (other|third)\.test:$PORT \+1"
	else
		check_screen "$L: the row keeps the port in sight" 20 \
		    "^! +4 .* \? (other|third)\.test:$PORT \+1"
	fi
	check_screen "$L: two questions: the title says 2 pending" 10 \
	    '^ queue +shop +2 pending'
	ok_if "$L: the tmux pane title counts them" wait_for 5 sh -c \
	    "[ \"\$(tmux -S '$TMUX_SOCK' display-message -p -t ui \
	    '#{pane_title}')\" = 'bwgate shop: 2 pending' ]"
	assert_eq "$L: so does the window's name" \
	    "$(tmux_says '#{window_name}')" "bwgate shop: 2 pending"
	assert_eq "$L: and @bwgate_pending" \
	    "$(tmux_says '#{@bwgate_pending}')" 2
	check_screen "$L: the status line names a/A/d" 5 \
	    '(a/A/d answer|a once +A project +d deny)'
	keys d
	check_screen "$L: d denies the first, names the next and a/A/d" 10 \
	    "#4: denied (other|third)\.test:$PORT; a/A/d: the next host"
	check_screen "$L: one question left: 1 pending" 10 \
	    '^ queue +shop +1 pending'
	# When the message has gone, the hints are the host keys.
	check_screen "$L: the hints are the host keys" 15 \
	    'a (allow )?once +A (for this )?project +d deny'
	keys d
	wait_agent 20 four
	check_screen "$L: nothing waits: 0 pending" 10 \
	    '^ queue +shop +0 pending'
	ok_if "$L: @bwgate_pending is gone" wait_for 5 sh -c \
	    "[ -z \"\$(tmux -S '$TMUX_SOCK' display-message -p -t ui \
	    '#{@bwgate_pending}')\" ]"

	# A running row's time.
	agent five -- sleep 30
	if [ "$cols" -ge 100 ]; then
		check_screen "$L: the running row shows its time" 10 \
		    '^ +5 .*sleep 30 .* running 0:[0-9]{2} *$'
	else
		check_screen "$L: the running row shows its time" 10 \
		    '^ +5 .*sleep 30 .* run 0:[0-9]{2} *$'
	fi
	keys K y
	wait_agent 20 five

	# The DANGER prompt, whole.
	mkdir -p "$P/gone" && echo z > "$P/gone/z"
	agent six -- sh -c 'rm -rf gone'
	check_screen "$L: danger waits" 10 '^! +6 .*DANGER'
	keys a
	check_screen "$L: the DANGER prompt is whole" 5 \
	    'DANGER #6: type yes to run it'
	keys Escape
	keys d Enter
	wait_agent 20 six

	# u's preview in sight, no Tab needed.
	agent seven -- sh -c 'echo new > n.txt'
	check_screen "$L: #7 waits" 10 '^! +7 '
	keys a a
	wait_agent 60 seven
	check_screen "$L: #7 ran" 10 '^ +7 .*exit 0'
	keys f 7 Enter	# select #7 (follow took the last that changed)
	check_screen "$L: #7 selected" 5 '^request #7 '
	keys u
	check_screen "$L: u asks" 5 'Undo #7 \(1 change'
	check_screen "$L: the preview is on the screen" 5 'remove: n\.txt'
	keys n
	ui_stop
	rm -f "$P/n.txt" "$P/y.txt" "$P/other.out" "$P/third.out"
}

run_layout 140 40
run_layout 50 40

# A project whose name tmux would read as a format or a style: only
# letters, digits and ._+- reach tmux, the rest as _; the screen shows the
# name through the display function.
P=$(new_project 'we#[fg=red]ird #{pane_id}')
ui_start 100 30 || { done_testing; exit 1; }
ok_if "an odd project name reaches tmux made safe" wait_for 5 sh -c \
    "[ \"\$(tmux -S '$TMUX_SOCK' display-message -p -t ui \
    '#{pane_title}')\" = 'bwgate we__fg_red_ird___pane_id_' ]"
check_screen "the queue title shows it as it is" 5 \
    '^ queue +we#\[fg=red\]ird #\{pane_id\} +0 pending'
ui_stop
done_testing
