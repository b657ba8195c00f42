#!/bin/bash
# Resources (issue 9, section 5): a memory hog, a fork bomb and a CPU spinner
# are stopped by the per-command limits, and the report says which limit
# ("killed": "memory limit", "pids limit", "time limit"). With a cgroup the
# kill is reported exactly; with resource limits only (an ordinary user
# without a delegated cgroup, nested) the command is still held back.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
# A run's cgroup is named after its bwgate process (bwgate-PID-NONCE): note
# ours (other tests beside this one kill runs outright, whose cgroups wait
# for a later run).
REAL_BWGATE=$BWGATE
BWGATE="$T/bwgate"
printf '#!/bin/sh\necho $$ >> "%s"\nexec "%s" "$@"\n' "$T/our.pids" \
    "$REAL_BWGATE" > "$BWGATE"
chmod +x "$BWGATE"
# Cgroups of runs gone before this test, under any parent (another test's
# killed run, another login's): a pid of ours may come again with one's name.
find /sys/fs/cgroup -maxdepth 5 -name 'bwgate-*' 2>/dev/null > "$T/cg.before"
BACKEND=$("$BWGATE" exec --json --project "$P" -- true |
    jq -r .sandbox.limits.enforced_by)
echo "# limits enforced by: $BACKEND"
ok_if "doctor says which limits are enforced" \
	sh -c "'$BWGATE' doctor 2>&1 | grep 'resource limits' | grep -qF 'by $BACKEND'"

# sort /dev/zero grows without bound: held at 200 MiB.
START=$(date +%s)
jexec --memory 200M --timeout 60 -- sort /dev/zero
END=$(date +%s)
ok_if "memory hog stopped well before the timeout" test $((END - START)) -lt 30
case "$BACKEND" in
cgroup*)
	assert_eq "memory hog: killed: memory limit" "$(jfield .killed)" \
		'"memory limit"'
	;;
*)
	ok_unless "memory hog: did not succeed" \
		test "$(jfield .exit_code)" = 0
	;;
esac
assert_eq "report shows the memory limit" \
	"$(jfield .sandbox.limits.memory)" 209715200

# A fork bomb: capped, then stopped.
jexec --pids 64 --timeout 30 -- bash -c \
    'n=0; while [ $n -lt 1000 ]; do sleep 30 & n=$((n+1)); done; wait'
case "$BACKEND" in
cgroup*)
	assert_eq "fork bomb: killed: pids limit" "$(jfield .killed)" \
		'"pids limit"'
	ok_if "fork bomb: stopped before the timeout" \
		test "$(jfield .timed_out)" = false
	;;
*)
	assert_match "fork bomb: forks refused" "$(jfield .stderr)" \
		'fork|Resource temporarily unavailable'
	;;
esac
ok_unless "no sleep from the fork bomb left on the host" \
	pgrep -f "^sleep 30$" -u "$(id -u)"

# CPU time (optional): SIGXCPU.
jexec --cpu 1 --timeout 30 -- sh -c 'while :; do :; done'
assert_eq "cpu spinner: killed: time limit" "$(jfield .killed)" \
	'"time limit"'

# Limits from the configuration, per profile.
cat > "$T/cfg.json" <<'CFG'
{ "limits": { "pids": 300, "profiles": { "build": { "pids": 40 } } } }
CFG
jexec --config "$T/cfg.json" -- true
assert_eq "configured limit applies" "$(jfield .sandbox.limits.pids)" 300
jexec --config "$T/cfg.json" --profile build -- true
assert_eq "profile limit applies" "$(jfield .sandbox.limits.pids)" 40
jexec --config "$T/cfg.json" --profile build --pids 77 -- true
assert_eq "request limit wins" "$(jfield .sandbox.limits.pids)" 77
echo '{ "limits": { "profiles": { "x": { "memroy": 1 } } } }' > "$T/bad.json"
ok_unless "a typo in a profile's limits is an error" \
	"$BWGATE" exec --config "$T/bad.json" -- true

# bwrap joins the cgroup before it starts: bwrap itself and the command
# are inside from their first instruction (born there, not moved).
case "$BACKEND" in
cgroup*)
	(exec "$BWGATE" exec --project "$P" -- sleep 31.5) >/dev/null 2>&1 &
	EP=$!
	wait_for 10 pgrep -f '^sleep 31.5$'
	in_run_cgroup() {
		local procs
		procs=$(pgrep -P "$EP"; pgrep -f '^sleep 31.5$')
		[ "$(echo "$procs" | wc -w)" -ge 2 ] || return 1
		for c in $procs; do
			grep -Eq "^[0-9]+:(memory|pids|):.*/bwgate-$EP-[0-9a-f]{16}\$" \
			    "/proc/$c/cgroup" || return 1
		done
	}
	ok_if "bwrap and the command are in the run's cgroup" in_run_cgroup
	kill -TERM "$EP"; wait "$EP" 2>/dev/null
	;;
