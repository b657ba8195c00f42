#!/bin/bash
# ui-services (issue 41): the console shows the project's services (a
# request's background processes kept after it ended) in a section of
# the queue, with their last output; S on the request that left one asks,
# then stops it, and nothing of it is left on the host; q counts the
# services it would stop, and quitting stops them.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ] || ! command -v curl > /dev/null; then
	skip "services in the console" "python3 or curl not installed"
	done_testing; exit
fi
# A name of this run's own for its processes (another run of this test
# may be on the host).
U=$RANDOM$RANDOM
P=$(new_project)
echo "project p" > "$P/who"
ui_start 120 40 --auto-sandboxed || { done_testing; exit 1; }

PORT=$(( 20000 + RANDOM % 20000 ))
agent one --json -- sh -c "'$PY' -m http.server $PORT --bind 127.0.0.1 & echo started"
wait_agent 30 one
# Only where the report says this sandbox cannot keep them (its own pid
# namespace): anything else is checked below.
if grep -q '"services":false' "$T/one.out"; then
	skip "services in the console" "this sandbox is not in the project's shared pid namespace: $(grep -o '"warnings":\[[^]]*\]' "$T/one.out" | tail -1)"
	done_testing; exit
fi
assert_eq "the request that starts a server ends at once" "$(agent_rc one)" 0
check_screen "the queue's services section lists it" 10 \
	'1 service: background processes kept'
check_screen "  with its id, age, port and command" 10 \
	"^ +1 [0-9]+s +:$PORT sh -c .*python3"
agent two -- sh -c "for i in \$(seq 200); do
	curl -sf http://localhost:$PORT/who && exit 0; sleep 0.05; done; exit 1"
wait_agent 30 two
assert_eq "the next request reaches it" "$(cat "$T/two.out")" "project p"
keys g
check_screen "  its request's detail pane says it left one" 10 \
	'^service [1-9] process(es)? left running \(S stops it'
check_screen "  its request's output pane shows the service's, the visit too" \
	10 'GET /who' 

# S on another request: it left no service.
keys G
keys S
check_screen "  S there says so" 5 '#2 left no service running'
ok_unless "the server runs on the host (what is checked below)" \
	no_procs "http.server $PORT"
keys g
keys S
check_screen "S asks first" 5 "Stop service 1 .*\\(y/N\\)"
keys y
check_screen "  then stops it" 10 'service 1: stopping|service 1 ended'
ok_if "  the server is gone from the host" wait_for 20 \
	no_procs "http.server $PORT"
check_screen "  and from the services section" 10 'service 1 ended'
ok_unless "  no services section left" sh -c \
	"tmux -S '$TMUX_SOCK' capture-pane -p -t ui | grep -q 'background processes kept'"

# A service the observer refuses something after its request: said.
agent three -- sh -c "(sleep 1; echo x > .mcp.json; sleep 3107.$U) > /dev/null 2>&1 & echo bg"
wait_agent 30 three
check_screen "what the observer refuses a service is said" 20 \
	'service 3: refused create .*\.mcp\.json'
ok_unless "  and not done" test -e "$P/.mcp.json"

# q counts the services, and quitting stops them.
agent four -- sh -c "sleep 3108.$U & echo bg"
wait_agent 30 four
check_screen "another service" 10 '2 services: background processes kept'
keys q
check_screen "q counts the services it stops" 5 \
	'0 pending will be denied, 0 running killed, 2 services stopped'
keys y
console_exited 30
assert_eq "the console exits 0" "$(cat "$T/console.rc")" 0
both_gone() { no_procs "sleep 3107.$U" && no_procs "sleep 3108.$U"; }
ok_if "its services are gone from the host" wait_for 20 both_gone
done_testing
