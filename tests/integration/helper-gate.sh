#!/bin/bash
# helper-gate: the real bwgate-helper with a real seccomp program, driven
# by a stand-in for bwgate (python3 on the other end of its socket). With
# its listener handed over the helper waits for nothing: the command's
# execve is notified, so the command starts only when bwgate answers it,
# and never when bwgate is gone (the listener closed unanswered, or the
# answer cannot be sent). Without a listener it waits for the go byte.
. "$(dirname "$0")/libtest.sh"

HELPER="$BWGATE_BUILDDIR/bwgate-helper"
if [ "$(uname -m)" != x86_64 ]; then
	skip "the helper's gate" "the stand-in's seccomp program is for x86_64"
	done_testing
	exit 0
fi
VERSION=$(awk '$2 == "OBSERVE_VERSION" { print $3 }' \
    "$BWGATE_SRCDIR/src/sandbox/observe-proto.h")

cat > "$T/bwgate.py" <<'EOF'
# bwgate.py HELPER VERSION MODE DIR: play bwgate's part of observe-proto.h.
import fcntl, os, select, socket, struct, subprocess, sys, time

helper, version, mode, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
MAGIC, F_OFF, F_WAIT = 0x62776f62, 1 << 1, 1 << 2
NOTIF_RECV, NOTIF_SEND = 0xc0502100, 0xc0182101	# _IOWR('!', 0|1, ...)

def insn(code, jt, jf, k):
	return struct.pack("=HBBI", code, jt, jf, k)
# execve and execveat notified, everything else allowed.
prog = b"".join([
	insn(0x20, 0, 0, 4),			# ld arch
	insn(0x15, 0, 4, 0xc000003e),		# x86_64, else allow
	insn(0x20, 0, 0, 0),			# ld nr
	insn(0x15, 1, 0, 59),			# execve: notify
	insn(0x15, 0, 1, 322),			# execveat: notify, else allow
	insn(0x06, 0, 0, 0x7fc00000),		# SECCOMP_RET_USER_NOTIF
	insn(0x06, 0, 0, 0x7fff0000),		# SECCOMP_RET_ALLOW
])
flags = F_WAIT | (F_OFF if mode.startswith("off") else 0)
if flags & F_OFF:
	prog = b""
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
ours.send(struct.pack("=IIII", MAGIC, version, flags, len(prog) // 8) + prog)
if mode == "gone":			# bwgate dies before the answer
	ours.close()
out = open(os.path.join(d, "helper.err"), "w")
p = subprocess.Popen([helper, str(theirs.fileno()), "--", "sh", "-c",
    "touch ran"], cwd=d, pass_fds=[theirs.fileno()], stderr=out)
theirs.close()
if mode == "gone":
	sys.exit(p.wait(10))
data, anc, _, _ = ours.recvmsg(112, socket.CMSG_SPACE(4))
error = struct.unpack_from("=Ii", data)[1]
fds = [struct.unpack("i", a[2][:4])[0] for a in anc]
open(os.path.join(d, "reply"), "w").write("%d %d\n" % (error, len(fds)))
if mode == "close":			# bwgate dies with the listener unanswered
	# once the helper's execve waits for an answer (deadline 10 s)
	select.select([fds[0]], [], [], 10)
	for fd in fds:
		os.close(fd)
	ours.close()
	sys.exit(p.wait(10))
if mode == "off-gone":			# no listener: the helper waits; we go
	ours.close()
	sys.exit(p.wait(10))
if mode == "off-go":
	ours.send(b"g")
	sys.exit(p.wait(10))
if error != 0 or not fds:		# no listener here (nested, old kernel)
	ours.close()
	p.wait(10)
	sys.exit(77)
# answer: never send the go byte; let every notified call continue.
listener, deadline = fds[0], time.time() + 10
while p.poll() is None and time.time() < deadline:
	if select.select([listener], [], [], 0.05)[0]:
		req = bytearray(80)
		try:
			fcntl.ioctl(listener, NOTIF_RECV, req)
		except OSError:
			continue
		nid = struct.unpack_from("=Q", req)[0]
		try:
			fcntl.ioctl(listener, NOTIF_SEND,
			    bytearray(struct.pack("=QqiI", nid, 0, 0, 1)))
		except OSError:
			pass
sys.exit(p.wait(10))
EOF

gate() {
	rm -rf "$T/d"
	mkdir "$T/d"
	python3 "$T/bwgate.py" "$HELPER" "$VERSION" "$1" "$T/d"
}

gate answer
rc=$?
if [ "$rc" = 77 ]; then
	skip "the helper's gate" "no seccomp listener here (the helper \
answered errno $(cut -d' ' -f1 "$T/d/reply"))"
	done_testing
	exit 0
fi
assert_eq "with a listener: the command runs once its execve is answered" \
    "$rc" 0
assert_eq "the answer carries the listener" "$(cat "$T/d/reply")" "0 1"
ok_if "the command ran without a go byte" test -e "$T/d/ran"

gate close
assert_eq "listener closed unanswered: the helper refuses" "$?" 125
ok_unless "listener closed unanswered: the command never ran" \
    test -e "$T/d/ran"
ok_if "and says why" grep -q "bwgate went away" "$T/d/helper.err"

gate gone
assert_eq "bwgate gone before the answer: the helper refuses" "$?" 125
ok_unless "bwgate gone before the answer: the command never ran" \
    test -e "$T/d/ran"
ok_if "and says why" grep -q "bwgate went away" "$T/d/helper.err"

gate off-gone
assert_eq "no listener, no go byte: the helper refuses" "$?" 125
ok_unless "no listener, no go byte: the command never ran" test -e "$T/d/ran"

gate off-go
assert_eq "no listener, the go byte: the command runs" "$?" 0
ok_if "no listener, the go byte: it ran" test -e "$T/d/ran"

done_testing
