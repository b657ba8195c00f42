#!/bin/bash
# remote-pin: an executor takes decisions from the console it linked to.
# While a request the first console was shown still waits, a second
# console that links to the same executor (its own bwgate connect, the
# first one's link down) is refused: it is shown nothing, and the request
# keeps waiting for the first console, which decides it once it is back.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/remote-lib.sh"

why=$(sshd_missing)
if [ -n "$why" ]; then
	skip "one console per executor" "$why"
	done_testing; exit
fi
if ! start_sshd; then
	skip "one console per executor" "sshd cannot run here: $(sshd_why)"
	stop_sshd; done_testing; exit
fi
mkdir -p "$T/machine-a"
start_operator || { ok_if "the console starts" false; done_testing; exit; }
OP1=$OP OPID1=$OPID
start_executor machine-a --linger 60 ||
    { ok_if "the executor starts" false; done_testing; exit; }
link machine-a
ok_if "machine-a links to the first console" wait_for 20 linked machine-a
mrun machine-a -- sh -c 'echo 1 > first' > /dev/null 2>&1 &
R=$!
ok_if "its request shows there" wait_for 20 oid machine-a pending first

# The first link goes; a second console links to the same executor.
kill -TERM "$LPID_machine_a"; wait "$LPID_machine_a" 2>/dev/null
OP="$T/op2"
mkdir -p "$OP/proj/.git"
echo "[core]" > "$OP/proj/.git/config"
(cd "$OP/proj" && exec "$BWGATE" --headless > "$OP/console.out" \
    2> "$OP/console.err") &
OPID2=$!
wait_for 10 grep -q '^export BWGATE_SOCKET=' "$OP/console.out"
link machine-a
ok_if "the executor refuses the second console" wait_for 20 grep -q \
    'machine-a: this executor is linked to another console' "$OP/console.err"
ok_unless "  which is shown nothing" ohas '.[]'
ok_if "  the executor says so" grep -q 'refused console' "$T/machine-a/executor.err"
kill -TERM "$LPID_machine_a"; wait "$LPID_machine_a" 2>/dev/null
kill -TERM "$OPID2"; wait "$OPID2" 2>/dev/null

# The first console links again and decides (this time its ssh named
# with --ssh, BWGATE_SSH naming none that works).
OP=$OP1 OPID=$OPID1
LINK_SSH=$BWGATE_SSH BWGATE_SSH=false link machine-a
ok_if "the first console links again" wait_for 20 sh -c \
    "[ \$(grep -c 'machine-a: executor linked' '$OP/console.err') -ge 2 ]"
ok_if "  the request still waits there" wait_for 10 oid machine-a pending first
(cd "$OP/proj" && "$BWGATE" approve "$(oid machine-a pending first)") \
    > /dev/null 2>&1
wait "$R"
assert_eq "  and runs once the first console approves it" \
    "$?/$(cat "$T/machine-a/proj/first" 2>/dev/null)" 0/1
done_testing
