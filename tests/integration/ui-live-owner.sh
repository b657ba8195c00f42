#!/bin/bash
# ui-live-owner: each request's live files pane shows what its own
# processes did, and nothing another request or the host did; a change on
# the host while requests run shows under "changed outside any request",
# under no request. Two writers run at once, kept in step by files (each
# waits for a file the test creates), in the wide and the 50-column
# layouts; each agent's change report lists its own files only.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

# Line number of the first screen line matching an extended regex.
line_of() {
	screen | grep -nE -- "$1" | head -n 1 | cut -d: -f1
}

# One layout: COLS LINES TAG. TAG names the files (a1, b1, host file).
run_layout() {
	local cols="$1" lines="$2" tag="$3" hl al bl
	local A="a$tag" B="b$tag" H="host$tag"

	if ! ui_start "$cols" "$lines"; then
		ok_if "$tag: the console started" false
		ui_stop
		return 1
	fi
	if grep -q 'writers alone' "$T/console.log" 2>/dev/null; then
		skip "$tag: two writers at once" "writers run alone here (no recorded calls)"
		ui_stop
		return 0
	fi
	# A writes its two files, then waits for go-A; B likewise.
	agent "$A" --json -- sh -c "touch ${A}1 ${A}2; while [ ! -e go$tag ]; do sleep 0.1; done"
	# At 50 columns the agent column (7 wide) leaves the command room
	# for "touch a…" only: the row ends its command there.
	check_screen "$tag: the first writer asks" 10 \
	    "^! +[0-9]+ .*touch (${A}1|${A:0:1}…)"
	keys a a
	ok_if "$tag: the first writer wrote" wait_for 20 test -e "$P/${A}2"
	agent "$B" --json -- sh -c "touch ${B}1 ${B}2; while [ ! -e go$tag ]; do sleep 0.1; done"
	check_screen "$tag: the second writer asks" 10 \
	    "^! +[0-9]+ .*touch (${B}1|${B:0:1}…)"
	keys a a
	ok_if "$tag: the second writer wrote" wait_for 20 test -e "$P/${B}2"
	# The second request is selected: its own files are there.
	keys G
	check_screen "$tag: the second pane lists its own files" 10 \
	    "\\+ ${B}2"
	# Now a change on the host while both run.
	touch "$P/$H"
	check_screen "$tag: the host's change is outside any request" 10 \
	    'changed outside any request'
	check_screen "$tag: ... naming the file" 10 "\\+ $H"
	ok_unless "$tag: the second pane does not list the first's files" \
	    bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '+ ${A}1'"
	hl=$(line_of "\\+ $H")
	ol=$(line_of 'changed outside any request')
	bl=$(line_of "\\+ ${B}1")
	ok_if "$tag: the second's files come before the outside section" \
	    test "${bl:-999}" -lt "${ol:-0}"
	ok_if "$tag: the host's file comes after its heading" \
	    test "${hl:-0}" -gt "${ol:-999}"
	assert_eq "$tag: the host's file shows once" \
	    "$(screen | grep -c "+ $H")" 1

	keys g
	check_screen "$tag: the first pane lists its own files" 10 \
	    "\\+ ${A}2"
	check_screen "$tag: and still the outside section" 10 "\\+ $H"
	ok_unless "$tag: the first pane does not list the second's files" \
	    bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '+ ${B}1'"
	al=$(line_of "\\+ ${A}1")
	ol=$(line_of 'changed outside any request')
	ok_if "$tag: the first's files come before the outside section" \
	    test "${al:-999}" -lt "${ol:-0}"
	assert_eq "$tag: the host's file shows once" \
	    "$(screen | grep -c "+ $H")" 1

	touch "$P/go$tag"
	wait_agent 30 "$A"
	wait_agent 30 "$B"
	assert_eq "$tag: the first writer's status" "$(agent_rc "$A")" 0
	assert_eq "$tag: the second writer's status" "$(agent_rc "$B")" 0
	# Each change report: its own files, no one else's.
	assert_match "$tag: the first report has its files" \
	    "$(cat "$T/$A.out")" "\"${A}1\".*\"${A}2\""
	ok_unless "$tag: the first report has none of the others'" \
	    grep -Eq "\"(${B}1|${B}2|$H|go$tag)\"" "$T/$A.out"
	assert_match "$tag: the second report has its files" \
	    "$(cat "$T/$B.out")" "\"${B}1\".*\"${B}2\""
	ok_unless "$tag: the second report has none of the others'" \
	    grep -Eq "\"(${A}1|${A}2|$H|go$tag)\"" "$T/$B.out"
	ui_stop
}

# A request whose calls were not all resolved (a write through a second
# hard link widens its change report): what it did not name may be its
# own or not, and its pane says so instead of claiming it.
run_widened() {
	if ! ui_start 200 50; then
		ok_if "widened: the console started" false
		ui_stop
		return 1
	fi
	echo a > "$P/ln1"
	ln "$P/ln1" "$P/ln2"
	agent u --json -- sh -c 'echo more >> ln2; while [ ! -e gou ]; do sleep 0.1; done'
	check_screen "widened: the writer asks" 10 '^! +[0-9]+ .*echo more'
	keys a a
	check_screen "widened: its own write is its own" 20 '~ ln2'
	ok_unless "widened: ... not marked uncertain" bash -c \
	    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q '~ ln2.*(uncertain)'"
	# Beside it, a request whose calls are all known.
	agent x --json -- sh -c 'touch x1; while [ ! -e gou ]; do sleep 0.1; done'
	check_screen "widened: an exact writer asks" 10 '^! +[0-9]+ .*touch x1'
	keys a a
	ok_if "widened: the exact writer wrote" wait_for 20 test -e "$P/x1"
	keys g
	check_screen "widened: its pane again" 10 '~ ln2'
	touch "$P/hostu"
	check_screen "widened: the host's change is not claimed for it" 10 \
	    '\+ hostu \(uncertain\)'
	check_screen "widened: the pane says why" 10 \
	    'not every call of this request'
	check_screen "widened: outside any request, maybe the widened one's" \
	    10 '\+ hostu \(maybe #1\)'
	assert_eq "widened: the host's change shows twice (uncertain, maybe)" \
	    "$(screen | grep -c '+ hostu')" 2
	touch "$P/gou"
	wait_agent 30 u
	wait_agent 30 x
	assert_eq "widened: the writer's status" "$(agent_rc u)" 0
	assert_eq "widened: the exact writer's status" "$(agent_rc x)" 0
	ui_stop
}

P=$(new_project)
run_layout 200 50 w
run_layout 50 40 n
run_widened
done_testing
