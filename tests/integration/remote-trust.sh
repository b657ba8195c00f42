#!/bin/bash
# remote-trust: the executor takes decisions only from a link socket sshd
# made for its own user. A fake "console" listening at the executor's link
# path with a socket others may use (mode 0666), or (as root) owned by
# another uid, would approve everything: the executor never connects to
# it, and the request it would have approved is denied after --linger,
# never run. No sshd is needed: the attack needs none.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/remote-lib.sh"

command -v python3 > /dev/null || { skip "fake consoles" "no python3"; done_testing; exit; }
mkdir -p "$T/machine-a"
start_executor machine-a --linger 4 ||
    { ok_if "the executor starts" false; done_testing; exit; }
UP=$(sed -n "s/.*waiting for a console link at '\([^']*\)'.*/\1/p" "$T/machine-a/executor.err")
ok_if "the executor names its link socket" test -n "$UP"

# fake MODE [UID]: a console at the link path that greets and approves
# every request it is shown; each connection is logged to $T/fake.log.
# Mode and owner are set before it listens (never a moment as ours).
fake() {
	rm -f "$UP" "$T/fake.log" "$T/fake.log.ready"
	python3 - "$UP" "$1" "$T/fake.log" "${2:--1}" <<'PY' &
import json, os, socket, sys
p, mode, log, uid = sys.argv[1], int(sys.argv[2], 8), sys.argv[3], int(sys.argv[4])
s = socket.socket(socket.AF_UNIX); s.bind(p); os.chmod(p, mode)
try:
    os.chown(p, uid, -1)
except OSError:
    sys.exit(3)
s.listen(4)
open(log + ".ready", "w").close()
while True:
    c, _ = s.accept()
    open(log, "a").write("connected\n")
    f = c.makefile("rwb", buffering=0)
    f.write(b'{"type":"linked","console":"fake","host":"x"}\n')
    for line in f:
        m = json.loads(line)
        if m.get("type") == "request" and m["request"]["state"] == "pending":
            f.write(json.dumps({"type": "approve", "id": m["request"]["id"],
                "who": "fake"}).encode() + b"\n")
PY
	FAKE=$!
	wait_for 10 test -e "$T/fake.log.ready"
}
TEARDOWN='kill $FAKE 2>/dev/null; wait $FAKE 2>/dev/null; remote_teardown'

fake 0666
# Time for the executor to try it (it looks every 250 ms): a mutant links
# here and its request is approved; the executor never connects.
wait_for 2 test -s "$T/fake.log"
mrun machine-a -- sh -c 'echo x > pwned' > /dev/null 2> "$T/a.err"
assert_eq "a link socket others may use is not taken: denied (77)" "$?" 77
ok_unless "  the command did not run" test -e "$T/machine-a/proj/pwned"
ok_unless "  the fake console was never reached" test -s "$T/fake.log"
assert_match "  denied for want of a console" "$(cat "$T/a.err")" "no console linked"
kill "$FAKE"; wait "$FAKE" 2>/dev/null

other=
if [ "$(id -u)" = 0 ] && id bwtest > /dev/null 2>&1; then
	fake 0600 "$(id -u bwtest)"
	if [ -e "$T/fake.log.ready" ]; then
		other=bwtest
	else
		wait "$FAKE" 2>/dev/null	# chown failed (a user namespace)
	fi
fi
if [ -n "$other" ]; then
	wait_for 2 test -s "$T/fake.log"
	mrun machine-a -- sh -c 'echo x > pwned2' > /dev/null 2> "$T/b.err"
	assert_eq "a link socket of another uid is not taken: denied (77)" "$?" 77
	ok_unless "  the command did not run" test -e "$T/machine-a/proj/pwned2"
	ok_unless "  the fake console was never reached" test -s "$T/fake.log"
	kill "$FAKE"; wait "$FAKE" 2>/dev/null
else
	skip "a link socket of another uid" "making a socket another uid owns needs root (of the host's user namespace) and a second user: the root pass of the suite runs it"
fi

# The same fake with a private socket of ours is taken (the check is not
# blind): it is what sshd makes.
fake 0600
ok_if "a private socket of ours is taken" wait_for 10 test -s "$T/fake.log"
mrun machine-a -- sh -c 'echo ok > taken' > /dev/null 2>&1
assert_eq "  its approval runs" \
    "$?/$(cat "$T/machine-a/proj/taken" 2>/dev/null)" 0/ok
done_testing
