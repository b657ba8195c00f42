#!/bin/bash
# Many sandboxes at once in one project share the placeholders of absent
# protected paths: all run, none can create them, none is left behind; a
# placeholder left by a crashed run is cleaned up by the next one.
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
ok_unless "placeholders never reported as changes" sh -c \
	"jq -c .changes '$T'/r*.json | grep -q '\"\\.bwgate\\.json\"\\|\"\\.git\"'"

# While a sandbox runs, the placeholder for the absent .git exists:
# classifying and running other commands in the project must not mind it
# (an absent .bwgate.json gets none).
mkdir -p "$T/gate"
# It runs until the test has looked ($T/release), not for a fixed time.
"$BWGATE" exec --quiet --project "$P" --rw "$T/gate" -- sh -c \
    "while [ ! -e '$T/gate/release' ]; do sleep 0.05; done" &
slow=$!
wait_for 5 test -e "$P/.git"
ok_unless "no placeholder .bwgate.json while it runs" test -e "$P/.bwgate.json"
"$BWGATE" check --project "$P" -- ls > /dev/null 2>"$T/err"
assert_eq "check is not confused by a placeholder" "$?" 0
"$BWGATE" exec --quiet --project "$P" --profile readonly -- true 2>>"$T/err"
assert_eq "exec --profile is not confused by it either" "$?" 0
touch "$T/gate/release"
wait $slow

# The last run of a project removes its (then empty) registry file.
reg="$XDG_RUNTIME_DIR/bwgate/placeholders-$(printf '%s' "$P" | sha256sum | cut -c1-16)"
ok_unless "no registry file left once nothing runs" test -e "$reg"
# A crashed run's placeholder (registry still names it) is removed later.
: > "$P/.bwgate.json"
printf 'bwgate-placeholders 2\nuser 999999999 1\npath %s .bwgate.json\n' "$(stat -c '%d %i' "$P/.bwgate.json")" > "$reg"
"$BWGATE" exec --quiet --project "$P" -- true
ok_unless "stale placeholder from a crashed run removed" test -e "$P/.bwgate.json"
ok_unless "  and its registry" test -e "$reg"
# A file a person created is never removed.
echo '{}' > "$P/.bwgate.json"
"$BWGATE" exec --quiet --project "$P" -- true
assert_eq "a real .bwgate.json is kept" "$(cat "$P/.bwgate.json")" "{}"

done_testing
