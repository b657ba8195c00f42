#!/bin/bash
# pod-access (issue 41): a shared world is no way around a verdict. A
# project service runs with the project profile; a read-only sandbox (what
# the default mode gives an allowlisted command at once) has a loopback
# and a /tmp of its own, so its `curl -X POST localhost:PORT` cannot make
# a writable server delete a file, and it plants nothing where the
# project's commands read. In the default mode `curl localhost:PORT` asks,
# its verdict says it needs the services' access, and a plain yes gives
# the project profile, which reaches the service (the report names the
# port and what listens there). A read-only run told "nothing listened" is told how to ask.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ] || ! command -v curl > /dev/null; then
	skip "read-only sandboxes off the project's world" \
	    "python3 or curl not installed"
	done_testing; exit
fi
export BWGATE_POD_IDLE=2
P=$(new_project)
PORT=$(( 20000 + RANDOM % 20000 ))
# A writable service: a POST deletes the project's file "victim".
cat > "$P/svc.py" <<'PY'
import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"svc\n")
    def do_POST(self):
        try: os.unlink("victim")
        except OSError: pass
        self.send_response(200); self.end_headers(); self.wfile.write(b"deleted\n")
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
echo keep > "$P/victim"
SERVERS=
TEARDOWN='kill $SERVERS 2>/dev/null; wait 2>/dev/null'
poll_get="for i in \$(seq 200); do curl -sf http://127.0.0.1:$PORT/ && exit 0; sleep 0.05; done; exit 1"

# 1. Without a console: the service runs with the project profile.
(cd "$P" && exec "$BWGATE" exec --quiet --project "$P" -- "$PY" svc.py \
    "$PORT") > "$T/svc.log" 2>&1 &
SERVERS=$!
assert_eq "a project-profile command reaches the service" \
	"$(cd "$P" && "$BWGATE" exec --quiet --project "$P" -- sh -c \
	    "$poll_get" 2>&1)" "svc"
(cd "$P" && "$BWGATE" exec --json --project "$P" --profile readonly -- \
    curl -sS --max-time 5 -X POST "http://127.0.0.1:$PORT/") \
    > "$T/ro.json" 2> "$T/ro.err"
assert_eq "a read-only POST finds nothing listening (curl 7)" \
	"$(jq -r .exit_code "$T/ro.json")" 7
assert_eq "  the service's file is still there" "$(cat "$P/victim")" keep
assert_match "  its hint says the services need their access and how to ask" \
	"$(jq -r '.violations[] | select(.reason == "local-port") | .hint' \
	    "$T/ro.json")" "only a command run with the 'project' profile"
ok_unless "  the read-only argv has no --share-net" \
	grep -q -- '"--share-net"' "$T/ro.json"
# A wider sandbox (debuggers allowed) keeps its own loopback as well.
echo '{"sandbox":{"allow_debuggers":true}}' > "$T/debug.json"
(cd "$P" && "$BWGATE" exec --json --project "$P" --config "$T/debug.json" \
    -- curl -sS --max-time 5 "http://127.0.0.1:$PORT/") > "$T/dbg.json" 2>&1
assert_eq "a sandbox that allows debuggers does not reach the service" \
	"$(jq -r '.exit_code' "$T/dbg.json")" 7
# The other interpreters the same way, by construction, not by words.
(cd "$P" && "$BWGATE" exec --quiet --project "$P" --profile readonly -- \
    "$PY" -c "import urllib.request as u
u.urlopen(u.Request('http://127.0.0.1:$PORT/', data=b'x'), timeout=5)") \
    > /dev/null 2>&1
ok_if "a read-only python3 -c POST fails too" test "$?" -ne 0
assert_eq "  the file is still there" "$(cat "$P/victim")" keep

# 2. /tmp: a read-only sandbox has a private one (sandbox-pod.c): it
#    neither reads nor plants what the project's commands keep there.
SECRET="scratch-$RANDOM"
(cd "$P" && "$BWGATE" exec --quiet --project "$P" -- sh -c \
    "echo $SECRET > /tmp/w.txt") 2>&1
assert_eq "a writable command's scratch file is read by the next one" \
	"$(cd "$P" && "$BWGATE" exec --quiet --project "$P" -- \
	    cat /tmp/w.txt 2>&1)" "$SECRET"
(cd "$P" && "$BWGATE" exec --quiet --project "$P" --profile readonly -- \
    sh -c "cat /tmp/w.txt; echo planted > /tmp/plant.py; echo rc=\$?") \
    > "$T/ro-tmp.out" 2>&1
ok_unless "a read-only sandbox does not see the pod's /tmp" \
	grep -q "$SECRET" "$T/ro-tmp.out"
assert_match "  it has scratch space of its own" "$(cat "$T/ro-tmp.out")" \
	"rc=0"
ok_unless "  what it writes there is not in the project's /tmp" \
	sh -c "cd '$P' && '$BWGATE' exec --quiet --project '$P' -- \
	    cat /tmp/plant.py 2>/dev/null | grep -q planted"

# 3. The project profile reaches the service (the control: it works).
(cd "$P" && "$BWGATE" exec --json --project "$P" -- curl -sS --max-time 5 \
    -X POST "http://127.0.0.1:$PORT/") > "$T/rw.json" 2>&1
assert_eq "a project-profile POST reaches the service" \
	"$(jq -r .stdout "$T/rw.json")" "deleted"
assert_eq "  the report names the port" \
	"$(jq -c .project_ports "$T/rw.json")" "[$PORT]"
assert_match "  and the service that listens there (its command line)" \
	"$(jq -r '.project_services[] | "\(.port) \(.command)"' "$T/rw.json")" \
	"^$PORT .*python3? svc\.py $PORT\$"
ok_unless "  the service deleted the file" test -e "$P/victim"
kill $SERVERS 2>/dev/null
wait 2>/dev/null
SERVERS=

# 4. The default mode: a rule allows curl read-only; the service runs in
#    the same request as its curl (background processes end with their
#    request); the allowlisted read-only POST cannot reach it.
echo keep > "$P/victim"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"curl-ro","command":["curl"],"verdict":"allow","profile":"readonly","reason":"test: curl read-only","options":["-s|--silent","-S|--show-error","-X|--request=ARG","--max-time=ARG"]}
]}
JSON
start_console --headless --auto-allowlisted --unlisted wait ||
    { ok_if "the console starts" false; done_testing; exit; }
