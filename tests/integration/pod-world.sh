#!/bin/bash
# A project's world (issue 41, pod.h): the sandboxes of one project share
# one loopback and one /tmp, and nothing of the host's or of another
# project's. A Python and a Node server one request starts are reached by
# another request's curl; a scratch file one command writes in /tmp is
# read by the next; the host's own service on the same port is never
# reached; project B, as an attacker, tries A's server port, A's /tmp
# and A's pod socket and fails; the pod ends when idle and leaves no
# /tmp behind.
. "$(dirname "$0")/libtest.sh"

# A python3 and a node the sandbox can see (not shims under the hidden home).
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
NODE=$(PATH=/usr/local/bin:/usr/bin:/bin command -v node)
for tool in "$PY" curl; do
	if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
		skip "a project's world" "python3 or curl not installed"
		done_testing; exit
	fi
done
export BWGATE_POD_IDLE=2
A=$(new_project a)
B=$(new_project b)
PORT=$(( 20000 + RANDOM % 20000 ))
SECRET="pod-$RANDOM$RANDOM"
# The host's own service on the same port: never the sandboxes'.
mkdir -p "$T/host-www"
echo "the host" > "$T/host-www/who"
( cd "$T/host-www" && exec "$PY" -m http.server "$PORT" --bind 127.0.0.1 \
    > "$T/host.log" 2>&1 ) &
HOSTPID=$!
SERVERS="$HOSTPID"
TEARDOWN='kill $SERVERS 2>/dev/null; wait 2>/dev/null'
wait_for 20 curl -sf "http://127.0.0.1:$PORT/who" ||
	echo "# the host's server did not start"
HOSTGETS=$(grep -c GET "$T/host.log")

# A request that polls (inside its sandbox) until URL answers.
poll_url() {
	echo "for i in \$(seq 200); do curl -sf $1 && exit 0; sleep 0.05; done; exit 1"
}

# 1. Python: one request serves project A's directory, another reaches it.
echo "project a" > "$A/who"
"$BWGATE" exec --quiet --project "$A" -- "$PY" -m http.server "$PORT" \
    --bind 127.0.0.1 > "$T/a-server.log" 2>&1 &
