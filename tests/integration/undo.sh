#!/bin/bash
# bwgate undo puts a run back exactly: a random mix of file operations
# (python3 generator, seed printed) through bwgate exec, then bwgate undo,
# and the tree equals the before-state byte for byte (content, modes,
# link targets, names). Plus: conflicts (named, stop, --force), a file
# over the size limit (named in the report), a store at its limit
# (oldest pruned), an interrupted save (never trusted), a run that
# changed nothing, a read-only run, several runs newest first.
. "$(dirname "$0")/libtest.sh"

GEN="$BWGATE_SRCDIR/tests/integration/undo-gen.py"
# The tree as text: type, mode, link target, content digest, per name.
tree() {
	(cd "$1" && find . -path ./.git -prune -o -path './.bwgate-undo*' \
	    -prune -o -printf '%y %m %p -> %l\n' | LC_ALL=C sort &&
	    find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z |
	    xargs -0 -r sha256sum)
}

P=$(new_project)
cd "$P" || exit 1
seeds="${UNDO_SEEDS:-$RANDOM $RANDOM $RANDOM}"
# An ordinary user's command that takes its own rwx off a directory closes
# it to bwgate too (bwgate(1), UNDO: a documented limit); root is not held
# back by modes. Such a user's runs keep the owner's way in.
RUN=run
[ "$(id -u)" -eq 0 ] || RUN=run-owner
for seed in $seeds; do
	echo "# seed $seed (UNDO_SEEDS=$seed to repeat)"
	rm -rf "$P"/* && (cd "$P" && python3 "$GEN" "$seed" setup)
	tree "$P" > "$T/before"
	python3 "$GEN" "$seed" "$RUN" > "$T/prog.py"
	jexec -- python3 -c "$(cat "$T/prog.py")"
	id=$(jfield .undo.id)
	ok_if "seed $seed: the run can be undone ($(jfield .undo))" \
	    test "$(jfield .undo.possible)" = true
	"$BWGATE" undo --project "$P" --run "$id" > "$T/undo.out" 2>&1
	rc=$?
	ok_if "seed $seed: undo succeeds ($(tail -3 "$T/undo.out"))" test "$rc" = 0
	tree "$P" > "$T/after"
	ok_if "seed $seed: the tree is as before" diff -u "$T/before" "$T/after"
	ok_unless "seed $seed: undo left no staging directory" \
	    compgen -G "$P/.bwgate-undo*"
done

# Root undoing a user's project: the sandbox ran as the owner, and what
# undo makes again is the owner's (the tree compared with owners).
owned_tree() {
	(cd "$1" && find . -path ./.git -prune -o -printf '%y %m %u:%g %p -> %l\n' |
	    LC_ALL=C sort)
}
if [ "$(id -u)" -ne 0 ]; then
	skip "undo keeps owners (root for a user's project)" "not root"
elif ! chown 4242:4242 "$P" 2>/dev/null || ! uid_reaches 4242 "$T"; then
	skip "undo keeps owners (root for a user's project)" \
	    "uid 4242 cannot own or reach the project here"
else
	use_installed_copy
	seed=${seeds%% *}
	rm -rf "$P"/* && (cd "$P" && python3 "$GEN" "$seed" setup)
	chown -R 4242:4242 "$P"
	owned_tree "$P" > "$T/before"
	tree "$P" >> "$T/before"
	python3 "$GEN" "$seed" "$RUN" > "$T/prog.py"
	jexec -- python3 -c "$(cat "$T/prog.py")"
	"$BWGATE" undo --project "$P" --run "$(jfield .undo.id)" > "$T/undo.out" 2>&1
	rc=$?
	ok_if "as the owner: undo succeeds ($(tail -1 "$T/undo.out"))" test "$rc" = 0
	owned_tree "$P" > "$T/after"
	tree "$P" >> "$T/after"
	ok_if "as the owner: the tree and its owners are as before" \
	    diff -u "$T/before" "$T/after"
	# An ordinary user's own bwgate: its store, its undo.
	U="$T/user4242"
	mkdir -p "$U/state" "$U/run" "$U/home"
	chmod 700 "$U/run"
	chown -R 4242:4242 "$U"
	as_user() {
		setpriv --reuid=4242 --regid=4242 --clear-groups -- env \
		    HOME="$U/home" XDG_STATE_HOME="$U/state" \
		    XDG_RUNTIME_DIR="$U/run" XDG_CONFIG_HOME="$U/home" \
		    BWGATE_DATADIR="$BWGATE_DATADIR" "$@"
	}
	# (Its command keeps its own way in: a directory it closes to its
	# owner hides what is below from the recorder too; bwgate(1), UNDO.)
	python3 "$GEN" "$seed" run-owner > "$T/prog.py"
	rm -rf "$P"/* && (cd "$P" && python3 "$GEN" "$seed" setup)
	chown -R 4242:4242 "$P"
	tree "$P" > "$T/before"
	# (--memory 0: without a cgroup the limit is RLIMIT_AS, which a
	# sanitizer build's helper cannot start under.)
	(cd "$P" && as_user "$BWGATE" exec --memory 0 --json --project "$P" \
	    -- python3 -c "$(cat "$T/prog.py")") > "$T/report.json" 2>/dev/null
	as_user "$BWGATE" undo --project "$P" --run "$(jfield .undo.id)" \
	    > "$T/undo.out" 2>&1
	rc=$?
	ok_if "an ordinary user: undo succeeds ($(tail -1 "$T/undo.out"))" \
	    test "$rc" = 0
	tree "$P" > "$T/after"
	ok_if "an ordinary user: the tree is as before" \
	    diff -u "$T/before" "$T/after"
	ok_if "an ordinary user: the store is the user's" \
	    test -d "$U/state/bwgate/undo"
	chown -R 0:0 "$P"
fi

# Conflicts: a file changed again since the run stops the undo.
rm -rf "$P"/* && echo one > "$P/c.txt" && echo two > "$P/d.txt"
jexec -- sh -c 'echo run > c.txt; rm d.txt'
id=$(jfield .undo.id)
echo later > "$P/c.txt"
"$BWGATE" undo --project "$P" --run "$id" > "$T/out" 2>&1
rc=$?
ok_if "a conflict stops the undo (status 1)" test "$rc" = 1
assert_match "the conflict is named" "$(cat "$T/out")" "conflict: c.txt"
ok_if "nothing was undone" test "$(cat "$P/c.txt")" = later -a ! -e "$P/d.txt"
"$BWGATE" undo --project "$P" --run --force "$id" > "$T/out" 2>&1
ok_if "--force undoes it" test "$(cat "$P/c.txt")" = one -a "$(cat "$P/d.txt")" = two
"$BWGATE" undo --project "$P" --run "$id" > "$T/out" 2>&1
assert_match "a second undo has nothing to do" "$(cat "$T/out")" "undone already"

# Several runs, newest first.
rm -rf "$P"/* && echo v0 > "$P/v"
jexec -- sh -c 'echo v1 > v'; id1=$(jfield .undo.id)
jexec -- sh -c 'echo v2 > v; mv v w'; id2=$(jfield .undo.id)
"$BWGATE" undo --project "$P" --run "$id1" "$id2" > "$T/out" 2>&1
ok_if "two runs undone newest first" test "$(cat "$P/v")" = v0 -a ! -e "$P/w"
# The newer run removed what the older changed: made again by the first
# undo (another inode, the same state), the second goes on.
rm -rf "$P"/* && mkdir "$P/d" && echo a > "$P/d/f"
jexec -- sh -c 'echo b > d/f'; id1=$(jfield .undo.id)
jexec -- rm -r d; id2=$(jfield .undo.id)
"$BWGATE" undo --project "$P" --run "$id2" "$id1" > "$T/out" 2>&1
ok_if "a removed tree made again, then the older run undone" \
    test "$(cat "$P/d/f")" = a

# A file over the size limit is named, in the report and by undo.
rm -rf "$P"/* && head -c 5000 /dev/urandom > "$P/big" && echo s > "$P/small"
BWGATE_UNDO_FILE_MAX=4K jexec -- sh -c 'echo x > big; echo y > small'
assert_eq "the run's undo is partial" "$(jfield .undo.complete)" false
assert_eq "the big file is named" "$(jfield '.undo.unsaved[0].path')" '"big"'
assert_match "and why" "$(jfield '.undo.unsaved[0].why')" "size limit"
"$BWGATE" undo --project "$P" --run "$(jfield .undo.id)" > "$T/out" 2>&1
assert_match "undo says what it will not restore" "$(cat "$T/out")" \
    "undo will not restore big"
ok_if "the small one is back" test "$(cat "$P/small")" = s

# A store at its limit: the oldest runs are pruned first.
rm -rf "$P"/*
for i in 1 2 3 4; do head -c 3000 /dev/urandom > "$P/f$i"; done
ids=""
for i in 1 2 3 4; do
	BWGATE_UNDO_TOTAL_MAX=7K jexec -- sh -c "echo x > f$i"
	ids="$ids $(jfield .undo.id)"
done
set -- $ids
"$BWGATE" undo --project "$P" --run --dry-run "$1" > "$T/out" 2>&1
ok_unless "the oldest run was pruned" test $? = 0
"$BWGATE" undo --project "$P" --run --dry-run "$4" > "$T/out" 2>&1
ok_if "the newest run is kept" test $? = 0
store=$(find "$XDG_STATE_HOME/bwgate/undo" -mindepth 1 -maxdepth 1 -type d)
size=$(find "$store/objects" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
ok_if "the store holds at most its limit ($size bytes)" test "$size" -le 7168

# An interrupted save (no manifest) is never trusted.
mkdir -p "$store/runs/999"
"$BWGATE" undo --project "$P" --run 999 > "$T/out" 2>&1
ok_if "an interrupted run is refused" test $? = 125
assert_match "and said so" "$(cat "$T/out")" "not saved completely"

# A run killed while it saves: its record is never trusted, and the next
# run prunes it (its saver is gone).
rm -rf "$P"/* && head -c 100000 /dev/urandom > "$P/k"
(cd "$P" && exec "$BWGATE" exec --project "$P" -- \
    sh -c 'echo x > k; sleep 60' > /dev/null 2>&1) &
kpid=$!
partial() {
	for d in "$store"/runs/*; do
		# (small files go to the run's pack, made with the first)
		{ [ -s "$d/blobs" ] || [ -e "$d/pack" ]; } &&
		    [ ! -e "$d/manifest.json" ] &&
		    { basename "$d"; return 0; }
	done
	return 1
}
wait_for 30 partial
kid=$(partial)
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null
"$BWGATE" undo --project "$P" --run "$kid" > "$T/out" 2>&1
ok_if "a run killed mid-save cannot be undone" test $? = 125
assert_match "and undo says why" "$(cat "$T/out")" "not saved completely"
jexec -- sh -c 'echo y > k'
ok_unless "the next run prunes the interrupted one" test -d "$store/runs/$kid"

# Nothing changed, and a read-only run.
jexec -- true
assert_eq "a run that changed nothing has nothing to undo" \
    "$(jfield .undo)" '{"possible":false,"why":"nothing changed"}'
jexec --profile readonly -- cat f1 > /dev/null
assert_match "a read-only run says nothing to undo" "$(jfield .undo.why)" "read-only"

# The undo is audited.
ok_if "undo is in the audit log" grep -q '"record":"undo"' \
    "$XDG_STATE_HOME/bwgate/audit.jsonl"
done_testing
