#!/bin/bash
# allowlist-git: git's allow rule holds for the project's own top-level
# repository only. A nested repository's configuration (core.fsmonitor)
# runs a program even for "git status": reaching it through -C, cd or the
# agent's working directory must need an operator, never run by itself.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

if ! command -v git > /dev/null; then
	skip "git rules" "git is not installed"
	done_testing
	exit 0
fi

P=$(new_project)
rm -rf "$P/.git"
git init -q "$P"
git -C "$P" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
N="$P/nested"
git init -q "$N"
# The attack: a hook that says it ran (on the command's stderr, since the
# read-only sandbox lets it write nothing).
printf '#!/bin/sh\necho FSMONITOR-RAN >&2\nexit 1\n' > "$N/hook.sh"
chmod +x "$N/hook.sh"
git -C "$N" config core.fsmonitor "$N/hook.sh"
cd "$P"

# Without bwgate's verdict (bwgate exec runs what it is given) the hook
# really runs: the attack is real.
"$BWGATE" exec --project "$P" -- git -C nested status > /dev/null \
    2> "$T/exec.err"
ok_if "the nested repository's hook runs for git status" \
    grep -q FSMONITOR-RAN "$T/exec.err"

"$BWGATE" check -- 'git status' > /dev/null
assert_eq "bwgate check: git status at the top is allowed (0)" "$?" 0
(cd "$N" && "$BWGATE" check --project "$P" -- 'git status' > "$T/check.out")
assert_eq "bwgate check: git status in the nested repository asks (1)" \
    "$?" 1
assert_match "bwgate check says why" "$(cat "$T/check.out")" \
    "below the project's top"

start_console --headless --auto-allowlisted

out=$("$BWGATE" run -- git status 2>&1); rc=$?
assert_eq "git status at the top: allowed, runs" "$rc" 0
for cmd in "git -C nested status" "cd nested && git status" \
    "git --git-dir=nested/.git status" "GIT_DIR=nested/.git git status" \
    "pushd nested && git log -1" "git log --pretty=%GG -1"; do
	err=$("$BWGATE" sh -c "$cmd" 2>&1); rc=$?
	assert_eq "'$cmd': not run without an operator (77)" "$rc" 77
	ok_unless "'$cmd': the hook did not run" \
	    grep -q FSMONITOR-RAN <<< "$err"
done
err=$("$BWGATE" run --cwd "$N" -- git status 2>&1); rc=$?
assert_eq "git status with the agent's cwd in the nested repository: 77" \
    "$rc" 77
ok_if "the recorded reason says why" grep -q "below the project's top" "$AUDIT"
ok_unless "the hook did not run from the nested cwd" \
    grep -q FSMONITOR-RAN <<< "$err"
err=$("$BWGATE" run --cwd "$N" -- ls 2>&1); rc=$?
assert_eq "other read-only commands still run there" "$rc" 0

stop_console
assert_eq "console exits cleanly" "$CRC" 0
done_testing
