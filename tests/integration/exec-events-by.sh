#!/bin/bash
# exec-events-by: each live event says whose it is, from the recorded
# calls: "request" for what the command's calls named (copies, renames,
# deletes, an excluded tree), "outside" for a change the host made while it
# ran, "uncertain" for everything when no call is recorded
# (BWGATE_CHANGES=snapshot). Kept in step by files, not by time.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
mkdir -p seed/d
echo x > seed/d/f

# The command does its part, makes "ready", and waits for "go"; the host
# makes its own file in between.
"$BWGATE" exec --json --project "$P" --events-fd 3 -- sh -c \
    'cp -a seed copy && mv copy/d copy/e && rm seed/d/f &&
     mkdir -p nm/node_modules/pkg && echo x > nm/node_modules/pkg/i.js &&
     : > ready &&
     while [ ! -e go ]; do sleep 0.1; done' \
    3> "$T/events.jsonl" > "$T/report.json" &
EPID=$!
ok_if "the command made its changes" wait_for 30 test -e "$P/ready"
# Until the host's change is seen, so it is in the stream before go.
touch "$P/hostfile"
ok_if "the stream has the host's change" wait_for 20 grep -q \
    '"path":"hostfile"' "$T/events.jsonl"
touch "$P/go"
wait "$EPID"
assert_eq "command ran" "$(jfield .exit_code)" 0
by() {
	jq -r --arg p "$1" 'select(.path == $p or .to == $p) | .by' \
	    < "$T/events.jsonl" | sort -u | tr '\n' ' '
}
assert_eq "a copy is the request's" "$(by copy)" "request "
assert_eq "a rename is the request's" "$(by copy/e)" "request "
assert_eq "a delete is the request's" "$(by seed/d/f)" "request "
assert_eq "an excluded tree is the request's" "$(by nm/node_modules)" "request "
assert_eq "the host's file is outside it" "$(by hostfile)" "outside "
assert_eq "go, made by the host, is outside it" "$(by go)" "outside "
assert_eq "every other event is the request's" "$(jq -r \
    'select(.path != "hostfile" and .path != "go") | .by' \
    < "$T/events.jsonl" | sort -u)" request

# No recorded calls: no event is claimed.
BWGATE_CHANGES=snapshot "$BWGATE" exec --json --project "$P" --events-fd 3 -- \
    touch unobserved 3> "$T/events2.jsonl" > "$T/report.json"
assert_eq "unobserved: command ran" "$(jfield .exit_code)" 0
assert_eq "unobserved: its own change is uncertain" \
    "$(jq -r 'select(.path == "unobserved") | .by' < "$T/events2.jsonl" |
    sort -u)" uncertain
done_testing
