#!/bin/bash
# remote-ui: the terminal console with an ssh-linked executor. The other
# machine's request shows in the queue with its host in the agent name
# and the sandbox built there (its mounts) in the detail pane; `a a` approves it,
# it runs on that machine, the queue shows its exit status and the report
# pane its change report, and u undoes it there after the preview. The
# tmux pane title names the machine the next decision goes to; the queue
# title counts the machines linked, at 200 and at 50 columns.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"
UI_TEARDOWN=$TEARDOWN
. "$(dirname "$0")/remote-lib.sh"

why=$(sshd_missing)
if [ -n "$why" ]; then
	skip "the terminal console with a linked machine" "$why"
	done_testing; exit
fi
if ! start_sshd; then
	skip "the terminal console with a linked machine" "sshd cannot run here: $(sshd_why)"
	stop_sshd; done_testing; exit
fi
TEARDOWN="$UI_TEARDOWN; remote_teardown"
P=$(new_project)
OP=$T
mkdir -p "$T/machine-a"
start_executor machine-a || { ok_if "the executor starts" false; done_testing; exit; }
ui_start 200 50 || { ok_if "the console starts" false; done_testing; exit; }
link machine-a
A="$XDG_STATE_HOME/bwgate/audit.jsonl"
ok_if "machine-a links" wait_for 20 jq -e -s \
    'any(.[]; .record == "remote-link" and .host == "machine-a")' "$A"
check_screen "the queue title counts the machine linked" 10 '^ queue +proj +0 pending +1 host +follow'
mrun machine-a -- sh -c 'echo from-ui > made' > /dev/null 2>&1 &
R=$!
check_screen "the queue shows the request with its host" 20 'machine-a:p.* ask +pending'
check_screen "the detail pane names the machine" 5 '^request #1 from machine-a:pid'
check_screen "  and shows the sandbox built there" 5 '^rw +[^ ]*/machine-a/proj +project'
title_is() {
	[ "$(tm display -p -t ui '#{pane_title}')" = "$1" ]
}
ok_if "the tmux title names the machine the decision goes to" \
    wait_for 10 title_is "bwgate proj: 1 pending (machine-a)"
# A local request waits too: the selection stays on machine-a's.
agent here -- touch here.txt
check_screen "a local request waits too" 10 '^! +2 .*touch here'
ok_if "  the title still names machine-a" \
    wait_for 10 title_is "bwgate proj: 2 pending (machine-a)"
keys a a
wait "$R"
assert_eq "approved at the terminal, it ran on machine-a" \
    "$?/$(cat "$T/machine-a/proj/made" 2>/dev/null)" 0/from-ui
ok_unless "  not here" test -e "$P/made"
check_screen "the queue shows its exit status" 10 'machine-a:p.* exit 0'
ok_if "what waits now is this machine's: no host in the title" \
    wait_for 10 title_is "bwgate proj: 1 pending"
# d right after follow moved the selection only says so (the guard):
# again then.
keys d
wait_screen 3 'deny #2, note' || keys d
keys Enter
ok_if "  denied, the title has nothing waiting" \
    wait_for 10 title_is "bwgate proj"
wait_agent 10 here
keys g
check_screen "the report pane has the change report made there" 10 '1 created, 0 modified'

# u: the preview made there, then the undo done there.
keys u
check_screen "u shows what undo would do on machine-a" 10 'Undo #1 \('
check_screen "  the preview: removed" 5 'remove: made'
ok_if "  nothing undone before the answer" test -e "$T/machine-a/proj/made"
keys y
ok_if "y: undone on machine-a" wait_for 20 sh -c "! test -e '$T/machine-a/proj/made'"
ok_if "  recorded there, by the console" jq -e -s \
    'any(.[]; .record == "undo" and (.who | startswith("console ")))' \
    "$T/machine-a/state/bwgate/audit.jsonl"
ok_if "  and here" jq -e -s 'any(.[]; .record == "remote-undo" and .host == "machine-a")' "$A"
# 50 columns (a tmux side pane): the count of machines stays in the title.
tm resize-window -t ui -x 50 -y 40
check_screen "50 columns: the queue title still counts the machine" 10 \
    '^ queue +proj +0 pending +1 host +follow'
done_testing
