#!/bin/bash
# console-trust: a client talks only to a console of its own user. Another
# user who plants a socket where the console's should be (a directory of
# theirs in place of the runtime directory, renamed in and out, a listener
# of theirs in ours) gets nothing: the client checks the directory it
# connects through (a real directory, ours or root's, not writable by
# others) and the listener's SO_PEERCRED uid, and refuses with one line.
. "$(dirname "$0")/libtest.sh"

FAKE="$BWGATE_BUILDDIR/tests/integration/fake-console"
P=$(new_project)
P=$(realpath "$P")
cd "$P" || exit 1
RUN="$XDG_RUNTIME_DIR/bwgate"
SOCKNAME="agent-$(printf '%s' "$P" | sha256sum | cut -c1-16).sock"
FPIDS=""
TEARDOWN='for p in $FPIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done'

# fake DIR LOG [setpriv args...]: a planted listener at DIR/$SOCKNAME.
fake() {
	local dir="$1" log="$2"; shift 2
	"$@" "$T/fake-console" "$dir/$SOCKNAME" "$log" 2>> "$T/fake.err" &
	FPIDS="$FPIDS $!"
	wait_for 10 test -S "$dir/$SOCKNAME"
}
cp "$FAKE" "$T/fake-console"
chmod 0755 "$T/fake-console"
# What the listeners saw (written by another uid too).
L="$T/logs"
mkdir "$L"
chmod 1777 "$L"

# probe DIR LOG: after a client is done, our own line through the same
# socket; the listener logs connections in order, so if the probe is the
# first line, the client sent nothing (not even a connection).
probe_first() {
	printf 'PROBE\n' | "$BWGATE_BUILDDIR/tests/integration/console-peer" \
	    -x "$1/$SOCKNAME" > /dev/null 2>&1
	wait_for 10 grep -q 'PROBE' "$2" &&
	    [ "$(head -1 "$2")" = "connection: 6 bytes: PROBE" ]
}

# A group/other-writable directory (not sticky): anyone could have put the
# socket there.
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
fake "$T/open" "$L/open.log"
out=$(BWGATE_SOCKET="$T/open/$SOCKNAME" "$BWGATE" run -- echo secret 2>&1)
rc=$?
assert_eq "other-writable directory: refused (125)" "$rc" 125
assert_match "  said in one line" "$out" "^bwgate: refusing the console in '$T/open': others may write to the directory \(mode 777\)$"
ok_if "  nothing reached the listener" probe_first "$T/open" "$L/open.log"

# A symbolic link in place of the runtime directory.
mkdir -m 0700 "$T/elsewhere"
fake "$T/elsewhere" "$L/elsewhere.log"
ln -s "$T/elsewhere" "$RUN"
out=$(BWGATE_SOCKET="$RUN/$SOCKNAME" "$BWGATE" run -- echo secret 2>&1)
assert_eq "a link as the directory: refused (125)" "$?" 125
assert_match "  it is not a directory" "$out" "not a directory"
ok_if "  nothing reached the listener" probe_first "$T/elsewhere" "$L/elsewhere.log"
out=$("$BWGATE" run -- echo secret 2>&1)
assert_eq "  the default socket path too" "$?" 125
ok_if "  nothing reached the listener" sh -c "[ \$(grep -c . '$L/elsewhere.log') = 1 ]"
rm -f "$RUN"

OTHER=bwtest
if [ "$(id -u)" -ne 0 ]; then
	# Without root, another owner is what a user namespace shows for a
	# directory of root's: /usr belongs to the overflow uid there.
	if unshare -r true 2>/dev/null; then
		out=$(BWGATE_SOCKET=/usr/agent.sock unshare -r "$BWGATE" run -- true 2>&1)
		assert_eq "a directory of another uid (namespace): refused" "$?" 125
		assert_match "  named" "$out" "refusing the console in '/usr': the directory belongs to uid"
	fi
	skip "a directory and a listener of $OTHER" "needs root to act as a second user"
	done_testing; exit
fi
if ! id -u "$OTHER" > /dev/null 2>&1; then
	skip "a directory and a listener of $OTHER" "no user $OTHER"
	done_testing; exit
