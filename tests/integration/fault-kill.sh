#!/bin/bash
# fault-kill: SIGKILL of the console at each phase of a request (queued,
# decided, running, ended) and of `bwgate exec` while it runs or while bwrap
# holds the sandbox for it. No sandbox
# survives, the audit log ends with a whole record, nothing approved runs
# after the console that approved it died, and a restarted console starts
# clean (stale sockets replaced, no placeholder left in the project).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
ls -A "$P" | sort > "$T/before"

# The exec children of this test that run a request: `bwgate exec
# --policy-fd` whose working directory is the project (the console's),
# other than the console's warm exec still waiting for a policy.
exec_pids() {
	local p
	for p in $(pgrep -f -- ' exec --policy-fd '); do
		waiting_for_policy "$p" && continue
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$P" ] && echo "$p"
	done
}

# Is every process of a sandbox of this project gone (bwrap, the exec
# child, the command)? $1: the command's unique sleep.
# (Not the sandbox an idle warm exec of a live console prestarted: it
# runs nothing yet. Its bwrap is a child or grandchild of an exec that
# still holds its policy descriptor.)
prestarted_sandbox() {
	local p=$1 i
	for i in 1 2 3; do
		p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || return 1
		[ -n "$p" ] && [ "$p" -gt 1 ] || return 1
		waiting_for_policy "$p" &&
		    grep -qa -- '--prestart' "/proc/$p/cmdline" && return 0
	done
	return 1
}
sandbox_gone() {
	local b
	for b in $(pgrep -f -- "--chdir $P( |\$)"); do
		prestarted_sandbox "$b" || return 1
	done
	[ -z "$(exec_pids)" ] && ! pgrep -fx -- "sleep $1" > /dev/null
}
state_is() {
	test "$("$BWGATE" list --json | jq -r ".[] | select(.id == $1) | .state")" = "$2"
}
log_whole() {
	[ -s "$AUDIT" ] && [ "$(tail -c 1 "$AUDIT" | od -An -c | tr -d ' ')" = '\n' ] &&
	    jq -e . "$AUDIT" > /dev/null
}
agent_run() {
	local name="$1"; shift
	rm -f "$T/$name.rc"
	{ ( cd "$P" && exec "$BWGATE" run -- "$@" > "$T/$name.out" \
	    2> "$T/$name.err" < /dev/null ); echo $? > "$T/$name.rc"; } &
}
kill_console() {
	kill -KILL "$CPID"
	wait "$CPID" 2> /dev/null
}
# After a console died: its agents hear of it, nothing is left behind, and
# a new console takes over the sockets.
after_death() {
	local phase="$1" agent="$2" marker="$3"
	ok_if "$phase: the agent is told (exit 125)" \
	    wait_for 10 sh -c "test \"\$(cat '$T/$agent.rc' 2>/dev/null)\" = 125"
	ok_if "$phase: no sandbox survives" wait_for 10 sandbox_gone "$marker"
	ok_if "$phase: the audit log ends with a whole record" log_whole
	start_console --headless
	ok_if "$phase: a new console starts and serves" \
	    "$BWGATE" list
	ls -A "$P" | sort > "$T/after"
	ok_if "$phase: no placeholder left in the project" \
	    cmp "$T/before" "$T/after"
}

# queued: waiting for the operator.
start_console --headless
agent_run q sleep 4701
wait_for 10 state_is 1 pending
kill_console
after_death queued q 4701

# decided: approved, but the approval is not on disk yet (the log fails),
# so it has not started; the console dies. It must never run.
SHIM="$BWGATE_BUILDDIR/tests/fault/libauditfault.so"
stop_console
export BWGATE_FAULT_CTL="$T/fault" LD_PRELOAD="$SHIM"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
start_console --headless
agent_run d touch decided-ran
wait_for 10 state_is 1 pending
echo enospc > "$T/fault"
"$BWGATE" approve 1 > /dev/null
ok_if "decided: approved, waiting for the log" wait_for 10 state_is 1 approved
kill_console
rm -f "$T/fault"
unset LD_PRELOAD BWGATE_FAULT_CTL
after_death decided d 4702
ok_unless "decided: the approved command never ran" test -e "$P/decided-ran"
ls -A "$P" | sort > "$T/before"

# running: the console dies under a running sandbox.
agent_run r sleep 4703
wait_for 10 state_is 1 pending
"$BWGATE" approve 1 > /dev/null
ok_if "running: the sandbox runs" wait_for 10 pgrep -fx "sleep 4703"
kill_console
after_death running r 4703

# running: bwgate exec is killed; the console stays and reports it.
agent_run e sleep 4704
wait_for 10 state_is 1 pending
"$BWGATE" approve 1 > /dev/null
ok_if "exec killed: the sandbox runs" wait_for 10 pgrep -fx "sleep 4704"
kill -KILL $(exec_pids)
ok_if "exec killed: no sandbox survives" wait_for 10 sandbox_gone 4704
ok_if "exec killed: the agent gets a result" wait_for 10 test -s "$T/e.rc"
ok_if "exec killed: it is not reported as success" \
    sh -c "test \"\$(cat '$T/e.rc')\" -ne 0"
