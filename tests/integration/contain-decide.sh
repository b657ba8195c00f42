#!/bin/bash
# contain-decide (issue 36): the observer decides. Creating, renaming onto,
# linking onto or rewriting a protected name at any depth is refused at the
# call (EACCES) and reported as a refusal; a second thread, a process
# sharing the memory (MAP_SHARED) or a clone(CLONE_VM) sibling flipping the
# path between a harmless name and a protected one cannot slip one through.
# Each attack is checked on the host. Run as root, as an ordinary user and
# nested (.ci/run).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
run() { "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }
TEARDOWN='rm -rf "$P"'	# a large project's watcher leaves with it

# 1. New agent and editor configuration below the top directory.
jexec -- sh -c 'mkdir -p sub newdir deep/a/b
	echo x > sub/.envrc
	mkdir -p sub/.claude; echo "{}" > sub/.claude/settings.json
	mkdir newdir/.vscode; echo "{}" > newdir/.vscode/tasks.json
	echo "{}" > deep/a/b/.mcp.json
	echo ok > plain.txt'
for f in sub/.envrc sub/.claude newdir/.vscode deep/a/b/.mcp.json; do
	ok_unless "$f not created on the host" test -e "$P/$f"
done
assert_eq "a harmless file is made as asked" "$(cat "$P/plain.txt")" ok
assert_eq "the refusals are reported as protected" \
    "$(jfield '[.violations[] | select(.reason == "protected") | .path] | sort')" \
    "$(printf '["%s/deep/a/b/.mcp.json","%s/newdir/.vscode","%s/newdir/.vscode/tasks.json","%s/sub/.claude","%s/sub/.claude/settings.json","%s/sub/.envrc"]' "$P" "$P" "$P" "$P" "$P" "$P")"
assert_match "with the hint that names the profile" \
    "$(jfield '.violations[0].hint')" "agent-config profile"
assert_match "the command saw EACCES" "$(run -- sh -c 'echo x > sub/.envrc')" \
    "Permission denied"

# 2. Rename onto, hard link onto, symlink at, a protected name; a
#    directory renamed onto one.
echo data > "$P/src.txt"
out=$(run -- sh -c 'mv src.txt sub/.envrc; ln src.txt sub/.envrc;
	ln -s /tmp/x sub/.envrc; mkdir d; echo x > d/settings.json;
	mv d sub/.claude; python3 -c "import os; os.rename(\"src.txt\", \".envrc\")" 2>&1 | tail -1')
ok_unless "rename onto sub/.envrc refused" test -e "$P/sub/.envrc"
ok_unless "nor linked, nor a symbolic link" test -L "$P/sub/.envrc"
ok_unless "a directory renamed onto sub/.claude refused" test -e "$P/sub/.claude"
assert_eq "the file renamed away from stays" "$(cat "$P/src.txt")" data
assert_match "each refused with EACCES" "$out" "Permission denied"
# A directory renamed where an entry below it gets a protected name (a
# configured "cfg/hooks/"): judged entry by entry; an existing repository
# moved along with its directory stays what it was.
echo '{"sandbox":{"protected":["cfg/hooks/"]}}' > "$T/cfg.json"
mkdir -p "$P/repo" && git init -q "$P/repo"
run --config "$T/cfg.json" -- sh -c 'mkdir -p t/hooks; echo x > t/hooks/pre;
	mv t cfg; mv repo moved-repo' > "$T/tree.out"
ok_unless "a tree renamed so that cfg/hooks/ appears: refused" \
    test -e "$P/cfg/hooks/pre"
ok_if "  the tree stays where it was" test -f "$P/t/hooks/pre"
ok_if "an existing repository moved along with its directory" \
    test -d "$P/moved-repo/.git"
rm -rf "$P/t" "$P/moved-repo" "$P/cfg"

# 3. An existing configuration deeper down, in a project of 1,024 and more
#    directories (once its watcher runs): not rewritable by any call.
mkdir -p "$P/big"
for i in $(seq 0 1100); do mkdir "$P/big/d$i"; done
mkdir "$P/big/d700/.claude"
echo '{"orig":1}' > "$P/big/d700/.claude/settings.json"
run -- true > /dev/null	# the first writable run starts the watcher
run -- sh -c 'echo "{\"hooks\":1}" > big/d700/.claude/settings.json;
	echo x >> big/d700/.claude/settings.json;
	truncate -s 0 big/d700/.claude/settings.json;
	echo evil > new.json; mv new.json big/d700/.claude/settings.json;
	chmod 777 big/d700/.claude/settings.json;
	rm -f big/d700/.claude/settings.json' > "$T/big.out"
assert_eq "an existing big/d700/.claude/settings.json unchanged" \
    "$(cat "$P/big/d700/.claude/settings.json")" '{"orig":1}'
rm -rf "$P/big" "$P/new.json"

# 4. The race: the path flipped between sub/plain.txt and sub/.envrc by a
#    thread, by another process through MAP_SHARED, by a CLONE_VM sibling,
#    while the command creates, mkdirs, symlinks, renames and links; and
#    openat2's flags (in memory) flipped between reading and creating.
cp "$(dirname "$BWGATE")/tests/integration/decide-race" "$P/decide-race"
for how in thread shared vm; do
	for op in create mkdir symlink rename link openat2; do
		out=$(run --timeout 120 -- ./decide-race $how $op 1500)
		printf '# %s\n' "$out"
		ok_unless "race $how $op: no sub/.envrc on the host" \
		    test -e "$P/sub/.envrc" -o -L "$P/sub/.envrc"
		rm -rf "$P/sub/.envrc"
	done
done
assert_match "the flips were seen (some calls refused)" "$out" \
    "succeeded"

# 5. git-write: .git/commondir made while the run lasts is refused at the
#    call, so the host's git status meanwhile reads no planted config.
( cd "$P" && git init -q . && git -c user.email=t@t -c user.name=t \
    commit -q --allow-empty -m init ) || fail=1
mkdir -p "$P/evil"
printf '[core]\n\tfsmonitor = "touch %s/fsmonitor-ran; false"\n' "$T" \
    > "$P/evil/config"
rm -f "$P/started"
"$BWGATE" exec --quiet --project "$P" --profile git-write -- sh -c \
    'echo ../evil > .git/commondir 2>/dev/null; echo "gitdir: evil" > .git/gitdir 2>/dev/null;
     touch started; i=0; while [ ! -e done ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done' \
    > "$T/gw.out" 2>&1 &
gw=$!
ok_if "the git-write run started" wait_for 30 test -e "$P/started"
git -C "$P" status --short > /dev/null 2>&1
ok_unless "no .git/commondir on the host mid-run" test -e "$P/.git/commondir"
ok_unless "the host's git status ran no planted fsmonitor" \
    test -e "$T/fsmonitor-ran"
touch "$P/done"
wait "$gw"
ok_unless "no .git/commondir after the run" test -e "$P/.git/commondir"
rm -rf "$P/evil" "$P/done" "$P/started"

# 6. A unix socket bound at a protected name (bind makes the name):
#    refused like a create; an ordinary name is bound by the delegate and
#    the socket works. Before, sub/.envrc was made as a socket.
jexec -- python3 -c '
import socket
for p in ("sub/.envrc", "ok.sock"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(p)
        s.listen(1)
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(p)
        print("bound", p)
    except OSError as e:
        print("refused", p, e.errno)'
ok_unless "bind: sub/.envrc not made on the host" test -e "$P/sub/.envrc"
assert_match "bind: refused, the ordinary name bound" "$(jfield .stdout)" \
    "refused sub/.envrc 13.*bound ok.sock"
ok_if "bind: ok.sock is a socket on the host" test -S "$P/ok.sock"
assert_match "bind: reported as protected" \
    "$(jfield '[.violations[] | select(.reason == "protected") | .path]')" \
    "sub/.envrc"
rm -f "$P/ok.sock"

# 7. Where the observer cannot decide (BWGATE_NO_NOTIFY stands for a
#    kernel without notification): a profile that writes the project is
#    refused before the command runs; read-only ones run and say so.
BWGATE_NO_NOTIFY=1 jexec -- sh -c 'echo x > sub/.envrc; echo y > fallback.txt'
assert_eq "fallback: a writable run does not start" "$(jfield .started)" false
ok_unless "fallback: nothing made" test -e "$P/fallback.txt"
assert_match "fallback: the report says why" "$(jfield .error)" \
    "cannot protect the project here"
BWGATE_NO_NOTIFY=1 jexec --profile readonly -- cat src/a.txt
assert_eq "fallback: a read-only run runs" "$(jfield .exit_code)" 0
assert_eq "fallback: named in the report" "$(jfield .sandbox.decide)" \
    '"fallback: read-only profiles only"'
jexec -- true
assert_eq "deciding: named in the report" "$(jfield .sandbox.decide)" \
    '"at the call"'
assert_match "doctor names the fallback" \
    "$(BWGATE_NO_NOTIFY=1 "$BWGATE" doctor 2>&1)" "fallback: the observer cannot decide"

done_testing
