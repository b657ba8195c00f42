#!/bin/bash
# ui-undo-earlier: after a console restart the queue starts empty, so u
# has no request of the earlier console to undo; it says in the status
# line how to undo one (bwgate undo N, bwgate undo --list), and
# doing what it says puts the earlier console's run back. Narrow (50x40)
# and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
BAD='echo bad > src/a.txt; echo new > n.txt'

run_layout() {
	local cols="$1" lines="$2" L="$1x$2" said cmd
	echo hello > "$P/src/a.txt"
	ui_start "$cols" "$lines" || return 1
	agent bad -- sh -c "$BAD"
	check_screen "$L: #1 waits" 10 '^! +1 '
	keys a a
	wait_agent 60 bad
	assert_eq "$L: ran" "$(agent_rc bad)" 0
	ui_stop
	ok_if "$L: the first console is gone" ui_console_gone
	ui_start "$cols" "$lines" || return 1
	keys u
	if [ "$cols" -ge 160 ]; then
		said='no request selected: an earlier console.s request #N is undone with bwgate undo N \(bwgate log shows the #s, bwgate undo --list the runs kept\)'
	else
		said='earlier #N: bwgate undo N \(or --list\)'
	fi
	check_screen "$L: u with nothing selected says how" 5 "$said"
	ok_unless "$L: and asks nothing" sh -c "tmux -S '$TMUX_SOCK' \
	    capture-pane -p -t ui | grep -q 'y/N'"
	assert_eq "$L: nothing undone by it" "$(cat "$P/src/a.txt")" bad
	# Do what it says, for the earlier console's #1.
	cmd=$(screen | grep -Eo 'bwgate undo N' | head -n 1)
	assert_eq "$L: the command is on the screen" "$cmd" \
	    'bwgate undo N'
	( cd "$P" && "$BWGATE" undo --list ) > "$T/list" 2>&1
	assert_match "$L: bwgate undo --list shows the run" "$(cat "$T/list")" \
	    'ready'
	( cd "$P" && "$BWGATE" undo 1 ) > "$T/out" 2>&1
	ok_if "$L: bwgate undo 1 works ($(tail -n 1 "$T/out"))" \
	    test $? = 0
	ok_if "$L: the file is back, byte for byte" \
	    test "$(cat "$P/src/a.txt")" = hello
	ok_unless "$L: what it made is gone" test -e "$P/n.txt"
	ui_stop
}

run_layout 50 40
run_layout 160 50
done_testing
