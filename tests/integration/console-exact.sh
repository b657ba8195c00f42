#!/bin/bash
# console-exact: what was approved is what runs. The console hands
# `bwgate exec` the policy it showed on a descriptor; exec re-reads no rule
# or configuration file. The attack: a request is approved and waits
# behind a running one; meanwhile the rules change so that its profile
# grants a writable host directory. It must run as approved (the
# directory stays out of reach), and the audit log must say the files
# changed and carry the same argv digest at decision, start and report.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
X="$T/outside"
mkdir -p "$X"
RULES="$XDG_CONFIG_HOME/bwgate/allowlist.json"
rules() {
	cat > "$RULES" <<JSON
{"version":1,
 "profiles":{"w":{"description":"writes the project"$1},
  "net":{"description":"with the network","network":true}},
 "rules":[
 {"id":"sleep","command":["sleep"],"verdict":"allow","profile":"readonly","reason":"waits"},
 {"id":"touch","command":["touch"],"verdict":"allow","profile":"w","reason":"writer"},
 {"id":"t","pattern":"true *","verdict":"allow","profile":"net","reason":"net"}
]}
JSON
	chmod 0644 "$RULES"
}
state_of() {
	"$BWGATE" list --json --socket "$S" |
	    jq -r ".[] | select(.id == $1) | .state"
}
is_state() {
	[ "$(state_of "$1")" = "$2" ]
}

rules ''
start_console --headless --auto-allowlisted --max-running 1
(cd "$P" && "$BWGATE" run -- sleep 300 > /dev/null 2>&1) &
wait_for 10 is_state 1 running
(cd "$P" && "$BWGATE" run -- touch "$X/pwned" > "$T/b.out" 2>&1
    echo $? > "$T/b.rc") &
ok_if "the second request is approved and waits its turn" \
    wait_for 10 is_state 2 approved

# The rules change between approval and start: the profile now grants the
# outside directory.
rules ", \"writable\": [\"$X\"]"
"$BWGATE" check --json --project "$P" -- touch x > "$T/check.json"
assert_match "the new rules would grant it" \
    "$(jq -c '.bwrap_argv' "$T/check.json")" "\"--bind-fd\",\"[0-9]+\",\"$X\""
"$BWGATE" kill --socket "$S" 1 > /dev/null
ok_if "the approved request ran" wait_for 20 test -s "$T/b.rc"
ok_unless "it ran as approved: the outside directory stayed out of reach" \
    test -e "$X/pwned"

start=$(jq -c 'select(.record == "start" and .id == 2)' "$AUDIT")
decision=$(jq -c 'select(.record == "decision" and .id == 2)' "$AUDIT")
result=$(jq -c 'select(.record == "result" and .id == 2)' "$AUDIT")
assert_match "the start record says the rules changed" \
    "$(jq -c '.files_changed' <<<"$start")" "allowlist.json"
d=$(jq -r '.argv_sha256' <<<"$decision")
assert_match "the decision records the digest of the argv shown" "$d" \
    '^[0-9a-f]{64}$'
assert_eq "the start record carries the same digest" \
    "$(jq -r '.argv_sha256' <<<"$start")" "$d"
assert_eq "exec built exactly the argv that was shown" \
    "$(jq -r '.report.sandbox.argv_sha256' <<<"$result")" "$d"
assert_eq "and says so" "$(jq -r '.report.sandbox.as_shown' <<<"$result")" \
    true
assert_match "the argv started is recorded too" \
    "$(jq -r '.report.sandbox.started_argv_sha256' <<<"$result")" \
    '^[0-9a-f]{64}$'
ok_unless "exec's command line carries no policy of its own" \
    grep -q -- '--rw\|--profile\|--project' <<<"$(jq -c '.exec_argv' <<<"$start")"
assert_eq "the start record holds the policy run" \
    "$(jq -c '.policy.rw_paths' <<<"$start")" '[]'

# A request classified after the change gets the new rules (and a new
# decision would show them).
(cd "$P" && "$BWGATE" run -- touch "$X/second" > /dev/null 2>&1
    echo $? > "$T/c.rc") &
wait_for 20 test -s "$T/c.rc"
stop_console

# The operator turns the network off for a request whose profile has it:
# the argv shown has none, and neither has what runs.
rm -f "$AUDIT"
start_console --headless
(cd "$P" && "$BWGATE" run -- true x > /dev/null 2>&1; echo $? > "$T/d.rc") &
wait_for 10 sh -c "'$BWGATE' list --json --socket '$S' | jq -e '.[] | select(.state == \"pending\")' > /dev/null"
id=$("$BWGATE" list --json --socket "$S" | jq '.[] | select(.state == "pending") | .id')
printf '{"type":"approve","id":%s,"network":false}\n' "$id" |
    "$PEER" -t 10 -n 1 -w ok "$CTL" > /dev/null
wait_for 20 test -s "$T/d.rc"
result=$(jq -c "select(.record == \"result\" and .id == $id)" "$AUDIT")
assert_eq "network off as the operator said" \
    "$(jq -r '.report.sandbox.network' <<<"$result")" false
assert_eq "exactly as shown" "$(jq -r '.report.sandbox.as_shown' <<<"$result")" \
    true
stop_console

# exec --policy-fd refuses anything besides the spec.
ok_unless "--policy-fd with --rw is refused" \
    "$BWGATE" exec --policy-fd 0 --rw /tmp < /dev/null
echo '{"version":1}' > "$T/bad.json"
"$BWGATE" exec --policy-fd 5 5< "$T/bad.json" > /dev/null 2> "$T/bad.err"
assert_eq "an incomplete spec: exit 125" "$?" 125
assert_match "says what is wrong" "$(cat "$T/bad.err")" 'spec: '
done_testing
