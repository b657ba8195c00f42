#!/bin/bash
# A project's processes (issue 41, pod.h): the sandboxes of one project
# (project profile) run in one pid namespace held by the project's pod, so
# `ps`, `pgrep` and `pkill` in one request see and reach what another
# request of the project runs, and nothing of the host's or of another
# project's. A request is still ended by itself alone: a timeout kills
# its own processes (by its cgroup, or where it has none, by its IPC
# namespace: proctree.h), never the project's others, and its background
# processes end with it, a daemon that left its session too. Where no
# fresh /proc can be mounted the sandbox keeps a pid namespace of its own
# and says so. pod-pids-nocg.sh runs this with the limits off (no cgroup
# of its own, as an ordinary user without a delegated cgroup has).
. "$(dirname "$0")/libtest.sh"

if [ -n "${POD_PIDS_NO_CGROUP:-}" ]; then
	mkdir -p "$XDG_CONFIG_HOME/bwgate"
	echo '{ "limits": { "memory": 0, "pids": 0 } }' \
	    > "$XDG_CONFIG_HOME/bwgate/config.json"
fi

for tool in pgrep pkill ps; do
	if ! command -v "$tool" >/dev/null; then
		skip "a project's processes" "$tool not installed (procps)"
		done_testing; exit
	fi
