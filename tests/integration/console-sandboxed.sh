#!/bin/bash
# console-sandboxed: --auto-sandboxed runs at once, unreviewed, whatever
# fits the project profile (writes only in the project, no network), and
# still asks about the rest: deny rules, danger, a rule of verdict ask,
# git metadata, the network, extra paths. Headless, "asks" are refusals
# that say what more the command needs.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
git -C "$P" init -q 2>/dev/null
cd "$P" || exit 1
# A rule of verdict ask: the operator wants to see every make.
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"see-make","pattern":"make *","verdict":"ask","profile":"project","reason":"the operator reads every build"},
 {"id":"see-amend","pattern":"git commit --amend *","verdict":"ask","profile":"git-write","reason":"the operator reads every amend"},
 {"id":"no-rm","pattern":"rm made.txt","verdict":"deny","reason":"never delete in tests"}
]}
JSON
# The console takes the host's git identity when it starts.
git config --global user.name "Host Operator"
git config --global user.email "operator@example.org"
# Undo keeps 64 KiB a run: a larger delete is one undo cannot put back.
export BWGATE_UNDO_RUN_MAX=64K
start_console --headless --auto-sandboxed || exit 1
assert_match "the console says what runs at once" "$(cat "$T/console.err")" \
	"what fits the project sandbox runs at once"

# No rule allows it: it runs at once, in the project profile.
out=$("$BWGATE" run -- sh -c 'echo made > made.txt; cat made.txt' 2>&1); rc=$?
assert_eq "an unreviewed writer runs at once" "$rc" 0
assert_match "  its output comes back" "$out" made
assert_eq "  and its file is in the project" "$(cat made.txt 2>/dev/null)" made
assert_match "the audit log says who decided: sandboxed mode" \
	"$(grep '"decision"' "$AUDIT" | tail -1)" '"by":"sandboxed"'

# The sandbox still holds: nothing outside the project, no network.
mkdir -p "$T/outside"
"$BWGATE" run -- sh -c "echo x > '$T/outside/f'" > /dev/null 2>&1
ok_unless "a write outside the project does not reach the host" \
	test -e "$T/outside/f"
"$BWGATE" run -- sh -c "echo x > .git/config" > /dev/null 2>&1
assert_eq "  nor one to git metadata" "$(cat .git/config | head -c 6)" "[core]"

# git's own work in the project runs at once with git-write (issue 41):
# its protections keep .git to data, and undo covers it.
echo one > tracked.txt
err=$("$BWGATE" run -- sh -c 'git add tracked.txt && git commit -qm one' 2>&1)
rc=$?
[ "$rc" = 0 ] || printf "# %s\n" "$err"
assert_eq "git add && git commit runs at once" "$rc" 0
assert_eq "  and the commit is made" "$(git log -1 --format=%s 2>/dev/null)" one
assert_match "  decided by sandboxed mode" \
	"$(grep '"decision"' "$AUDIT" | tail -1)" '"by":"sandboxed"'
echo two >> tracked.txt
"$BWGATE" run -- git stash -q > /dev/null 2>&1; rc=$?
assert_eq "git stash runs at once" "$rc" 0
assert_eq "  and stashed the change" "$(cat tracked.txt)" one
"$BWGATE" run -- git switch -qc topic > /dev/null 2>&1; rc=$?
assert_eq "git switch -c runs at once" "$rc" 0
assert_eq "  and the branch is checked out" \
	"$(git rev-parse --abbrev-ref HEAD)" topic
"$BWGATE" run -- git checkout -q - > /dev/null 2>&1
"$BWGATE" run -- git merge -q topic > /dev/null 2>&1; rc=$?
assert_eq "git merge runs at once" "$rc" 0
assert_match "  decided by sandboxed mode" \
	"$(grep '"decision"' "$AUDIT" | tail -1)" '"by":"sandboxed"'
