#!/bin/bash
# bench-remote: the latency a remote approval adds over a local one.
# The same ask-verdict command (`sh -c true`) is run N times by an agent on
# the console's machine and by an agent on "machine-a" (an executor linked
# through a real sshd on loopback, tests/integration/remote-lib.sh); one
# approver on the console's control socket approves each request as soon
# as it is listed (polling every 2 ms), so both paths pay the same for the
# operator. Prints the median of each, and the difference.
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}" "${BWGATE_SRCDIR:?}" "${BWGATE_BUILDDIR:?}"
N=${N:-30}
. "$BWGATE_SRCDIR/tests/integration/libtest.sh" > /dev/null
. "$BWGATE_SRCDIR/tests/integration/remote-lib.sh"

why=$(sshd_missing)
[ -z "$why" ] || { echo "bench-remote: skipped: $why"; exit 0; }
start_sshd || { echo "bench-remote: skipped: sshd cannot run: $(sshd_why)"; exit 0; }
mkdir -p "$T/machine-a"
start_operator || exit 1
start_executor machine-a --ask-all || exit 1
link machine-a
wait_for 20 linked machine-a || { echo "bench-remote: no link"; exit 1; }

ctl=$(sed -n 's/^export BWGATE_SOCKET=//p' "$OP/console.out")
ctl=${ctl%.sock}.control.sock
python3 - "$ctl" <<'EOF' &
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
# Read buffered: an unbuffered readline reads a byte per system call, and
# the list grows with every request (the second series paid for it).
rf = s.makefile("rb")
wf = s.makefile("wb", buffering=0)
def ask(m):
    wf.write((json.dumps(m) + "\n").encode())
    while True:
        r = json.loads(rf.readline())
        if r.get("type") != "hello":
            return r
done = set()
while True:
    for q in ask({"type": "list"}).get("requests", []):
        if q["state"] == "pending" and q["id"] not in done:
            done.add(q["id"])
            ask({"type": "approve", "id": q["id"]})
    time.sleep(0.002)
EOF
APID=$!

median() {
	local i t0 t1
	for i in $(seq 1 "$N"); do
		t0=$(date +%s%N)
		"$@" > /dev/null 2>&1
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }'
}
# The same shape both ways: a subshell, env, bwgate run.
here() { (cd "$OP/proj" && exec env "$BWGATE" run -- sh -c true); }
# shellcheck disable=SC2046
there() { (cd "$T/machine-a/proj" && exec env $(machine_env machine-a) \
    "$BWGATE" run -- sh -c true); }
here > /dev/null 2>&1; there > /dev/null 2>&1	# warm both
l=$(median here)
r=$(median there)
kill "$APID"; wait "$APID" 2>/dev/null
echo "approved ask, local console:     $l ms (median of $N)"
echo "approved ask, executor over ssh: $r ms (median of $N)"
awk -v l="$l" -v r="$r" 'BEGIN { printf "added by the remote link:       %.1f ms\n", r - l }'
remote_teardown
