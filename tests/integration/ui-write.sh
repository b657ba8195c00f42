#!/bin/bash
# ui-write: a file write an agent asks for (bwgate mcp's write_file and
# edit_file send a "write" submit) shows in the console with its diff,
# waits when the path needs attention, and `a` writes it.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

PEER="$BWGATE_BUILDDIR/tests/integration/console-peer"
P=$(new_project)
mkdir -p "$P/.github/workflows"
printf '{\n  "old": 1,\n  "keep": 2\n}\n' > "$P/.github/workflows/ci.yml"
ui_start 160 50 || { done_testing; exit 1; }

jq -cn '{type: "submit", write: {path: ".github/workflows/ci.yml",
    content: "{\n  \"new\": \"\u001b[31mred\",\n  \"keep\": 2\n}\n"}}' |
    "$PEER" -t 30 -n 1 "$S" > "$T/w.out" &
WPID=$!
check_screen "queue row: the write, ask, pending" 10 \
    "^! +1 .*# bwgate: write_file '.github/workflows.* ask +pending"
check_screen "detail: the reason names the rule" 5 \
    "reason +write_file: '.github/workflows/ci.yml' is attention"
check_screen "detail: a diff section" 5 '^diff'
check_screen "detail: the hunk" 5 '^  @@ -2,1 \+2,1 @@'
check_screen "detail: the removed line" 5 '^  -  "old": 1,'
check_screen "detail: the added line, escape shown, not sent" 5 \
    '^  \+  "new": "(\\e|\\x1b|\\u001b|\^\[|\\033)\[31mred",'
ok_unless "the file is untouched while it waits" grep -q new "$P/.github/workflows/ci.yml"
keys a
wait "$WPID"
assert_eq "approved: the agent gets exit 0" \
    "$(jq -c 'select(.type == "result") | .exit_status' "$T/w.out")" 0
ok_if "approved: the file has the new content" grep -q '"keep": 2' "$P/.github/workflows/ci.yml"
ok_if "approved: the new line is there" grep -q '"new"' "$P/.github/workflows/ci.yml"
check_screen "report pane: one modified" 10 '0 created, 1 modified'
done_testing
