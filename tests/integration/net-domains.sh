#!/bin/bash
# Network by domain (issue 28): a command with --domain reaches the named
# hosts only, through bwgate's proxy, with real clients (curl over plain
# HTTP, CONNECT and SOCKS5, HTTPS through CONNECT with a test CA, python
# urllib; node in net-node.sh) against servers on the host's loopback. No test
# reaches the internet: the proxy resolves names with a hosts file the
# test writes (BWGATE_NET_HOSTS), so "reg.test" is 127.0.0.1 and needs a
# private: pattern; without one it is refused (rebinding). A host no
# pattern allows is refused with the hint, a client that ignores the proxy
# variables is refused and told about the proxy, and a second sandbox
# cannot use the first one's proxy.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project)
cd "$P" || exit 1
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
for tool in "$PY" curl jq; do
	if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
		skip "network by domain" "python3, curl or jq not installed"
		done_testing; exit
	fi
done

mkdir -p "$T/www"
echo "hello from the registry" > "$T/www/file.txt"
head -c 300000 /dev/urandom > "$T/www/big.bin"
BIGSUM=$(sha256sum < "$T/www/big.bin" | cut -d' ' -f1)

# Plain HTTP and (with the CA) HTTPS on the host's loopback; every
# request is logged, so a refused one can be shown never to arrive.
net_registry_tls reg.test other.test
export BWGATE_NET_HOSTS="$T/hosts"

# 1. Plain HTTP through the proxy (curl reads http_proxy), SOCKS5 and a
#    CONNECT tunnel; the report names the host and counts the bytes.
jexec --domain "$ALLOW" -- sh -c "
	curl -sS http://reg.test:$PORT/file.txt &&
	curl -sS -x socks5h://127.0.0.1:3128 http://reg.test:$PORT/file.txt &&
	curl -sS -p http://reg.test:$PORT/file.txt &&
	curl -sS http://reg.test:$PORT/big.bin | sha256sum"
assert_eq "http, socks5, CONNECT: exit 0" "$?" 0
assert_eq "http, socks5, CONNECT: three answers and the big file" \
	"$(jq -r .stdout < "$T/report.json")" \
	"$(printf 'hello from the registry\n%.0s' 1 2 3; echo "$BIGSUM  -")"
assert_eq "the report names the host" \
	"$(jfield '[.network.hosts[] | "\(.host):\(.port) \(.connections)"]')" \
	"[\"reg.test:$PORT 4\"]"
assert_match "the report counts the bytes in" \
	"$(jfield '.network.hosts[0].bytes_in')" '^3[0-9]{5}$'
assert_match "and out" "$(jfield '.network.hosts[0].bytes_out')" '^[1-9]'
assert_eq "the sandbox says proxy" "$(jfield .sandbox.network_backend)" \
	'"proxy"'
assert_eq "nothing refused" "$(jfield '.network.refused')" '[]'
assert_eq "the variables point at the proxy" \
	"$("$BWGATE" exec --quiet --project "$P" --domain "$ALLOW" -- \
	    sh -c 'echo $HTTP_PROXY $https_proxy $ALL_PROXY $NO_PROXY \
	    $NODE_USE_ENV_PROXY' 2>/dev/null)" \
	"http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:3128 localhost,127.0.0.1,::1 1"

# 2. python urllib honours the variables.
jexec --domain "$ALLOW" -- "$PY" -c "
import urllib.request
print(urllib.request.urlopen('http://reg.test:$PORT/file.txt').read().decode(), end='')"
assert_eq "python urllib through the proxy" "$(jq -r .stdout < "$T/report.json")" \
	"hello from the registry"

# 3. HTTPS through CONNECT, end to end (the client checks the server's
#    certificate against the test CA: no interception).
if $TLS; then
	# The sandbox sees the project, not $T.
	cp "$T/ca.pem" "$P/test-ca.pem"
	jexec --domain "private:reg.test:$TPORT" -- \
	    curl -sS --cacert "$P/test-ca.pem" "https://reg.test:$TPORT/file.txt"
	assert_eq "curl https through CONNECT" "$(jq -r .stdout+.stderr < "$T/report.json")" \
		"hello from the registry"
else
	skip "https through CONNECT" "openssl cannot make a test CA here"
fi

# 4. A host no pattern allows: refused with the hint, never reached.
: > "$T/requests"
jexec --domain "$ALLOW" -- sh -c "curl -sS -p http://other.test:$PORT/file.txt; \
	curl -sS http://other.test:$PORT/file.txt"