SERVERS="$SERVERS $!"
APY=$!
out=$("$BWGATE" exec --quiet --project "$A" -- sh -c \
    "$(poll_url "http://localhost:$PORT/who")" 2>&1)
assert_eq "python server of one request reached by another (localhost)" \
	"$out" "project a"
assert_eq "and by 127.0.0.1" "$("$BWGATE" exec --quiet --project "$A" -- \
	curl -sS "http://127.0.0.1:$PORT/who" 2>&1)" "project a"
P=$A
jexec -- curl -sS "http://127.0.0.1:$PORT/who"
assert_eq "the report names the project's port it reached" \
	"$(jfield .project_ports)" "[$PORT]"

# 2. Project B, as an attacker: A's server port is B's own, empty loopback;
#    the host's service on it is not reached either.
"$BWGATE" exec --quiet --project "$B" -- curl -sS --max-time 5 \
    "http://127.0.0.1:$PORT/who" > "$T/b-curl.out" 2>&1
rc=$?
ok_unless "project B cannot reach A's server (nor the host's)" \
	grep -q -e "project a" -e "the host" "$T/b-curl.out"
assert_eq "B's curl: connection refused (7)" "$rc" 7
assert_eq "the host's service saw no connection" \
	"$(grep -c GET "$T/host.log")" "$HOSTGETS"

# 2b. A server of a wider profile (git-write) is not on the project's
#    loopback: a narrower command cannot drive it.
GPORT=$(( PORT + 2 ))
"$BWGATE" exec --quiet --project "$A" --profile git-write -- "$PY" -u -m \
    http.server "$GPORT" --bind 127.0.0.1 > "$T/a-git.log" 2>&1 &
SERVERS="$SERVERS $!"
ok_if "the git-write server listens (in a loopback of its own)" \
	wait_for 20 grep -q "Serving HTTP" "$T/a-git.log"
"$BWGATE" exec --quiet --project "$A" -- curl -sS --max-time 5 \
    "http://127.0.0.1:$GPORT/who" > "$T/a-git-curl.out" 2>&1
ok_unless "a project-profile command does not reach a git-write server" \
	grep -q "project a" "$T/a-git-curl.out"

# 3. /tmp: written by one request, read by the next; not the host's /tmp,
#    not project B's.
"$BWGATE" exec --quiet --project "$A" -- sh -c \
    "echo $SECRET > /tmp/scratch.ts" 2>&1
assert_eq "a scratch file in /tmp is read by the next request" \
	"$("$BWGATE" exec --quiet --project "$A" -- cat /tmp/scratch.ts 2>&1)" \
	"$SECRET"
ok_unless "the host's /tmp has no such file" \
	grep -rqs "$SECRET" /tmp/scratch.ts "${TMPDIR:-/tmp}/scratch.ts"
"$BWGATE" exec --quiet --project "$B" -- sh -c \
    "cat /tmp/scratch.ts; grep -rs $SECRET /tmp /var/tmp /run; \
     ls -a '$XDG_RUNTIME_DIR' '$XDG_STATE_HOME'" > "$T/b-tmp.out" 2>&1
ok_unless "project B cannot read A's /tmp" grep -q "$SECRET" "$T/b-tmp.out"
ok_unless "nor see the pods' sockets or directories" \
	grep -q -e 'pod-' "$T/b-tmp.out"

# What a request leaves in /tmp for the pod's cleanup: an unreadable
# tree, and links to a host file (which must be left as it is).
echo victim > "$T/victim"
chmod 644 "$T/victim"
"$BWGATE" exec --quiet --project "$A" -- sh -c "
	mkdir -p /tmp/locked/sub && echo x > /tmp/locked/sub/f &&
	chmod 000 /tmp/locked/sub /tmp/locked &&
	ln -s '$T/victim' /tmp/victim-link &&
	mkdir /tmp/d2 && ln -s '$T/victim' /tmp/d2/l && chmod 000 /tmp/d2" 2>&1

# 4. Node likewise (its own port: the python server still runs).
if [ -n "$NODE" ]; then
	NPORT=$(( PORT + 1 ))
	"$BWGATE" exec --quiet --project "$A" -- "$NODE" -e \
	    "require('http').createServer((q, r) => r.end('node here\n')).listen($NPORT, '127.0.0.1')" \
	    > "$T/a-node.log" 2>&1 &
	SERVERS="$SERVERS $!"
	assert_eq "node server of one request reached by another" \
		"$("$BWGATE" exec --quiet --project "$A" -- sh -c \
		    "$(poll_url "http://localhost:$NPORT/")" 2>&1)" "node here"
else
	skip "node server reached by another request" "node not installed"
fi

# 5. The argv says so: the pod's network, its /tmp.
jexec true
assert_match "the argv shares the pod's network" \
	"$(jfield '.bwrap_argv | join(" ")')" ' --share-net '
assert_match "and binds its /tmp" "$(jfield '.bwrap_argv | join(" ")')" \
	'--bind-fd [0-9]+ /tmp '
assert_match "the mount table says whose /tmp it is" \
	"$(jfield '.sandbox.mounts[] | select(.path == "/tmp") | .why')" \
	"the project's own /tmp"

# 6. The pod ends when idle and takes its /tmp along.
kill $SERVERS 2>/dev/null
wait 2>/dev/null
SERVERS=
ok_if "the pods end when idle" wait_for 30 sh -c \
	"! ls '$XDG_RUNTIME_DIR'/bwgate/pod-*.sock >/dev/null 2>&1"
ok_if "and remove their /tmp" wait_for 10 sh -c \
	"[ -z \"\$(ls -A '$XDG_STATE_HOME/bwgate/pods')\" ]"
assert_eq "the cleanup follows no link: the host file is as it was" \
	"$(cat "$T/victim") $(stat -c %a "$T/victim")" "victim 644"
for lock in "$XDG_RUNTIME_DIR"/bwgate/pod-*.lock; do
	pid=$(cat "$lock" 2>/dev/null)
	[ -n "$pid" ] || continue
	ok_if "no pod holder left (pid $pid)" wait_for 10 sh -c \
	    "! kill -0 $pid"
done
done_testing
