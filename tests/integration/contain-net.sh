#!/bin/bash
# Network on reaches only the network (issue 9, section 3): the command has
# its own network namespace with slirp4netns, so a listener on the host's
# 127.0.0.1 and a host abstract Unix socket are out of reach, while
# outbound connections work (to the host's own external address, through
# slirp4netns's NAT: no internet needed). Without slirp4netns, network on is
# refused (never the host's namespace).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
# A python3 the sandbox can see (not a shim under the hidden home).
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ]; then
	skip "network containment" "python3 not installed"
	done_testing; exit
fi
if ! command -v slirp4netns >/dev/null; then
	skip "network containment" "slirp4netns not installed"
	done_testing; exit
fi

# slirp4netns needs /dev/net/tun (mode 0666 on usual hosts; some
# containers make it root's only): then network on must be refused, with
# the reason, and the command must not run.
TUN_OK=true
[ -r /dev/net/tun ] && [ -w /dev/net/tun ] || TUN_OK=false

# Host listeners started by the test (killed by the trap).
# The host's own non-loopback address, if it has one: a listener there is
# "the outside" for the sandbox (reached through slirp4netns's NAT).
HOSTIP=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 -E '^[0-9.]+$')
"$PY" - "$T" "${HOSTIP:-}" <<'PYEOF' &
import socket, sys, os
t, hostip = sys.argv[1], sys.argv[2]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(5)
a = socket.socket(socket.AF_UNIX); a.bind("\0bwgate-net-%d" % os.getpid())
a.listen(5)
o = socket.socket()
oport = 0
if hostip:
    o.bind((hostip, 0)); o.listen(5); oport = o.getsockname()[1]
open(t + "/port.tmp", "w").write("%d %d %d" % (s.getsockname()[1],
    os.getpid(), oport))
os.rename(t + "/port.tmp", t + "/port")
s.settimeout(60); a.settimeout(60)
n = 0
while True:
    try:
        c, _ = s.accept()
        n += 1
        open(t + "/accepted", "w").write(str(n))
        c.close()
    except Exception:
        break
PYEOF
SRV=$!
CLEANUP_EXTRA="kill $SRV 2>/dev/null"
wait_for 10 test -e "$T/port"
read -r PORT PID OPORT < "$T/port"

# Sanity: the listeners answer on the host.
ok_if "host listener answers on the host" \
	"$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 2)"
wait_for 5 test -e "$T/accepted"
rm -f "$T/accepted"

if ! $TUN_OK; then
	jexec --network -- \
	    "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 2)"
	assert_eq "no /dev/net/tun: network on refused (125)" "$?" 125
	assert_match "no /dev/net/tun: the error says why" "$(jfield .error)" \
		'slirp4netns could not set up the network.*/dev/net/tun'
	assert_eq "no /dev/net/tun: the command never started" \
		"$(jfield .started)" false
	ok_unless "no /dev/net/tun: the host listener saw no connection" \
		test -e "$T/accepted"
	assert_match "doctor says network on is refused here" \
		"$("$BWGATE" doctor 2>&1)" 'FAIL network .*dev/net/tun'
	ok_unless "no slirp4netns left running" \
		sh -c "ps -eo comm= | grep -q slirp4netns"
	kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
	done_testing; exit
fi

nrun() {
	"$BWGATE" exec --quiet --network --project "$P" -- "$PY" -c "$1" \
	    >/dev/null 2>&1
}
# Each probe exits 0 only when it ran and its connection failed.
blocked() {
	nrun "import socket
try:
    $1
except OSError:
    raise SystemExit(0)
raise SystemExit(3)"
}
ok_if "network on: host 127.0.0.1 listener unreachable" \
	blocked "socket.create_connection(('127.0.0.1', $PORT), 2)"
ok_if "network on: host loopback via the gateway unreachable" \
	blocked "socket.create_connection(('10.0.2.2', $PORT), 2)"
ok_if "network on: host abstract socket unreachable" \
	blocked "s = socket.socket(socket.AF_UNIX); s.connect('\\0bwgate-net-$PID')"
# The same probe on the host itself connects (the probe is sound).
ok_if "the abstract socket probe connects on the host" "$PY" -c \
	"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0bwgate-net-$PID')"
ok_unless "the host listener saw no connection" test -e "$T/accepted"

# What works: an interface with an address and a default route, and an
# outbound TCP connection.
ok_if "network on: tap0 has the user-mode address" \
	nrun "import sys; sys.exit(0 if '0002000A' in open('/proc/net/route').read() else 1)"
if [ -n "$HOSTIP" ] && [ "$OPORT" != 0 ]; then
	ok_if "network on: outbound TCP works (host's $HOSTIP:$OPORT via NAT)" \
		nrun "import socket; socket.create_connection(('$HOSTIP', $OPORT), 5)"
else
	skip "network on: outbound TCP" "the host has no non-loopback address"
fi
jexec --network -- true
assert_eq "report names the network backend" \
	"$(jfield .sandbox.network_backend)" '"slirp4netns"'
assert_eq "the argv never shares the host's network" \
	"$(jq -r '.bwrap_argv[]' < "$T/report.json" | grep -c -- '--share-net')" 0

# The network stack does not outlive the command.
ok_unless "no slirp4netns left running" \
	sh -c "ps -eo comm= | grep -q slirp4netns"

# No backend: refused with a clear error, never the host namespace.
BWGATE_SLIRP4NETNS=/nonexistent jexec --network -- \
	"$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 2)"
assert_eq "no backend: bwgate failed (125)" "$?" 125
assert_match "no backend: the error names slirp4netns" \
	"$(jfield .error)" 'needs slirp4netns'
assert_eq "no backend: the command never started" "$(jfield .started)" false
ok_unless "no backend: the host listener saw no connection" \
	test -e "$T/accepted"

# bwgate doctor says which backend is used.
assert_match "doctor names the network backend" \
	"$("$BWGATE" doctor 2>&1)" 'network.*slirp4netns'

kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
done_testing
