#!/bin/bash
# ui-undo: u on a finished request shows in the report pane what undo will
# restore, remove and rename back, asks y/N, and puts the project back;
# the agent's next result says its earlier request was undone; a conflict
# stops it. Narrow (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
BAD='echo bad > src/a.txt; mv src/a.txt src/b.txt; echo new > n.txt'

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	echo hello > "$P/src/a.txt"
	ui_start "$cols" "$lines" || return 1
	agent bad -- sh -c "$BAD"
	check_screen "$L: #1 waits" 10 '^! +1 '
	keys a a
	wait_agent 60 bad
	assert_eq "$L: ran" "$(agent_rc bad)" 0
	keys BTab
	check_screen "$L: the report says it can be undone" 5 \
	    'undo: bwgate undo [0-9]+'
	keys u
	check_screen "$L: u asks first" 5 'Undo #1 \(3 changes'
	check_screen "$L: the preview: renamed back" 5 \
	    'rename back: src/b.txt -> src/a.txt'
	check_screen "$L: the preview: removed" 5 'remove: n.txt'
	ok_if "$L: nothing undone before the answer" test -e "$P/n.txt"
	keys y
	check_screen "$L: undone" 5 '#1 undone'
	ok_if "$L: the file is back, byte for byte" \
	    test "$(cat "$P/src/a.txt")" = hello
	ok_unless "$L: what it made is gone" test -e "$P/n.txt" -o \
	    -e "$P/src/b.txt"
	# The agent hears of it with its next result.
	agent next -- true	# allowlisted: runs at once
	wait_agent 60 next
	assert_match "$L: the agent is told" "$(cat "$T/next.err")" \
	    'request #1 .* was undone by the operator'
	# A conflict: changed again since the run, nothing done.
	agent bad2 -- sh -c 'echo two > src/a.txt'
	check_screen "$L: #3 waits" 10 '^! +3 '
	keys a a
	wait_agent 60 bad2
	echo three > "$P/src/a.txt"
	keys G
	keys u
	check_screen "$L: a conflict is named" 5 'conflict: src/a.txt'
	ok_if "$L: nothing undone" test "$(cat "$P/src/a.txt")" = three
	ui_stop
}

run_layout 50 40
run_layout 160 50
ok_if "undo is in the audit log" grep -q '"record":"undo"' \
    "$XDG_STATE_HOME/bwgate/audit.jsonl"
done_testing
