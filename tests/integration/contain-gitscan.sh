#!/bin/bash
# The scan for nested .git reads only the directories that changed since
# the last one (gitscan, kept in the runtime directory). Each attack tries
# to make that scan miss a .git, then writes a config that runs code on
# the operator's next `git status`; real git on the host checks the result.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/libgitattack.sh"

LOG="$T/bwgate.log"
export BWGATE_LOG="$LOG"

P="$T/proj"
git init -q "$P"
mkdir -p "$P/a/b/c" "$P/lib/x" "$P/aside/sub" "$P/deep/1/2/3/4/5"
# Enough directories to be worth a kept scan (256).
mkdir -p $(seq -f "$P/many/d%g" 1 300)
cd "$P" || exit 1
run() { "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }

# The last scan's line of the debug log.
last_scan() { grep 'gitscan_project:' "$LOG" | tail -1; }
# Until every directory of the project is older than the settling time
# (2 s): only then does a scan take a directory from the last one.
settle() {
	local newest
	newest=$(find "$P" -name .git -prune -o -type d -printf '%C@\n' |
	    sort -n | tail -1)
	wait_for 10 sh -c 'awk -v n="$0" -v t="$(date +%s.%N)" \
	    "BEGIN { exit !(t > n + 2.2) }"' "$newest"
}
rundir="$XDG_RUNTIME_DIR/bwgate"

evil_repo "$P/aside/sub/.git"
settle

# 0. The cache is made, then used: a second run reads (almost) nothing.
run -- true > /dev/null
ok_if "the scan is kept in the runtime directory" \
	sh -c "ls '$rundir' | grep -q '^gitscan-'"
run -- true > /dev/null
assert_match "the next run takes it from the last scan" "$(last_scan)" \
	"[0-9]+ directories, [01] read, 2 .git \(from the last scan\)"

# 1. A .git made on the host in an old directory, its modification time
#    put back as it was: the change time still moved, so the scan reads it.
touch -r "$P/a/b/c" "$T/c-times"
evil_repo "$P/a/b/c/.git"
touch -m -r "$T/c-times" "$P/a/b/c"
assert_eq "the directory's modification time is as it was" \
	"$(stat -c %y "$P/a/b/c")" "$(stat -c %y "$T/c-times")"
ok_unless "a .git made behind the cache is read-only" \
	run -- sh -c "printf '\tfsmonitor = x\n' >> a/b/c/.git/config"
assert_match "found through the last scan" "$(last_scan)" \
	"3 \.git \(from the last scan\)"
ok_unless "no hooks can be added to it" \
	run -- sh -c 'mkdir -p a/b/c/.git/hooks && echo x > a/b/c/.git/hooks/post-checkout'

# 2. A known directory replaced by rename with a tree holding a .git:
#    the name keeps, the inode does not.
out=$(run -- sh -c 'mv a a.old && mv aside a')
ok_if "the moved .git was kept (known by inode)" test -d "$P/a/sub/.git"
ok_unless "after the rename, a/sub/.git is read-only" \
	run -- sh -c "printf '\tfsmonitor = \"touch $MARK; false\"\n' >> a/sub/.git/config"
host_git_status "$P/a/sub"
ok_unless "host git status in a/sub ran nothing" test -e "$MARK"

# 3. A directory swapped for a symbolic link to itself moved aside: the
#    link is not followed; the real path is read and protected.
run -- sh -c 'mv a.old/b a.old/b2 && ln -s b2 a.old/b' > /dev/null
ok_unless "through the real path: read-only" \
	run -- sh -c "printf '\tfsmonitor = x\n' >> a.old/b2/c/.git/config"
ok_unless "through the link: read-only" \
	run -- sh -c "printf '\tfsmonitor = x\n' >> a.old/b/c/.git/config"

# 4. A new .git deep in a tree the command just made, or in a directory
#    that was there: removed after the run, whatever the cache said.
settle
run -- true > /dev/null
out=$("$BWGATE" exec --project "$P" -- sh -c \
    "mkdir -p fresh/x/.git/hooks deep/1/2/3/4/5/.git" 2>&1)
ok_if "a .git in a new tree is removed" test ! -e "$P/fresh/x/.git"
ok_if "a .git in an old deep directory is removed" \
	test ! -e "$P/deep/1/2/3/4/5/.git"
assert_match "the first refusal is reported" "$out" \
    "refused [a-z]* '[^']*fresh/x/.git'"
assert_match "the second refusal is reported" "$out" \
    "refused [a-z]* '[^']*deep/1/2/3/4/5/.git'"

# 5. The runtime directory is not in the sandbox: the cache cannot be
#    rewritten by the command.
ok_unless "the cache is out of the sandbox's sight" \
	run -- sh -c "ls '$rundir'"
ok_unless "... and cannot be written" \
	run -- sh -c "echo x > '$rundir/gitscan-x'"

# 6. A damaged or foreign cache is not used: the project is read whole.
cache=$(ls "$rundir"/gitscan-* | head -1)
settle
for damage in truncate garbage reorder symlink; do
	case $damage in
	truncate) head -c 200 "$cache" > "$T/c" && cat "$T/c" > "$cache" ;;
	garbage) printf 'bwgate-gitscan 2\nw 1 1\nd x\n' > "$cache" ;;
	reorder) { head -2 "$cache"; printf 'd 1 1 1 1 0 1\nz\n'; tail -n +3 "$cache"; } > "$T/c" &&
		cat "$T/c" > "$cache" ;;
	symlink) printf 'bwgate-gitscan 2\nw 1 1\n' > "$T/forged" &&
		rm -f "$cache" && ln -s "$T/forged" "$cache" ;;
	esac
	ok_unless "cache $damage: a nested .git stays read-only" \
		run -- sh -c "printf '\tfsmonitor = x\n' >> a/sub/.git/config"
	assert_match "cache $damage: walked whole" "$(last_scan)" \
		"[0-9]+ directories, [0-9]+ read, 3 \.git$"