done
export BWGATE_POD_IDLE=2
BUILD=${BWGATE_BUILDDIR:-${BWGATE%/*}}
A=$(new_project a)
B=$(new_project b)
# Distinct numbers: each request's process is found by its command line.
N=$(( 100000 + RANDOM % 800000 ))
N1=$N; N2=$(( N + 1 )); N3=$(( N + 2 )); N4=$(( N + 3 )); NH=$(( N + 4 ))
N5=$(( N + 5 ))
PIDS=
TEARDOWN='kill $PIDS 2>/dev/null; wait 2>/dev/null'

# Does the host run "sleep SECONDS" (exactly)?
running() { pgrep -x -f "sleep $1" >/dev/null; }

# The host's own process: never seen from a sandbox.
sleep "$NH" &
PIDS="$PIDS $!"

# Shared here? Where a run gets a fresh /proc (bwgate doctor says), with
# or without a cgroup of its own, it must be; the argv and warnings say
# what is.
DOC=$("$BWGATE" doctor --json 2>/dev/null)
LIMITS=$(jq -r '.checks[] | select(.name == "resource limits") | .detail' \
    <<< "$DOC")
PROC=$(jq -r '.checks[] | select(.name == "/proc") | .detail' <<< "$DOC")
case "$PROC" in
*"fresh /proc"*) SHARED=1 ;;
*) SHARED=0 ;;
esac
# Where no fresh /proc can be mounted (some nested setups) the sandbox has
# the enclosing /proc bound, with its processes (bwgate warns): no
# visibility check applies there.
case "$PROC" in
*"fresh /proc"*) FRESH=1 ;;
*) FRESH=0 ;;
esac
echo "# limits: $LIMITS; /proc: $PROC; shared expected: $SHARED"
P=$A
jexec true
ARGV=$(jfield '.bwrap_argv | join(" ")')
WARN=$(jfield '.warnings | join(" ")')
if [ -n "${POD_PIDS_NO_CGROUP:-}" ]; then
	assert_eq "the limits are off: no cgroup of its own" \
		"$(jfield .sandbox.limits.enforced_by)" \
		'"resource limits (prlimit)"'
fi
if [ "$SHARED" = 1 ]; then
	assert_match "the argv joins the pod's user and pid namespaces" \
		"$ARGV" '--userns [0-9]+ --pidns [0-9]+ --unshare-ipc --unshare-uts --unshare-cgroup-try --share-net '
	ok_unless "and makes no pid namespace of its own" \
		grep -q -e '--unshare-all' -e '--unshare-pid' <<< "$ARGV"
	assert_eq "and adds no warning to the report the agent reads" \
		"$WARN" '""'
	jexec cat /proc/sys/user/max_user_namespaces
	assert_eq "no user namespace can be made in it (as --disable-userns)" \
		"$(jq -r .stdout < "$T/report.json")" "0"
	assert_eq "the report says so" "$(jfield .sandbox.project_pids)" true
elif [ "$FRESH" = 1 ]; then
	assert_match "without a shared pid namespace the run says why" \
		"$WARN" 'does not see the project.s other processes'
	assert_match "and keeps a pid namespace of its own" "$ARGV" \
		'--unshare-all'
else
	assert_match "a bound /proc: the run says what it shows" "$WARN" \
		'processes outside the sandbox are visible'
	assert_match "and keeps a pid namespace of its own" "$ARGV" \
		'--unshare-all'
	assert_eq "the report says so" "$(jfield .sandbox.project_pids)" false
fi

# No namespace descriptor reaches the command (bwrap leaves those it
# joined open; the helper closes them).
assert_eq "the command holds no namespace descriptor" "$("$BWGATE" exec \
    --quiet --project "$A" -- sh -c 'ls -l /proc/self/fd/' 2>&1 |
    grep -c -e 'user:\[' -e 'pid:\[' -e 'net:\[')" "0"

# 1. Request 1 runs a long process in the background.
"$BWGATE" exec --quiet --project "$A" -- sleep "$N1" > "$T/r1.out" 2>&1 &
R1=$!
PIDS="$PIDS $R1"
ok_if "request 1's process runs" wait_for 20 running "$N1"

# 2. Request 2 of the same project: ps sees it (shared) or not (own).
"$BWGATE" exec --quiet --project "$A" -- ps ax -o pid=,args= \
    > "$T/r2.out" 2>&1
if [ "$SHARED" = 1 ]; then
	ok_if "request 2's ps sees request 1's process" \
		grep -qx " *[0-9]* sleep $N1" "$T/r2.out"
	ok_if "pid 1 is the pod's init" grep -qx " *1 .*bwgate-pod init" \
		"$T/r2.out"
	assert_eq "pgrep in request 2 finds it" "$("$BWGATE" exec --quiet \
	    --project "$A" -- sh -c "pgrep -x -f 'sleep $N1' >/dev/null && \
	    echo found" 2>&1)" "found"
elif [ "$FRESH" = 1 ]; then
	ok_unless "request 2's ps does not see request 1's process" \
		grep -q "sleep $N1" "$T/r2.out"
fi
if [ "$FRESH" = 1 ]; then
	ok_unless "nor the host's processes" grep -q "sleep $NH" "$T/r2.out"
	ok_unless "nor bwgate of the host" grep -q 'bwgate exec' "$T/r2.out"
else
	skip "what ps shows" "no fresh /proc here: $PROC"
fi

# The pod (project A's only, now): its holder, the keeper of its
# namespaces, the owner of the pid namespace, and its init; all end with
# the holder (their parent-death signals), checked at the end.
CHAIN=
for lock in "$XDG_RUNTIME_DIR"/bwgate/pod-*.lock; do
	p=$(cat "$lock" 2>/dev/null)
	one=
	while [ -n "$p" ]; do
		one="$one $p"
		p=$(pgrep -P "$p" | head -1)
	done
	echo "# pod processes: $one"
	if [ "$SHARED" = 1 ]; then
		assert_eq "a pod is holder, keeper, namespace owner, init" \
			"$(echo $one | wc -w)" "4"
	fi
	CHAIN="$CHAIN $one"
done

# 2b. lsof -i :PORT in one request names the server another one runs.
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ "$SHARED" = 1 ] && [ -n "$PY" ] && command -v lsof >/dev/null; then
	PORT=$(( 20000 + RANDOM % 20000 ))
	"$BWGATE" exec --quiet --project "$A" -- "$PY" -u -m http.server \
	    "$PORT" --bind 127.0.0.1 > "$T/srv.out" 2>&1 &
	SRV=$!
	PIDS="$PIDS $SRV"
	wait_for 20 grep -q "Serving HTTP" "$T/srv.out"
	assert_match "lsof -i :PORT in request 2 names request 1's server" \
		"$("$BWGATE" exec --quiet --project "$A" -- lsof -i ":$PORT" \
		    2>&1)" 'python3 .*LISTEN'
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
else
	skip "lsof of another request's server" "not shared here, or no python3 or lsof"
fi

# 3. Another project sees nothing of project A's.
"$BWGATE" exec --quiet --project "$B" -- ps ax -o pid=,args= \
    > "$T/b.out" 2>&1
if [ "$FRESH" = 1 ]; then
	ok_if "project B's ps does not see project A's process" \
		sh -c "grep -q 'ps ax' '$T/b.out' && ! grep -q 'sleep $N1' '$T/b.out'"
fi
assert_eq "nor can B's pkill end it" "$("$BWGATE" exec --quiet \
    --project "$B" -- pkill -x -f "sleep $N1"; echo $?)" "1"
ok_if "A's process still runs" running "$N1"

# 4. A wider profile (git-write) keeps a pid namespace of its own.
"$BWGATE" exec --quiet --project "$A" --profile git-write -- \
    ps ax -o pid=,args= > "$T/git.out" 2>&1
if [ "$FRESH" = 1 ]; then
	ok_if "a git-write sandbox does not see the project's processes" \
		sh -c "grep -q 'ps ax' '$T/git.out' && ! grep -q 'sleep $N1' '$T/git.out'"
fi

# 4b. Nor a read-only one, nor one that hides a path (through another
#     request's /proc/PID/root it would see what it hides).
"$BWGATE" exec --quiet --project "$A" --profile readonly -- \
    ps ax -o pid=,args= > "$T/ro.out" 2>&1
"$BWGATE" exec --quiet --project "$A" --hide "$A/src" -- \
    ps ax -o pid=,args= > "$T/hide.out" 2>&1
if [ "$FRESH" = 1 ]; then
	ok_if "a read-only sandbox does not see the project's processes" \
		sh -c "grep -q 'ps ax' '$T/ro.out' && ! grep -q 'sleep $N1' '$T/ro.out'"
	ok_if "a sandbox hiding a path does not see them" \
		sh -c "grep -q 'ps ax' '$T/hide.out' && ! grep -q 'sleep $N1' '$T/hide.out'"
fi

# 5. Killing a request (its timeout) kills its processes only.
"$BWGATE" exec --quiet --timeout 2 --project "$A" -- sh -c \
    "sleep $N3 & sleep $N4" > "$T/r3.out" 2>&1
ok_if "a timed-out request's processes end" wait_for 10 sh -c \
	"! pgrep -f -x 'sleep $N3' && ! pgrep -f -x 'sleep $N4'"
ok_if "request 1's process outlives another request's timeout" \
	running "$N1"
ok_if "and request 1 still runs" kill -0 "$R1"

# 6. A request's background process ends with the request, as before.
"$BWGATE" exec --quiet --project "$A" -- sh -c "sleep $N5 & echo started" \
    > "$T/r5.out" 2>&1
assert_eq "the request with a background process returned" \
	"$(cat "$T/r5.out")" "started"
ok_if "its background process is gone" wait_for 10 sh -c \
	"! pgrep -f -x 'sleep $N5'"

# 6a. Nor does a daemon that forked twice and left its session (setsid):
#     it is no descendant and in no group of the command's, the pod's
#     init is its parent; it is still the request's (its cgroup, its IPC
#     namespace), and ends with it.
N8=$(( N + 8 ))
"$BWGATE" exec --quiet --project "$A" -- sh -c \
    "setsid sh -c 'sleep $N8 & exit 0' </dev/null >/dev/null 2>&1 & \
    sleep 1; echo started" > "$T/r8.out" 2>&1
assert_eq "the request with a daemon returned" "$(cat "$T/r8.out")" \
	"started"
ok_if "its daemon is gone" wait_for 10 sh -c "! pgrep -f -x 'sleep $N8'"

# 6c. Nor a process whose main thread exited while another runs on (its
#     /proc entry shows no namespace then; found by its threads'): the
#     thread is named, its process has no command line left.
N9=$(( N + 9 ))
thread_runs() { grep -qx "bwg$N9" /proc/[0-9]*/task/*/comm 2>/dev/null; }
case "$(uname -m)" in
x86_64) SYS_EXIT=60 ;;
aarch64) SYS_EXIT=93 ;;
*) SYS_EXIT= ;;
esac
if [ -n "$PY" ] && [ -n "$SYS_EXIT" ]; then
	cat > "$A/leader.py" <<PYEOF
import ctypes, threading, time
def run():
    ctypes.CDLL(None).prctl(15, b"bwg$N9", 0, 0, 0)
    time.sleep(300)
threading.Thread(target=run).start()
time.sleep(0.2)
ctypes.CDLL(None).syscall($SYS_EXIT, 0)
PYEOF
	"$BWGATE" exec --quiet --project "$A" -- sh -c "'$PY' leader.py \
	    </dev/null >/dev/null 2>&1 & sleep 2; cat /proc/[0-9]*/task/*/comm \
	    2>/dev/null | grep -x 'bwg$N9'" > "$T/r9.out" 2>&1
	assert_eq "a request left a process whose main thread exited" \
		"$(cat "$T/r9.out")" "bwg$N9"
	ok_if "  it is gone with the request" wait_for 10 sh -c \
		"! grep -qx 'bwg$N9' /proc/[0-9]*/task/*/comm 2>/dev/null"
	rm -f "$A/leader.py"
else
	skip "a process whose main thread exited" "no python3, or not x86_64/aarch64 (exit's number)"
fi

# 6b. A request killed outright (its bwgate gets SIGKILL) leaves nothing
#     in the project's pid namespace: the pod ends what is left in its
#     cgroup once the run is gone.
N6=$(( N + 6 )); N7=$(( N + 7 ))
"$BWGATE" exec --quiet --project "$A" -- sh -c "sleep $N6 & exec sleep $N7" \
    > "$T/r6.out" 2>&1 &
R6=$!
ok_if "the request's background process runs" wait_for 20 running "$N6"
kill -KILL "$R6"
wait "$R6" 2>/dev/null
ok_if "its processes end with it" wait_for 10 sh -c \
	"! pgrep -f -x 'sleep $N6' && ! pgrep -f -x 'sleep $N7'"
ok_if "request 1's process still runs" running "$N1"

# 7. /proc stays read-only: no request writes pid 1's or another's memory,
#    and pid 1 (the pod's init) does not die from a sandbox's signal.
"$BWGATE" exec --quiet --project "$A" -- sh -c "
	p=\$(pgrep -x -f 'sleep $N1' || echo 1)
	for f in /proc/1/mem /proc/\$p/mem; do
		if printf x 2>/dev/null 1<> \$f; then echo wrote \$f; fi
	done
	kill -KILL 1 2>/dev/null; sleep 0.2
	ps -o args= -p 1" > "$T/mem.out" 2>&1
ok_unless "no memory file is writable" grep -q '^wrote' "$T/mem.out"
if [ "$SHARED" = 1 ]; then
	assert_match "the pod's init survives kill -9 1 from a sandbox" \
		"$(tail -1 "$T/mem.out")" 'bwgate-pod init$'

fi

# 8. pkill in another request ends request 1's process (shared only).
if [ "$SHARED" = 1 ]; then
	assert_eq "pkill -f in request 2 ends request 1's process" \
		"$("$BWGATE" exec --quiet --project "$A" -- \
		    pkill -x -f "sleep $N1"; echo $?)" "0"
	ok_if "request 1's process is gone" wait_for 10 sh -c \
		"! pgrep -f -x 'sleep $N1'"
	ok_if "and request 1 ended" wait_for 10 sh -c "! kill -0 $R1"
fi

# 8b. Through /proc no sandbox reaches a file of the host's: not by pid 1
#     (the pod's init runs in the host's mount namespace), not by any
#     other pid it sees (their root, cwd, descriptors).
echo "host secret $N" > "$T/hostsecret"
chmod 644 "$T/hostsecret"
# Every /proc/PID/{root,cwd} and descriptor of every process it sees.
PROC_ATTACK="for d in /proc/[0-9]*; do
	cat \$d/root$T/hostsecret \$d/cwd/../hostsecret 2>/dev/null
	for f in \$d/fd/*; do cat \$f/hostsecret 2>/dev/null; done
done; true"
"$BWGATE" exec --quiet --project "$A" -- sh -c "$PROC_ATTACK" \
    > "$T/attack.out" 2>&1
ok_unless "no sandbox reads a host file through /proc/PID/root" \
	grep -q "host secret" "$T/attack.out"
kill $PIDS 2>/dev/null
wait 2>/dev/null
PIDS=

# 10. Root running a user's project: the pod's init runs as that user,
#     like the sandboxes, and its /proc entries stay closed to them (a
#     dumpable init of their uid would open the host's files to them).
if [ "$(id -u)" -eq 0 ] && [ "$SHARED" = 1 ] && uid_reaches 4242 "$T" &&
    use_installed_copy && cp "$BUILD/bwgate-pod" "$T/inst/libexec/bwgate/"; then
	U=$(new_project user)
	chown -R 4242:4242 "$U"
	"$BWGATE" exec --quiet --project "$U" -- sleep "$N2" \
	    > "$T/u1.out" 2>&1 &
	PIDS="$PIDS $!"
	ok_if "the user's request runs" wait_for 20 running "$N2"
	"$BWGATE" exec --quiet --project "$U" -- sh -c \
	    "ps ax -o user=,args=; $PROC_ATTACK" > "$T/u2.out" 2>&1
	ok_if "the user's project shares its pid namespace too" \
		grep -q "sleep $N2" "$T/u2.out"
	ok_if "its init runs as the user" grep -q '^4242 .*bwgate-pod init' \
		"$T/u2.out"
	ok_unless "no sandbox of the user reads a host file through /proc" \
		grep -q "host secret" "$T/u2.out"
	kill $PIDS 2>/dev/null
	wait 2>/dev/null
	PIDS=
	ok_if "the user's pod ends when idle, its init with it" wait_for 30 \
		sh -c "! pgrep -f '^$T/inst/.*bwgate-pod'"
else
	skip "root running a user's project" "not root, not shared here, or uid 4242 cannot reach $T"
fi

# 9. The pod ends when idle, and with it its keeper, owner and init.
ok_if "the pods end when idle" wait_for 30 sh -c \
	"! ls '$XDG_RUNTIME_DIR'/bwgate/pod-*.sock >/dev/null 2>&1"
for p in $CHAIN; do
	ok_if "no pod process left (pid $p)" wait_for 10 sh -c "! kill -0 $p"
done
done_testing
