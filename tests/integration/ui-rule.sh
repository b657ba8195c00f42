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
keys A p
check_screen "prefix of one word" 5 'allow: mkdir \* '
keys +
check_screen "+: two words" 5 'allow: mkdir -p \* '
keys Enter
wait_agent 20 three
assert_eq "prefix rule: approved" "$(agent_rc three)" 0
agent four -- mkdir -p other
wait_agent 20 four
assert_eq "another mkdir -p runs without asking" "$(agent_rc four)" 0

# A command no pattern can hold is refused and nothing is written.
before=$(cat "$RULES")
agent five -- sh -c 'echo a b > x'
check_screen "a shell command asks" 10 '^! +5 '
keys A
check_screen "the form says why no rule fits" 5 'cannot make this rule'
keys Enter
check_screen "Enter does not approve it" 5 'cannot make this rule'
keys Escape
check_screen "Esc: nothing approved" 5 'no rule added, nothing approved'
assert_eq "the rule file is unchanged" "$(cat "$RULES")" "$before"
ok_unless "the command did not run" test -e "$P/x"
keys d Enter
wait_agent 20 five
assert_eq "denied afterwards" "$(agent_rc five)" 77

# A runs the current request with the profile of the rule it adds.
agent six -- touch ro.txt
check_screen "touch ro.txt asks" 10 '^! +6 .*touch ro\.txt +ask'
keys A
for i in 1 2 3 4 5 6; do
	tm capture-pane -p -t ui | grep -q 'profile: readonly (Tab' && break
	keys Tab
	wait_for 2 sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t ui |
	    grep -q 'profile: '"
done
check_screen "the readonly profile chosen" 5 'profile: readonly \(Tab'
keys Enter
wait_agent 20 six
ok_unless "it ran with the rule's profile: nothing written" \
    test -e "$P/ro.txt"
assert_eq "the rule has that profile" \
    "$(jq -r '.rules[-1].profile' "$RULES")" readonly
assert_match "the agent heard read-only in this profile" \
    "$(cat "$T/six.err")" "read-only in this profile"
done_testing