done
ok_unless "the link was replaced, not followed" test -L "$cache"
assert_eq "the file it pointed at is untouched" "$(cat "$T/forged")" \
	"$(printf 'bwgate-gitscan 2\nw 1 1')"

# 7. As an ordinary user, a directory we may not read may hide a .git:
#    the command could chmod it and write there. Read-only whole.
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$P/locked/inner"
	evil_repo "$P/locked/inner/.git"
	chmod 000 "$P/locked"
	ok_unless "an unreadable directory cannot be opened up" \
		run -- sh -c "chmod 755 locked && printf '\tfsmonitor = x\n' >> locked/inner/.git/config"
	chmod 755 "$P/locked"
	ok_unless "its .git config is untouched" grep -q fsmonitor "$P/locked/inner/.git/config"
	ok_if "the .git is still there" test -d "$P/locked/inner/.git"
else
	skip "an unreadable directory cannot be opened up" "as root every directory is readable (the unprivileged pass runs it)"
fi

# 8. Out of descriptors halfway down a deep new tree: the command does not
#    run beside directories no one looked into.
mkdir -p "$P/$(printf 'n/%.0s' $(seq 1 40))"
out=$(ulimit -n 30; run -- sh -c 'echo RAN')
assert_match "a scan out of descriptors says so in one line" "$out" \
	"^bwgate: cannot read 'n/n/[n/]*' to look for .git: Too many open files$"
ok_unless "... and the command did not run" \
	sh -c "printf '%s' \"\$0\" | grep -q RAN" "$out"
out=$(run -- sh -c 'echo RAN')
assert_eq "with descriptors, it runs" "$out" "RAN"

for d in a a/sub a.old/b2/c; do
	host_git_status "$P/$d"
done
ok_unless "host git status ran nothing at the end" test -e "$MARK"
done_testing
