#!/bin/bash
# A large project's watcher (gitwatch) tells runs where every .git is, so
# they read nothing. Each attack tries to make the watcher miss a .git,
# then writes a config that runs code on the operator's next `git status`;
# real git on the host checks the result. BWGATE_GITWATCH=1 starts the
# watcher for this small project (it waits for 1,024 directories).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/libgitattack.sh"

export BWGATE_GITWATCH=1
LOG="$T/bwgate.log"
export BWGATE_LOG="$LOG"

P="$T/proj"
git init -q "$P"
mkdir -p "$P/a/b/c" "$P/aside/sub" "$P/deep/1/2/3/4/5" "$P/mv/x/y"
cd "$P" || exit 1
run() { "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }
rundir="$XDG_RUNTIME_DIR/bwgate"
key=$(stat -c '%d %i' "$P" | awk '{ printf "%x-%x", $1, $2 }')
LOCK="$rundir/gitwatch-$key.lock"
SOCK="$rundir/gitwatch-$key.sock"
TEARDOWN='rm -rf "$P"'	# the watcher leaves with its project

# The pid of the live watcher: written in its lock file.
watcher() {
	local pid
	read -r pid _ < "$LOCK" 2>/dev/null || return 1
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = bwgate-gitwatch ] &&
		echo "$pid"
}
# Did the last run ask the watcher (before the command: nothing is swept
# after it any more, the observer decides each call)?
asked() {
	[ "$(grep -c 'gitwatch_ask: [0-9]* directories watched' "$LOG")" -ge "$1" ]
}
fresh_log() { : > "$LOG"; }

evil_repo "$P/aside/sub/.git"

# 0. The first writable run scans and starts the watcher; the next asks.
run -- true > /dev/null
ok_if "the first run starts a watcher" grep -q 'started a watcher' "$LOG"
ok_if "it listens in the runtime directory" wait_for 10 test -S "$SOCK"
pid=$(watcher)
ok_if "its lock file names it" test -n "$pid"
assert_eq "it is named for ps" "$(cat /proc/$pid/comm 2>/dev/null)" \
	"bwgate-gitwatch"
fresh_log
ok_unless "a nested .git is read-only through the watcher" \
	run -- sh -c "printf 'x\n' >> aside/sub/.git/config"
ok_if "the run asked the watcher" asked 1
ok_unless "... and did not scan" grep -q 'gitscan_project:' "$LOG"

# 1. A .git made on the host between runs, the directory's times put
#    back: the watcher saw the name appear.
touch -r "$P/a/b/c" "$T/c-times"
evil_repo "$P/a/b/c/.git"
touch -m -r "$T/c-times" "$P/a/b/c"
ok_unless "a .git made between runs is read-only" \
	run -- sh -c "$(poison a/b/c/.git/config)"

# 2. A known directory replaced by rename with a tree holding a .git.
run -- sh -c 'mv a a.old && mv aside a' > /dev/null
ok_if "the moved .git was kept (known by inode)" test -d "$P/a/sub/.git"
ok_unless "after the rename, a/sub/.git is read-only" \
	run -- sh -c "$(poison a/sub/.git/config)"
ok_unless "... and so is a.old/b/c/.git" \
	run -- sh -c "$(poison a.old/b/c/.git/config)"

# 3. A directory swapped for a symbolic link: not followed; the real path
#    is protected.
run -- sh -c 'mv a.old/b a.old/b2 && ln -s b2 a.old/b' > /dev/null
ok_unless "through the real path: read-only" \
	run -- sh -c "$(poison a.old/b2/c/.git/config)"

# 4. New .git entries made by the command: refused at the call, in a new
#    tree and an old one.
fresh_log
out=$("$BWGATE" exec --project "$P" -- sh -c \
    "mkdir -p fresh/x/.git/hooks deep/1/2/3/4/5/.git" 2>&1)
ok_if "a .git in a new tree is not made" test ! -e "$P/fresh/x/.git"
ok_if "a .git in an old deep directory is not made" \
	test ! -e "$P/deep/1/2/3/4/5/.git"
assert_match "the refusals are reported" "$out" \
    "refused [a-z]* '[^']*fresh/x/.git'"
ok_if "the answer came from the watcher" asked 1

