#!/bin/bash
# ui-needs (issue 41): a yes gives what the verdict says the command needs.
# A commit asks with the profile git-write; a plain `a` then Enter, bulk
# approval (M, a, y), `bwgate approve ID` and the rule `A` saves all run it
# with git-write, so the commit is made (on the old code each got the
# project profile, .git read-only, and git exited 128). `curl localhost`
# says it needs the services' access, and `a`, Enter give the project
# profile.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

command -v git > /dev/null || { skip "ui needs" "no git"; done_testing; exit; }
git config --global user.name "Host Operator"
git config --global user.email "operator@example.org"
git config --global init.defaultBranch main
P="$T/repo"
mkdir -p "$P"
(cd "$P" && git init -q . && echo hello > a.txt && git add -A &&
    git commit -qm initial) || exit 1

subjects() {
	git -C "$P" log --format=%s | tr '\n' ' '
}
pending() {
	"$BWGATE" list --json | jq -e 'map(select(.state == "pending")) |
	    last | .id'
}

ui_start 160 50 || { done_testing; exit 1; }

# a, then Enter: the verdict's profile.
agent one -- sh -c 'echo 1 >> a.txt && git add -A && git commit -qm one'
check_screen "the commit waits" 10 '^! +1 '
check_screen "the detail says what it needs" 5 'needs +git-local'
keys a
check_screen "the prompt offers what it needs" 5 \
    'approve #1: a/Enter git-write'
keys Enter
wait_agent 60 one
assert_eq "a, Enter: the commit ran" "$(agent_rc one)" 0
assert_match "a, Enter: the commit is made" "$(subjects)" '^one initial'

# Bulk approval: each request with its verdict's profile.
agent two -- sh -c 'echo 2 >> a.txt && git commit -qam two'
check_screen "a second commit waits" 10 '^! +2 '
agent three -- sh -c 'echo 3 > c.txt'
check_screen "a plain write waits" 10 '^! +3 '
keys M
check_screen "M: both marked" 5 '2 marked'
keys a
check_screen "a asks once for both" 5 'approve the 2 marked requests'
keys y
wait_agent 60 two && wait_agent 60 three
assert_eq "bulk: both ran" "$(agent_rc two)$(agent_rc three)" 00
assert_match "bulk: the commit is made" "$(subjects)" '^two one initial'
ok_if "bulk: the write is made" test -f "$P/c.txt"

# bwgate approve ID, with no --profile.
agent four -- git commit --allow-empty -qm four
check_screen "a third commit waits" 10 '^! +4 '
wait_for 10 pending
"$BWGATE" approve "$(pending)" > "$T/approve" 2>&1
wait_agent 60 four
assert_eq "bwgate approve: the commit ran" "$(agent_rc four)" 0
assert_match "bwgate approve: the commit is made" "$(subjects)" '^four two'

# A: the rule it saves has the profile, so the same commit then runs
# unasked and commits.
agent five -- git commit --allow-empty -qm five
check_screen "a fourth commit waits" 10 '^! +5 '
keys A
check_screen "the rule form offers git-write" 5 'profile: git-write'
keys Enter
wait_agent 60 five
assert_eq "A: the commit ran" "$(agent_rc five)" 0
# The rule goes to the operator's file for this project.
assert_eq "A: the rule has the profile" "$(cat "$XDG_CONFIG_HOME"/bwgate/*.json \
    "$XDG_CONFIG_HOME"/bwgate/*/*.json 2>/dev/null | jq -r '.rules[]? |
    select((.pattern // []) | join(" ") | test("-qm five")) | .profile')" \
    git-write
agent six -- git commit --allow-empty -qm five
wait_agent 60 six
assert_eq "the rule's command runs unasked" "$(agent_rc six)" 0
assert_match "and commits" "$(subjects)" '^five five four'

# curl of the loopback: the project's services, reached with their access
# (the project profile; a read-only sandbox has a loopback of its own).
agent seven -- curl -sS --max-time 5 http://127.0.0.1:9/
check_screen "curl localhost waits" 10 '^! +7 '
check_screen "the detail says it needs the services' access" 5 \
    "needs +services: reaches the project's services: runs with their access"
keys a
check_screen "the prompt offers the project profile" 5 \
    'approve #7: a/Enter project'
keys Enter
wait_agent 60 seven
assert_match "a, Enter: it ran with the project profile" \
    "$("$BWGATE" list --json | jq -r '.[] | select(.id == 7) |
    "\(.profile) \(.state)"')" '^project (finished|failed)'
ui_stop
done_testing
