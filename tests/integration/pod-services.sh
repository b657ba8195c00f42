#!/bin/bash
# pod-services (issue 41): a request's background processes stay as the
# project's service. A dev server one request starts with `&` is reached
# by the next request's curl; the first request's result comes at once
# (the server holds its output pipes) and says the service stays and how
# to stop it; `bwgate list` shows it with its last output; a service that
# creates a protected name after its request ended is still refused by
# the observer (not ENOSYS: the listener lives); `bwgate stop ID` ends it
# and nothing of it is left on the host; the audit log has its start and
# stop; a service ends when the console ends.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ] || ! command -v curl > /dev/null; then
	skip "services" "python3 or curl not installed"
	done_testing; exit
fi
# A name of this run's own for its processes (another run of this test
# may be on the host).
U=$RANDOM$RANDOM
P=$(new_project)
cd "$P" || exit 1
echo "project p" > who
start_console --headless --auto-sandboxed || exit 1

# One field of the last JSON line of a file (python3: the oracle).
jget() {
	"$PY" -c 'import json,sys
j=json.loads(open(sys.argv[1]).read().splitlines()[-1])
for k in sys.argv[2].split("."):
	j = j.get(k) if isinstance(j, dict) else None
print(json.dumps(j) if not isinstance(j, str) else j)' "$1" "$2"
}

# A command that leaves nothing behind leaves no service and kills
# nothing (bwgate's own helper, ending with it, is neither).
for i in 1 2 3 4 5 6 7 8; do
	"$BWGATE" run -- ls /nonexistent-x 2>&1
done > "$T/plain.out"
assert_eq "commands that leave nothing behind: no service, nothing killed" \
	"$(grep -c 'background process' "$T/plain.out")" 0
ok_unless "  none in the audit log" grep -q '"record":"service-start"' "$AUDIT"
rm -rf "$XDG_STATE_HOME/bwgate/ids"
stop_console
TEARDOWN=
start_console --headless --auto-sandboxed || exit 1

PORT=$(( 20000 + RANDOM % 20000 ))
# The server logs each request on stderr: the request's own pipe, which it
# keeps open after the request ended.
t0=$(date +%s)
timeout 120 "$BWGATE" run --json -- sh -c "'$PY' -m http.server $PORT --bind 127.0.0.1 & echo started" \
    > "$T/r1.json" 2> "$T/r1.err"
rc=$?
t1=$(date +%s)
# Only where the report says this sandbox cannot keep them (its own pid
# namespace): anything else is checked below.
if [ "$(jget "$T/r1.json" sandbox.services)" = false ]; then
	skip "services" "this sandbox is not in the project's shared pid namespace (report: $(jget "$T/r1.json" sandbox.warnings))"
	done_testing; exit
fi
assert_eq "the request that starts a server ends with its command" "$rc" 0
ok_if "  its result comes at once, not when the server ends" \
	test $((t1 - t0)) -lt 20
assert_match "  its output" "$(jget "$T/r1.json" stdout)" "^started"
assert_match "  its report: the processes kept as a service" \
	"$(jget "$T/r1.json" service.processes)" "^[1-9]"
assert_eq "  known by the request's id" \
	"$(jget "$T/r1.json" service.id)" 1
"$BWGATE" show 1 > "$T/show1" 2>&1
assert_match "  the report's line says so, and how to stop it" \
	"$(cat "$T/show1")" "running as the project's service 1 \\(bwgate stop 1\\): what (it changes|they change) from now on is in neither this report nor its undo"

assert_match "  and that it runs" "$(cat "$T/show1")" \
	"service   [1-9] process(es)? left running \\(bwgate stop 1\\)"

