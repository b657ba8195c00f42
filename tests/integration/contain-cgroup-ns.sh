#!/bin/bash
# contain-cgroup-ns: runs in different pid namespaces share a cgroup
# hierarchy but not a view of each other's processes (two suites, or two
# agents' containers, on one host). Each run's bwgate is the first process
# of a namespace of its own here, so both are PID 1: their cgroups must
# still be apart (bwgate-PID-NONCE), neither may remove or kill what is in
# the other's, and a cgroup left by a run killed outright is still
# removed by a later run, from another namespace (limiter.c).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
BACKEND=$("$BWGATE" exec --json --project "$P" --pids 100 -- true |
    jq -r .sandbox.limits.enforced_by)
case "$BACKEND" in
cgroup*) ;;
*)
	skip "runs from two pid namespaces" "no cgroup here ($BACKEND)"
	done_testing; exit ;;
esac
if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
	skip "runs from two pid namespaces" "cannot make a pid namespace"
	done_testing; exit
fi

# ns_run NAME SCRIPT: bwgate exec as PID 1 of a new pid namespace, the
# report in $T/NAME.json, its status in $P/NAME.rc (the project: the
# other run's command sees it) once bwgate is gone, its cgroup removed.
ns_run() {
	unshare --pid --fork --mount-proc "$BWGATE" exec --json \
	    --project "$P" --pids 100 -- sh -c "$2" > "$T/$1.json" \
	    2> "$T/$1.err"
	echo $? > "$P/$1.rc"
}
# The body of `w NAME` in the commands: wait until the project has NAME
# (60 s at most, for a loaded machine; what is checked is the outcome).
WAIT='n=0; until [ -e "$1" ] || [ $n -ge 600 ]; do sleep 0.1; n=$((n+1)); done'

cg_of_one() {	# the cgroups of PID 1 runs: bwgate-1-NONCE (bwgate-1 once)
	find /sys/fs/cgroup -maxdepth 5 \( -name 'bwgate-1-*' -o \
	    -name 'bwgate-1' \) 2>/dev/null | sort
}
cg_of_one > "$T/cg.before"

# A starts, then B; the test looks at their cgroups while both run; A ends
# while B's command still runs in B's cgroup, and B ends only once A's
# bwgate has exited (and freed its cgroup).
ns_run a "w() { $WAIT; }; touch a.up; w go" &
A=$!
ns_run b "w() { $WAIT; }; w a.up; touch b.up; w a.rc; echo fine" &
B=$!
wait_for 60 test -e "$P/b.up"
cg_of_one | comm -13 "$T/cg.before" - > "$T/cg.both"
# Two per hierarchy (one for cgroup v2; memory and pids for v1).
HIER=$(xargs -r -n 1 dirname < "$T/cg.both" | sort -u | wc -l)
ok_if "two runs, both PID 1, in cgroups" test "$HIER" -ge 1
assert_eq "  a cgroup each" "$(wc -l < "$T/cg.both")" "$((2 * HIER))"
touch "$P/go"
wait "$A" "$B"
assert_eq "run A, PID 1 of its namespace: exit status 0" \
    "$(cat "$P/a.rc")/$(jq -r .exit_code "$T/a.json")" "0/0"
assert_eq "run B, PID 1 of another, beside it: exit status 0" \
    "$(cat "$P/b.rc")/$(jq -r .exit_code "$T/b.json")" "0/0"
assert_eq "  B's command was not killed by A's end" \
    "$(jq -r .stdout "$T/b.json")" "fine"
ok_unless "  neither failed to join its cgroup" \
    grep -q "cannot join" "$T/a.err" "$T/b.err"
assert_eq "  both limited by a cgroup" \
    "$(jq -r .sandbox.limits.enforced_by "$T/a.json" "$T/b.json" | sort -u)" \
    "$BACKEND"
ok_unless "  both cgroups removed" \
    sh -c 'while read -r d; do [ -d "$d" ] && exit 0; done < "$0"; exit 1' \
    "$T/cg.both"

# A run killed outright (its namespace with it) leaves an empty cgroup
# nobody holds: a later run from another namespace removes it.
cg_of_one > "$T/cg.before"
unshare --pid --fork --mount-proc "$BWGATE" exec --project "$P" --pids 100 \
    -- sleep 61.5 > /dev/null 2>&1 &
K=$!
ok_if "a run to kill started" wait_for 30 pgrep -f '^sleep 61.5$'
cg_of_one | comm -13 "$T/cg.before" - > "$T/cg.killed"
ok_if "  its cgroup is there" test -s "$T/cg.killed"
# The namespace's PID 1, bwgate, as the host sees it.
KP=$(pgrep -P "$K" | head -n 1)
kill -KILL "$KP"; wait "$K" 2>/dev/null
wait_for 30 sh -c "! pgrep -f '^sleep 61.5$'"
ok_unless "  the sandbox died with it" pgrep -f '^sleep 61.5$'
unshare --pid --fork --mount-proc "$BWGATE" exec --project "$P" --pids 100 \
    -- true > /dev/null 2>&1
ok_unless "a later run from another namespace removed the stale cgroup" \
    sh -c 'while read -r d; do [ -d "$d" ] && exit 0; done < "$0"; exit 1' \
    "$T/cg.killed"

# An empty cgroup whose owner lives in a namespace the reaper cannot see
# (its PID is nobody here) is spared while the owner holds its lock, as
# between making it and bwrap joining it; once the lock is let go, the
# next run removes it.
FAKE="$(dirname "$(head -n 1 "$T/cg.killed")")/bwgate-999999-$(printf '%016x' $$)"
CLEANUP_EXTRA="rmdir '$FAKE' 2>/dev/null"
mkdir "$FAKE" && exec 9< "$FAKE" && flock -n 9
ok_if "an empty cgroup, locked by its owner" test -d "$FAKE"
unshare --pid --fork --mount-proc "$BWGATE" exec --project "$P" --pids 100 \
    -- true > /dev/null 2>&1
ok_if "  is not removed by a run from another namespace" test -d "$FAKE"
exec 9<&-
unshare --pid --fork --mount-proc "$BWGATE" exec --project "$P" --pids 100 \
    -- true > /dev/null 2>&1
ok_unless "  once its owner let go, the next run removes it" test -d "$FAKE"

done_testing
