#!/bin/bash
# Many sandboxes at once in one project: all run, none can create an
# absent protected path (refused at the call), nothing is left behind.
. "$(dirname "$0")/libtest.sh"

P="$T/proj"
mkdir -p "$P/src"
cd "$P" || exit 1
N=16
for i in $(seq 1 $N); do
	"$BWGATE" exec --json --project "$P" -- sh -c \
		"echo $i > src/f$i; sleep 0.2; mkdir .git 2>/dev/null; exit 0" \
		> "$T/r$i.json" 2> "$T/e$i" &
done
wait
ok=0; own=0
for i in $(seq 1 $N); do
	[ "$(jq -r .exit_code < "$T/r$i.json")" = 0 ] && ok=$((ok + 1))
	jq -e --arg f "src/f$i" '.changes.created | index($f)' < "$T/r$i.json" >/dev/null && own=$((own + 1))
done
assert_eq "all concurrent sandboxes ran" "$ok" "$N"
assert_eq "each report lists its own file" "$own" "$N"
assert_eq "every file was written" "$(ls "$P/src" | wc -l)" "$N"
ok_unless "no .bwgate.json created or left behind" test -e "$P/.bwgate.json"
ok_unless "no .git created or left behind" test -e "$P/.git"
# (in the change lists: the report's "executed" names them as arguments)
ok_unless "protected names never reported as changes" sh -c \
	"jq -c .changes '$T'/r*.json | grep -q '\"\\.bwgate\\.json\"\\|\"\\.git\"'"

# While a sandbox runs, nothing of bwgate's is in the project: classifying
# and running other commands there sees it as it is.
mkdir -p "$T/gate"
# It runs until the test has looked ($T/release), not for a fixed time.
"$BWGATE" exec --quiet --project "$P" --rw "$T/gate" -- sh -c \
    "touch '$T/gate/started'; while [ ! -e '$T/gate/release' ]; do sleep 0.05; done" &
slow=$!
ok_if "the slow run started" wait_for 20 test -e "$T/gate/started"
ok_unless "no .git on the host while it runs" test -e "$P/.git"
ok_unless "no .bwgate.json while it runs" test -e "$P/.bwgate.json"
"$BWGATE" check --project "$P" -- ls > /dev/null 2>"$T/err"
assert_eq "check runs beside it" "$?" 0
"$BWGATE" exec --quiet --project "$P" --profile readonly -- true 2>>"$T/err"
assert_eq "exec --profile runs beside it" "$?" 0
touch "$T/gate/release"
wait $slow

# A file a person created is never removed.
echo '{}' > "$P/.bwgate.json"
"$BWGATE" exec --quiet --project "$P" -- true
assert_eq "a real .bwgate.json is kept" "$(cat "$P/.bwgate.json")" "{}"

done_testing
