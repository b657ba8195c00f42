#!/bin/bash
# ui-deny: `d` denies with a note the agent receives; `K` kills a running
# command only after y (any other key is no); `r` re-runs a request under a
# new id that waits for approval again when its verdict is ask.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
ui_start 160 45 || { done_testing; exit 1; }

agent one -- sh -c 'echo no > denied.txt'
check_screen "pending request shown" 10 '^! +1 .*denied\.txt.* ask +pending'
keys d
check_screen "deny prompt asks for a note" 5 'deny #1, note for the agent'
keys -l 'please use the build directory'
check_screen "the note shows as it is typed" 5 'please use the build directory'
ok_unless "the agent still waits while the prompt is open" test -s "$T/one.rc"
keys Enter
wait_agent 20 one
assert_eq "denied: exit 77" "$(agent_rc one)" 77
assert_match "the agent sees the note" "$(cat "$T/one.err")" \
    'please use the build directory'
ok_unless "the denied command did not run" test -e "$P/denied.txt"
check_screen "queue shows denied" 5 ' 1 .* ask +denied'
check_screen "report pane says who denied, with the note" 5 \
    'denied by the operator: please use the build directory'

# Esc cancels a deny: nothing is decided.
agent two -- sh -c 'echo yes > later.txt'
check_screen "second request pending" 10 '^! +2 .*later\.txt'
keys d Escape
check_screen "Esc: not denied" 5 'not denied'
ok_unless "still waiting" test -s "$T/two.rc"

# Re-run of the denied request: a new id, pending again (ask).
keys k
check_screen "moved to #1" 5 'detail  #1'
keys r
check_screen "re-run queued as #3" 5 '#1 queued again as #3'
check_screen "#3 waits for approval (ask)" 5 '^! +3 .*denied\.txt.* ask +pending'
keys a a
check_screen "#3 ran" 20 ' 3 .* ask +exit 0'
ok_if "the re-run wrote its file" test -f "$P/denied.txt"
keys k
check_screen "moved to #2" 5 'detail  #2'
keys a a
wait_agent 20 two
assert_eq "#2 approved afterwards: exit 0" "$(agent_rc two)" 0

# The help lists the keys from the key table; any key closes it.
keys '?'
check_screen "? shows the keys" 5 'K +kill the selected running command'
for _ in 1 2 3 4 5 6; do
	wait_screen 1 'take only y as yes' && break
	keys Space
done
check_screen "with the prompt rules (a page down)" 5 'take only y as yes'
keys x
check_screen "a key closes the help" 5 '^ queue '
ok_unless "the help is gone" bash -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'keys (any other'"

# Kill: K asks, anything but y keeps it running.
agent three -- sleep 60
check_screen "sleep runs at once (allowlisted)" 10 ' 4 .*sleep 60 +allow +running'
keys G
check_screen "G: the last request selected" 5 'detail  #4'
keys K
check_screen "kill asks first" 5 'Kill #4 \(sleep 60\)\? \(y/N\)'
keys n
check_screen "n: not killed" 5 'not killed'
ok_unless "still running" test -s "$T/three.rc"
keys K
check_screen "kill asks again" 5 'Kill #4'
keys Enter
check_screen "Enter is no too" 5 'not killed'
keys K y
wait_agent 20 three
assert_match "killed: the agent stops with a signal status" \
    "$(agent_rc three)" '^1[0-9][0-9]$'
check_screen "queue shows killed" 10 ' 4 .*sleep 60 +allow +killed'
done_testing
