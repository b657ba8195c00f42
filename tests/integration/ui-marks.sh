#!/bin/bash
# ui-marks: bulk decisions. m marks the selected pending request, M every
# pending one the queue shows (the filter applies); a then approves them
# all after one y/N; a danger verdict is never marked. Narrow (50x40) and
# wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	rm -f "$P"/b*.txt
	mkdir -p "$P/keep" && echo x > "$P/keep/x"
	ui_start "$cols" "$lines" || return 1
	agent one -- sh -c 'echo 1 > b1.txt'
	check_screen "$L: #1 waits" 10 '^! +1 '
	agent two -- sh -c 'echo 2 > b2.txt'
	check_screen "$L: #2 waits" 10 '^! +2 '
	agent three -- sh -c 'echo 3 > other.txt'
	check_screen "$L: #3 waits" 10 '^! +3 '
	agent four -- rm -rf keep
	check_screen "$L: #4, a danger, waits" 10 '4 .*DANGER +pending'

	# The filter narrows what M marks.
	keys f b 1 Enter
	check_screen "$L: filtered to #1" 5 'b1\.txt'
	keys M
	check_screen "$L: M: the one shown is marked" 5 '1 marked'
	keys f Enter
	check_screen "$L: the filter dropped: all four shown" 5 'rm -rf keep'
	check_screen "$L: #1's row starts with *" 5 '^\* +1 '
	ok_unless "$L: #2 is not marked" sh -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '^\\* +2 '"
	keys Escape
	check_screen "$L: Esc drops the marks" 5 'marks dropped'
	keys M
	check_screen "$L: M: three marked, the danger left out" 5 \
	    '3 marked \(1 danger left out'
	keys g m
	check_screen "$L: m on #1 unmarks it" 5 '2 marked'
	keys m
	check_screen "$L: m again marks it" 5 '3 marked'
	keys a
	check_screen "$L: a asks once for all" 5 \
	    'approve the 3 marked requests'
	keys n
	check_screen "$L: n: nothing approved, the marks stay" 5 \
	    'nothing approved'
	ok_unless "$L: no agent answered" test -s "$T/one.rc"
	keys a y
	wait_agent 20 one && wait_agent 20 two && wait_agent 20 three
	assert_eq "$L: y: all three ran" \
	    "$(agent_rc one)$(agent_rc two)$(agent_rc three)" 000
	ok_if "$L: their files are there" test -f "$P/b1.txt" -a \
	    -f "$P/b2.txt" -a -f "$P/other.txt"
	check_screen "$L: the status says so" 5 '3 approved'
	ok_unless "$L: the danger still waits" test -s "$T/four.rc"
	ok_if "$L: keep/ is there" test -f "$P/keep/x"
	keys G m
	check_screen "$L: m on a danger: refused" 5 'approved alone'
	keys d Enter
	wait_agent 20 four
	ui_stop
}

run_layout 50 40
run_layout 160 50
done_testing
