#!/bin/bash
# Writers side by side: where change reports come from each sandbox's own
# recorded system calls, the console starts writers together; each report
# lists only what its own command did, and two writers touching the same
# file both list it. --writers alone keeps the old one-at-a-time rule.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
# Each writer marks that it runs, appends to the shared file, and waits
# (with a deadline) for the other's mark: it exits 0 only if both ran at
# the same time.
cat > "$P/w.sh" <<'SH'
me=$1 other=$2 n=$3
echo "$me" > "$me.mark"
echo "$me" >> shared.txt
i=0
while [ ! -e "$other.mark" ] && [ $i -lt "$n" ]; do sleep 0.05; i=$((i + 1)); done
echo "$me-end" >> shared.txt
[ -e "$other.mark" ]
SH
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"w","pattern":["sh w.sh a b 100","sh w.sh b a 100","sh w.sh a b 20","sh w.sh b a 20"],
  "verdict":"allow","profile":"project","reason":"test writer"}
]}
JSON
echo base > "$P/shared.txt"
writer() {
	"$BWGATE" run --json -- sh w.sh "$1" "$2" "${3:-100}" > "$T/$1.json" 2> "$T/$1.err"
}
# The report of the last run (run --json prints the request with it).
rep() {
	jq -c "$2" < "$T/$1.json" | tail -1
}

probe_json=$("$BWGATE" exec --json --project "$P" -- true)
if [ "$(jq -r .changes_method <<< "$probe_json")" != syscalls ]; then
	skip "writers side by side" "no seccomp user notification here"
	start_console --headless --auto-allowlisted
	assert_eq "without notification writers run alone" \
		"$(grep -c 'writers alone' "$T/console.log")" 1
	stop_console
	done_testing
	exit 0
fi

start_console --headless --auto-allowlisted
assert_eq "the console lets writers run side by side" \
	"$(grep -c 'writers side by side' "$T/console.log")" 1
writer a b & pa=$!
writer b a & pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
assert_eq "writer a saw writer b running" "$ra" 0
assert_eq "writer b saw writer a running" "$rb" 0
assert_eq "a's report: by recorded calls" "$(rep a '.. | objects | select(has("changes_method")) | .changes_method')" '"syscalls"'
assert_eq "a lists only its own new file" "$(rep a '.. | objects | select(has("changes_method")) | .changes.created')" '["a.mark"]'
assert_eq "b lists only its own new file" "$(rep b '.. | objects | select(has("changes_method")) | .changes.created')" '["b.mark"]'
assert_eq "a lists the shared file" "$(rep a '.. | objects | select(has("changes_method")) | .changes.modified')" '["shared.txt"]'
assert_eq "b lists the shared file" "$(rep b '.. | objects | select(has("changes_method")) | .changes.modified')" '["shared.txt"]'
assert_eq "both writes landed" "$(grep -c -- -end "$P/shared.txt")" 2
stop_console
rm -f "$P"/*.mark

# One at a time on request: the second writer starts after the first ends.
start_console --headless --auto-allowlisted --writers alone
assert_eq "--writers alone is honoured" \
	"$(grep -c 'writers alone' "$T/console.log")" 1
writer a b 20 & pa=$!
wait_for 10 test -e "$P/a.mark"
writer b a 20 & pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
assert_eq "alone: the first writer never saw the second" "$ra" 1
assert_eq "alone: the second saw the first's mark (it ran after)" "$rb" 0
stop_console

"$BWGATE" --writers sometimes 2> "$T/err"
assert_eq "a bad --writers is refused" "$?" 125
assert_match "and named" "$(cat "$T/err")" "bad --writers 'sometimes'"

done_testing
