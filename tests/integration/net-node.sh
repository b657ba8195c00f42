#!/bin/bash
# node through the proxy (issue 28): node's own fetch (and http.get) honour
# HTTP_PROXY when NODE_USE_ENV_PROXY=1, which bwgate sets with the other
# proxy variables. The system's node may be older than that (20 has no
# NODE_USE_ENV_PROXY), so this test runs the node pinned in
# tests/node/package-lock.json, which ./quickstart check installs into the
# build tree (tests/node/install.sh; make node-client). Against local
# servers only: an allowed host is reached (http, and https through CONNECT
# with a test CA), another is refused with the hint naming it, and a
# client that ignores the proxy (an http.Agent of its own) goes nowhere
# and is told about the proxy.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project)
cd "$P" || exit 1
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
NDIR="${BWGATE_BUILDDIR:-}/tests/node-client"
NODE="$NDIR/bin/node"
if [ -z "$PY" ] || ! command -v jq >/dev/null; then
	skip "node through the proxy" "python3 or jq not installed"
	done_testing; exit
fi
if [ ! -x "$NODE" ] || ! "$NODE" -e 'process.exit(+process.versions.node.split(".")[0] >= 24 ? 0 : 1)'; then
	skip "node through the proxy" "the pinned node is not installed in '$NDIR' (./quickstart check installs it: make node-client)"
	done_testing; exit
fi
# The sandbox sees the project and the system, not the build tree: the
# node's directory goes in read-only.
NODE=$(readlink -f "$NODE")
NROOT=${NODE%/bin/node}

mkdir -p "$T/www"
echo "hello from the registry" > "$T/www/file.txt"

net_registry_tls reg.test other.test
export BWGATE_NET_HOSTS="$T/hosts"
nexec() {
	jexec --ro "$NROOT" --domain "$ALLOW" -- "$NODE" -e "$1"
}

# 1. fetch reaches the allowed host through the proxy, by the variables
#    bwgate set (the test sets none).
: > "$T/requests"
nexec "
console.log(process.env.NODE_USE_ENV_PROXY, process.env.HTTP_PROXY);
fetch('http://reg.test:$PORT/file.txt').then(r => r.text())
    .then(t => process.stdout.write(t), e => console.log('failed', e.cause || e))"
assert_eq "node sees NODE_USE_ENV_PROXY and the proxy" \
	"$(jq -r .stdout < "$T/report.json" | head -1)" "1 http://127.0.0.1:3128"
assert_eq "node fetch reaches the allowed host" \
	"$(jq -r .stdout < "$T/report.json" | tail -n +2)" "hello from the registry"
assert_eq "the report counts it" \
	"$(jfield '[.network.hosts[] | "\(.host):\(.port)"]')" "[\"reg.test:$PORT\"]"
ok_if "the server saw the request" grep -q "reg.test:$PORT /file.txt" "$T/requests"

# 1b. https through CONNECT, end to end: node checks the server's
#     certificate against the test CA (no interception).
if $TLS; then
	# The sandbox sees the project, not $T.
	cp "$T/ca.pem" "$P/test-ca.pem"
	jexec --ro "$NROOT" --domain "private:reg.test:$TPORT" \
	    --env NODE_EXTRA_CA_CERTS="$P/test-ca.pem" -- "$NODE" -e "
fetch('https://reg.test:$TPORT/file.txt').then(r => r.text())
    .then(t => process.stdout.write(t), e => console.log('failed', e.cause || e))"
	assert_eq "node fetch https through CONNECT" \
		"$(jq -r .stdout < "$T/report.json")" "hello from the registry"
else
	skip "node fetch https through CONNECT" "openssl cannot make a test CA here"
fi

# 2. fetch of a host no pattern allows: refused, never reached. fetch
#    (undici) tunnels plain http through CONNECT too, so it sees the
#    proxy's 403, not its text: the hint is in the report.
: > "$T/requests"
nexec "
fetch('http://other.test:$PORT/file.txt').then(async r => console.log('reached', r.status),
    e => { let m = []; for (; e; e = e.cause) m.push(e.message); console.log('failed', m.join(': ')); })"
assert_match "node fetch of another host: refused by the proxy" \
	"$(jq -r .stdout < "$T/report.json")" '^failed .*403'
assert_eq "the report lists the refusal" \
	"$(jfield '[.network.refused[] | "\(.host):\(.port)"]')" "[\"other.test:$PORT\"]"
assert_match "with the hint: the host and how to allow it" \
	"$(jfield '.network.refused[0].why')" \
	"other.test:$PORT is not among the hosts.*--domain other.test:$PORT"
ok_unless "the server saw nothing" grep -q other.test "$T/requests"

# 3. http.get honours the variables too (node's global agent).
nexec "
require('http').get('http://reg.test:$PORT/file.txt', r => r.pipe(process.stdout))
    .on('error', e => console.log('failed', e.code))"
assert_eq "node http.get through the proxy" "$(jq -r .stdout < "$T/report.json")" \
	"hello from the registry"

# 4. A client that ignores the proxy (an agent of its own connects
#    directly) goes nowhere, and the report's hint names the proxy.
nexec "
require('http').get({ host: '192.0.2.1', port: 80, path: '/', timeout: 5000,
    agent: new (require('http').Agent)() }, r => console.log('reached', r.statusCode))
    .on('error', e => console.log('refused', e.code))
    .on('timeout', function () { console.log('refused timeout'); this.destroy(); })"
assert_match "node http.get without the proxy: no connection" \
	"$(jq -r .stdout < "$T/report.json")" '^refused'
assert_match "and the hint names the proxy" \
	"$(jfield '[.violations[] | select(.reason == "network") | .hint][0]')" \
	'through the proxy http://127.0.0.1:3128'

done_testing
