#!/bin/bash
# The proxy's guards (issue 36, item 5), on loopback and in a network
# namespace of the test's own, never the internet:
#  1. the host's own interface addresses count as private: with a public
#     looking address on an interface of the host (203.0.113.7, in a
#     namespace) and --domain naming it, a service bound to 0.0.0.0 is
#     not reached; the refusal says "an address of this host";
#  2. refusal hints print patterns bwgate accepts ("[::1]:PORT"), and
#     the printed pattern, fed back to --domain, is accepted and works;
#  3. out of descriptors (a low RLIMIT_NOFILE), the accepting thread
#     waits instead of spinning;
#  4. a relay with no byte either way for the idle time is closed
#     (BWGATE_NET_IDLE_MS, the tests' knob; 15 minutes otherwise);
#  5. the operator's "allow" for a host that resolved to a private address
#     covers that address only: when its name later leads elsewhere (DNS
#     rebinding within the run) the other address is refused.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project)
cd "$P" || exit 1
net_registry "the proxy's guards" reg.test
export BWGATE_NET_HOSTS="$T/hosts"
TEARDOWN="kill $SRV 2>/dev/null"

# 1. The host's own address. A namespace where lo also has 203.0.113.7
#    (TEST-NET-3: public by its number) and a server on 0.0.0.0.
if unshare -rn true 2>/dev/null && command -v ip >/dev/null; then
	cat > "$T/own.sh" <<EOF
ip link set lo up && ip addr add 203.0.113.7/32 dev lo || exit 99
cd "$T/www" && "$PY" -m http.server --bind 0.0.0.0 8099 >/dev/null 2>&1 &
srv=\$!
i=0
until "$PY" -c 'import socket; socket.create_connection(("203.0.113.7", 8099), 1)' 2>/dev/null; do
	i=\$((i + 1)); [ \$i -gt 200 ] && break; sleep 0.05
done
"$BWGATE" exec --json --project "$P" --domain 203.0.113.7:8099 -- \
    curl -sS -m 10 http://203.0.113.7:8099/file.txt > "$T/own.json" 2> "$T/own.err"
kill \$srv
EOF
	unshare -rn sh "$T/own.sh"
	RC=$?
	if [ $RC = 99 ]; then
		skip "the host's own address" "cannot add an address in a namespace"
	else
		assert_eq "own address: the service on 0.0.0.0 is not reached" \
		    "$(jq -r .stdout "$T/own.json")" \
		    "$(jq -r .stdout "$T/own.json" | grep -v 'hello from the registry')"
		assert_match "own address: refused as an address of this host" \
		    "$(jq -r '.network.refused[0].why' "$T/own.json")" \
		    "203.0.113.7 resolves to an address of this host; only a pattern written private:203.0.113.7:8099"
	fi
else
	skip "the host's own address" "no network namespace for this user"
fi