assert_eq "unknown host: the refusal names it" \
	"$(jfield '[.network.refused[] | .host] | unique')" '["other.test"]'
assert_match "unknown host: the hint says how to allow it" \
	"$(jfield '.network.refused[0].why')" \
	"other.test:$PORT is not among the hosts.*--domain other.test:$PORT"
assert_match "unknown host: the plain request gets the hint too" \
	"$(jq -r .stdout < "$T/report.json")" "bwgate: other.test:$PORT is not among"
ok_unless "unknown host: the server saw nothing" grep -q other.test "$T/requests"

# 5. A name resolving to loopback without private: is refused.
jexec --domain "reg.test:$PORT" -- curl -sS "http://reg.test:$PORT/file.txt"
assert_match "loopback without private: refused, and why" \
	"$(jfield '.network.refused[0].why')" \
	"reg.test resolves to a loopback address; only a pattern written private:reg.test"
assert_eq "loopback without private: no body" "$(jq -r .stdout < "$T/report.json")" \
	"bwgate: $(jq -r '.network.refused[0].why' < "$T/report.json")"
ok_unless "loopback without private: the server saw nothing" \
	grep -q "reg.test:$PORT /file.txt" "$T/requests"
jexec --domain "127.0.0.1:$PORT" -- env -u NO_PROXY -u no_proxy \
    curl -sS "http://127.0.0.1:$PORT/file.txt"
assert_match "a loopback address written out needs private: too" \
	"$(jfield '.network.refused[0].why')" "resolves to a loopback address"

# 6. A client that ignores the proxy goes nowhere, and is told why.
jexec --domain "$ALLOW" -- "$PY" -c "
import socket
try:
    socket.create_connection(('192.0.2.1', 80), 3)
except OSError as e:
    print('refused', e.errno)"
assert_match "a direct connection fails" "$(jq -r .stdout < "$T/report.json")" \
	'^refused'
assert_match "and the hint names the proxy" \
	"$(jfield '[.violations[] | select(.reason == "network") | .hint][0]')" \
	'through the proxy http://127.0.0.1:3128'

# 7. Only that sandbox reaches its proxy: while one runs, neither the host
#    nor a sandbox without domains can connect to it, and a second sandbox
#    with domains has its own proxy deciding by its own patterns.
"$BWGATE" exec --quiet --project "$P" --domain "$ALLOW" \
    --domain "private:other.test:$PORT" -- \
    sh -c "touch $P/a-running; while [ ! -e $P/a-stop ]; do sleep 0.05; done" \
    > /dev/null 2>&1 &
A=$!
wait_for 30 test -e "$P/a-running"
ok_unless "the host cannot reach the proxy" \
	"$PY" -c "import socket; socket.create_connection(('127.0.0.1', 3128), 2)"
jexec -- "$PY" -c "
import socket
try:
    socket.create_connection(('127.0.0.1', 3128), 2); print('reached')
except OSError:
    print('unreachable')"
assert_eq "a sandbox without domains cannot reach it" \
	"$(jq -r .stdout < "$T/report.json")" unreachable
jexec --domain "$ALLOW" -- curl -sS "http://other.test:$PORT/file.txt"
assert_eq "a second sandbox decides by its own patterns" \
	"$(jfield '[.network.refused[] | .host]')" '["other.test"]'
touch "$P/a-stop"
wait "$A"
rm -f "$P/a-running" "$P/a-stop"

# 8. Groups and bad patterns.
jexec --domain @npm --domain "$ALLOW" -- true
assert_eq "@npm expands to the registry" \
	"$(jfield '.sandbox.domains | index("registry.npmjs.org:443") != null')" true
jexec --domain @nosuchgroup -- true
assert_eq "an unknown group is refused" "$?" 125
assert_match "naming it" "$(cat "$T/stderr")" "unknown group of hosts '@nosuchgroup'"
for bad in 'exa mple.com' 'a.com:0' 'a.com:99999' '*' 'private:' 'http://a.com'; do
	jexec --domain "$bad" -- true
	assert_eq "bad pattern '$bad' refused" "$?" 125
done

