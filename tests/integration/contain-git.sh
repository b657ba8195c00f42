#!/bin/bash
# Section 2 of issue 9: git metadata at any depth. A submodule's gitdir
# file, a nested repository and a new .git cannot be turned into a
# repository whose config runs the command's code on the operator's next
# `git status`; git-write writes git's data, never what makes git run code
# or look elsewhere. Each attack is followed by real git on the host.
. "$(dirname "$0")/libtest.sh"

export GIT_CONFIG_GLOBAL="$T/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --global user.name t
git config --global user.email t@example.invalid
git config --global init.defaultBranch main
git config --global protocol.file.allow always
MARK="$T/fsmonitor-ran"

SUB="$T/subrepo"
git init -q "$SUB" && echo s > "$SUB/s" && git -C "$SUB" add s &&
	git -C "$SUB" commit -qm s
P="$T/proj"
git init -q "$P" && echo a > "$P/a" && git -C "$P" add a &&
	git -C "$P" -c protocol.file.allow=always submodule -q add "$SUB" sub &&
	git -C "$P" commit -qm init
git init -q "$P/nested"		# a nested repository (not a submodule)
cd "$P" || exit 1
gitfile=$(cat "$P/sub/.git")
run() { "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }

# A fake repository whose config runs code on `git status` (core.fsmonitor).
evil_repo() {
	printf 'mkdir -p %s/objects %s/refs/heads; echo "ref: refs/heads/main" > %s/HEAD; printf "[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \\"touch %s; false\\"\\n" > %s/config' \
	    "$1" "$1" "$1" "$MARK" "$1"
}
host_git_status() { (cd "$1" && git status >/dev/null 2>&1); }

# 1. A submodule's gitdir file replaced by a directory.
run -- sh -c "rm -f sub/.git; $(evil_repo sub/.git)" >/dev/null
assert_eq "submodule's .git file intact" "$(cat "$P/sub/.git")" "$gitfile"
host_git_status "$P/sub"
ok_unless "host git status in the submodule ran nothing" test -e "$MARK"
# ... or by renaming the submodule directory away first.
run -- sh -c "mv sub sub-aside && mkdir sub && $(evil_repo sub/.git)" >/dev/null
ok_if "fresh sub/.git removed after the run" test ! -d "$P/sub/.git"
host_git_status "$P/sub" 2>/dev/null
ok_unless "host git status after the rename ran nothing" test -e "$MARK"
ok_if "the moved gitdir file is kept" test -f "$P/sub-aside/.git"
rm -rf "$P/sub" && mv "$P/sub-aside" "$P/sub"

# 2. A nested repository's config and hooks.
ok_unless "nested .git/config read-only" run -- sh -c 'echo "[core] fsmonitor = x" >> nested/.git/config'
ok_unless "nested .git/hooks read-only" run -- sh -c 'echo x > nested/.git/hooks/pre-commit'
ok_unless "nested .git cannot be removed" run -- sh -c 'rm -rf nested/.git; test ! -e nested/.git'

# 3. A new .git where there was none.
mkdir -p "$P/plain"
out=$("$BWGATE" exec --project "$P" -- sh -c "$(evil_repo plain/.git)" 2>&1)
ok_if "no plain/.git made (refused at the call)" test ! -e "$P/plain/.git"
assert_match "the refusal is reported" "$out" "refused [a-z]* '[^']*plain/.git'"
host_git_status "$P/plain"
ok_unless "host git status in plain/ ran nothing" test -e "$MARK"

# 4. git-write: git's data writable, its code and pointers not.
gw() { run --profile git-write "$@"; }
git worktree add -q "$T/wt" 2>/dev/null
ok_unless "git-write: .git/config read-only" gw -- sh -c 'echo "[core] fsmonitor = x" >> .git/config'
ok_unless "git-write: .git/hooks read-only" gw -- sh -c 'echo x > .git/hooks/pre-commit'
gw -- sh -c 'echo ../evil > .git/commondir' >/dev/null
ok_unless "git-write: .git/commondir cannot be planted" test -e "$P/.git/commondir"
ok_unless "git-write: info/attributes read-only" gw -- sh -c 'mkdir -p .git/info; echo "* filter=x" > .git/info/attributes'
ok_unless "git-write: objects/info/alternates read-only" gw -- sh -c 'echo /tmp > .git/objects/info/alternates'
ok_unless "git-write: worktrees/*/commondir read-only" gw -- sh -c 'echo /tmp > .git/worktrees/wt/commondir'
ok_unless "git-write: worktrees/*/gitdir read-only" gw -- sh -c 'echo /tmp > .git/worktrees/wt/gitdir'
ok_unless "git-write: modules/*/config read-only" gw -- sh -c 'echo "[core] fsmonitor = x" >> .git/modules/sub/config'
ok_unless "git-write: submodule gitdir file read-only" gw -- sh -c 'echo "gitdir: /tmp" > sub/.git'
echo b >> "$P/a"
out=$(gw -- git -c user.name=t -c user.email=t@example.invalid commit -qam b 2>&1; echo "rc=$?")
assert_match "git-write: a real git commit succeeds" "$out" "rc=0"
echo b > "$P/b" && git add b
out=$(gw -- git -c user.name=t -c user.email=t@example.invalid commit -qm b2 2>&1; echo "rc=$?")
assert_match "git-write: commit of a new file succeeds" "$out" "rc=0"
assert_eq "the commits are in the host repository" "$(git log --format=%s -1)" b2

# 5. Files other tools run on their own: protected by default (config.json).
mkdir -p "$P/.vscode" && echo '{}' > "$P/.vscode/tasks.json"
ok_unless "absent .envrc cannot be created" run -- sh -c 'echo "touch x" > .envrc'
ok_unless "no .envrc left behind" test -e "$P/.envrc"
ok_unless ".vscode/tasks.json read-only" run -- sh -c 'echo "{\"runOn\":1}" > .vscode/tasks.json'
assert_eq ".vscode/tasks.json intact" "$(cat "$P/.vscode/tasks.json")" "{}"
ok_unless "absent .husky/ cannot be created" run -- sh -c 'mkdir -p .husky && echo x > .husky/pre-commit'
ok_unless "absent .pre-commit-config.yaml cannot be created" run -- sh -c 'echo "repos: []" > .pre-commit-config.yaml'
echo '{"sandbox":{"protected":["!.envrc"]}}' > "$T/lift.json"
ok_if "a default can be lifted with !path" run --config "$T/lift.json" -- sh -c 'echo "# ok" > .envrc'
rm -f "$P/.envrc"
host_git_status "$P"
ok_unless "host git status ran nothing at the end" test -e "$MARK"
done_testing