# 2. Hints on IPv6: "[::1]:PORT", which --domain accepts.
if "$PY" -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	(cd "$T/www" && exec "$PY" -c '
import http.server, socket
class S(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
s = S(("::1", 0), H)
open("../port6.tmp", "w").write(str(s.server_address[1]))
import os; os.rename("../port6.tmp", "../port6")
s.serve_forever()') &
	SRV6=$!
	TEARDOWN="kill $SRV $SRV6 2>/dev/null"
	wait_for 20 test -e "$T/port6"
	P6=$(cat "$T/port6")
	"$BWGATE" exec --json --project "$P" --domain "reg.test:$PORT" -- \
	    curl --noproxy "" -sS -m 10 "http://[::1]:$P6/file.txt" > "$T/v6a.json" 2>/dev/null
	hint=$(jq -r .stdout "$T/v6a.json")
	assert_match "v6: the hint prints [::1]:PORT" "$hint" \
	    "add --domain \\[::1\\]:$P6 "
	pat=$(printf '%s' "$hint" | sed -n 's/.*add --domain \([^ ]*\) .*/\1/p')
	"$BWGATE" exec --json --project "$P" --domain "$pat" -- \
	    curl --noproxy "" -sS -m 10 "http://[::1]:$P6/file.txt" > "$T/v6b.json" 2> "$T/v6b.err"
	assert_eq "v6: the printed pattern is accepted by --domain" \
	    "$(jq -r .exit_code "$T/v6b.json" 2>/dev/null)" 0
	why=$(jq -r '.network.refused[0].why' "$T/v6b.json")
	assert_match "v6: loopback still needs private:, written as accepted" \
	    "$why" "only a pattern written private:\\[::1\\]:$P6 may"
	pat=$(printf '%s' "$why" | sed -n 's/.*pattern written \([^ ]*\) may.*/\1/p')
	"$BWGATE" exec --json --project "$P" --domain "$pat" -- \
	    curl --noproxy "" -sS -m 10 "http://[::1]:$P6/file.txt" > "$T/v6c.json" 2> "$T/v6c.err"
	assert_eq "v6: that pattern, fed back, reaches the server" \
	    "$(jq -r .stdout "$T/v6c.json")" "hello from the registry"
else
	skip "IPv6 hints" "no IPv6 loopback here"
fi

# 3. Out of descriptors: the command holds 150 connections to the proxy,
#    more than a bwgate with 100 descriptors can take; bwgate's CPU time
#    over 2 s shows whether its accepting thread spins. The limit is put
#    on bwgate alone once the command runs: inherited, it would keep the
#    sandbox's observer from its descriptor (900) and a profile that
#    writes the project would be refused before the start (the fallback).
#    The command opens "held" before it connects (the observer decides
#    that open while bwgate still has descriptors) and writes to it after.
cat > "$T/hold.py" <<'EOF'
import os, socket, sys, time
held = open("held", "w")
held.write("ready\n"); held.flush()
while not os.path.exists("go"):
    time.sleep(0.05)
conns = []
for i in range(150):
    s = socket.socket()
    s.connect(("127.0.0.1", 3128))	# queued even when not accepted
    conns.append(s)
held.write("held\n"); held.flush()
while not os.path.exists("release"):
    time.sleep(0.05)
EOF
"$BWGATE" exec --json --project "$P" --domain "$ALLOW" -- \
    "$PY" -c "$(cat "$T/hold.py")" > "$T/hold.json" 2> "$T/hold.err" &
EX=$!
TEARDOWN="kill $SRV ${SRV6:-} 2>/dev/null; kill $EX 2>/dev/null; touch '$P/release'"
if wait_for 30 grep -qs '^ready' "$P/held"; then
	prlimit --pid "$EX" --nofile=100:
	touch "$P/go"
fi
ticks() { awk '{ print $14 + $15 }' "/proc/$EX/stat"; }
if wait_for 30 grep -qs '^held' "$P/held"; then
	# Let it run into the limit, then a 2 s window.
	sleep 1
	nfd=$(ls "/proc/$EX/fd" | wc -l)
	ok_if "EMFILE: bwgate's descriptors are used up ($nfd open)" \
	    test "$nfd" -ge 100
	T0=$(ticks)
	END=$(( $(date +%s) + 2 ))
	while [ "$(date +%s)" -lt "$END" ]; do sleep 0.1; done
	T1=$(ticks)
	echo "# bwgate CPU ticks in 2 s with its descriptors used up: $((T1 - T0))"
	ok_if "EMFILE: the proxy does not spin (< 0.15 s CPU in 2 s)" \
	    test $((T1 - T0)) -lt 15
else
	ok_if "EMFILE: the command held its connections" false
	sed 's/^/# /' "$T/hold.err"
fi
touch "$P/release"
wait $EX
assert_eq "EMFILE: the run ends normally" "$(jq -r .exit_code "$T/hold.json")" 0
rm -f "$P/held" "$P/go" "$P/release"

# 4. Idle relays: a CONNECT tunnel that carries nothing for 1 s (the
#    tests' BWGATE_NET_IDLE_MS) is closed; one in use is not.
cat > "$T/idle.py" <<EOF
import socket, sys, time
def tunnel():
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT reg.test:$PORT HTTP/1.1\r\nHost: reg.test:$PORT\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    return s
busy = tunnel()
req = b"GET /file.txt HTTP/1.0\r\nHost: reg.test\r\n\r\n"
for b in req[:-1]:	# 3 s or more, a byte every 0.1 s: in use
    busy.sendall(bytes([b]))
    time.sleep(3.0 / len(req))
busy.sendall(req[-1:])
busy.settimeout(10)
got = b""
while True:
    r = busy.recv(4096)
    if not r:
        break
    got += r
if b"registry" not in got:
    print("busy: closed"); sys.exit(1)
print("busy: open")
idle = tunnel()
idle.settimeout(10)
t0 = time.time()
r = idle.recv(1)
print("idle: closed" if r == b"" else "idle: data", round(time.time() - t0))
EOF
BWGATE_NET_IDLE_MS=1000 "$BWGATE" exec --json --project "$P" \
    --domain "$ALLOW" -- "$PY" -c "$(cat "$T/idle.py")" > "$T/idle.json" \
    2> "$T/idle.err"
out=$(jq -r .stdout "$T/idle.json")
assert_match "idle: a tunnel in use stays open" "$out" "busy: open"
assert_match "idle: an idle tunnel is closed (within 10 s)" "$out" \
    "idle: closed [0-9]"

# 5. An approval of a private address, then the name leads to another
#    one (127.0.0.2, a second service on the same port): refused.
"$PY" - "$T" "$PORT" <<'PYEOF' &
import http.server, os, sys
t, port = sys.argv[1], int(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers()
        self.wfile.write(b"the other service\n")
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.2", port), H)
open(t + "/other.up", "w").write("1")
s.serve_forever()
PYEOF
SRV2=$!
TEARDOWN="kill $SRV ${SRV6:-} $SRV2 2>/dev/null; kill -TERM \$CPID 2>/dev/null"
wait_for 20 test -e "$T/other.up"
printf '127.0.0.1 evil.test\n' > "$T/hosts"
start_console --headless --approval-timeout 30
TEARDOWN="kill $SRV ${SRV6:-} $SRV2 2>/dev/null; kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null"
ctl() {
	printf '%s\n' "$1" | "$PEER" -t 10 -n 1 -w ok "$CTL"
}
wants_of() {
	"$BWGATE" list --json --socket "$S" |
	    jq -r ".[] | select(.id == $1) | .wants // empty"
}
state_of() {
	"$BWGATE" list --json --socket "$S" | jq -r ".[] | select(.id == $1) | .state"
}
(cd "$P" && "$BWGATE" run --json --domain "reg.test:1" -- sh -c "
	curl -sS -m 20 http://evil.test:$PORT/file.txt; touch first
	i=0; while [ ! -e flipped ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done
	curl -sS -m 20 http://evil.test:$PORT/file.txt" > "$T/rb.out" \
	2> "$T/rb.err"; echo $? > "$T/rb.rc") &
wait_for 20 sh -c "[ \"\$(\"$BWGATE\" list --json --socket \"$S\" | jq -r '.[0].state')\" = pending ]"
ctl '{"type":"approve","id":1}' > /dev/null
if wait_for 20 sh -c "[ -n \"\$(\"$BWGATE\" list --json --socket \"$S\" | jq -r '.[0].wants // empty')\" ]"; then
	ctl '{"type":"host","id":1,"answer":"project"}' > /dev/null
	wait_for 30 test -e "$P/first"
	printf '127.0.0.2 evil.test\n' > "$T/hosts"
	touch "$P/flipped"
	wait_for 60 test -s "$T/rb.rc"
	out=$(jq -r .stdout "$T/rb.out")
	assert_match "rebinding: the approved address was reached" "$out" \
	    "^hello from the registry"
	ok_unless "rebinding: the other private address is not reached" \
	    grep -q "the other service" <<<"$out"
	assert_match "rebinding: refused, naming the pattern that would allow it" \
	    "$(jq -r '.network.refused[0].why' "$T/rb.out")" \
	    "evil.test resolves to a loopback address; only a pattern written private:evil.test:$PORT"
else
	ok_if "rebinding: the host question came" false
fi
rm -f "$P/first" "$P/flipped"

done_testing