out=$("$BWGATE" run -- sh -c "for i in \$(seq 200); do
	curl -sf http://localhost:$PORT/who && exit 0; sleep 0.05; done; exit 1" 2>/dev/null)
assert_eq "the next request's curl reaches the service" "$out" "project p"

ok_if "bwgate list shows the service with its last output" wait_for 10 \
	sh -c "'$BWGATE' list | grep -A3 '^SERVICE' | grep -q 'GET /who'"
ok_if "  its id, age, processes, the port it listens on and command" \
	wait_for 10 sh -c "'$BWGATE' list | grep -Eq '^1 +[0-9]+m[0-9]+s +[1-9] +$PORT +sh -c .*http.server $PORT'"
"$BWGATE" list --json > "$T/list.json"
assert_eq "bwgate list --json: the request's service" "$("$PY" -c '
import json,sys
r=[x for x in json.load(open(sys.argv[1])) if x["id"]==1][0]
print(r["service"]["id"], r["service"]["processes"] >= 1, r["service"]["ports"])' "$T/list.json")" "1 True [$PORT]"
ok_if "the audit log has the service's start" \
	grep -q '"record":"service-start","id":1' "$AUDIT"

# A service is still judged: after its request ended it creates a
# protected name (an agent's configuration: agent-config.json).
"$BWGATE" run -- sh -c "(sleep 1; echo x > .mcp.json; echo rc=\$? > bgres; sleep 301.$U) > bg.log 2>&1 & echo bg" \
    > /dev/null 2>&1
ok_if "a service that creates a protected name" wait_for 20 test -s bgres
assert_match "  is refused" "$(cat bgres)" "rc=[1-9]"
ok_unless "  by the observer (the listener lives: no ENOSYS)" \
	grep -q "Function not implemented" bg.log
ok_unless "  and the name is not there" test -e .mcp.json
ok_if "  the refusal is on the record, the service's" wait_for 10 \
	grep -q '"record":"service-refused","id":3,"violation":{"path":"[^"]*\.mcp\.json","operation":"create"' "$AUDIT"
"$BWGATE" list > "$T/list" 2>&1
assert_match "two services listed" "$(sed -n '/^SERVICE/,$p' "$T/list" | grep -c '^[0-9]')" "^2$"

# Stopped with bwgate stop: gone from the host and from the list.
ok_unless "the server runs on the host (what is checked below)" \
	no_procs "http.server $PORT"
"$BWGATE" stop 1
assert_eq "bwgate stop 1 is accepted" "$?" 0
ok_if "  the server is gone from the host" wait_for 20 \
	no_procs "http.server $PORT"
ok_unless "  it no longer answers" curl -sf "http://127.0.0.1:$PORT/who"
ok_if "  it leaves the list" wait_for 10 sh -c \
	"! '$BWGATE' list --json | grep -q '\"service\":{\"id\":1,'"
ok_if "  the audit log has its stop, by whom" wait_for 10 \
	grep -q '"record":"service-stop","id":1,"by":"uid ' "$AUDIT"
"$BWGATE" stop 1 > /dev/null 2> "$T/stop.err"
assert_eq "a second stop is refused" "$?" 1
assert_match "  saying there is no such service" "$(cat "$T/stop.err")" \
	"no service 1"

# Held to its request's limits: a service that forks beyond its process
# limit after its request ended is stopped (pids limit), all of it.
timeout 60 "$BWGATE" run --pids 8 -- sh -c "(sleep 1; for i in \$(seq 20); do sleep 302.$U & done; wait) > /dev/null 2>&1 & echo bg" \
    > /dev/null 2>&1
# Only a cgroup counts the request's processes; without one (an ordinary
# user on cgroup v1) the process limit is the user's (RLIMIT_NPROC).
if "$BWGATE" doctor --json 2>/dev/null | jq -r '.checks[] |
    select(.name == "resource limits") | .detail' | grep -q 'by cgroup'; then
	ok_if "a service that forks beyond its process limit" wait_for 10 \
		grep -q '"record":"service-start","id":4' "$AUDIT"
	ok_if "  is stopped when it reaches it" wait_for 20 \
		grep -q '"record":"service-stop","id":4,"by":"pids limit"' "$AUDIT"
else
	skip "a service's process limit" "no cgroup of its own here: the process limit is the user's (RLIMIT_NPROC), not the request's"
fi
ok_if "  and none of it is left on the host" wait_for 20 \
	no_procs "sleep 302.$U"

# One that ignores SIGTERM is killed after the grace period.
timeout 60 "$BWGATE" run -- sh -c "(trap '' TERM; sleep 303.$U) > /dev/null 2>&1 & echo bg" \
    > /dev/null 2>&1
ok_if "a service that ignores SIGTERM" wait_for 10 \
	grep -q '"record":"service-start","id":5' "$AUDIT"
ok_unless "  runs" no_procs "sleep 303.$U"
"$BWGATE" stop 5
ok_if "  is killed after the grace period by bwgate stop" wait_for 30 \
	no_procs "sleep 303.$U"

# Without a console nothing lists a service: what a command leaves behind
# in the project's pid namespace is killed, and its report says so.
timeout 60 "$BWGATE" exec --json --project "$P" -- sh -c "sleep 304.$U & echo x" \
    > "$T/exec.json" 2> /dev/null
assert_eq "bwgate exec: the background process is killed" \
	"$(jget "$T/exec.json" background_killed)" 1
ok_if "  none of it is left on the host" wait_for 20 no_procs "sleep 304.$U"
timeout 60 "$BWGATE" exec --project "$P" -- sh -c "sleep 304.$U & echo x" \
    > /dev/null 2> "$T/exec.err"
assert_match "  its summary says so in one line" "$(cat "$T/exec.err")" \
	"1 background process was killed when the command ended: not kept"

# The console ends: so does the other service.
ok_unless "the other service still runs" no_procs "sleep 301.$U"
stop_console
TEARDOWN=
ok_if "the console ends its services: none left on the host" \
	wait_for 20 no_procs "sleep 301.$U"
ok_if "  the audit log has the stop by the console" \
	grep -q '"record":"service-stop","id":3,"by":"the console"' "$AUDIT"
# As many services as console.max_services: past that, what a command
# leaves is killed and its report says so.
echo '{"console":{"max_services":1}}' > "$XDG_CONFIG_HOME/bwgate/config.json"
start_console --headless --auto-sandboxed || exit 1
timeout 60 "$BWGATE" run -- sh -c "sleep 305.$U & echo bg" > /dev/null 2>&1
timeout 60 "$BWGATE" run -- sh -c "sleep 306.$U & echo bg" > /dev/null \
    2> "$T/max.err"
assert_match "past console.max_services a request's background is killed" \
	"$(cat "$T/max.err")" "1 background process was killed when the command ended: not kept"
ok_if "  none of it is left on the host" wait_for 20 no_procs "sleep 306.$U"
ok_unless "  the service before it runs" no_procs "sleep 305.$U"
rm -f "$XDG_CONFIG_HOME/bwgate/config.json"

# A console killed outright: its services end with it all the same
# (exec's parent-death signal stops them).
ok_unless "a service of a console killed outright" no_procs "sleep 305.$U"
kill -KILL "$CPID"
wait "$CPID" 2>/dev/null
TEARDOWN=
ok_if "  ends with it" wait_for 30 no_procs "sleep 305.$U"
ok_if "every audit line is JSON" audit_valid
done_testing
