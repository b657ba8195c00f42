#!/bin/bash
# ui-flood: 500 requests arrive while a prompt is open; the prompt keeps
# taking keys, the queue keeps counting, nothing is decided by accident.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
ui_start 120 40 --fifo "$T/fifo" || { done_testing; exit 1; }

agent one -- sh -c 'echo one > one.txt'
check_screen "first request pending" 10 '^! +1 .*echo one'
keys d
check_screen "deny prompt open" 5 'deny #1, note'

start=$(date +%s%N)
for i in $(seq 500); do echo "touch flood-$i"; done > "$T/fifo"
keys -l 'typed during the flood'
check_screen "typing shows while the flood arrives" 20 \
    'typed during the flood'
check_screen "all 500 queued behind the prompt" 60 '501 pending'
end=$(date +%s%N)
echo "# 500 requests queued and drawn in $(( (end - start) / 1000000 )) ms"

# Latency of one key with 501 requests in the queue.
start=$(date +%s%N)
keys -l ' and after'
check_screen "a key after the flood shows at once" 5 'flood and after'
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
echo "# key to screen with 501 requests: $ms ms"
ok_if "key to screen under 2 s" test "$ms" -lt 2000
ok_unless "the prompt's request is still undecided" test -s "$T/one.rc"
ok_unless "no flood command ran" sh -c "ls '$P' | grep -q flood-"

keys Escape
check_screen "Esc: not denied" 5 'not denied'
check_screen "the selection stayed on #1 (oldest pending)" 5 'detail +#1'
keys Tab G
check_screen "its detail is intact" 5 'one\.txt'
keys a a
wait_agent 20 one
assert_eq "then approved: exit 0" "$(agent_rc one)" 0
check_screen "500 still pending" 10 '500 pending'

# Filter the flood down to one request (f: the detail pane has the focus,
# where / would search).
keys f
keys -l 'flood-250'
keys Enter
check_screen "filter shows the one match" 5 'touch flood-250 +ask +pending'
check_screen "  the others still waiting are a group of their own" 5 \
    '^ 499 waiting outside the filter'
check_screen "  which the title counts" 5 '\(499 (outside the filter|unfiltered)\)'
ok_if "  and the match is selected, below them" wait_for 5 sh -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -Eq '^ ?detail +#251'"
echo 'touch late-one' > "$T/fifo"
check_screen "a request arriving under the filter joins the group" 10 \
    '^ 500 waiting outside the filter'
keys p
check_screen "p goes on from the match to the first waiting outside it" 5 \
    'detail +#2 '

keys f Enter
check_screen "f starts empty: Enter shows all again" 5 'touch flood-1 '
done_testing
