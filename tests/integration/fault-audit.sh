#!/bin/bash
# fault-audit: the audit log cannot be written (ENOSPC, then EIO) at each
# phase of a request: queued, decided, started, running, ended. Nothing
# approved starts unrecorded, no agent hears of a result the log does not
# hold, the console says so and keeps serving the operator, and once the
# log can be written again every record is there, in order.
#
# Where the test can mount (root), a real full tmpfs holds the log; else an
# LD_PRELOAD shim (tests/fault/auditfault.c) fails write(2) and fsync(2) on
# it. Both drive the same scenario.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

SHIM="$BWGATE_BUILDDIR/tests/fault/libauditfault.so"
P=$(new_project)
cd "$P"

# Requests wait for the operator (no --auto-allowlisted), so each phase can
# be reached on purpose.
inject() { echo "$1" > "$T/fault"; }
recover() { rm -f "$T/fault"; }
failing_said() {
	test "$(grep -c 'nothing starts until it can be written' "$T/console.log")" -ge "$1"
}
state_is() {
	test "$("$BWGATE" list --json | jq -r ".[] | select(.id == $1) | .state")" = "$2"
}

run_scenario() {
	local how="$1"
	start_console --headless || return 1
	rm -f "$P/q1" "$P/r1" "$P/go"

	# queued + decided + started: the disk fills before the agent asks.
	# The request is longer than a page, so it fails to be written even
	# where a real file system still has room in the log's last page.
	$how enospc
	agent_run a sh -c 'touch q1' "$(printf '%05000d' 0)"
	ok_if "$how: the console says the log cannot be written" \
	    wait_for 10 failing_said 1
	ok_if "$how: the request is listed while the log fails (the operator is served)" \
	    wait_for 10 state_is 1 pending
	"$BWGATE" approve 1
	assert_eq "$how: the operator's approval is answered" "$?" 0
	$how eio
	ok_unless "$how: the approved command does not start unrecorded" \
	    test -e "$P/q1"
	ok_if "$how: it waits approved" state_is 1 approved
	ok_unless "$how: the agent got no reply that the log does not hold" \
	    test -s "$T/a.rc"
	# A new request is refused at once, saying why.
	(cd "$P" && "$BWGATE" run -- touch c1 > /dev/null 2> "$T/c.err" < /dev/null)
	assert_eq "$how: a new request is refused while the log fails (125)" "$?" 125
	ok_if "$how: the refusal says why" grep -q 'audit log cannot be written' "$T/c.err"
	ok_unless "$how: and it did not run" test -e "$P/c1"
	$how ok
	ok_if "$how: once the log is writable the command runs" \
	    wait_for 10 test -e "$P/q1"
	ok_if "$how: and its agent gets the result" wait_for 10 test -s "$T/a.rc"
	assert_eq "$how: exit status 0" "$(cat "$T/a.rc")" 0

	# running + ended: the disk fills while the command runs.
	agent_run b sh -c 'while [ ! -e go ]; do sleep 0.05; done; touch r1'
	wait_for 10 state_is 2 pending
	"$BWGATE" approve 2
	ok_if "$how: the second command runs" wait_for 10 state_is 2 running
	$how enospc
	touch "$P/go"
	ok_if "$how: it ends while the log fails" wait_for 10 test -e "$P/r1"
	ok_if "$how: the console says so again" wait_for 10 failing_said 2
	ok_unless "$how: its result is held from the agent" test -s "$T/b.rc"
	$how ok
	ok_if "$how: the result reaches the agent once recorded" \
	    wait_for 10 test -s "$T/b.rc"
	assert_eq "$how: exit status 0" "$(cat "$T/b.rc")" 0
	ok_if "$how: the console says the log is written again" \
	    grep -q 'written again' "$T/console.log"

	stop_console
	assert_eq "$how: clean exit" "$CRC" 0
	$how show > "$T/audit.$how"
	ok_if "$how: every line of the log is one whole JSON record" \
	    jq -e . "$T/audit.$how"
	for id in 1 2; do
		assert_eq "$how: request $id has request, decision, start and result records" \
		    "$(jq -r "select(.id == $id) | .record" "$T/audit.$how" | tr '\n' ' ')" \
		    "request decision start result "
	done
	ok_if "$how: seq numbers have no gap (nothing recorded was lost)" \
	    sh -c "jq -r .seq '$T/audit.$how' | awk 'NR > 1 && \$1 != prev + 1 { exit 1 } { prev = \$1 }'"
	ok_unless "$how: no record was lost" grep -q audit-lost "$T/audit.$how"
}

# A command through the console in the background; its status in $T/NAME.rc.
agent_run() {
	local name="$1"; shift
	rm -f "$T/$name.rc"
	{ ( cd "$P" && exec "$BWGATE" run -- "$@" > "$T/$name.out" \
	    2> "$T/$name.err" < /dev/null ); echo $? > "$T/$name.rc"; } &
}

# The shim: every user, nested too.
shim() {
	case "$1" in
	enospc|eio) inject "$1" ;;
	ok) recover ;;
	show) cat "$AUDIT" ;;
	esac
}
export BWGATE_FAULT_CTL="$T/fault" LD_PRELOAD="$SHIM"
# Preloading a plain library into a sanitizer build needs this.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
run_scenario shim
unset LD_PRELOAD BWGATE_FAULT_CTL
rm -rf "$XDG_STATE_HOME/bwgate"

# A real full file system, where one can be mounted: the console runs in a
# private mount namespace whose state directory is a 256 KiB tmpfs, and the
# disk is filled and emptied from inside that namespace.
if [ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2>/dev/null; then
	mkdir -p "$XDG_STATE_HOME/bwgate"
	tmpfs() {
		case "$1" in
		enospc|eio)
			nsenter -t "$CPID" -m -- sh -c "cat /dev/zero >> '$XDG_STATE_HOME/bwgate/filler' 2>/dev/null; true" ;;
		ok)
			nsenter -t "$CPID" -m -- rm -f "$XDG_STATE_HOME/bwgate/filler" ;;
		show)
			nsenter -t "$CPID" -m -- cat "$AUDIT" 2>/dev/null || cat "$T/audit.last" ;;
		esac
	}
	# start_console in the namespace; keep a copy of the log for after.
	start_console() {
		rm -f "$T/console.out"
		(cd "$P" && exec unshare -m --propagation private sh -c '
			d=$0 log=$1 copy=$2; shift 2
			mount -t tmpfs -o size=256k,mode=0700 bwgate-fault "$d" ||
			    exit 125
			"$@" &
			pid=$!
			trap "kill -TERM $pid" TERM
			wait $pid; wait $pid; rc=$?
			cp "$log" "$copy" 2>/dev/null
			exit $rc' "$XDG_STATE_HOME/bwgate" "$AUDIT" "$T/audit.last" \
		    "$BWGATE" --log "$T/console.log" "$@" \
		    > "$T/console.out" 2> "$T/console.err") &
		CPID=$!
		if ! wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/console.out"; then
			echo "# console did not start:"; sed 's/^/# /' "$T/console.err"
			return 1
		fi
		CLEANUP_EXTRA="kill -KILL $CPID 2>/dev/null"
	}
	run_scenario tmpfs
else
	skip "a real full file system" "mounting a tmpfs needs root (the shim covered the scenario)"
fi
done_testing
