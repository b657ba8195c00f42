#!/bin/bash
# console-uid: peers of another uid are refused (SO_PEERCRED), whatever the
# socket's file permissions; allowed_uids in the configuration lets one in.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

OTHER=bwtest
if [ "$(id -u)" -ne 0 ]; then
	skip "agent of another uid refused" "needs root to act as a second user"
	done_testing; exit
fi
if ! id -u "$OTHER" > /dev/null 2>&1 || ! command -v runuser > /dev/null; then
	skip "agent of another uid refused" "no user $OTHER or no runuser"
	done_testing; exit
fi
# Inside a user namespace that maps only our own uid (an outer bwrap),
# no process can become another uid.
if ! runuser -u "$OTHER" -- true 2>/dev/null; then
	skip "agent of another uid refused" "cannot switch to $OTHER here (user namespace maps one uid)"
	done_testing; exit
fi
OUID=$(id -u "$OTHER")
# bwgate runs as $OTHER: from a copy it can reach, wherever the build tree
# is (a clone in /root, say).
if ! uid_reaches "$OUID" "$T"; then
	skip "agent of another uid refused" "$OTHER cannot search the way to the test directory $T (TMPDIR under a private directory)"
	done_testing; exit
fi
use_installed_copy
P=$(new_project)
cd "$P"

# Root console; its socket made reachable so only the uid check stands.
SOCKDIR="$T/sock"
mkdir -m 0755 "$SOCKDIR"
chmod 0755 "$T"
S="$SOCKDIR/agent.sock"
CTL="$SOCKDIR/control.sock"
start_console --headless --auto-allowlisted --socket "$S"
chmod 0666 "$S" "$CTL"
out=$(runuser -u "$OTHER" -- env BWGATE_SOCKET="$S" "$BWGATE" run -- true 2>&1)
rc=$?
assert_eq "uid $OUID against a root console: 125" "$rc" 125
assert_match "told it may not" "$out" "uid $OUID may not use this console"
out=$(runuser -u "$OTHER" -- "$BWGATE" list --socket "$S" 2>&1)
assert_match "control socket refuses it too" "$out" "may not use this console"
ok_if "refusal in the audit log" grep -q "\"record\":\"refused\",.*\"uid\":$OUID" "$AUDIT"
"$BWGATE" run --socket "$S" -- true
assert_eq "root (the console's uid) is served" "$?" 0
stop_console

# allowed_uids lets that uid use the agent socket, not the control socket.
echo "{\"console\": {\"allowed_uids\": [$OUID]}}" > "$T/allow.json"
start_console --headless --auto-allowlisted --socket "$S" --config "$T/allow.json"
chmod 0666 "$S" "$CTL"
runuser -u "$OTHER" -- env BWGATE_SOCKET="$S" "$BWGATE" run -- true > /dev/null 2>&1
assert_eq "allowed_uids: the other uid is served" "$?" 0
runuser -u "$OTHER" -- "$BWGATE" list --socket "$S" > /dev/null 2>&1
assert_eq "allowed_uids: still no control socket" "$?" 1
stop_console

# And the other way round: a console of that user refuses root.
chown -R "$OTHER" "$P" "$SOCKDIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
chmod 0755 "$XDG_RUNTIME_DIR" "$HOME"
rm -f "$T/console.out"
(cd "$P" && exec runuser -u "$OTHER" -- env HOME="$HOME" \
    XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" \
    XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" BWGATE_DATADIR="$BWGATE_DATADIR" \
    "$BWGATE" --headless --auto-allowlisted --socket "$S" \
    > "$T/console.out" 2> "$T/console.err") &
CPID=$!
CLEANUP_EXTRA="kill -KILL $CPID 2>/dev/null"
TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null"
if wait_for 10 grep -q '^export' "$T/console.out"; then
	out=$("$BWGATE" run --socket "$S" -- true 2>&1); rc=$?
	assert_eq "root against a $OTHER console: 125" "$rc" 125
	# The client refuses first: the console is not its user's.
	assert_match "root refuses a console of $OTHER" "$out" \
	    "refusing the console in '$SOCKDIR': the directory belongs to uid $OUID"
else
	sed 's/^/# /' "$T/console.err"
	skip "root against a $OTHER console" "the console did not start"
fi
kill -TERM "$CPID"; wait "$CPID"
done_testing
