#!/bin/bash
# ui-stake (issue 41 item 3): every delete says in the detail pane what it
# puts at stake, danger or not, in the default mode and in sandboxed mode:
# a plain `rm -f out*.txt` names its matches, tracked or untracked, and
# `cd build && rm -rf ../x` names the project's x, not "outside".
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
git -C "$P" init -q 2>/dev/null
printf 1 > "$P/out1.txt"
printf 2 > "$P/out2.txt"
git -C "$P" add out1.txt
mkdir -p "$P/build" "$P/x/deep"
printf x > "$P/x/deep/f"

ui_start 120 40 || { done_testing; exit 1; }
agent one -- sh -c 'rm -f out*.txt'
check_screen "a plain rm -f asks in the default mode" 10 '1 .* ask +pending'
check_screen "  its detail says what is at stake: the matches, tracked or not" \
    5 'at stake.*deletes out1\.txt \(1 B, tracked\), out2\.txt \(1 B,'
keys a a
wait_agent 20 one
assert_eq "  approved, it ran" "$(agent_rc one)" 0
ok_unless "  and deleted them" test -e "$P/out1.txt" -o -e "$P/out2.txt"

agent two -- sh -c 'cd build && rm -rf ../x'
check_screen "cd build && rm -rf ../x is danger" 10 '2 .*DANGER +pending'
check_screen "  its at-stake line names the project's x/" 5 \
    'at stake.*deletes 1 file \(1 B, untracked\) under x/'
ok_unless "  and says nothing of outside the project" \
    bash -c "tmux -S '$TMUX_SOCK' capture-pane -p -J -t ui | grep -q outside"
keys d
check_screen "  d asks for a note" 5 'deny #2, note for the agent'
keys Enter
wait_agent 20 two
assert_eq "  denied" "$(agent_rc two)" 77
ok_if "  x is still there" test -f "$P/x/deep/f"
ui_stop

# Sandboxed mode runs a plain delete at once; its detail still says what it
# deleted.
printf 3 > "$P/out3.txt"
ui_start 120 40 --auto-sandboxed || { done_testing; exit 1; }
agent three -- sh -c 'rm -f out*.txt'
wait_agent 20 three
assert_eq "sandboxed mode: rm -f of a pattern ran at once" "$(agent_rc three)" 0
ok_unless "  out3.txt is gone" test -e "$P/out3.txt"
check_screen "  the detail says what it deleted" 10 \
    'at stake.*deletes out3\.txt \(1 B, untracked\)'
ui_stop
done_testing
