#!/bin/bash
# git-workflow: everyday git through the console: a commit approved once
# with `bwgate approve --profile git-write` carries the host's identity and
# nothing of bwgate; read-only profiles take no optional lock and their
# refusals name the profile; a writable path under a protected one is
# refused, never silently ignored.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

command -v git > /dev/null || { skip "git workflow" "no git"; done_testing; exit; }
P="$T/repo"
mkdir -p "$P/src"
cd "$P"
git init -q .
echo hello > src/a.txt
git config --global user.name "Host Operator"
git config --global user.email "operator@example.org"
git config --global init.defaultBranch main
git add -A && git commit -qm initial
echo change >> src/a.txt
echo new > src/b.txt

start_console --headless
export BWGATE_SOCKET="$S"

# The newest pending request's id, once there is one.
pending() {
	"$BWGATE" list --json | jq -e 'map(select(.state == "pending")) |
	    last | .id'
}
# Submit "$@" in the background, approve it with the given approve
# options; leaves the output in $T/out and $T/err, the status in $rc.
approve_run() {
	local opts=$1; shift
	"$@" > "$T/out" 2> "$T/err" &
	local pid=$!
	wait_for 10 pending
	id=$(pending)
	"$BWGATE" approve $opts "$id" > "$T/approve" 2>&1
	arc=$?
	wait "$pid"
	rc=$?
}

# git add -A && git commit, approved once with the git-write profile.
approve_run "--profile git-write" "$BWGATE" sh -c \
    'git add -A && git commit -qm "by the agent"'
assert_eq "approve --profile git-write: accepted" "$arc" 0
assert_eq "git commit inside the sandbox succeeds" "$rc" 0
assert_eq "the commit carries the host's identity" \
    "$(git log -1 --format='%an <%ae> / %cn <%ce>')" \
    "Host Operator <operator@example.org> / Host Operator <operator@example.org>"
assert_eq "the commit has only the project's files" \
    "$(git show --name-only --format= HEAD | sort | tr '\n' ' ')" \
    "src/a.txt src/b.txt "
assert_eq "nothing of bwgate in the committed tree" \
    "$(git ls-tree -r --name-only HEAD | tr '\n' ' ')" "src/a.txt src/b.txt "
assert_eq "the host's tree is clean afterwards" "$(git status --porcelain)" ""
assert_eq "the argv the operator saw sets the identity" \
    "$(jq -r "select(.record == \"request\" and .id == $id) | .bwrap_argv |
    .[index(\"GIT_AUTHOR_NAME\") + 1]" "$AUDIT")" "Host Operator"
assert_eq "the audit log records the profile choice" \
    "$(jq -r "select(.record == \"profile\" and .id == $id) | .profile" \
    "$AUDIT")" git-write
ok_unless "no other dotfile of the home reached it" \
    "$BWGATE" exec --quiet --project "$P" -- test -e "$HOME/.gitconfig"
# A dotfile named in the configuration comes in, read-only.
echo "{\"sandbox\":{\"readonly\":[\"$HOME/.gitconfig\"]}}" \
    > "$XDG_CONFIG_HOME/bwgate/config.json"
out=$("$BWGATE" exec --quiet --project "$P" -- git config --get user.name)
assert_eq "a configured dotfile is visible" "$out" "Host Operator"
ok_unless "and read-only" "$BWGATE" exec --quiet --project "$P" -- \
    git config --global user.name Changed
assert_eq "the host's file is intact" "$(git config --global user.name)" \
    "Host Operator"
rm "$XDG_CONFIG_HOME/bwgate/config.json"
# An absent protected file is absent inside too (no stand-in, issue 36),
# so `git add -A && git commit` has nothing of bwgate's to take.
echo '{"sandbox":{"protected":[".envrc"]}}' \
    > "$XDG_CONFIG_HOME/bwgate/config.json"
"$BWGATE" exec --quiet --project "$P" --profile git-write -- sh -c \
    '! test -e .envrc && git add -A && git commit -qm nothing --allow-empty'
assert_eq "a commit with an absent protected .envrc: made" "$?" 0
assert_eq "nothing of bwgate in the commit" \
    "$(git ls-tree -r --name-only HEAD | tr '\n' ' ')" "src/a.txt src/b.txt "
ok_unless "and none on the host" test -e "$P/.envrc"
assert_eq "the host's tree is clean" "$(git status --porcelain)" ""
rm "$XDG_CONFIG_HOME/bwgate/config.json"

# Read-only profile: git status takes no optional lock, nothing refused.
approve_run "" "$BWGATE" run --json -- git status
assert_eq "git status (read-only profile) runs" "$rc" 0
assert_eq "no refused index.lock" "$(jq -c '.violations' "$T/out")" "[]"

# A write refused inside the project names the profile that allows it.
approve_run "--profile readonly" "$BWGATE" sh -c 'touch src/c.txt'
ok_unless "the write did not happen" test -e "$P/src/c.txt"
assert_match "refusal says read-only in this profile" "$(cat "$T/err")" \
    "read-only in this profile: the project is writable with the 'project' profile"
ok_unless "never 'outside the project'" grep -q "outside the project" "$T/err"

# A writable path under the protected .git: refused with a message. (A
# command the verdict says needs git-write, a commit, gets it: issue 41.)
"$BWGATE" sh -c 'echo x > notes.txt' > "$T/out" 2>&1 &
pid=$!
wait_for 10 pending
id=$(pending)
"$BWGATE" approve --rw "$P/.git" "$id" > "$T/approve" 2>&1
assert_eq "approve --rw .git: refused" "$?" 1
assert_match "it says why and what works" "$(cat "$T/approve")" \
    "inside the protected '$P/.git'.*git-write"
assert_eq "the request still waits" \
    "$("$BWGATE" list --json | jq -r ".[] | select(.id == $id) | .state")" \
    pending
"$BWGATE" approve --profile no-such-profile "$id" > "$T/approve" 2>&1
assert_eq "approve --profile unknown: refused" "$?" 1
"$BWGATE" deny "$id" > /dev/null
wait "$pid"
assert_eq "denied: 77" "$?" 77

stop_console
done_testing
