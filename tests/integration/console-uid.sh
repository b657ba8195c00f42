#!/bin/bash
# console-uid: peers of another uid are refused (SO_PEERCRED), whatever the
# socket's file permissions; allowed_uids in the configuration lets one in.
# Runs as root without a second system user (the other uid has no account);
# skips, saying why, only where no second uid exists (an ordinary user
# without newuidmap, a user namespace that maps one uid).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

# The other uid has no account: setpriv needs none, so the test needs no
# second system user, only the right to switch uids (root, in a user
# namespace that maps more than one uid).
OUID=54322
OTHER="uid $OUID"
as_other() {
	setpriv --reuid="$OUID" --regid="$OUID" --clear-groups -- "$@"
}
if [ "$(id -u)" -ne 0 ]; then
	skip "agent of another uid refused" "as uid $(id -u), no process of this test can take a second uid: an ordinary user's user namespace maps only its own uid unless newuidmap (package uidmap) and a range in /etc/subuid allow more"
	done_testing; exit
fi
# Inside a user namespace that maps only our own uid (an outer bwrap),
# no process can become another uid.
if ! as_other true 2>/dev/null; then
	skip "agent of another uid refused" "cannot switch to uid $OUID here: this user namespace maps only uid 0 ($(tr -s ' ' < /proc/self/uid_map | tr '\n' ';'))"
	done_testing; exit
fi
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
out=$(as_other env BWGATE_SOCKET="$S" "$BWGATE" run -- true 2>&1)
rc=$?
assert_eq "uid $OUID against a root console: 125" "$rc" 125
assert_match "told it may not" "$out" "uid $OUID may not use this console"
out=$(as_other "$BWGATE" list --socket "$S" 2>&1)
assert_match "control socket refuses it too" "$out" "may not use this console"
ok_if "refusal in the audit log" grep -q "\"record\":\"refused\",.*\"uid\":$OUID" "$AUDIT"
"$BWGATE" run --socket "$S" -- true
assert_eq "root (the console's uid) is served" "$?" 0
stop_console

# The client's own check (client.c): a listener of another uid behind a
# socket name in our own trusted directory (a link to its socket) gets
# nothing, not even the first line; the client says who it is.
# (/usr/bin/python3: a python3 of root's own, pyenv in /root, is not
# reachable by that uid.)
if [ ! -x /usr/bin/python3 ]; then
	skip "the client refuses a listener of $OTHER" "no /usr/bin/python3 to listen as $OTHER"
else
	mkdir -m 0755 "$T/theirs" && chown "$OUID:$OUID" "$T/theirs"
	as_other /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(1)
open(sys.argv[2], "w").close()
c, _ = s.accept(); c.settimeout(10)
got = b""
try:
    while True:
        d = c.recv(4096)
        if not d:
            break
        got += d
except OSError:
    pass
open(sys.argv[3], "wb").write(got)
' "$T/theirs/sock" "$T/theirs/ready" "$T/theirs/got" &
	LPID=$!
	wait_for 10 test -e "$T/theirs/ready"
	mkdir -m 0700 "$T/mine"
	ln -s "$T/theirs/sock" "$T/mine/agent.sock"
	out=$("$BWGATE" run --socket "$T/mine/agent.sock" -- true 2>&1); rc=$?
	assert_eq "a listener of $OTHER behind our socket name: 125" "$rc" 125
	assert_match "the client refuses it, saying who it runs as" "$out" \
	    "refusing the console at '$T/mine/agent.sock': it runs as uid $OUID, not as you \(uid 0\); nothing was sent"
	wait_for 20 test -e "$T/theirs/got"
	assert_eq "the listener of $OTHER got nothing" \
	    "$(wc -c < "$T/theirs/got" 2>/dev/null)" 0
	kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
	rm -rf "$T/mine"
fi

# allowed_uids lets that uid use the agent socket, not the control socket.
echo "{\"console\": {\"allowed_uids\": [$OUID]}}" > "$T/allow.json"
start_console --headless --auto-allowlisted --socket "$S" --config "$T/allow.json"
chmod 0666 "$S" "$CTL"
as_other env BWGATE_SOCKET="$S" "$BWGATE" run -- true > /dev/null 2>&1
assert_eq "allowed_uids: the other uid is served" "$?" 0
as_other "$BWGATE" list --socket "$S" > /dev/null 2>&1
assert_eq "allowed_uids: still no control socket" "$?" 1
stop_console

# And the other way round: a console of that user refuses root.
chown -R "$OUID:$OUID" "$P" "$SOCKDIR" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
chmod 0755 "$XDG_RUNTIME_DIR" "$HOME"
rm -f "$T/console.out"
(cd "$P" && exec setpriv --reuid="$OUID" --regid="$OUID" --clear-groups -- env HOME="$HOME" \
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