ok_if "exec killed: the result is in the audit log" \
    wait_for 10 sh -c "jq -s -e 'any(.[]; .record == \"result\" and .id == 1)' '$AUDIT'"
ok_if "exec killed: the console still serves" "$BWGATE" list

# held: bwgate exec is killed outright while bwrap holds the sandbox for
# it (the scan of a large project runs before the command is released).
# bwrap's first process has no parent-death signal yet and the end of the
# hold pipe would release it: the helper must refuse to start the command.
# (A tight poll and a large tree make the window wide; an attempt where
# the command had already been released when the kill came says nothing
# and is made again.)
H="$T/held"
mkdir -p "$H"
(cd "$H" && seq -f 'f%g' 1 100000 | xargs touch)
held_inner() {
	local bw
	bw=$(pgrep -P "$EP" | head -1) && [ -n "$bw" ] &&
	    [ -n "$(pgrep -P "$bw")" ]
}
held_gone() {
	! pgrep -f -- "--chdir $H( |\$)" > /dev/null &&
	    ! pgrep -fx 'sleep 4706' > /dev/null
}
judged=0 ran=0 setup=0 survived=0
for attempt in 1 2 3; do
	rm -f "$H/started"
	(cd "$H" && exec "$BWGATE" exec --quiet --changes snapshot -- \
	    sh -c 'touch started; exec sleep 4706') > /dev/null 2>&1 &
	EP=$!
	deadline=$(( $(date +%s) + 10 ))
	until held_inner; do
		[ "$(date +%s)" -ge "$deadline" ] && break
	done
	held_inner && setup=$((setup + 1))
	kill -KILL "$EP"
	released=0
	{ [ -e "$H/started" ] || pgrep -fx 'sleep 4706' > /dev/null; } &&
	    released=1
	wait "$EP" 2> /dev/null
	wait_for 10 held_gone || survived=$((survived + 1))
	pkill -KILL -fx 'sleep 4706' 2> /dev/null
	[ "$released" = 1 ] && continue
	judged=$((judged + 1))
	[ -e "$H/started" ] && ran=$((ran + 1))
	break
done
assert_eq "held: the sandbox was being set up at each kill" "$setup" "$attempt"
assert_eq "held: nothing of the sandbox survives" "$survived" 0
ok_if "held: an attempt caught it before the command was released" \
    test "$judged" -ge 1
assert_eq "held: the command never ran" "$ran" 0

# The helper itself, run by hand: bwgate's end of the socket closed after
# the answer, instead of the go byte, means the command never runs (where
# seccomp notification works the dead supervisor's listener also stops
# its execve: this checks the helper's own refusal, which a host without
# notification has alone).
HELLO_VERSION=$(sed -n 's/^#define OBSERVE_VERSION[^0-9]*\([0-9]*\).*/\1/p' \
    "$BWGATE_SRCDIR/src/sandbox/observe-proto.h")
helper_case() {	# helper_case go|gone|argv: prints the helper's exit status
	python3 - "$BWGATE_BUILDDIR/bwgate-helper" "$T/helper-ran" "$1" \
	    "$HELLO_VERSION" <<'PY'
import socket, struct, subprocess, sys
helper, mark, how, version = sys.argv[1:]
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
OFF, WAIT, ARGV = 1 << 1, 1 << 2, 1 << 4
flags = OFF | WAIT | (ARGV if how == "argv" else 0)
ours.send(struct.pack("=IIII", 0x62776f62, int(version), flags, 0))
cmd = [] if how == "argv" else ["--", "touch", mark]
p = subprocess.Popen([helper, str(theirs.fileno())] + cmd,
                     pass_fds=[theirs.fileno()], stderr=subprocess.DEVNULL)
theirs.close()
ours.recv(4096)                 # the helper's answer ("disabled")
if how == "go":
    ours.send(b"\0")
elif how == "argv":             # a prestarted sandbox's command
    ours.send(b"touch\0" + mark.encode() + b"\0")
ours.close()
print(p.wait(timeout=10))
PY
}
rm -f "$T/helper-ran"
assert_eq "helper: bwgate gone before the go byte: exit 125" \
    "$(helper_case gone)" 125
ok_unless "helper: ... and the command did not run" test -e "$T/helper-ran"
assert_eq "helper: with the go byte the command runs" "$(helper_case go)" 0
ok_if "helper: ... and did what it was told" test -e "$T/helper-ran"
rm -f "$T/helper-ran"
assert_eq "helper: the command that comes with the go message runs" \
    "$(helper_case argv)" 0
ok_if "helper: ... and did what it was told" test -e "$T/helper-ran"

# ended: the console dies right after a result.
agent_run n true
wait_for 10 state_is 2 pending
"$BWGATE" approve 2 > /dev/null
wait_for 10 test -s "$T/n.rc"
kill_console
rm -f "$T/n.rc"; echo 125 > "$T/n.rc"	# it already had its answer
after_death ended n 4705
ok_if "ended: the result record is in the log" \
    jq -s -e 'any(.[]; .record == "result" and .id == 2)' "$AUDIT"

stop_console
done_testing
