#!/bin/bash
# ui-quit: q asks first when anything is pending or running (the answer
# defaults to No); quitting denies what waits, and with nothing left q
# quits at once.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
ui_start 100 30 || { done_testing; exit 1; }

agent one -- sh -c 'echo x > x.txt'
check_screen "pending request" 10 '^! +1 '
keys q
check_screen "q asks first" 5 '^1 pending will be denied, 0 running'
keys n
check_screen "n: not quitting" 5 'not quitting'
ok_unless "the console still runs" test -s "$T/console.rc"
keys q Enter
check_screen "Enter: not quitting either" 5 'not quitting'
keys q Escape
check_screen "Esc: not quitting either" 5 'not quitting'
ok_unless "still waiting" test -s "$T/one.rc"

agent two -- sleep 60
check_screen "a running command" 10 'sleep 60 +allow +running'
keys q
check_screen "q counts what runs too" 5 '^1 pending will be denied, 1 running killed'
keys y
console_exited 30
assert_eq "the console exits 0" "$(cat "$T/console.rc")" 0
wait_agent 20 one
assert_eq "the pending agent is denied (77)" "$(agent_rc one)" 77
assert_match "and told why" "$(cat "$T/one.err")" 'shutting down'
wait_agent 20 two
ok_unless "the running command was stopped" test "$(agent_rc two)" = 0
ok_unless "the console removed its socket" test -e "$S"
assert_match "a last line after the screen is restored" \
    "$(cat "$T/console.err")" 'console stopped'

# Nothing pending or running: q quits at once.
rm -f "$T/console.rc"
tm respawn-pane -k -t ui "$T/console.sh"
check_screen "started again" 10 'no requests yet'
keys q
console_exited 10
assert_eq "q with nothing to lose quits at once" "$(cat "$T/console.rc")" 0
done_testing
