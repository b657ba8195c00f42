#!/bin/bash
# ui-rule: `A` approves and adds a rule to the user allowlist (exact
# command or argv prefix, with a profile); the next identical command runs
# without asking; a rule that cannot allow the command is not kept.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

P=$(new_project)
RULES="$XDG_CONFIG_HOME/bwgate/allowlist.json"
ui_start 200 50 || { done_testing; exit 1; }

agent one -- touch made.txt
check_screen "touch asks" 10 '^! +1 .*touch made\.txt +ask +pending'
keys A
check_screen "the rule form opens" 5 'approve #1 and add a rule'
check_screen "exact command by default" 5 'scope: this exact command'
check_screen "the preview shows the pattern" 5 'allow: touch made\.txt'
keys Tab
check_screen "Tab: the next profile" 5 'profile: (readonly|build|network|git-write|project) \(Tab'
check_screen "this project only by default" 5 'where: this project only'
keys w
check_screen "w: every project" 5 'where: every project'
keys Enter
wait_agent 20 one
assert_eq "approved: exit 0" "$(agent_rc one)" 0
ok_if "the command ran" test -f "$P/made.txt"
assert_eq "the rule is in the user allowlist" \
    "$(jq -r '.rules[-1].pattern[0]' "$RULES")" "touch made.txt"
assert_eq "an allow rule" "$(jq -r '.rules[-1].verdict' "$RULES")" allow
assert_eq "the earlier rules are kept" "$(jq -r '.rules[0].id' "$RULES")" sleep
assert_eq "the file is private" "$(stat -c %a "$RULES")" 600
check_screen "the operator is told where it went" 5 "rule console-.* added"

agent two -- touch made.txt
wait_agent 20 two
assert_eq "the same command now runs without asking" "$(agent_rc two)" 0
check_screen "with an allow verdict" 10 ' 2 .*touch made\.txt +allow +exit 0'

# A prefix rule: the first word and anything after it.
agent three -- mkdir -p deep/er
check_screen "mkdir asks" 10 '^! +3 .*mkdir -p deep/er +ask'
keys A w p
check_screen "prefix of one word" 5 'allow: mkdir \* '
keys +
check_screen "+: two words" 5 'allow: mkdir -p \* '
keys Enter
wait_agent 20 three
assert_eq "prefix rule: approved" "$(agent_rc three)" 0
agent four -- mkdir -p other
wait_agent 20 four
assert_eq "another mkdir -p runs without asking" "$(agent_rc four)" 0

# A rule the rule files refuse (a shell with a wildcard) is not kept and
# nothing is approved.
before=$(cat "$RULES")
agent five -- sh -c 'echo a b > x'
check_screen "a shell command asks" 10 '^! +5 '
keys A p
check_screen "a prefix rule for the shell" 5 'allow: sh \* '
keys Enter
check_screen "the form says why it was not kept" 5 'the rule was not kept'
keys Escape
check_screen "Esc: nothing approved" 5 'no rule added, nothing approved'
assert_eq "the rule file is unchanged" "$(cat "$RULES")" "$before"
ok_unless "the command did not run" test -e "$P/x"
keys d Enter
wait_agent 20 five
assert_eq "denied afterwards" "$(agent_rc five)" 77

# For this project only (the default): the user's file for the project,
# not the project's .bwgate.json and not the rules of every project; an
# exact rule holds a word with blanks (quoted in the pattern).
agent six -- touch 'a b.txt'
check_screen "a word with a blank asks" 10 '^! +6 .*touch'
keys A
check_screen "the exact rule quotes the word" 5 "allow: touch 'a b\.txt'"
check_screen "where: this project only" 5 'where: this project only'
keys Enter
wait_agent 20 six
assert_eq "approved with the rule" "$(agent_rc six)" 0
PRULES=$(ls "$XDG_CONFIG_HOME"/bwgate/projects/*.json)
assert_match "the project's rules are kept in the user's directory" \
    "$PRULES" "/bwgate/projects/$(basename "$P")-[0-9a-f]{16}\.json$"
assert_eq "the rule is there" "$(jq -r '.rules[-1].pattern[0]' "$PRULES")" \
    "touch 'a b.txt'"
assert_eq "private" "$(stat -c %a "$PRULES")" 600
ok_unless "not in the rules of every project" grep -q 'a b.txt' "$RULES"
ok_unless "nothing written into the project" test -e "$P/.bwgate.json"
agent seven -- touch 'a b.txt'
wait_agent 20 seven
assert_eq "the same command runs without asking" "$(agent_rc seven)" 0
v=$(cd "$P" && "$BWGATE" check --json -- touch 'a c.txt' | jq -r .verdict)
assert_eq "another word still asks" "$v" ask
v=$(cd "$P" && "$BWGATE" check --json -- touch 'a b.txt' | jq -r .verdict)
assert_eq "bwgate check agrees in the project" "$v" allow
P2=$(new_project other)
v=$(cd "$P2" && "$BWGATE" check --json -- touch 'a b.txt' | jq -r .verdict)
assert_eq "another project: it asks" "$v" ask
# A runs the current request with the profile of the rule it adds.
agent eight -- touch ro.txt
check_screen "touch ro.txt asks" 10 '^! +8 .*touch ro\.txt +ask'
keys A
for i in 1 2 3 4 5 6; do
	tm capture-pane -p -t ui | grep -q 'profile: readonly (Tab' && break
	keys Tab
	wait_for 2 sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    grep -q 'profile: '"
done
check_screen "the readonly profile chosen" 5 'profile: readonly \(Tab'
keys Enter
wait_agent 20 eight
ok_unless "it ran with the rule's profile: nothing written" \
    test -e "$P/ro.txt"
assert_eq "the rule has that profile" \
    "$(jq -r '.rules[-1].profile' "$PRULES")" readonly
assert_match "the agent heard read-only in this profile" \
    "$(cat "$T/eight.err")" "read-only in this profile"

# For this console session only (w twice): the rule lives beside the
# console's sockets, never in the user's files, and ends with the console.
agent nine -- touch session.txt
check_screen "touch session.txt asks" 10 '^! +9 .*touch session\.txt +ask'
keys A w w
check_screen "w twice: this console session" 5 'where: this console session only'
keys Enter
wait_agent 20 nine
assert_eq "approved for the session" "$(agent_rc nine)" 0
ok_unless "  not in the user's rule files" grep -q session.txt "$RULES" "$PRULES"
session_files() { find "$XDG_RUNTIME_DIR" -name 'session-*.json' 2>/dev/null; }
assert_match "  but in the console's session rules" \
    "$(session_files | xargs cat 2>/dev/null)" "touch session.txt"
agent ten -- touch session.txt
wait_agent 20 ten
assert_eq "the same command runs without asking in this session" \
    "$(agent_rc ten)" 0
ui_stop
assert_eq "the session's rules end with the console" "$(session_files)" ""
v=$(cd "$P" && "$BWGATE" check --json -- touch session.txt | jq -r .verdict)
assert_eq "  and the command asks again" "$v" ask
done_testing
