#!/bin/bash
# ui-honest: the panes say what they leave out. Output beyond what the
# console keeps is announced at the top with its size and where the rest
# is; the position counts real lines; the files pane counts events, not
# the lines it kept; the detail pane's age moves on its own; t shows times
# of day. Narrow (50x40) and wide (160x50) layouts.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)

run_layout() {
	local cols="$1" lines="$2" L="$1x$2"
	ui_start "$cols" "$lines" || return 1

	# 300,000 lines (1.9 MiB): more than the pane keeps and more than
	# the report keeps (output_limit 1 MiB).
	agent big -- seq 1 300000
	wait_agent 30 big
	assert_eq "$L: seq ran" "$(agent_rc big)" 0
	assert_eq "$L: the agent got every line" \
	    "$(wc -l < "$T/big.out")" 300000
	check_screen "$L: #1 ended" 10 ' 1 .*seq 1 300000 .*exit 0'
	keys Tab Tab Tab
	if [ "$cols" -ge 120 ]; then
		check_screen "$L: output title: the size and what is kept" 5 \
		    'output +#1 +1\.[0-9] MiB, last [0-9.]+ KiB kept'
	else
		check_screen "$L: output title: the size" 5 \
		    '\[output\] +report +#1 +1'
	fi
	check_screen "$L: the last line" 5 '(^| )300000$'
	check_screen "$L: the position counts lines (ends at the last)" 5 \
	    ' [0-9]+-([0-9]+)/\1$'
	keys g
	check_screen "$L: top: how much was not kept" 5 \
	    '(^| )\.\.\. 1\.[0-9] MiB before this not kept'
	check_screen "$L: and where the rest is" 5 'bwgate show 1'
	check_screen "$L: the position is at line 1" 5 ' 1-[0-9]+/[0-9]+$'

	# 1,500 files created: more event lines than the pane keeps.
	agent files -- sh -c 'mkdir d && for i in $(seq 1 1500); do : > d/f$i; done'
	check_screen "$L: #2 waits" 10 '^! +2 '
	keys a a
	wait_agent 60 files
	assert_eq "$L: files ran" "$(agent_rc files)" 0
	keys BTab
	if [ "$cols" -ge 120 ]; then
		check_screen "$L: files title counts every event" 10 \
		    'files +#2 +1501 events'
	else
		check_screen "$L: files title counts every event" 10 \
		    '^\[files\] +output +report +#2 +1501 '
	fi
	keys g
	check_screen "$L: files: the lines not kept are announced" 5 \
	    '(^| )\.\.\. 501 earlier lines not kept'

	# Ages move with nothing else happening; t shows times of day.
	check_screen "$L: the detail shows an age" 10 '#2 from .*, [0-9]+s ago'
	age=$(screen | sed -n 's/.*#2 from .*, \([0-9]*\)s ago.*/\1/p')
	check_screen "$L: the detail's age moves on its own" 5 \
	    "#2 from .*, ($((age + 1))|$((age + 2)))s ago"
	keys t
	check_screen "$L: t: times of day in the detail" 5 \
	    '#2 from .*, [0-9]{2}:[0-9]{2}:[0-9]{2}'
	check_screen "$L: t: and in the queue" 5 \
	    '^  +2 .*[0-9]{2}:[0-9]{2}:[0-9]{2} '
	keys t
	check_screen "$L: t again: ages" 5 '#2 from .*, [0-9]+s ago'
	rm -rf "$P/d"
	ui_stop
}

run_layout 50 40
run_layout 160 50
done_testing