pending_id() {
	(cd "$P" && "$BWGATE" list --json 2>/dev/null) |
	    jq -e -r '[.[] | select(.state == "pending")][0].id'
}
(cd "$P" && exec "$BWGATE" run -- sh -c "$PY svc.py $PORT &
	( $poll_get ) >/dev/null; sleep 30") > /dev/null 2>&1 &
RPID=$!
ok_if "the service's request waits for the operator" wait_for 20 pending_id
(cd "$P" && "$BWGATE" approve "$(pending_id)") > /dev/null
ok_if "  approved, its service listens" sh -c "cd '$P' && \
	'$BWGATE' exec --quiet --project '$P' -- sh -c '$poll_get' >/dev/null"
(cd "$P" && timeout 30 "$BWGATE" run -- curl -sS --max-time 5 -X POST \
    "http://127.0.0.1:$PORT/") > "$T/ro-console.out" 2>&1
assert_eq "an allowlisted read-only curl runs at once and reaches nothing" \
	"$?" 7
assert_eq "  the service's file is still there" "$(cat "$P/victim")" keep
assert_match "  decided by the allowlist" \
	"$(grep '"decision"' "$AUDIT" | tail -1)" '"by":"allowlist"'
kill "$RPID" 2>/dev/null; wait "$RPID"

# 5. Without the rule: curl localhost:PORT asks, names what it needs, and
#    a plain yes gives the project profile, which reaches the service.
rm "$XDG_CONFIG_HOME/bwgate/allowlist.json"
stop_console
start_console --headless --auto-allowlisted --unlisted wait ||
    { ok_if "the console starts again" false; done_testing; exit; }
(cd "$P" && exec "$BWGATE" run -- sh -c "$PY svc.py $PORT &
	( $poll_get ) >/dev/null; sleep 30") > /dev/null 2>&1 &
RPID=$!
ok_if "the service's request waits again" wait_for 20 pending_id
(cd "$P" && "$BWGATE" approve "$(pending_id)") > /dev/null
ok_if "  its service listens" sh -c "cd '$P' && \
	'$BWGATE' exec --quiet --project '$P' -- sh -c '$poll_get' >/dev/null"
(cd "$P" && exec "$BWGATE" run --json -- curl -sS --max-time 5 -X POST \
    "http://127.0.0.1:$PORT/") > "$T/ask.json" 2> "$T/ask.err" &
APID=$!
ok_if "curl -X POST localhost:PORT waits for the operator" \
	wait_for 20 pending_id
ID=$(pending_id)
REQ=$(cd "$P" && "$BWGATE" list --json | jq -c ".[] | select(.id == $ID)")
assert_match "  its verdict names the services' access" \
	"$(jq -r .needs <<< "$REQ")" \
	"^services: reaches the project's services: runs with their access"
assert_eq "  and the project profile" "$(jq -r .profile <<< "$REQ")" project
(cd "$P" && "$BWGATE" approve "$ID") > /dev/null
wait "$APID"
assert_eq "  a plain yes reaches the service" \
	"$(jq -r .stdout "$T/ask.json" 2>/dev/null)" deleted
assert_eq "  the report names the port reached" \
	"$(jq -c .project_ports "$T/ask.json" 2>/dev/null)" "[$PORT]"
assert_match "  and the service reached" \
	"$(jq -r '.project_services[0].command' "$T/ask.json" 2>/dev/null)" \
	"svc\.py $PORT\$"
ok_unless "  the service deleted the file" test -e "$P/victim"
kill "$RPID" 2>/dev/null; wait "$RPID"
stop_console
TEARDOWN='kill $SERVERS 2>/dev/null; wait 2>/dev/null'
done_testing