fi
OUID=$(id -u "$OTHER")
AS_OTHER=(setpriv --reuid="$OUID" --regid="$OUID" --clear-groups --)
if ! "${AS_OTHER[@]}" true 2>/dev/null || ! uid_reaches "$OUID" "$T"; then
	skip "a directory and a listener of $OTHER" "cannot act as $OTHER here (user namespace, or $T out of its reach)"
	done_testing; exit
fi

# A directory of another user in place of the runtime directory, with a
# listener of theirs in it.
chmod 0711 "$XDG_RUNTIME_DIR"	# (the other user must reach its directory)
mkdir -m 0700 "$RUN"
chown "$OTHER" "$RUN"
fake "$RUN" "$L/other.log" "${AS_OTHER[@]}"
ok_if "(the other user's listener is in place)" test -S "$RUN/$SOCKNAME"
out=$("$BWGATE" run -- echo secret 2>&1)
assert_eq "a directory of uid $OUID as the runtime directory: refused" "$?" 125
assert_match "  said in one line" "$out" "^bwgate: '$RUN' belongs to uid $OUID, not to us"
out=$(BWGATE_SOCKET="$RUN/$SOCKNAME" "$BWGATE" run -- echo secret 2>&1)
assert_eq "  and on connect (socket named)" "$?" 125
assert_match "  said in one line" "$out" "^bwgate: refusing the console in '$RUN': the directory belongs to uid $OUID, not to you \(uid 0\); another user may have put it there$"
ok_if "  nothing reached the listener" probe_first "$RUN" "$L/other.log"
for p in $FPIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
FPIDS=""
rm -rf "$RUN"

# A listener of another user in our own directory (its socket moved in):
# connected, then refused before a byte is sent.
mkdir -m 0700 "$RUN" "$T/theirs"
chown "$OTHER" "$T/theirs"
fake "$T/theirs" "$L/peer.log" "${AS_OTHER[@]}"
mv "$T/theirs/$SOCKNAME" "$RUN/$SOCKNAME"
ok_if "(the other user's listener is in place)" test -S "$RUN/$SOCKNAME"
out=$("$BWGATE" run -- echo secret 2>&1)
assert_eq "a listener of uid $OUID: refused (125)" "$?" 125
assert_match "  said in one line" "$out" "^bwgate: refusing the console at '$RUN/$SOCKNAME': it runs as uid $OUID, not as you \(uid 0\); nothing was sent$"
wait_for 10 grep -q . "$L/peer.log"
assert_eq "  the listener got the connections, not a byte" \
    "$(sort -u "$L/peer.log")" "connection: 0 bytes: "
for p in $FPIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
FPIDS=""
rm -rf "$RUN"

# The race of issue 26: another user renames a directory of theirs in and
# out of the runtime directory's place (a sticky, world-writable parent,
# as /tmp is) while the client connects again and again.
XR="$T/xdg"
mkdir -m 1777 "$XR"
chmod 1777 "$XR"
"${AS_OTHER[@]}" mkdir -m 0755 "$XR/d"
fake "$XR/d" "$L/race.log" "${AS_OTHER[@]}"
ok_if "(the other user's listener is in place)" test -S "$XR/d/$SOCKNAME"
# (The loop stops at a file of ours, and is waited for: a signal to the
# wrapper that runs it as the other user may not reach the loop itself,
# which then keeps moving the directory under the probe below.)
"${AS_OTHER[@]}" sh -c "cd '$XR' && while [ ! -e '$T/stop-swap' ]; do mv d bwgate 2>/dev/null; mv bwgate d 2>/dev/null; done; echo stopped > '$L/swap.done'" &
SWAPPER=$!
for i in $(seq 1 100); do
	XDG_RUNTIME_DIR="$XR" "$BWGATE" run -- echo "secret-$i" > /dev/null 2>&1
done
: > "$T/stop-swap"
wait_for 20 test -e "$L/swap.done"
wait "$SWAPPER" 2>/dev/null
[ -d "$XR/d" ] || mv "$XR/bwgate" "$XR/d"
ok_if "race: 100 requests while the directory is swapped, none reached it" \
    probe_first "$XR/d" "$L/race.log"
done_testing
