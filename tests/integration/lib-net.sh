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
