# lib-net.sh: a local registry for the tests of host questions (source
# after libtest.sh).
#
#	net_registry WHAT HOST...	skip WHAT and exit without python3,
#					curl or jq; else an HTTP server on
#					127.0.0.1 serving $T/www (file.txt:
#					"hello from the registry"): its pid in
#					SRV, its port in PORT; $T/hosts maps
#					each HOST to 127.0.0.1 (for
#					BWGATE_NET_HOSTS); ALLOW is the
#					pattern that allows reg.test:PORT

net_registry() {
	local what=$1; shift
	PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
	if [ -z "$PY" ] || ! command -v curl >/dev/null ||
	    ! command -v jq >/dev/null; then
		skip "$what" "python3, curl or jq not installed"
		done_testing; exit
	fi
	mkdir -p "$T/www"
	echo "hello from the registry" > "$T/www/file.txt"
	(cd "$T/www" && exec "$PY" -c '
import http.server, os
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open("../port.tmp", "w").write(str(s.server_address[1]))
os.rename("../port.tmp", "../port")
s.serve_forever()') &
	SRV=$!
	wait_for 20 test -e "$T/port"
	PORT=$(cat "$T/port")
	printf '127.0.0.1 %s\n' "$*" > "$T/hosts"
	ALLOW="private:reg.test:$PORT"
}

#	net_registry_tls HOST...	with $PY set and $T/www filled: a test
#					CA and a certificate for reg.test when
#					openssl is here (TLS=true, $T/ca.pem),
#					then HTTP (PORT) and, with the CA,
#					HTTPS (TPORT) on 127.0.0.1, each
#					request logged in $T/requests ("Host
#					path"); SRV, TEARDOWN, $T/hosts (each
#					HOST is 127.0.0.1) and ALLOW as above

net_registry_tls() {
	TLS=false
	if command -v openssl >/dev/null && openssl req -x509 -newkey rsa:2048 \
	    -nodes -days 2 -subj /CN=bwgate-test-ca -keyout "$T/ca.key" \
	    -out "$T/ca.pem" >/dev/null 2>&1 && openssl req -newkey rsa:2048 \
	    -nodes -subj /CN=reg.test -keyout "$T/srv.key" -out "$T/srv.csr" \
	    >/dev/null 2>&1 && printf 'subjectAltName=DNS:reg.test\n' > "$T/ext" &&
	    openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
	    -CAcreateserial -days 2 -extfile "$T/ext" -out "$T/srv.pem" \
	    >/dev/null 2>&1; then
		TLS=true
	fi
	"$PY" - "$T" "$TLS" <<'PYEOF' &
import http.server, os, ssl, sys, threading
t, tls = sys.argv[1], sys.argv[2] == "true"
class H(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=t + "/www", **k)
    def log_message(self, fmt, *args):
        with open(t + "/requests", "a") as f:
            f.write("%s %s\n" % (self.headers.get("Host"), self.path))
plain = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
ports = [plain.server_address[1], 0]
if tls:
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(t + "/srv.pem", t + "/srv.key")
    s.socket = ctx.wrap_socket(s.socket, server_side=True)
    ports[1] = s.server_address[1]
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(t + "/ports.tmp", "w").write("%d %d" % tuple(ports))
os.rename(t + "/ports.tmp", t + "/ports")
plain.serve_forever()
PYEOF
	SRV=$!
	TEARDOWN="kill $SRV 2>/dev/null"
	wait_for 20 test -e "$T/ports"
	read -r PORT TPORT < "$T/ports"
	printf '127.0.0.1 %s\n' "$*" > "$T/hosts"
	ALLOW="private:reg.test:$PORT"
}
