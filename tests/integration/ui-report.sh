#!/bin/bash
# ui-report: one change report, read like git status, the same in the
# console's report pane, `bwgate run` (stderr), `bwgate show` and `bwgate
# exec`: a directory created with everything in it is one line; x lists
# every path in the console; --json always has the full list. Narrow
# (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
MAKE='mkdir -p build/o && for i in $(seq 1 300); do : > build/o/f$i; done; : > build/top; echo x > a.txt'

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	ui_start "$cols" "$lines" || return 1
	agent mk -- sh -c "$MAKE"
	check_screen "$L: #1 waits" 10 '^! +1 '
	keys a a
	wait_agent 60 mk
	assert_eq "$L: ran" "$(agent_rc mk)" 0
	# Tab to the report pane: queue, detail, files, output, report.
	keys BTab
	check_screen "$L: report pane focused" 5 '\[?report\]? +#1 '
	check_screen "$L: report: the count" 5 '304 created, 0 modified'
	check_screen "$L: report: the directory as one line" 5 \
	    '\+ build/ \(301 files\)'
	check_screen "$L: report: the file beside it" 5 '\+ a\.txt'
	ok_unless "$L: no file of the directory listed" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'build/o/f1'"
	keys x
	check_screen "$L: x: every path" 5 '\+ build/o/f1( |$)'
	check_screen "$L: x: said in the title" 5 'every path'
	keys x
	check_screen "$L: x again: the summary" 5 '\+ build/ \(301 files\)'

	# The same lines from the command line.
	assert_match "$L: bwgate run printed the same summary" \
	    "$(cat "$T/mk.err")" 'bwgate:   \+ build/ \(301 files\)'
	out=$(BWGATE_SOCKET="$S" "$BWGATE" show 1 2>&1)
	assert_match "$L: bwgate show: the same line" "$out" \
	    '  \+ build/ \(301 files\)'
	assert_eq "$L: bwgate show --json: every path" \
	    "$(BWGATE_SOCKET="$S" "$BWGATE" show 1 --json |
	    jq '.report.changes.created|length // .changes.created|length')" 304
	rm -rf "$P/build" "$P/a.txt"

	# A running request's elapsed time goes on in the report pane's title.
	agent sl --agent reporter --description "wait a minute" -- sleep 60
	keys Tab G
	if [ "$cols" -ge 100 ]; then
		check_screen "$L: the queue names the agent" 10 \
		    ' 2 .*reporter.*sleep 60'
		check_screen "$L: the detail says why" 10 'why +wait a minute'
	fi
	keys BTab
	check_screen "$L: the report pane names the run" 20 '#2 +running 0:[0-9]{2}'
	check_screen "$L: its elapsed time goes on" 20 '#2 +running 0:(0[3-9]|[1-5][0-9])'
	BWGATE_SOCKET="$S" "$BWGATE" kill 2 > /dev/null
	wait_agent 20 sl
	ui_stop
}

run_layout 50 40
run_layout 160 50

# bwgate exec renders it the same way.
(cd "$P" && "$BWGATE" exec --project "$P" -- sh -c "$MAKE") 2> "$T/exec.err"
assert_match "exec: the same line" "$(cat "$T/exec.err")" \
    'bwgate:   \+ build/ \(301 files\)'
assert_match "exec: the count" "$(cat "$T/exec.err")" \
    'bwgate: 304 created, 0 modified'
ok_unless "exec: the files in it are not listed" \
    grep -q 'build/o/f1' "$T/exec.err"
n=$(cd "$P" && rm -rf build a.txt && "$BWGATE" exec --json --project "$P" -- \
    sh -c "$MAKE" | jq '.changes.created|length')
assert_eq "exec --json: every path" "$n" 304
done_testing