*)
	skip "bwrap born in the cgroup" "no cgroup here ($BACKEND)"
	;;
esac

# A run killed outright (SIGKILL: no clean-up) leaves its cgroup; a later
# run removes it once nobody holds its lock and it is empty.
case "$BACKEND" in
cgroup*)
	(exec "$BWGATE" exec --project "$P" -- sleep 60) >/dev/null 2>&1 &
	KP=$!
	wait_for 10 sh -c "find /sys/fs/cgroup -maxdepth 5 -name 'bwgate-$KP-*' | grep -q ."
	wait_for 10 pgrep -f '^sleep 60$'
	kill -KILL "$KP"; wait "$KP" 2>/dev/null
	wait_for 10 sh -c "! pgrep -f 'sleep 60\$' >/dev/null"
	# (Whether it is still there now is not checked: any other run of
	# this uid, another test's included, may have removed it already.)
	ok_if "a later run removes a killed run's stale cgroup" wait_for 40 sh -c \
		"'$BWGATE' exec --project '$P' -- true >/dev/null 2>&1;
		 ! find /sys/fs/cgroup -maxdepth 5 -name 'bwgate-$KP-*' | grep -q ."
	;;
*)
	skip "stale cgroups" "no cgroup here ($BACKEND)"
	;;
esac

# A normal command is not disturbed, and no cgroup is left behind.
jexec -- sh -c 'echo fine'
assert_eq "normal command runs" "$(jfield .stdout)" '"fine\n"'
# (Only cgroups of our uid's runs that are gone count: others may run
# beside us, and another user's killed run leaves one we cannot remove.)
ok_unless "no bwgate cgroup left behind by our runs" sh -c '
	for p in $(cat "$0"); do
		find /sys/fs/cgroup -maxdepth 5 -name "bwgate-$p-*" |
		    grep -vxFf "$1" | grep -q . && exit 0
	done
	exit 1' "$T/our.pids" "$T/cg.before"

# A tree larger than a quarter of the uid's inotify budget: the run is
# lossy and says why, and the watches it took are a quarter at most.
BUDGET=$(cat /proc/sys/fs/inotify/max_user_watches)
NS=$(cat /proc/sys/user/max_inotify_watches 2>/dev/null || echo "$BUDGET")
[ "$NS" -lt "$BUDGET" ] && BUDGET=$NS
if [ "$BUDGET" -le 400000 ]; then
	BIG="$T/big"
	mkdir -p "$BIG"
	PER=$(( BUDGET / 4 / 200 + 2 ))
	(cd "$BIG" && for i in $(seq "$PER"); do mkdir -p "d$i"/e{1..200}; done)
	# (Live events are watched only for a reader: give it one.)
	"$BWGATE" exec --json --project "$BIG" --events-fd 3 -- touch x \
		> "$T/big.json" 3> "$T/big.events"
	assert_match "big tree: lossy with this run's cap named" \
		"$(jq -r '.warnings[]' < "$T/big.json")" \
		"this run's inotify watch cap reached \\($((BUDGET / 4)), a quarter"
	assert_eq "big tree: change report still exact" \
		"$(jq -c .changes.created < "$T/big.json")" '["x"]'
	rm -rf "$BIG"
else
	skip "inotify cap per run" "watch budget $BUDGET too large to fill"
fi

# A headless console gives commands a finite timeout (headless_timeout).
echo '{ "headless_timeout": 2 }' > "$XDG_CONFIG_HOME/bwgate/config.json"
start_console --headless --auto-allowlisted
START=$(date +%s)
"$BWGATE" run --json -- sleep 30 > "$T/run.json" 2>/dev/null
END=$(date +%s)
ok_if "headless: sleep 30 ended by the default timeout" \
	test $((END - START)) -lt 20
assert_match "headless: the result says timed out" "$(cat "$T/run.json")" \
	'timed-out|"timed_out": *true'
# A request may lower its limits, never raise them.
"$BWGATE" run --json --pids 7 --cpu 5 -- sleep 0 > "$T/run.json" 2>/dev/null
assert_match "request lowers the process and CPU limits" \
	"$(grep -o '"limits":{[^}]*}' "$T/run.json")" '"pids":7,"cpu":5,'
"$BWGATE" run --json --pids 100000 --memory 99999999999999 -- sleep 0 \
    > "$T/run.json" 2>/dev/null
assert_match "request cannot raise the limits" \
	"$(grep -o '"limits":{[^}]*}' "$T/run.json")" \
	'"memory":2147483648,"pids":512,'
stop_console
rm -f "$XDG_CONFIG_HOME/bwgate/config.json"

done_testing
