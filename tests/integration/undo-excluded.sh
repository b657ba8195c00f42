#!/bin/bash
# undo-excluded: the report says undo will not restore an excluded tree
# (node_modules, .git) only when the run may have changed what it holds.
# A report widened to the whole project (a change to a file with two hard
# links widens it; so does npm's bind in a process with several threads)
# sees every excluded tree: one the run left alone is no note. A run that
# writes inside node_modules still gets it. And a real `npm run build`
# with a local package installed leaves no note about node_modules.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
# A local package as npm installs it, and a build that uses it.
mkdir -p node_modules/localpkg
echo '{"name":"localpkg","version":"1.0.0","main":"index.js"}' \
    > node_modules/localpkg/package.json
echo 'module.exports = (s) => s.toUpperCase();' > node_modules/localpkg/index.js
echo '{"name":"p","version":"1.0.0","scripts":{"build":"node build.js"},
 "dependencies":{"localpkg":"1.0.0"}}' > package.json
echo 'const fs = require("fs"); fs.mkdirSync("dist", {recursive: true});
fs.writeFileSync("dist/out.txt", require("localpkg")("built\n"));' > build.js
echo a > linked && ln linked linked2

"$BWGATE" exec --project "$P" -- sh -c 'echo more >> linked' 2> "$T/err"
assert_match "a change to a hard-linked file: the report is widened" \
    "$(cat "$T/err")" "widened to the whole project"
assert_match "  undo keeps the run" "$(cat "$T/err")" "undo: bwgate undo"
ok_unless "  no note about node_modules, which the run left alone" \
    grep -q "undo will not restore node_modules" "$T/err"
ok_unless "  nor about .git" grep -q "undo will not restore .git" "$T/err"
jexec -- sh -c 'echo again >> linked'
assert_eq "  the JSON report: undo complete, nothing unsaved" \
    "$(jq -c '[.undo.complete, .undo.unsaved]' "$T/report.json")" '[true,[]]'

"$BWGATE" exec --project "$P" -- sh -c \
    'echo more >> linked; echo x > node_modules/localpkg/new.js' 2> "$T/err"
assert_match "a widened run that writes inside node_modules: noted" \
    "$(cat "$T/err")" "undo will not restore node_modules \(an excluded tree"
ok_unless "  and still not .git" grep -q "undo will not restore .git" "$T/err"

if command -v npm > /dev/null && command -v node > /dev/null; then
	rm node_modules/localpkg/new.js
	"$BWGATE" exec --project "$P" -- npm run build 2> "$T/err"
	assert_eq "npm run build: built with the local package" \
	    "$(cat dist/out.txt)" BUILT
	assert_match "  the report names what it made" "$(cat "$T/err")" \
	    "dist/"
	ok_unless "  and says nothing about node_modules" \
	    grep -q "node_modules" "$T/err"
else
	skip "npm run build: node and npm are not installed"
fi
done_testing
