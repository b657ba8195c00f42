#!/bin/bash
# ui-write: a file write an agent asks for (bwgate mcp's write_file and
# edit_file send a "write" submit) shows in the console as "write N bytes
# to PATH" with its diff, gets the verdict a command writing that path
# gets (CI configuration: danger), and approving writes it.
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
check_screen "queue row: the write, as what it does, DANGER, pending" 10 \
    "1 .*write [0-9]+ bytes to \.github/workflows.*DANGER +pending"
check_screen "detail: the reason names the danger entry" 5 \
    "reason +danger: changes CI configuration"
check_screen "detail: a diff section" 5 '^diff'
check_screen "detail: the hunk" 5 '^  @@ -2,1 \+2,1 @@'
check_screen "detail: the removed line" 5 '^  -  "old": 1,'
check_screen "detail: the added line, escape shown, not sent" 5 \
    '^  \+  "new": "(\\e|\\x1b|\\u001b|\^\[|\\033)\[31mred",'
ok_unless "the file is untouched while it waits" grep -q new "$P/.github/workflows/ci.yml"
keys a
check_screen "a asks for the word" 5 'DANGER #1: type yes'
keys y e s Enter
wait "$WPID"
assert_eq "approved: the agent gets exit 0" \
    "$(jq -c 'select(.type == "result") | .exit_status' "$T/w.out")" 0
ok_if "approved: the file has the new content" grep -q '"keep": 2' "$P/.github/workflows/ci.yml"
ok_if "approved: the new line is there" grep -q '"new"' "$P/.github/workflows/ci.yml"
check_screen "report pane: one modified" 10 '0 created, 1 modified'

# A write to a program (execute bit) asks; A offers no rule for it.
printf '#!/bin/sh\n' > "$P/run.sh"
chmod +x "$P/run.sh"
jq -cn '{type: "submit", write: {path: "run.sh", content: "#!/bin/sh\necho x\n"}}' |
    "$PEER" -t 30 -n 1 "$S" > "$T/w2.out" &
WPID=$!
check_screen "a program's write: ask, pending" 10 "2 .*write 17 bytes to run\.sh.*ask +pending"
keys p A
check_screen "A: no rule for a file write" 5 "#2 is a file write: no rule applies"
keys a
wait "$WPID"
assert_eq "a approves it once: written" "$(sed -n 2p "$P/run.sh")" "echo x"
done_testing
