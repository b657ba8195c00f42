#!/bin/bash
# console-prestart (issue 12): with console.prestart (the default) the warm
# exec makes the sandbox of the last read-only request ahead, and the next
# request runs in it only when all that is decided before a command starts
# is what that request was shown. Checked against the real console, exec,
# bwrap and helper: the prestarted sandbox is used (report
# sandbox.prestarted) and its output is the command's; a request in
# another directory, or after the project directory was replaced, runs in
# a sandbox of its own; a pending request's command runs nowhere until it
# is approved, then in the sandbox that waited; nothing is left at the end.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
echo data > f
mkdir sub

# A warm exec of the console's holds a prestarted sandbox (its bwrap).
prestarted() {
	local p
	for p in $(pgrep -P "$CPID"); do
		grep -qa -- '--prestart' "/proc/$p/cmdline" 2>/dev/null &&
		    waiting_for_policy "$p" &&
		    pgrep -P "$p" -x bwrap > /dev/null &&
		    { echo "$p" >> "$T/warm.pids"; return 0; }
	done
	return 1
}
field() { jq -r "$1" "$T/r.json"; }
# The agent's environment is part of the sandbox: the same each time here
# (cd changes OLDPWD). Stdin is /dev/null: a pipe or a file as stdin
# makes `bwgate run` stream it, and that sandbox's stdin is another.
run_json() {
	env OLDPWD=/ "$BWGATE" run --json -- "$@" > "$T/r.json" 2> /dev/null \
	    < /dev/null
}

export BWGATE_LOG="$T/exec.log"	# the console's execs say why
start_console --headless --auto-allowlisted
run_json cat f
assert_eq "a read-only request runs" "$(field .stdout)" data
assert_eq "  in a sandbox of its own (nothing was predicted)" \
    "$(field .sandbox.prestarted)" null
ok_if "its sandbox is made ahead for the next one" wait_for 10 prestarted
run_json cat f
assert_eq "the next read-only request runs" "$(field .stdout)" data
assert_eq "  in the prestarted sandbox" "$(field .sandbox.prestarted)" true
assert_eq "  exactly as shown" "$(field .sandbox.as_shown)" true
assert_eq "  with its own command in the report" "$(field '.argv | join(" ")')" \
    "cat f"
ok_if "another is made ahead" wait_for 10 prestarted
run_json printf '%s %s\n' one 'two three'
assert_eq "another command with its arguments runs in it" \
    "$(field .stdout)" "one two three"
assert_eq "  prestarted" "$(field .sandbox.prestarted)" true

# stdout and stderr as one stream (2>&1): a sandbox of its own the first
# time (one pipe for both is part of the sandbox), prestarted the next;
# the order is kept either way.
last_result() { jq -c 'select(.record == "result")' "$AUDIT" | tail -1; }
for i in 1 2; do
	wait_for 10 prestarted
	out=$(env OLDPWD=/ "$BWGATE" run -- ls nonexistent f 2>&1 < /dev/null)
	assert_match "merged output $i: in order" "$(echo $out)" \
	    "nonexistent.* f( |\$)"
	assert_eq "merged output $i: prestarted" \
	    "$(last_result | jq -r .report.sandbox.prestarted)" \
	    "$([ $i = 2 ] && echo true || echo null)"
done

# Another working directory: another argv (--chdir), another sandbox.
wait_for 10 prestarted
(cd sub && run_json cat ../f)
assert_eq "a request from another directory runs" "$(field .stdout)" data
assert_eq "  in a sandbox of its own" "$(field .sandbox.prestarted)" null
assert_eq "  as shown" "$(field .sandbox.as_shown)" true

# The project directory replaced meanwhile: the same path, the same argv,
# but the waiting sandbox has the old directory bound.
run_json cat f		# (the prediction: the project's top again)
wait_for 10 prestarted
mv "$P" "$P.old" && mkdir "$P" && echo new > "$P/f" && cd "$P"
run_json cat f
assert_eq "after the project was replaced the request reads the new one" \
    "$(field .stdout)" new
assert_eq "  in a sandbox of its own" "$(field .sandbox.prestarted)" null
ok_if "  because the directory bound is not the project's any more" \
    grep -q 'the project directory is another one now' "$T/exec.log"
cd / && rm -rf "$P" && mv "$P.old" "$P" && cd "$P"
stop_console
ok_unless "the console leaves no sandbox" pgrep -f -- "--chdir $P( |\$)"

# Approval first: a pending request's command runs nowhere, though a
# sandbox waits; approved (read-only), it runs in that sandbox.
state_is() {
	test "$("$BWGATE" list --json | jq -r ".[] | select(.id == $1) | .state")" = "$2"
}
start_console --headless
{ run_json cat f; echo $? > "$T/cat.rc"; } &
wait_for 10 state_is 1 pending
"$BWGATE" approve 1 > /dev/null
wait_for 20 test -s "$T/cat.rc"
assert_eq "an approved read-only request runs" "$(field .stdout)" data
ok_if "after it a sandbox waits" wait_for 10 prestarted
rm -f "$T/sleep.rc"
{ env OLDPWD=/ "$BWGATE" run -- sleep 4709 > /dev/null 2> "$T/sleep.err" \
    < /dev/null; echo $? > "$T/sleep.rc"; } &
ok_if "a request that asks waits for the operator" \
    wait_for 10 state_is 2 pending
ok_unless "  and its command runs nowhere" pgrep -fx 'sleep 4709'
"$BWGATE" approve --profile readonly 2 > /dev/null
ok_if "approved, it runs" wait_for 10 pgrep -fx 'sleep 4709'
"$BWGATE" kill 2 > /dev/null
ok_if "  and ends when killed" wait_for 20 test -s "$T/sleep.rc"
result=$(audit_of 2 result | tail -1)	# this console's
assert_eq "  in the sandbox that waited" \
    "$(jq -r .report.sandbox.prestarted <<<"$result")" true
assert_eq "  as shown" "$(jq -r .report.sandbox.as_shown <<<"$result")" true
stop_console
assert_eq "clean exit" "$CRC" 0
ok_unless "nothing of a sandbox is left" pgrep -f -- "--chdir $P( |\$)"
ok_if "no exec is left" test -z "$(project_execs)"
# Retired or stopped, a warm exec drops its sandbox itself: its cgroup
# goes too (a kill would leave it for a later run to remove).
cgroup_left() {
	local p
	for p in $(sort -u "$T/warm.pids"); do
		find /sys/fs/cgroup -maxdepth 5 -name "bwgate-$p-*" | grep -q . &&
		    return 0
	done
	return 1
}
ok_unless "no cgroup of a warm exec is left" cgroup_left
done_testing
