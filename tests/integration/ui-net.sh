#!/bin/bash
# ui-net: a request with named hosts whose command reaches for another
# host is held while the terminal console asks (issue 28): the queue row
# says "wants HOST:PORT", a allows it once, d denies it, and the client
# gets what was decided. Two new hosts at once: the row shows the oldest
# and "+1", answers go to it first, then the other is asked.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"
. "$(dirname "$0")/lib-net.sh"

P=$(new_project)
net_registry "host questions in the terminal" reg.test other.test third.test

UI_ENV="BWGATE_NET_HOSTS=$T/hosts" ui_start 160 45 ||
    { kill "$SRV"; done_testing; exit 1; }
TEARDOWN="$TEARDOWN; kill $SRV 2>/dev/null"

agent one --json --domain "$ALLOW" -- curl -sS "http://other.test:$PORT/file.txt"
check_screen "the request asks for its hosts" 10 '^! +1 .*curl.* pending'
keys a a
check_screen "the new host is a question on the row" 20 \
	"^! +1 .*curl.* wants other"
check_screen "the detail names it" 10 "^state wants other\.test:$PORT"
ok_unless "the client waits" test -s "$T/one.rc"
keys a
check_screen "a: allowed once" 10 "#1: allowed once other\.test:$PORT"
wait_agent 20 one
assert_eq "the held connection went through" "$(jq -r .stdout "$T/one.out")" \
	"hello from the registry"

agent two --json --domain "$ALLOW" -- curl -sS "http://other.test:$PORT/file.txt"
check_screen "second request pending" 10 '^! +2 .*curl.* pending'
keys a a
check_screen "asked again (a new run)" 20 "^state wants other\.test:$PORT"
keys d
check_screen "d: denied" 10 "#2: denied other\.test:$PORT"
wait_agent 20 two
assert_match "the client is told who denied and how to allow it" \
	"$(jq -r .stdout "$T/two.out")" \
	"other.test:$PORT is not among.*denied by terminal.*--domain other.test:$PORT"
check_screen "the report pane tells the network story" 10 \
	"refused host 'other\.test:$PORT'"

agent three --json --domain "$ALLOW" -- sh -c "
	curl -sS http://other.test:$PORT/file.txt > other.out 2>&1 &
	curl -sS http://third.test:$PORT/file.txt > third.out 2>&1; wait"
check_screen "third request pending" 10 '^! +3 .* pending'
keys a a
check_screen "two hosts at once: the row shows one and +1" 20 \
	"^state wants (other|third)\.test:$PORT \+1"
keys a
check_screen "a answers the oldest" 10 "#3: allowed once (other|third)\.test:$PORT"
check_screen "then the other is asked" 20 "^state wants (other|third)\.test:$PORT by"
keys d
check_screen "d denies it" 10 "#3: denied (other|third)\.test:$PORT"
wait_agent 20 three
assert_eq "one host reached, the other refused" \
	"$(cat "$P/other.out" "$P/third.out" | grep -c 'hello from the registry')" 1
done_testing
