#!/bin/bash
# The console's own files (issue 9, section 4): a control socket inside the
# project is refused at console start (a sandboxed command could approve
# itself through it), $HOME or a directory holding bwgate's configuration
# cannot be the project, PATH inside has no relative or project entries,
# and a runtime directory pre-created by another uid is not used.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1

# The attack: the socket in the project. Refused before listening.
BWGATE_SOCKET="$P/agent.sock" "$BWGATE" --headless > "$T/o" 2> "$T/e" &
CP=$!
CLEANUP_EXTRA="kill -KILL $CP 2>/dev/null"
# It must exit at once; a console that listens is the attack succeeding.
if wait_for 10 sh -c "! kill -0 $CP"; then
	wait $CP
	RC=$?
else
	kill -KILL $CP 2>/dev/null
	wait $CP 2>/dev/null
	RC=listening
fi
assert_eq "socket in the project: console refuses to start" "$RC" 125
assert_match "the error says why" "$(cat "$T/e")" \
	"inside the project.*choose a path outside"
ok_unless "no socket was created in the project" \
	sh -c "ls '$P' | grep -q sock"
timeout 10 "$BWGATE" --headless --socket "$P/sub/a.sock" > "$T/o" 2> "$T/e"
assert_match "--socket in the project refused too" "$(cat "$T/e")" \
	"inside the project"

# $HOME as the project; a project holding bwgate's configuration.
ok_unless "home as the project refused" \
	"$BWGATE" exec --project "$HOME" -- true
assert_match "the message says how to pick the project" \
	"$("$BWGATE" exec --project "$HOME" -- true 2>&1)" \
	"home directory.*--project DIR"
mkdir -p "$T/outer"
XDG_CONFIG_HOME="$T/outer/cfg" "$BWGATE" exec --project "$T/outer" -- \
    true 2> "$T/e"
assert_eq "project holding the configuration: refused (125)" "$?" 125
assert_match "it names the configuration" "$(cat "$T/e")" \
	"holds bwgate's configuration"
XDG_CONFIG_HOME="$T/outer/cfg" timeout 10 "$BWGATE" --headless \
    --project "$T/outer" > "$T/o" 2> "$T/e"
assert_match "the console refuses it too" "$(cat "$T/e")" \
	"holds bwgate's configuration"

# PATH inside: no relative entries, nothing in the project.
mkdir -p "$P/bin"
printf '#!/bin/sh\necho planted\n' > "$P/bin/ls"
chmod +x "$P/bin/ls"
jexec -- sh -c 'echo "$PATH"' 2>/dev/null
out=$(PATH=".:bin:$P/bin:/usr/bin:/bin" "$BWGATE" exec --json \
    --project "$P" -- sh -c 'echo "$PATH"; ls /' | jq -r .stdout)
assert_eq "PATH inside: relative and project entries dropped" \
	"$(printf '%s\n' "$out" | head -1)" "/usr/bin:/bin"
ok_unless "the planted ls did not run" \
	sh -c "printf '%s' '$out' | grep -q planted"

# The allowlist judges the program the sandbox would run: an allowlisted
# name that PATH resolves outside the system directories is not allowed.
mkdir -p "$T/evilbin"
printf '#!/bin/sh\necho evil\n' > "$T/evilbin/ls"
chmod +x "$T/evilbin/ls"
assert_match "allowlisted name resolving outside system dirs: ask" \
	"$(PATH="$T/evilbin:/usr/bin:/bin" "$BWGATE" check ls 2>&1)" \
	"verdict: +ask.*|would run '$T/evilbin/ls'"
assert_match "the same name with a clean PATH: allow" \
	"$(PATH=/usr/bin:/bin "$BWGATE" check ls 2>&1)" "verdict: +allow"

# A run killed outright leaves nothing of bwgate's in the project (issue
# 36: no stand-in files to clear afterwards).
Q="$T/crash"
mkdir -p "$Q/.git"
crash_run() {
	(cd "$Q" && exec "$BWGATE" exec --memory 0 --pids 0 --project "$Q" \
	    -- sleep 60) \
	    >/dev/null 2>&1 &
	local pid=$!
	# Once the command runs (killed earlier, bwrap's child may wait for
	# its dead parent forever: a bwrap race, not ours).
	wait_for 10 pgrep -f '^sleep 60$'
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	# bwrap and the command die with it (--die-with-parent).
	wait_for 10 sh -c "! pgrep -f 'sleep 60\$' >/dev/null"
}
crash_run
ok_unless "a crashed run leaves nothing of bwgate's (no stand-in .envrc)" \
    test -e "$Q/.envrc"
assert_eq "  the project as it was" "$(ls -A "$Q")" ".git"

# /tmp/bwgate-UID created by someone else: a private alternative is used.
# The victim is an unused uid (setpriv needs no account), so its runtime
# directory is surely not there yet.
U=
if [ "$(id -u)" = 0 ] && setpriv --reuid=54321 --regid=54321 \
    --clear-groups true 2>/dev/null; then
	for u in $(seq 54321 54400); do
		if [ ! -e "/tmp/bwgate-$u" ] && ! pgrep -U "$u" >/dev/null; then
			U=$u; break
		fi
	done
fi
# bwgate runs as that uid: from a copy it can reach, wherever the build
# tree is (a clone in /root, say).
if [ -n "$U" ] && ! uid_reaches "$U" "$T"; then
	why="uid $U cannot search the way to the test directory $T (TMPDIR under a private directory)"
	U=
fi
[ -n "$U" ] && use_installed_copy
if [ -n "$U" ]; then
	EVIL=/tmp/bwgate-$U
	mkdir -m 0777 "$EVIL"
	CLEANUP_EXTRA="rm -rf '$EVIL'"
	UH="$T/uh"; mkdir -p "$UH/p"; chown -R "$U:$U" "$UH"
	# (No memory limit: without a cgroup it is RLIMIT_AS, which a
	# sanitizer build's helper cannot start under.)
	chmod 755 "$T"
	out=$(cd "$UH/p" && setpriv --reuid="$U" --regid="$U" --clear-groups \
	    env -u XDG_RUNTIME_DIR HOME="$UH" XDG_CACHE_HOME="$UH/cache" \
	    XDG_CONFIG_HOME="$UH/cfg" XDG_STATE_HOME="$UH/st" \
	    BWGATE_DATADIR="$BWGATE_DATADIR" \
	    "$BWGATE" exec --memory 0 --project "$UH/p" -- true 2>&1)
	assert_eq "the user's command runs despite the foreign directory" \
		"$?" 0
	ok_unless "not refused because of the foreign directory" \
		sh -c "printf '%s' '$out' | grep -q 'belongs to uid'"
	ok_if "the alternative is private and the user's" \
		test "$(stat -c %u:%a "$UH/cache/bwgate/run")" = "$U:700"
	ok_unless "nothing written into the foreign directory" \
		sh -c "ls -A '$EVIL' | grep -q ."
else
	skip "foreign runtime directory" "${why:-needs root able to switch uid (not nested)}"
fi
done_testing
