#!/bin/sh
# bench-proxy: the cost of reaching named hosts through bwgate's proxy
# (issue 28), each figure a ratio against a direct connection measured in
# the same run: a large download (BENCH_PROXY_MB, default 1024) through
# the proxy vs the same download on the host; the extra connection set-up
# time (100 requests one after another, each on a new connection); 100
# requests in parallel. The server is local (os.sendfile of a sparse file,
# so the server is never the bottleneck) and the clock runs inside the
# sandbox, so the sandbox's own start is not counted. BENCH_PROXY_ROUNDS
# (default 5) interleaved pairs of direct and proxy runs; each figure is
# the median of the pairs' ratios, and the load average is printed before
# and after (other work on the machine moves the raw figures).
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
class S(http.server.ThreadingHTTPServer):
    request_queue_size = 256	# listen()'s backlog: set before it runs
    daemon_threads = True
s = S(("127.0.0.1", 0), H)
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

# Interleaved pairs (direct then proxy, proxy then direct, ...), each
# figure a ratio within its pair, and the median of the pairs: a burst of
# load from elsewhere spoils one pair, not the result.
ROUNDS=${BENCH_PROXY_ROUNDS:-5}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $ROUNDS pairs of ${MB} MiB"
direct() {
	"$PY" "$T/proj/measure.py" direct 127.0.0.1 "$PORT" > "$T/d.$1"
}
proxy() {
	"$BWGATE" exec --quiet --project "$T/proj" --no-monitor \
	    --domain "private:bench.test:$PORT" -- \
	    "$PY" measure.py proxy bench.test "$PORT" > "$T/p.$1"
}
get() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
# One run unmeasured first: the first read of the file, the server's first
# threads (the first pair was always the slowest direct run).
direct warm
: > "$T/pairs"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	if [ $((i % 2)) -eq 1 ]; then direct "$i"; proxy "$i"
	else proxy "$i"; direct "$i"; fi
	db=$(get big "$T/d.$i"); pb=$(get big "$T/p.$i")
	if [ -z "$db" ] || [ -z "$pb" ]; then
		echo "bench-proxy: FAIL (no figures: direct '$(cat "$T/d.$i")' proxy '$(cat "$T/p.$i")')"
		exit 1
	fi
	# download ratio, extra set-up a connection (ms), parallel ratio,
	# then the raw figures.
	awk -v mb="$MB" -v db="$db" -v pb="$pb" -v ds="$(get seq "$T/d.$i")" \
	    -v ps="$(get seq "$T/p.$i")" -v dp="$(get par "$T/d.$i")" \
	    -v pp="$(get par "$T/p.$i")" 'BEGIN {
		if (db < 1) db = 1; if (pb < 1) pb = 1; if (dp < 1) dp = 1
		printf "%.4f %.4f %.3f %.0f %.0f %.1f %.1f %d %d\n", db / pb,
		    (ps - ds) / 100000, pp / dp, mb / (db / 1000),
		    mb / (pb / 1000), ds / 1000, ps / 1000, dp, pp
	}' >> "$T/pairs"
	i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The median of column k over the pairs.
median() {
	awk -v k="$1" '{ print $k }' "$T/pairs" | sort -g |
	    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
awk '{ printf "  pair %d: download %.0f vs %.0f MiB/s (%.0f %%), set-up %.1f vs %.1f ms / 100, parallel %d vs %d ms\n",
    NR, $4, $5, 100 * $1, $6, $7, $8, $9 }' "$T/pairs"
dl=$(median 1); su=$(median 2); pa=$(median 3)
awk -v mb="$MB" -v dl="$dl" -v su="$su" -v pa="$pa" -v n="$ROUNDS" 'BEGIN {
	printf "download %d MiB through the proxy: %.0f %% of direct (median of %d pairs; target >= 90 %%)\n", mb, 100 * dl, n
	printf "connection set-up: %.3f ms extra a connection (median of %d pairs of 100 one after another; target < 2 ms)\n", su, n
	printf "100 connections in parallel: %.2f times direct (median of %d pairs)\n", pa, n
	exit !(dl >= 0.9 && su < 2)
}'
