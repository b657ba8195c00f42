#!/bin/sh
# bench-proxy: the cost of reaching named hosts through bwgate's proxy
# (issue 28), each figure a ratio against a direct connection measured in
# the same run: a large download (BENCH_PROXY_MB, default 1024) through
# the proxy vs the same download on the host; the extra connection set-up
# time (100 requests one after another, each on a new connection); 100
# requests in parallel. The server is local (os.sendfile of a sparse file,
# so the server is never the bottleneck) and the clock runs inside the
# sandbox, so the sandbox's own start is not counted.
# Targets: download >= 90 % of direct; extra set-up < 2 ms a connection.
set -u
: "${BWGATE:?}"
MB=${BENCH_PROXY_MB:-1024}
T=$(mktemp -d "${TMPDIR:-/tmp}/bwgate-bench-proxy.XXXXXX")
chmod 0755 "$T"
SRV=
cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ]; then
	echo "bench-proxy: SKIP (python3 missing)"
	exit 0
fi
mkdir -p "$T/www" "$T/proj/.git"
truncate -s "${MB}M" "$T/www/big"
echo small > "$T/www/small"
"$PY" - "$T" <<'EOF' &
import http.server, os, sys
t = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a): pass
    def do_GET(self):
        p = t + "/www/" + os.path.basename(self.path)
        try:
            f = open(p, "rb")
        except OSError:
            self.send_error(404); return
        n = os.fstat(f.fileno()).st_size
        self.send_response(200)
        self.send_header("Content-Length", str(n))
        self.end_headers()
        self.wfile.flush()
        off = 0
        while off < n:
            off += os.sendfile(self.connection.fileno(), f.fileno(), off, n - off)
        f.close()
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
s.request_queue_size = 256
open(t + "/port.tmp", "w").write(str(s.server_address[1]))
os.rename(t + "/port.tmp", t + "/port")
s.serve_forever()
EOF
SRV=$!
i=0
while [ ! -e "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$T/port")
echo "127.0.0.1 bench.test" > "$T/hosts"
export BWGATE_NET_HOSTS="$T/hosts"
U="http://bench.test:$PORT"
D="http://127.0.0.1:$PORT"

# The measurement, the same code on the host (direct) and in the sandbox
# (through the proxy, as a client honouring http_proxy does it): one
# download, then 100 requests one after another and 100 at once, each on
# a new connection, timed in the process (no program start counted).
cat > "$T/proj/measure.py" <<'EOF'
import socket, sys, threading, time
mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def get(path):
    if mode == "proxy":
        s = socket.create_connection(("127.0.0.1", 3128))
        req = "GET http://%s:%d%s HTTP/1.0\r\nHost: %s:%d\r\n\r\n" % (host, port, path, host, port)
    else:
        s = socket.create_connection((host, port))
        req = "GET %s HTTP/1.0\r\nHost: %s:%d\r\n\r\n" % (path, host, port)
    s.sendall(req.encode())
    buf = bytearray(1 << 20); n = 0
    while True:
        k = s.recv_into(buf)
        if k == 0: break
        n += k
    s.close()
    return n
a = time.monotonic(); n = get("/big"); b = time.monotonic()
print("big", int((b - a) * 1000), n)
a = time.monotonic()
for i in range(100): get("/small")
b = time.monotonic()
print("seq", int((b - a) * 1000000))
ts = [threading.Thread(target=get, args=("/small",)) for i in range(100)]
a = time.monotonic()
for t in ts: t.start()
for t in ts: t.join()
b = time.monotonic()
print("par", int((b - a) * 1000))
EOF

"$PY" "$T/proj/measure.py" direct 127.0.0.1 "$PORT" > "$T/direct"
"$BWGATE" exec --quiet --project "$T/proj" --no-monitor \
    --domain "private:bench.test:$PORT" -- \
    "$PY" measure.py proxy bench.test "$PORT" > "$T/proxy"
"$PY" "$T/proj/measure.py" direct 127.0.0.1 "$PORT" > "$T/direct2"
get() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
# The better of two direct runs (one before the proxy's, one after).
best() {
	a=$(get "$1" "$T/direct"); b=$(get "$1" "$T/direct2")
	if [ "$a" -le "$b" ]; then echo "$a"; else echo "$b"; fi
}
pbig=$(get big "$T/proxy")
if [ -z "$pbig" ] || [ -z "$(get big "$T/direct")" ]; then
	echo "bench-proxy: FAIL (no figures: direct '$(cat "$T/direct")' proxy '$(cat "$T/proxy")')"
	exit 1
fi
dbig=$(best big); dseq=$(best seq); pseq=$(get seq "$T/proxy")
dpar=$(best par); ppar=$(get par "$T/proxy")
awk -v mb="$MB" -v db="$dbig" -v pb="$pbig" -v ds="$dseq" -v ps="$pseq" \
    -v dp="$dpar" -v pp="$ppar" 'BEGIN {
	if (db < 1) db = 1; if (pb < 1) pb = 1
	dr = mb / (db / 1000); pr = mb / (pb / 1000)
	printf "download %d MiB: direct %.0f MiB/s, proxy %.0f MiB/s: %.0f %% of direct (target >= 90 %%)\n", mb, dr, pr, 100 * pr / dr
	printf "100 connections one after another: direct %.1f ms, proxy %.1f ms: %.3f ms extra a connection (target < 2 ms)\n", ds / 1000, ps / 1000, (ps - ds) / 100000
	printf "100 connections in parallel: direct %d ms, proxy %d ms: ratio %.2f\n", dp, pp, (dp > 0 ? pp / dp : 0)
	exit !(pr / dr >= 0.9 && (ps - ds) / 100000 < 2)
}'
