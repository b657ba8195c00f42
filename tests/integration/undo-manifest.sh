#!/bin/bash
# undo-manifest: a manifest in the undo store that lacks a field, or holds
# one out of range, is refused as a whole with a clear error naming the
# field (undo-check.c), and the project is left as it is. Before, a
# missing number was read as NaN and converted (undefined behaviour): a
# mode of 0, a birth time of 0, a path of nothing.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
echo one > "$P/f"
jexec -- sh -c 'echo two > f; echo new > g'
id=$(jfield .undo.id)
ok_if "the run can be undone" test "$(jfield .undo.possible)" = true
m=$(find "$XDG_STATE_HOME/bwgate/undo" -path "*/runs/$id/manifest.json")
ok_if "its manifest is in the store" test -f "$m"
cp "$m" "$T/manifest.good"
tree() { (cd "$P" && find . -path ./.git -prune -o -printf '%y %m %p\n' |
    LC_ALL=C sort; cat f g 2>/dev/null); }
tree > "$T/tree.before"

# jq filter, the field the error must name.
while IFS='|' read -r filter field why; do
	jq -c "$filter" "$T/manifest.good" > "$m"
	out=$(timeout 60 "$BWGATE" undo --project "$P" --run "$id" 2>&1); rc=$?
	ok_if "$field ($why): undo refuses" test "$rc" -ne 0 -a "$rc" -ne 124
	assert_match "$field ($why): the error names it" "$out" \
	    "is not a valid manifest: ${field//[/\\[}: $why"
	tree > "$T/tree.now"
	ok_if "$field ($why): the project is untouched" \
	    cmp -s "$T/tree.before" "$T/tree.now"
done <<'L'
del(.start_s)|start_s|missing
.start_ns = 1000000000|start_ns|1000000000 is out of range
del(.after)|after|missing
del(.before[0].mode)|before[0].mode|missing
.before[0].mode = 99999|before[0].mode|99999 is out of range
.before[0].ino = "12"|before[0].ino|not an integer
del(.after[0].dev)|after[0].dev|missing
.after[0].mtime_s = 1e300|after[0].mtime_s|.* is out of range
.before[0].path = "../outside"|before[0].path|not a relative path below the project
.before[0].blob = "../../x"|before[0].blob|not a sha256
L

# The manifest as written still undoes the run.
cp "$T/manifest.good" "$m"
"$BWGATE" undo --project "$P" --run "$id" > "$T/undo.out" 2>&1
assert_eq "the unchanged manifest undoes the run" "$?" 0
assert_eq "f is back" "$(cat "$P/f")" one
ok_unless "g is gone" test -e "$P/g"

done_testing
