#!/bin/bash
# contain-as-is (issue 36): no stand-in files. Inside a writable sandbox
# the project looks exactly as it is (no .git in a project without git, no
# empty entries at protected names), the host's project shows nothing
# bwgate made while a run lasts (git status) nor after a run killed with
# SIGKILL; creating a protected name is refused at the call instead.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
rm -rf "$P/.git"			# a project without git
echo '{"name":"x","version":"1.0.0"}' > "$P/package.json"
cd "$P" || exit 1
ls -A "$P" | sort > "$T/before"

# 1. Inside: as it is.
out=$("$BWGATE" exec --quiet -- sh -c \
    'if [ -e .git ]; then echo "HAS .git"; fi; find . -empty; ls -A | sort')
assert_eq "inside: no .git, no empty entry, the project as it is" "$out" \
    "$(cat "$T/before")"

# 2. The host's view while a run lasts: nothing new (git status).
git -C "$P" init -q . && git -C "$P" -c user.email=t@t -c user.name=t \
    add -A && git -C "$P" -c user.email=t@t -c user.name=t commit -qm base
rm -f "$T/go"
{ "$BWGATE" exec --quiet -- sh -c \
    'touch started; while ! [ -e go ]; do sleep 0.05; done; rm -f started go' \
    > "$T/run.out" 2>&1; echo $? > "$T/run.rc"; } &
ok_if "the run started" wait_for 20 test -e "$P/started"
assert_eq "host git status mid-run: only the command's own file" \
    "$(git -C "$P" status --porcelain --untracked-files=all)" "?? started"
touch "$P/go"
ok_if "the run ended" wait_for 20 test -s "$T/run.rc"
assert_eq "host git status after: clean" \
    "$(git -C "$P" status --porcelain --untracked-files=all)" ""
# npm pack's listing: every file, none empty.
assert_eq "no empty file in the project (npm pack would pack it)" \
    "$(find "$P" -path "$P/.git" -prune -o -empty -print)" ""

# 3. A run killed with SIGKILL leaves nothing of bwgate's behind.
SLEEP=1000.$$	# unique to this test
"$BWGATE" exec --quiet -- sh -c "touch started-k; exec sleep $SLEEP" \
    > /dev/null 2>&1 &
kpid=$!
ok_if "run started" wait_for 20 test -e "$P/started-k"
rm -f "$P/started-k"
kill -KILL "$kpid"
wait "$kpid" 2> /dev/null
ok_if "the killed run's sandbox is gone" \
    wait_for 20 sh -c "! pgrep -fx 'sleep $SLEEP' > /dev/null"
assert_eq "after SIGKILL: the project as it was" \
    "$(git -C "$P" status --porcelain --untracked-files=all)" ""

# 4. What a stand-in stood for is refused at the call, at the top too.
out=$("$BWGATE" exec --quiet -- sh -c 'echo x > .envrc; mkdir .claude' 2>&1)
assert_match "creating .envrc at the top: refused" "$out" "Permission denied"
ok_unless "no .envrc on the host" test -e "$P/.envrc"
ok_unless "no .claude on the host" test -e "$P/.claude"
done_testing
