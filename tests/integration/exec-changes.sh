#!/bin/bash
# Change reports of bwgate exec are exact: create, modify, same-size
# rewrite, delete, rename, atomic save, nested mkdir, rm -rf, chmod,
# symlink, and a burst of thousands of files.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
mkdir -p "$P/tree/sub"
echo one > "$P/tree/sub/x"
echo keep > "$P/keep.txt"
echo "same size" > "$P/same.txt"
echo "old content" > "$P/atomic.txt"
echo mode > "$P/mode.txt"
echo ren > "$P/ren-from.txt"
echo gone > "$P/gone.txt"
# Let mtimes settle so a same-second rewrite is still caught by ns times.
changes() { jq -c ".changes.$1" < "$T/report.json"; }

jexec -- sh -c 'echo new > new.txt'
assert_eq "create reported" "$(changes created)" '["new.txt"]'
assert_eq "nothing else reported" "$(changes modified)$(changes deleted)$(changes renamed)" '[][][]'

jexec -- sh -c 'echo more >> keep.txt'
assert_eq "modify reported" "$(changes modified)" '["keep.txt"]'

jexec -- sh -c 'printf "SAME SIZE\n" > same.txt'
assert_eq "same-size rewrite reported" "$(changes modified)" '["same.txt"]'

jexec -- rm gone.txt
assert_eq "delete reported" "$(changes deleted)" '["gone.txt"]'

jexec -- mv ren-from.txt ren-to.txt
assert_eq "rename reported" "$(changes renamed)" '[{"from":"ren-from.txt","to":"ren-to.txt"}]'
assert_eq "rename is not create+delete" "$(changes created)$(changes deleted)" '[][]'

jexec -- sh -c 'echo "new content" > .atomic.tmp && mv .atomic.tmp atomic.txt'
assert_eq "atomic save is a modification" "$(changes modified)" '["atomic.txt"]'
assert_eq "atomic save: nothing created or renamed" "$(changes created)$(changes renamed)$(changes deleted)" '[][][]'

jexec -- mkdir -p x/y && jexec -- sh -c 'mkdir -p a/b && echo f > a/b/f'
assert_eq "nested mkdir lists every level" "$(changes created)" '["a","a/b","a/b/f"]'

jexec -- rm -rf tree
assert_eq "rm -rf lists the whole tree, children first" "$(changes deleted)" '["tree/sub/x","tree/sub","tree"]'

jexec -- chmod 600 mode.txt
assert_eq "chmod is a modification" "$(changes modified)" '["mode.txt"]'

jexec -- ln -s keep.txt link
assert_eq "symlink created" "$(changes created)" '["link"]'

jexec -- sh -c 'git_dir=.git; echo x > new2.txt'
assert_eq ".git internals not reported" "$(changes created)" '["new2.txt"]'

jexec -- true
assert_eq "no change, empty report" "$(changes created)$(changes modified)$(changes deleted)$(changes renamed)" '[][][][]'

jexec -- sh -c 'mkdir burst && i=0; while [ $i -lt 3000 ]; do echo $i > burst/f$i; i=$((i+1)); done'
assert_eq "burst: every file reported" "$(jq '.changes.created|length' < "$T/report.json")" 3001

"$BWGATE" exec --project "$P" -- sh -c 'echo z > summary.txt' 2> "$T/human"
assert_match "human summary on stderr" "$(cat "$T/human")" "1 created"
assert_match "human summary lists the path" "$(cat "$T/human")" "\\+ summary.txt"
"$BWGATE" exec --quiet --project "$P" -- sh -c 'echo z > quiet.txt' 2> "$T/human"
assert_eq "--quiet drops the summary" "$(cat "$T/human")" ""

done_testing
