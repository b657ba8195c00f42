#!/bin/bash
# ui-mounts: `e` edits the mounts of a pending request: a writable path
# outside the project appears in the bwrap argv at once and the command can
# write there; a path can be removed again; `n` toggles the network.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
OUT="$T/outside"
mkdir -p "$OUT"
ui_start 200 90 || { done_testing; exit 1; }

agent one -- sh -c "echo written > '$OUT/x.txt'"
check_screen "pending" 10 '^! +1 .*echo written'
keys e
check_screen "mounts editor opens" 5 'mounts of #1'
check_screen "no extra paths yet" 5 'no extra paths'
keys w
check_screen "asks for a writable path" 5 'writable path to add'
keys -l "$OUT"
keys Enter
check_screen "the editor lists it" 5 "rw +$OUT"
check_screen "the detail pane shows the edit" 5 "edits rw $OUT"
keys Escape
keys Tab G
check_screen "the argv binds it writable" 5 "^--bind(-fd [0-9]+)? ($OUT )?$OUT\$"

# Remove it and add it back: the argv follows each change.
keys e x
check_screen "removed: no extra paths" 5 'no extra paths'
keys Escape
check_screen "argv without it" 5 '^-- sh -c'
ok_unless "no --bind of the path any more" sh -c \
    "tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -Eq -- '--bind.* $OUT\$'"
keys e w
keys -l "$OUT"
keys Enter Escape

# Network: n toggles it; the argv never shares the host's network (the
# sandbox gets its own namespace with slirp4netns).
keys n
check_screen "network on (any host) in the detail" 5 'network any host'
keys n
check_screen "network off again" 5 'network off'

keys a a
wait_agent 20 one
assert_eq "approved with the edit: exit 0" "$(agent_rc one)" 0
assert_eq "the command wrote outside the project" \
    "$(cat "$OUT/x.txt" 2>/dev/null)" written
assert_eq "the decision (audit log, as the agent got it) carries the edit" \
    "$(jq -r 'select(.record == "decision" and .id == 1) | .edits.rw[0]' \
    "$XDG_STATE_HOME/bwgate/audit.jsonl")" "$OUT"

# Without the edit the same write is refused by the sandbox.
agent two -- sh -c "echo again > '$OUT/y.txt'"
check_screen "second request pending" 10 '^! +2 .*echo again'
keys a a
wait_agent 20 two
ok_unless "no edit: nothing written outside" test -e "$OUT/y.txt"
check_screen "the report lists the violation" 10 "! refused create '$OUT/y\.txt'"
done_testing
