#!/bin/bash
# ui-undone: a request undone from the command line (`bwgate undo N`,
# the request's number) while the console runs reads "undone" in the
# console's queue, at 140 and at 50 columns, without anything else
# happening in the console.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
for cols in 140 50; do
	L="$cols cols"
	rm -f "$P/made.txt"
	ui_start "$cols" 30 || { done_testing; exit 1; }
	agent w -- sh -c 'echo x > made.txt'
	check_screen "$L: #1 waits" 10 '^! +1 '
	keys a a
	wait_agent 60 w
	assert_eq "$L: it ran" "$(agent_rc w)" 0
	check_screen "$L: the queue says exit 0" 10 ' 1 .*exit 0'
	( cd "$P" && "$BWGATE" undo 1 ) > "$T/out" 2>&1
	ok_if "$L: bwgate undo 1 ($(tail -n 1 "$T/out"))" test $? = 0
	ok_unless "$L: what it made is gone" test -e "$P/made.txt"
	check_screen "$L: the queue says undone" 10 ' 1 .*undone'
	ui_stop
done
done_testing