# 8b. As an ordinary user, and as root for a user's project (the sandbox
#     then runs as that user, whose user namespace the proxy enters).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	use_installed_copy
	U=4242
	Q="$T/userproj"
	mkdir -p "$Q/.git" "$T/urun" "$T/uhome"
	chown -R "$U:$U" "$Q" "$T/urun" "$T/uhome"
	chmod 0700 "$T/urun"
	chmod 0644 "$T/hosts"
	if uid_reaches "$U" "$Q" && uid_reaches "$U" "$BWGATE"; then
		out=$(cd "$Q" && setpriv --reuid=$U --regid=$U --clear-groups -- \
		    env HOME="$T/uhome" XDG_RUNTIME_DIR="$T/urun" "$BWGATE" exec \
		    --memory 0 --quiet --domain "$ALLOW" -- \
		    curl -sS "http://reg.test:$PORT/file.txt" 2>&1)
		assert_eq "an ordinary user's command reaches the host" "$out" \
			"hello from the registry"
		"$BWGATE" exec --json --project "$Q" --domain "$ALLOW" -- \
		    curl -sS "http://reg.test:$PORT/file.txt" > "$T/report.json"
		assert_eq "root for a user's project: as that user, through the proxy" \
			"$(jq -r '"\(.sandbox.kernel_uid) \(.stdout)"' "$T/report.json")" \
			"$U hello from the registry"
	else
		skip "an ordinary user's command" "uid $U cannot reach the test's directory"
		skip "root for a user's project" "uid $U cannot reach the test's directory"
	fi
else
	skip "an ordinary user's command" "needs root (to become another user)"
	skip "root for a user's project" "needs root"
fi

# 9. Where the proxy cannot be set up, the command does not run.
BWGATE_NETLISTEN=/bin/false jexec --domain "$ALLOW" -- touch "$P/ran"
assert_eq "no proxy: refused (125)" "$?" 125
assert_match "no proxy: the error says why" "$(jfield .error)" \
	'no network for the named hosts'
ok_unless "no proxy: the command never ran" test -e "$P/ran"

# 9b. For real: where the sandbox's network namespace cannot be entered
#     (a container whose seccomp profile refuses setns, as Docker's
#     default does without CAP_SYS_ADMIN; here an outer bwrap with such
#     a filter, nested like the rest), a command with named hosts is
#     refused with doctor's reason and never runs; one without still runs.
if "$PY" - "$T/nosetns.bpf" 2>/dev/null <<'PYEOF'
import ctypes, ctypes.util, errno, sys
lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32,
    ctypes.c_int, ctypes.c_uint]
lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
ctx = lib.seccomp_init(0x7fff0000)			# allow the rest
nr = lib.seccomp_syscall_resolve_name(b"setns")
assert ctx and nr >= 0
assert lib.seccomp_rule_add(ctx, 0x00050000 | errno.EPERM, nr, 0) == 0
with open(sys.argv[1], "wb") as f:
    assert lib.seccomp_export_bpf(ctx, f.fileno()) == 0
PYEOF
then
	contained() {
		bwrap --dev-bind / / --die-with-parent --seccomp 9 -- "$@" \
		    9< "$T/nosetns.bpf"
	}
	contained "$BWGATE" exec --json --project "$P" --domain "$ALLOW" -- \
	    touch "$P/ran" > "$T/report.json" 2> "$T/stderr"
	assert_eq "no setns: refused (125)" "$?" 125
	assert_match "no setns: the error says why" "$(jfield .error)" \
		"no network for the named hosts: cannot enter the sandbox's .*namespace: Operation not permitted"
	ok_unless "no setns: the command never ran" test -e "$P/ran"
	contained "$BWGATE" doctor --json > "$T/doctor.json" 2>/dev/null
	assert_eq "no setns: doctor fails its named-hosts check with the same reason" \
		"$(jq -r '.checks[] | select(.name == "named hosts") | "\(.ok) \(.detail)"' "$T/doctor.json")" \
		"false $(jq -r .error < "$T/report.json"): commands with --domain are refused here (never run with an open network)"
	contained "$BWGATE" exec --json --project "$P" -- touch "$P/ran" \
	    > "$T/report.json" 2> "$T/stderr"
	assert_eq "no setns: a command without network still runs" \
		"$(jfield .exit_code)" 0
	rm -f "$P/ran"
	assert_eq "with setns: doctor's named-hosts check passes" \
		"$("$BWGATE" doctor --json 2>/dev/null | jq -r '.checks[] | select(.name == "named hosts") | .ok')" true
else
	skip "no setns: refused with doctor's reason" "python3 cannot build a seccomp filter here (libseccomp)"
fi

done_testing