# A delete in the project that undo puts back whole runs at once, and
# undo puts it back; one larger than undo keeps still asks (issue 41).
mkdir -p build/sub huge && echo kept > build/sub/f
head -c 100000 /dev/zero > huge/f
"$BWGATE" run -- rm -rf build > /dev/null 2>&1; rc=$?
assert_eq "rm -rf of what undo keeps runs at once" "$rc" 0
ok_unless "  build is gone" test -e build
rec=$(grep '"decision"' "$AUDIT" | tail -1)
assert_match "  decided by sandboxed mode" "$rec" '"by":"sandboxed"'
"$BWGATE" undo "$(jq -r .id <<<"$rec")" > "$T/undo.out" 2>&1
assert_eq "  and undo puts it back" "$(cat build/sub/f 2>&1)" kept
err=$("$BWGATE" run -- rm -rf huge 2>&1); rc=$?
assert_eq "a delete larger than undo keeps: refused headless (77)" "$rc" 77
assert_match "  naming the danger" "$err" "danger"
ok_if "  and huge is still there" test -f huge/f
assert_eq "  the console's at-stake line: what is there, and git does not track it" \
	"$(grep '"at_stake"' "$AUDIT" | tail -1 | jq -r .request.at_stake)" \
	"deletes 1 file (97.7 KiB, untracked) under huge/"
# A delete that is not danger runs at once too, and says what it deleted
# in the at-stake line: a pattern's matches, tracked or untracked.
printf 1 > out1.txt && printf 2 > out2.txt
"$BWGATE" run -- sh -c 'rm -f out*.txt' > /dev/null 2>&1; rc=$?
assert_eq "rm -f of a pattern runs at once" "$rc" 0
ok_unless "  its matches are gone" test -e out1.txt -o -e out2.txt
assert_eq "  the at-stake line names them, untracked" \
	"$(grep '"at_stake"' "$AUDIT" | tail -1 | jq -r .request.at_stake)" \
	"deletes out1.txt (1 B, untracked), out2.txt (1 B, untracked); undo puts all of it back"
# cd DIR && rm -rf ../x: the operand is the project's x, measured.
mkdir -p gone/deep && echo g > gone/deep/f
"$BWGATE" run -- sh -c 'cd build && rm -rf ../gone' > /dev/null 2>&1; rc=$?
assert_eq "cd build && rm -rf ../gone runs at once (undo keeps it)" "$rc" 0
ok_unless "  gone is gone" test -e gone
assert_eq "  the at-stake line names the project's gone/, not outside" \
	"$(grep '"at_stake"' "$AUDIT" | tail -1 | jq -r .request.at_stake)" \
	"deletes 1 file (2 B, untracked) under gone/; undo puts all of it back"