# 5. Renames in a burst, so the watcher reads events about directories
#    that moved since: a tree made, renamed, given a .git, renamed again,
#    moved under another, and a known .git moved along.
out=$("$BWGATE" exec --project "$P" -- sh -c '
	for i in 1 2 3 4 5 6 7 8; do
		mkdir -p q$i/w/e && mv q$i r$i && mkdir r$i/w/e/.git &&
		mv r$i mv/x/s$i && mv mv/x/s$i mv/x/y/t$i
	done
	mv a mv/x/y/moved-a' 2>&1)
left=$(find "$P/mv" -path '*/w/e/.git' | wc -l)
assert_eq "no .git of the burst is made" "$left" 0
ok_if "the known .git moved along is kept" test -d "$P/mv/x/y/moved-a/sub/.git"
assert_match "... and reported as moved along with its tree" "$out" \
	"> a -> mv/x/y/moved-a"
ok_unless "at its new place it is read-only" \
	run -- sh -c "$(poison mv/x/y/moved-a/sub/.git/config)"

# 5b. The same on the host while the watcher is stopped: it reads the
#     events late, about directories that have moved since (a .git made
#     in a watched directory, which is then renamed).
mkdir -p "$P"/w1 "$P"/w2 "$P"/w3
run -- true > /dev/null		# watched now
pid=$(watcher)
kill -STOP "$pid"
for i in 1 2 3; do
	evil_repo "$P/w$i/n/.git" && mv "$P/w$i" "$P/mv/w$i"
done
for i in 1 2 3 4 5 6; do
	mkdir -p "$P/h$i/w/e" && mv "$P/h$i" "$P/g$i" &&
	evil_repo "$P/g$i/w/e/.git" && mv "$P/g$i" "$P/mv/x/k$i" &&
	mv "$P/mv/x/k$i" "$P/mv/x/y/k$i"
done
kill -CONT "$pid"
run -- sh -c "for i in 1 2 3 4 5 6; do $(poison 'mv/x/y/k$i/w/e/.git/config') 2>/dev/null; done" > /dev/null
run -- sh -c "for i in 1 2 3; do $(poison 'mv/w$i/n/.git/config') 2>/dev/null; done" > /dev/null
left=$(grep -l fsmonitor "$P"/mv/x/y/k*/w/e/.git/config "$P"/mv/w*/n/.git/config | wc -l)
assert_eq "every .git made and moved while it was stopped is read-only" "$left" 0

# 6. The watcher stopped while its event queue overflows (more events
#    than the kernel keeps), a .git made meanwhile: it reads it all again.
mkdir "$P/flood"
run -- true > /dev/null		# the watcher watches flood/ now
if [ "$(cat /proc/sys/fs/inotify/max_queued_events)" -le 100000 ]; then
	pid=$(watcher)
	kill -STOP "$pid"
	n=$(( $(cat /proc/sys/fs/inotify/max_queued_events) / 2 + 100 ))
	python3 - "$P/flood" "$n" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    os.mkdir(os.path.join(d, "d%d" % i))
    os.rmdir(os.path.join(d, "d%d" % i))
PY
	evil_repo "$P/flood/late/.git"
	kill -CONT "$pid"
	fresh_log
	ok_unless "after an overflow, a .git made in it is read-only" \
		run -- sh -c "$(poison flood/late/.git/config)"
	ok_if "... still through the watcher" asked 1
else
	skip "after an overflow, a .git made in it is read-only" \
		"max_queued_events too large to overflow quickly"
	skip "... still through the watcher" "no overflow"
fi

# 7. The watcher killed while a command runs: the run looks for itself.
fresh_log
rm -f "$T/started" "$T/go"
"$BWGATE" exec --rw "$T" --project "$P" -- sh -c "
	mkdir -p during/.git; touch '$T/started'
	while [ ! -e '$T/go' ]; do sleep 0.02; done" > "$T/out7" 2>&1 &
bg=$!
wait_for 10 test -e "$T/started"
kill -KILL "$(watcher)"
touch "$T/go"
wait "$bg"
ok_if "with the watcher gone, a new .git is still not made" \
	test ! -e "$P/during/.git"
ok_if "the run scanned instead" grep -q 'gitwatch_ask\|gitscan' "$LOG"
fresh_log
run -- true > /dev/null
ok_if "the next run scans and starts another watcher" \
	grep -q 'started a watcher' "$LOG"
ok_if "it listens again" wait_for 10 test -S "$SOCK"

# 7b. Something else answering on the watcher's socket, with a path out of
#     the project: not believed; the run scans.
pid=$(watcher)
kill -KILL "$pid"
wait_for 10 sh -c '! kill -0 "$0" 2>/dev/null' "$pid"
rm -f "$SOCK"
python3 - "$SOCK" <<'PY' &
import os, socket, sys
path = sys.argv[1]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(4)
while True:
    c, _ = s.accept()
    c.recv(16)
    c.sendall(b"bwgate-gitwatch 1\nn 3\ng 7 7\n../.git\nend\n")
    c.close()
PY
fake=$!
wait_for 10 test -S "$SOCK"
fresh_log
ok_unless "with a forged answer, a.old/b2/c/.git is still read-only" \
	run -- sh -c "$(poison a.old/b2/c/.git/config)"
ok_if "the forged answer was not used" grep -q 'gave no answer: scanning' "$LOG"
kill "$fake"
wait "$fake" 2>/dev/null
ok_if "a real watcher took the socket back" wait_for 10 watcher

# 8. The socket is out of the sandbox's sight.
ok_unless "the watcher's socket is not in the sandbox" \
	run -- sh -c "ls '$rundir'"

# 9. A file system mounted inside the project: one watch cannot see into
#    it. The watcher gives up and says why; runs scan, and a .git in the
#    mount is read-only.
if [ "$(id -u)" -eq 0 ] && wait_for 10 test -S "$SOCK" &&
    mkdir -p "$P/mnt" && mount -t tmpfs none "$P/mnt" 2>/dev/null; then
	CLEANUP_EXTRA='umount "$P/mnt" 2>/dev/null'
	evil_repo "$P/mnt/.git"
	ok_if "the watcher leaves" wait_for 10 sh -c '! test -S "$0"' "$SOCK"
	assert_match "... and says why" "$(cat "$rundir/gitwatch-$key.off")" \
		"mounted inside"
	fresh_log
	ok_unless "a .git in the mount is read-only" \
		run -- sh -c "$(poison mnt/.git/config)"
	ok_unless "... found by a scan, no watcher started" \
		grep -q 'started a watcher' "$LOG"
	umount "$P/mnt"
	CLEANUP_EXTRA=
else
	skip "the watcher leaves when a file system is mounted inside" \
		"mounting needs root"
fi

# 10. Off: no watcher is asked or started.
fresh_log
BWGATE_GITWATCH=0 run -- true > /dev/null
ok_unless "BWGATE_GITWATCH=0: no watcher asked" grep -q 'gitwatch_ask' "$LOG"

# 11. At most 8 watchers at once: the ninth project gets none.
socks() { ls "$rundir" | grep -c '^gitwatch-.*\.sock$'; }
for i in 1 2 3 4 5 6 7 8 9; do
	mkdir -p "$T/many/p$i"
	if [ "$i" -eq 9 ]; then
		wait_for 10 sh -c '[ "$(ls "$0" | grep -c "^gitwatch-.*\.sock$")" -ge 8 ]' "$rundir"
		fresh_log
	fi
	"$BWGATE" exec --quiet --project "$T/many/p$i" -- true > /dev/null 2>&1
done
ok_unless "a ninth watcher is not started" grep -q 'started a watcher' "$LOG"
assert_eq "eight sockets" "$(socks)" 8
rm -rf "$T/many"
ok_if "their watchers leave with their projects" \
	wait_for 10 sh -c '[ "$(ls "$0" | grep -c "^gitwatch-.*\.sock$")" -le 1 ]' "$rundir"

for d in a.old/b2/c mv/x/y/moved-a/sub flood/late; do
	[ -d "$P/$d" ] && host_git_status "$P/$d"
done
ok_unless "host git status ran nothing at the end" test -e "$MARK"

# The project removed: its watcher leaves (as root, the mount made the
# last one give up).
pid=$(watcher)
rm -rf "$P"
TEARDOWN=
if [ -n "$pid" ]; then
	ok_if "the watcher leaves with its project" \
		wait_for 10 sh -c '! kill -0 "$0" 2>/dev/null' "$pid"
else
	ok_if "no watcher left once one gave up" test "$(id -u)" -eq 0
fi
done_testing
