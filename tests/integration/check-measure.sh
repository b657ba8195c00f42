#!/bin/bash
# check-measure (issue 41 items 3 and 5): `bwgate check` with the real
# binary in a real project. A delete is measured against undo before it
# runs (danger.undo_restores: sandboxed mode runs it at once) only when
# every operand is known, inside the project and within undo's limits;
# words not known before the command runs are danger (opaque-words);
# git merge, cherry-pick and revert are git-local (at_once), reset and
# rebase are not.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
mkdir -p build/sub src/big sub/big
head -c 4096 /dev/zero > build/sub/f
head -c 100 /dev/zero > src/a.txt
head -c 8192 /dev/zero > sub/big/f
ln -s build link
check() {
	OUT=$("$BWGATE" check --json --project "$P" -- "$1" 2>"$T/err")
	RC=$?
}
field() {
	jq -r "$1" <<<"$OUT"
}
restores() {
	check "$1"
	printf '%s %s' "$(field .verdict)" "$(field .danger.undo_restores)"
}

# --- what undo puts back: at once in sandboxed mode -------------------------
assert_eq "rm -rf of a directory undo keeps" "$(restores 'rm -rf build')" \
    "danger true"
check 'rm -rf build'
assert_eq "  every operand measured" "$(field '.danger.targets|join(",")')" \
    build
assert_eq "rm -r of a directory and a file" \
    "$(restores 'rm -r -f build src/a.txt')" "danger true"
assert_eq "a delete of what does not exist" "$(restores 'rm -rf gone')" \
    "danger true"
assert_eq "through cd into the project" "$(restores 'cd src && rm -rf big')" \
    "danger true"
check 'cd src && rm -rf big'
assert_eq "  measured where the cd leads and where it may fail" \
    "$(field '.danger.targets|join(",")')" "big,src/big"

assert_eq "a pattern, by what it matches now" \
    "$(restores 'rm -rf build/s*')" "danger true"
assert_eq "a pattern that matches nothing" "$(restores 'rm -rf build/x*')" \
    "danger true"
assert_eq "a pattern whose matches are over undo's limit" \
    "$(BWGATE_UNDO_RUN_MAX=2K restores 'rm -rf build/s*')" "danger false"

# A pattern at the top with no literal start is the whole project, however
# small: it asks.
P2=$(new_project small)
for c in 'rm -rf *' 'rm -rf *.txt' 'rm -rf ?rc'; do
	v=$(cd "$P2" && "$BWGATE" check --json --project "$P2" -- "$c" |
	    jq -r '.danger.undo_restores')
	assert_eq "a pattern at the project's top asks: $c" "$v" false
done
v=$(cd "$P2" && "$BWGATE" check --json --project "$P2" -- 'rm -rf s*' |
    jq -r '.danger.undo_restores')
assert_eq "  but not after a literal start" "$v" true

# --- what still asks in sandboxed mode ---------------------------------------
for c in 'rm -rf *' 'rm -rf lin*' 'rm -rf b*/sub' 'rm -rf -* build' \
    'xargs rm -rf build' 'rm -rf link' 'rm -rf .' \
    'rm -rf ./' "rm -rf $T" 'cd .. && rm -rf build' 'cd - && rm -rf build' \
    'D=build; rm -rf $D' 'rm -rf build && bash -c "$X"' \
    'rm -rf build; eval x' 'rm -rf build && echo x > .github/workflows/c.yml' \
    'sudo rm -rf build' 'find . -name x -delete'; do
	assert_eq "asks in sandboxed mode: $c" "$(restores "$c")" \
	    "danger false"
done
# The cd is followed: ./big is absent, sub/big is over the limit.
assert_eq "a cd into a directory too big for undo" \
    "$(BWGATE_UNDO_RUN_MAX=6K restores 'cd sub && rm -rf big')" "danger false"
assert_eq "over undo's limit for one run" \
    "$(BWGATE_UNDO_RUN_MAX=2K restores 'rm -rf build')" "danger false"
assert_eq "over undo's limit for one file" \
    "$(BWGATE_UNDO_FILE_MAX=1K restores 'rm -rf build')" "danger false"
assert_eq "undo off" "$(BWGATE_UNDO=0 restores 'rm -rf build')" \
    "danger false"

# --- words not known before the command runs: the worst they could be ------
for c in "eval 'rm -rf src'" 'x=rm; $x -rf src' '$(echo rm) -rf src' \
    '{rm,-rf,src}' "echo 'rm -rf src' | sh" 'bash -s < x.sh' \
    'bash -c "$CMD"' 'for f in src; do eval "rm -rf $f"; done' \
    "$(printf "cat <<'EOF' | sh\nrm -rf src\nEOF")"; do
	check "$c"
	assert_eq "danger: $c" "$(field .verdict) $(field .danger.id)" \
	    "danger opaque-words"
done
for c in 'sh build.sh' "bash -lc 'ls'" 'echo eval' "zsh -lc '~/bin/tool list'"; do
	check "$c"
	ok_unless "not opaque: $c" test "$(field .danger.id)" = opaque-words
done

# --- git in sandboxed mode ---------------------------------------------------
for c in 'git merge origin/main' 'git cherry-pick 9159e7a' \
    'git cherry-pick --abort' 'git revert HEAD'; do
	check "$c"
	assert_eq "at once with git-write: $c" \
	    "$(field .profile) $(field .needs.at_once)" "git-write true"
done
for c in 'git reset --hard HEAD~1' 'git rebase --abort' \
    'git merge origin/main && git push' 'git fetch && git merge FETCH_HEAD'; do
	check "$c"
	assert_eq "asks: $c" "$(field .needs.at_once)" false
done
check 'git add . && git commit -qm x && git push'
assert_eq "a commit and a push: the verdict names the push" \
    "$(field .needs.id) $(field .profile)" "git-network git-write+network"
done_testing