# The project's processes: ps and pkill run at once; they see and signal
# the project's processes only, never the host's.
sleep 4711 & HOSTPID=$!
CLEANUP_EXTRA="kill $HOSTPID 2>/dev/null"
out=$("$BWGATE" run -- sh -c 'sleep 4712 & for i in $(seq 100); do
	ps -eo args | grep -q "^sleep 4712" && break; sleep 0.1; done
	ps -eo args; pkill -x sleep; echo "pkill=$?"' 2>&1); rc=$?
assert_eq "ps and pkill run at once in sandboxed mode" "$rc" 0
assert_match "  decided by sandboxed mode" \
	"$(grep '"decision"' "$AUDIT" | tail -1)" '"by":"sandboxed"'
# Nested in another sandbox a fresh /proc cannot be mounted: bwgate binds
# the existing one (and warns), where ps reads the outer pid namespace.
if "$BWGATE" check --json -- true | jq -e '.bwrap_argv | index("--proc")' \
    > /dev/null; then
	assert_match "  ps sees the project's own process" "$out" "sleep 4712"
	ok_unless "  but not the host's" grep -q "sleep 4711" <<<"$out"
	assert_match "  pkill signals the project's own" "$out" "pkill=0"
else
	for w in "ps sees the project's own" "not the host's" "pkill signals"; do
		skip "  $w" "no fresh /proc here (nested): the existing one is bound"
	done
fi
ok_if "  and the host's process lives (its pid namespace holds)" \
    kill -0 "$HOSTPID"
kill "$HOSTPID" 2>/dev/null
# A cd that may go elsewhere than its word says is not followed: the
# delete after it is not measured, so it asks (headless: refused) and
# undo's limit is not passed unasked (huge/f is over it).
mkdir -p alt/huge nohuge && cp huge/f alt/huge/f
for c in 'builtin cd huge && rm -rf f' 'cd() { builtin cd huge; }; cd nohuge && rm -rf f' \
    'CDPATH=alt; cd huge && rm -rf f' 'CDPATH=alt; cd huge; rm -rf f'; do
	"$BWGATE" run -- bash -c "$c" > /dev/null 2>&1; rc=$?
	assert_eq "a cd not followed: refused headless (77): $c" "$rc" 77
done
ok_if "  huge/f is still there" test -f huge/f
ok_if "  and alt/huge/f" test -f alt/huge/f
err=$("$BWGATE" run -- sh -c 'eval "rm -rf build"' 2>&1); rc=$?
assert_eq "eval of a delete: refused headless (77)" "$rc" 77
ok_if "  and build is still there" test -f build/sub/f
# What needs more goes to a person (headless: refused, saying what).
err=$("$BWGATE" run -- git push origin topic 2>&1); rc=$?
assert_eq "git push needs the network: refused headless (77)" "$rc" 77
assert_match "  naming what it needs" "$err" "network"
err=$("$BWGATE" run -- git commit --amend -qm again 2>&1); rc=$?
assert_eq "a commit a rule of verdict ask names: refused headless (77)" "$rc" 77
assert_eq "  and not made" "$(git log -1 --format=%s)" one
echo 'API_KEY=s3cr3t' > .env
out=$("$BWGATE" run -- cat .env 2>&1); rc=$?
assert_eq "reading a secret kept in the project: refused headless (77)" "$rc" 77
assert_match "  naming what it reads" "$out" "secret"
ok_unless "  and the secret did not come back" grep -q s3cr3t <<<"$out"
rm .env
err=$("$BWGATE" run -- git rebase -q topic 2>&1); rc=$?
assert_eq "git rebase: refused headless (77)" "$rc" 77
assert_match "  naming what it needs" "$err" "git-write"
# (curl of the loopback alone is the project's own: pod-console.sh)
err=$("$BWGATE" run -- sh -c 'curl -fsS http://example.com:9/x' 2>&1); rc=$?
assert_eq "curl needs the network: refused (77)" "$rc" 77
assert_match "  naming it" "$err" "network"
err=$("$BWGATE" run -- bash -lc 'npm install left-pad' 2>&1); rc=$?
assert_eq "npm install inside bash -lc: refused (77)" "$rc" 77
err=$("$BWGATE" run --network -- true 2>&1); rc=$?
assert_eq "a request for the network: refused (77)" "$rc" 77
err=$("$BWGATE" run --rw "$T/outside" -- true 2>&1); rc=$?
assert_eq "a request for an extra writable path: refused (77)" "$rc" 77
chmod 0644 made.txt
err=$("$BWGATE" run -- chmod -R 777 . 2>&1); rc=$?
assert_eq "danger is never run unreviewed (77)" "$rc" 77
assert_eq "  and did not run" "$(stat -c %a made.txt)" 644
err=$("$BWGATE" run -- make -v 2>&1); rc=$?
assert_eq "a rule of verdict ask keeps its person (77)" "$rc" 77
assert_match "  said so" "$err" "a rule asks for a person"
err=$("$BWGATE" run -- rm made.txt 2>&1); rc=$?
assert_eq "a deny rule still denies (77)" "$rc" 77
ok_if "  and made.txt is still there" test -f made.txt
audit_valid; ok_if "the audit log is valid JSON" test $? = 0

stop_console
done_testing
