#!/bin/bash
# ui-approve: an agent's ask command shows in the queue and detail with its
# verdict and bwrap argv; `a` approves; output, live file events and the
# change report appear and the agent gets the command's exit status.
# Keys come from the terminal only: bytes piped to stdin approve nothing.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
ui_start 200 50 || { done_testing; exit 1; }
check_screen "empty queue says how agents submit" 10 "no requests yet"

agent one -- sh -c 'echo hello-out; mkdir -p out; echo data > out/f.txt; exit 3'
check_screen "queue row: pending marker, id, command, ask badge" 10 \
    '^! +1 .*sh -c .*echo hello-out.* ask +pending'
check_screen "detail: verdict with reason" 5 'verdict ask'
check_screen "detail: sandbox profile and network" 5 \
    'sandbox project, network off, writes the project'
check_screen "detail: mount table" 5 "rw +$P +project"
keys Tab G
check_screen "detail scrolled to the end: the exact bwrap argv" 5 \
    '^-- sh -c .*echo hello-out'
# Page up to the project's bind (the protected paths after it vary).
for _ in 1 2 3 4 5 6 7 8; do
	wait_screen 1 "^--bind(-fd [0-9]+)? .*$P\$" && break
	keys PPage
done
check_screen "the argv has the project bound writable" 5 "^--bind(-fd [0-9]+)? .*$P\$"
# Page up to the argv's start (the mount table before it varies by host).
for _ in 1 2 3 4 5 6 7 8; do
	keys PPage
	wait_screen 1 '^--(unshare-all|userns [0-9]+)' && break
done
check_screen "pages up: the argv starts with bwrap itself" 5 \
    '^--(unshare-all|userns [0-9]+)'
ok_unless "the agent waits for the operator" test -s "$T/one.rc"

# v: the argv as one line on the plain terminal, for copying.
keys v
check_screen "v: the argv printed outside the screen" 5 'bwrap argv of #1:'
ok_if "as one (wrapped) line from bwrap to the command" bash -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -J -t ui |
    grep -Eq '^/usr/bin/bwrap --(unshare-all|userns [0-9]+) .* -- sh -c .*echo hello-out'"
keys Enter
check_screen "Enter: back to the console" 5 '^ queue '
check_screen "the request still waits" 5 '^! +1 .* ask +pending'

keys a a
wait_agent 20 one
assert_eq "agent exits with the command's status" "$(agent_rc one)" 3
assert_match "agent got the output" "$(cat "$T/one.out")" hello-out
check_screen "queue shows exit status" 10 ' 1 .* ask +exit 3'
check_screen "output pane" 5 '^ *hello-out'
check_screen "live files pane: created lines" 5 '\+ out/f\.txt'
check_screen "report pane: change summary" 5 '2 created, 0 modified'
check_screen "report pane: exit" 5 'exit 3 in [0-9]+ ms'
ok_if "the command really ran in the project" test -f "$P/out/f.txt"

# An allowed command runs at once.
agent two -- echo allowed-at-once
wait_agent 20 two
assert_eq "allowlisted command runs without approval" "$(agent_rc two)" 0
check_screen "queue: allow badge, exit 0" 10 'echo allowed-at-once +allow +exit 0'

# Control characters are shown escaped, never sent to the terminal.
agent esc -- sh -c $'echo esc\x1b[31mred'
# (the argv as shell text, $'...\x1b...', its backslash doubled when shown)
check_screen "control characters in the command shown escaped" 10 \
    'sh -c .*esc(\\\\x1b|\\e)\[31mred.* ask +pending'
keys a a
wait_agent 20 esc
check_screen "its output without the colour sequence" 10 ' escred *$'
ok_unless "no raw escape reached the screen" bash -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q \$'\\x1b'"

# Stdin is not the keyboard: 'a' piped in approves nothing.
ui_stop
rm -f "$T/console.rc"
sed -i "s|^'[^ ]*bwgate' |printf 'aaaa\\\\n' \\| &|" "$T/console.sh"
tm new-session -d -s ui -x 120 -y 30 "$T/console.sh"
check_screen "console started with a pipe on stdin" 10 'queue '
agent three -- touch piped.txt
check_screen "request pending" 10 '^! +[0-9]+ .*touch piped\.txt'
wait_agent 1 three
ok_unless "bytes on stdin did not approve it" test -s "$T/three.rc"
ok_unless "and it did not run" test -e "$P/piped.txt"
keys d Enter
wait_agent 20 three
assert_eq "denied from the terminal: 77" "$(agent_rc three)" 77

# a offers the verdict's profile and the others, one key each.
agent four -- sh -c 'touch chosen.txt'
check_screen "fourth request pending" 10 '^! +[0-9]+ .*touch chosen'
keys a
check_screen "a offers the profiles" 5 'approve #[0-9]+: a/Enter .*1 readonly'
keys 1
wait_agent 20 four
ok_unless "approved with readonly: the write was refused" \
    test -e "$P/chosen.txt"
assert_match "the agent heard read-only in this profile" \
    "$(cat "$T/four.err")" "read-only in this profile"
done_testing
