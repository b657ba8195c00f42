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
assert_eq "  measured where the cd leads (&&: nothing runs if it fails)" \
    "$(field '.danger.targets|join(",")')" "src/big"
check 'cd src; rm -rf big'
assert_eq "  with ';' where the cd leads and where it may fail" \
    "$(field '.danger.targets|join(",")')" "big,src/big"

# `cd DIR && rm ../x`: the operand is taken from where the cd went (the rm
# runs only after it), so ../x is the project's x, not outside it.
assert_eq "cd DIR && rm -rf ../x: measured where the cd went" \
    "$(restores 'cd build && rm -rf ../src')" "danger true"
check 'cd build && rm -rf ../src'
assert_eq "  the at-stake line names the project's src" \
    "$(field .danger.at_stake)" \
    "deletes 1 file (100 B) under src/; undo puts all of it back"
ok_unless "  and says nothing of outside the project" grep -q outside \
    <<<"$(field .danger.at_stake)"
check 'cd build; rm -rf ../src'
assert_match "cd DIR; rm: where the cd may fail, ../src is outside" \
    "$(field .danger.at_stake)" "'../src' is outside the project"

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

# --- what is at stake: what would be deleted, not the flag ------------------
# In a git project the at-stake line names a pattern's matches (the first
# few, the rest counted) and says which git tracks (issue 41 item 3).
P3=$(new_project tracked)
git -C "$P3" init -q 2>/dev/null
(cd "$P3" && printf x > file.txt && printf 1 > out1.txt && printf 2 > out2.txt &&
    printf 3 > out3.txt && for i in 1 2 3 4 5; do printf $i > w1_$i.txt; done &&
    mkdir -p lib && printf a > lib/a.c && printf b > lib/b.c &&
    git add file.txt out1.txt w1_2.txt lib/a.c)
stake() {
	OUT=$(cd "$P3" && "$BWGATE" check --json --project "$P3" -- "$1")
	field "$2"
}
assert_eq "rm -r of a file: the file, tracked" \
    "$(stake 'rm -r file.txt' .danger.at_stake)" \
    "deletes file.txt (1 B, tracked); undo puts all of it back"
ok_unless "  and no word of directories" grep -qi director <<<"$OUT"
assert_eq "a pattern's matches named, tracked or untracked" \
    "$(stake 'rm -rf out*.txt' .danger.at_stake)" \
    "deletes out1.txt (1 B, tracked), out2.txt (1 B, untracked), out3.txt (1 B, untracked); undo puts all of it back"
assert_eq "more matches than named: the rest counted" \
    "$(stake 'rm -rf w1_*.txt' .danger.at_stake)" \
    "deletes w1_1.txt (1 B, untracked), w1_2.txt (1 B, tracked), 3 more matching w1_*.txt (3 files, 3 B, untracked); undo puts all of it back"
assert_eq "a directory: how many of its files git tracks" \
    "$(stake 'rm -rf lib' .danger.at_stake)" \
    "deletes 2 files (2 B, 1 tracked) under lib/; undo puts all of it back"
assert_eq "a pattern that matches nothing says so" \
    "$(stake 'rm -rf zz*.txt' .danger.at_stake)" \
    "deletes nothing that exists now; 'zz*.txt' matches nothing now; undo puts all of it back"
# A delete that is not danger says what it puts at stake too (deletes.json).
assert_eq "rm -f of a pattern: its matches, tracked or untracked" \
    "$(stake 'rm -f out*.txt' '[.verdict, .at_stake] | join(" / ")')" \
    "ask / deletes out1.txt (1 B, tracked), out2.txt (1 B, untracked), out3.txt (1 B, untracked); undo puts all of it back"
assert_eq "rm of a file" "$(stake 'rm file.txt' .at_stake)" \
    "deletes file.txt (1 B, tracked); undo puts all of it back"
assert_eq "unlink of a file" "$(stake 'unlink w1_1.txt' .at_stake)" \
    "deletes w1_1.txt (1 B, untracked); undo puts all of it back"
assert_eq "a quoted pattern names one file, not its matches" \
    "$(stake "rm -f 'out*.txt'" .at_stake)" \
    "deletes nothing that exists now; 'out*.txt' does not exist; undo puts all of it back"
assert_eq "a command that deletes nothing has none" \
    "$(stake 'ls out*.txt' .at_stake)" null
assert_match "the text output has the line for a plain rm too" \
    "$(cd "$P3" && "$BWGATE" check --project "$P3" -- 'rm -f out*.txt')" \
    'at stake: deletes out1.txt \(1 B, tracked\)'
assert_match "the text output has the at-stake line" \
    "$(cd "$P3" && "$BWGATE" check --project "$P3" -- 'rm -rf out*.txt')" \
    'at stake: deletes out1.txt \(1 B, tracked\)'

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
# A cd that may not go where its word says is not followed: nothing is
# measured (CDPATH, a function or wrapper named cd, a negated cd, a link).
for c in 'CDPATH=sub; cd big && rm -rf f' 'v=CDPATH; declare "$v=sub"; cd big && rm -rf f' \
    'cd() { :; }; cd zz && rm -rf src' 'builtin cd zz && rm -rf src' \
    'command cd zz && rm -rf src' '! cd zz && rm -rf ../src' \
    'cd link && rm -rf ../src' 'rm -rf b*/../src' 'cd build; rm -rf ../src'; do
	assert_eq "asks in sandboxed mode: $c" "$(restores "$c")" \
	    "danger false"
done
# A plain rm beside a danger's delete is measured with it: undo must put
# back both (rm -f of a file over its limit for one file asks).
assert_eq "rm -f of a file over undo's limit beside rm -rf" \
    "$(BWGATE_UNDO_FILE_MAX=6K restores 'rm -f sub/big/f && rm -rf build')" \
    "danger false"
assert_eq "  the same without it runs at once" \
    "$(BWGATE_UNDO_FILE_MAX=6K restores 'rm -f src/a.txt && rm -rf build')" \
    "danger true"
assert_eq "a plain rm whose operands are not known beside rm -rf" \
    "$(restores 'xargs rm < list && rm -rf build')" "danger false"
assert_eq "  nor are these" "$(restores 'rm -f $F && rm -rf build')" \
    "danger false"
# After a ||, a cd followed by && may have been skipped (bash reads
# `cd sub || cd build && rm -rf big` as (cd sub || cd build) && rm): the
# rm may run in sub, where big is over the limit.
assert_eq "a cd after || is not the only place the rm runs" \
    "$(BWGATE_UNDO_FILE_MAX=6K restores 'cd sub || cd build && rm -rf big')" \
    "danger false"
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
