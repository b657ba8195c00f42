#!/bin/bash
# ui-output-disk: the output pane shows a finished request's output read
# back from disk (spool.c), not from the console's memory: the kept
# output of #1 is in the state directory once it ends, and what the pane
# shows when #1 is selected again is what that file holds.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
ui_start 140 40 || { done_testing; exit 1; }
agent one -- sh -c 'seq -f "spooled-line-%g" 1 3000'	# allowlisted
wait_agent 30 one
assert_eq "#1 ran" "$(agent_rc one)" 0
check_screen "the output pane shows #1's last line" 10 'spooled-line-3000 *$'
log=$(find "$XDG_STATE_HOME/bwgate/output" -name 1.log 2>/dev/null | head -n 1)
ok_if "#1's kept output is on disk ($log)" test -s "$log"
assert_match "  the tail the pane shows" "$(tail -n 1 "$log")" spooled-line-3000
agent two -- echo second-request
wait_agent 30 two
keys Down Down
check_screen "#2 selected: its output" 10 'second-request *$'
# Change the file: the pane can only show this by reading it.
printf 'read-back-from-disk\n' > "$log"
keys Up
check_screen "#1 selected again: the pane reads its output from disk" 10 \
    'read-back-from-disk *$'
ok_unless "  not from memory" bash -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q spooled-line-3000"
done_testing
