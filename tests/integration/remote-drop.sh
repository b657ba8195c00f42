#!/bin/bash
# remote-drop: the ssh link of an executor is killed while a command runs
# there. The command keeps running, a request made meanwhile waits on the
# executor, `bwgate connect` starts ssh again, and the console then shows
# the run's end and the waiting request, in order. With connect gone for
# longer than the executor's --linger, a waiting request is denied,
# never run. sshd runs without StreamLocalBindUnlink: the executor removes
# the socket the dead ssh left.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/remote-lib.sh"

why=$(sshd_missing)
if [ -n "$why" ]; then
	skip "remote links over ssh" "$why"
	done_testing; exit
fi
# Without StreamLocalBindUnlink: the new ssh's socket can only be made
# once the executor removed the dead one's.
if ! start_sshd nounlink; then
	skip "remote links over ssh" "sshd cannot run here: $(sshd_why)"
	stop_sshd; done_testing; exit
fi
mkdir -p "$T/machine-a"
start_operator || { ok_if "the console starts" false; done_testing; exit; }
start_executor machine-a --linger 8 ||
    { ok_if "the executor starts" false; done_testing; exit; }
link machine-a
ok_if "machine-a links" wait_for 20 linked machine-a

mrun machine-a -- sh -c 'sleep 4; echo done > late' > /dev/null 2>&1 &
R1=$!
ok_if "a request shows" wait_for 20 oid machine-a pending late
(cd "$OP/proj" && "$BWGATE" approve "$(oid machine-a pending late)") \
    > /dev/null 2>&1
ok_if "it runs" wait_for 20 oid machine-a running late
id1=$(oid machine-a running late)

# Cut the link: kill the ssh that connect started.
SSH=$(pgrep -P "$LPID_machine_a" ssh)
kill -TERM $SSH
ok_if "the console sees the link go" wait_for 10 grep -q 'machine-a: link down' "$OP/console.err"
# Before connect's next ssh (2 s): bwgate hosts says the link is down,
# with the run that goes on there.
assert_match "bwgate hosts: machine-a down since, its run counted" "$(ohosts)" \
    "machine-a +DOWN [0-9-]+ [0-9:]+ +0 +1 $T/machine-a/proj"
out=$(cd "$OP/proj" && "$BWGATE" kill "$id1" 2>&1)
assert_match "a decision on its request is refused while it is down" "$out" "not linked now"
mrun machine-a -- sh -c 'echo w > waited' > /dev/null 2>&1 &
R2=$!
ok_if "a request made meanwhile waits on the executor" \
    wait_for 10 grep -q 'waited.*no console linked: it waits' "$T/machine-a/executor.err"

# connect starts ssh again by itself.
ok_if "the link comes back" wait_for 20 sh -c \
    "[ \$(grep -c 'machine-a: executor linked' '$OP/console.err') -ge 2 ]"
assert_eq "  bwgate hosts: machine-a linked again" \
    "$(ohosts --json | jq -r 'map("\(.host) \(.state)") | join(",")')" "machine-a linked"
wait "$R1"
assert_eq "the run went on through the drop: exit 0" "$?/$(cat "$T/machine-a/proj/late" 2>/dev/null)" 0/done
ok_if "the console shows its end" wait_for 10 oid machine-a finished late
ok_if "the waiting request shows after the run" wait_for 10 oid machine-a pending waited
id2=$(oid machine-a pending waited)
ok_if "  in order (a later id)" test "$id2" -gt "$id1"
(cd "$OP/proj" && "$BWGATE" approve "$id2") > /dev/null 2>&1
wait "$R2"
assert_eq "  approved after the drop, it runs" "$?/$(cat "$T/machine-a/proj/waited" 2>/dev/null)" 0/w
# Its end reaches the console before the link goes (else the console
# rightly keeps it as running on a machine it cannot hear).
ok_if "  the console shows its end" wait_for 20 oid machine-a finished waited

# Fail closed: connect gone, a new request is denied after --linger 8.
kill -TERM "$LPID_machine_a"; wait "$LPID_machine_a" 2>/dev/null
LPID_machine_a=
mrun machine-a -- sh -c 'echo x > never' > /dev/null 2> "$T/never.err"
assert_eq "with no console past --linger, a request is denied (77)" "$?" 77
assert_match "  saying why" "$(cat "$T/never.err")" "no console linked for 8 seconds"
ok_unless "  it did not run" test -e "$T/machine-a/proj/never"
# connect gone and nothing of machine-a waits or runs: it is no longer
# listed.
assert_eq "bwgate hosts: machine-a gone once its link is down with nothing there" \
    "$(ohosts --json)" "[]"
done_testing
