#!/bin/bash
# undo-plan-lines: the undo plan names each file once. A file the run
# replaced (removed and written again, or a new file renamed over it) is
# "restore: X", never also "remove: X"; the undo still puts it back byte
# for byte, and what the run only made is still "remove".
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
echo old > f
echo keep > g
jexec -- sh -c 'rm f; echo new > f; echo g2 > g.tmp; mv g.tmp g; echo n > made'
id=$(jfield .undo.id)
ok_if "the run can be undone ($(jfield .undo))" \
    test "$(jfield .undo.possible)" = true
"$BWGATE" undo --run --dry-run "$id" > "$T/plan" 2>&1
ok_if "the plan names f once ($(tr '\n' ' ' < "$T/plan"))" \
    test "$(grep -c ': f$' "$T/plan")" = 1
ok_if "  as restore" grep -qx '  restore: f' "$T/plan"
ok_if "the plan names g once" test "$(grep -c ': g$' "$T/plan")" = 1
ok_if "what the run only made is removed" grep -qx '  remove: made' "$T/plan"
"$BWGATE" undo --run "$id" > "$T/out" 2>&1
ok_if "the undo works ($(tail -1 "$T/out"))" test $? = 0
ok_if "  f and g are back" test "$(cat f)" = old -a "$(cat g)" = keep
ok_unless "  made is gone" test -e made
done_testing
