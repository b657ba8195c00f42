#!/bin/bash
# pod-console (issue 41): the console holds its project's world. In
# sandboxed mode a request's `curl localhost:PORT` of a server another
# request runs needs no network and runs at once; a scratch file in /tmp
# outlives the pod's idle limit while the console lives; the pod and its
# /tmp end with the console.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ] || ! command -v curl > /dev/null; then
	skip "the console's pod" "python3 or curl not installed"
	done_testing; exit
fi
export BWGATE_POD_IDLE=1
P=$(new_project)
cd "$P" || exit 1
start_console --headless --auto-sandboxed || exit 1
ok_if "the console holds its project's pod" wait_for 10 sh -c \
	"ls '$XDG_RUNTIME_DIR'/bwgate/pod-*.sock"

# A server one request runs; another request's curl reaches it, at once.
PORT=$(( 20000 + RANDOM % 20000 ))
echo "project p" > who
"$BWGATE" run -- "$PY" -m http.server "$PORT" --bind 127.0.0.1 \
    > "$T/server.out" 2>&1 &
SERVER=$!
CLEANUP_EXTRA="kill $SERVER 2>/dev/null; $CLEANUP_EXTRA"
out=$("$BWGATE" run -- sh -c "for i in \$(seq 200); do
	curl -sf http://localhost:$PORT/who && exit 0; sleep 0.05; done; exit 1" 2>/dev/null)
assert_eq "curl localhost of another request's server runs at once" \
	"$out" "project p"
assert_match "  decided by sandboxed mode" \
	"$(grep '"decision"' "$AUDIT" | tail -1)" '"by":"sandboxed"'
out=$("$BWGATE" run -- curl -sS "http://127.0.0.1:$PORT/who" 2>/dev/null)
assert_eq "curl 127.0.0.1:PORT too" "$out" "project p"
kill "$SERVER" 2>/dev/null
wait "$SERVER" 2>/dev/null

# /tmp outlives the idle limit while the console lives.
"$BWGATE" run -- sh -c 'echo kept > /tmp/x.ts' > /dev/null 2>&1
sleep 2		# past BWGATE_POD_IDLE, the point of this check
assert_eq "a scratch file outlives the pod's idle limit with the console" \
	"$("$BWGATE" run -- cat /tmp/x.ts 2>/dev/null)" kept

stop_console
TEARDOWN=
ok_if "the pod ends with the console" wait_for 10 sh -c \
	"! ls '$XDG_RUNTIME_DIR'/bwgate/pod-*.sock"

# With the console, not after the idle limit: a console whose pod would
# idle for a minute, stopped; the pod and its /tmp go at once.
export BWGATE_POD_IDLE=60
start_console --headless --auto-sandboxed || exit 1
"$BWGATE" run -- sh -c 'echo kept > /tmp/x.ts' > /dev/null 2>&1
assert_eq "the pod's /tmp is a directory under the state directory" \
	"$(cat "$XDG_STATE_HOME/bwgate/pods/"*/x.ts 2>/dev/null)" kept
stop_console
TEARDOWN=
ok_if "the pod ends with the console, not after its idle limit" \
	wait_for 10 sh -c "! ls '$XDG_RUNTIME_DIR'/bwgate/pod-*.sock"
ok_if "  and its /tmp is removed" wait_for 10 sh -c \
	"[ -z \"\$(ls -A '$XDG_STATE_HOME/bwgate/pods')\" ]"
done_testing
