#!/bin/bash
# bench-soak: a headless console under a long mixed load, to see that
# memory, descriptors, processes and the audit log stay flat after warm-up.
# 8 agents submit a mix: allowed, denied by a rule, asked and approved by
# an operator through the control socket, killed by the operator,
# abandoned mid-run by their client, and garbage lines. Prints the
# console's resident memory, descriptors, the processes under it and the
# audit log's size at ten checkpoints. Not a test: it asserts nothing.
#
#	SOAK_N=200000 bash bench/bench-soak.sh	(by hand; make bench runs 2,000)
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}" "${BWGATE_BUILDDIR:?}"
N=${SOAK_N:-2000}
AGENTS=8
PEER="$BWGATE_BUILDDIR/tests/integration/console-peer"
T=$(mktemp -d /tmp/bwgate-soak.XXXXXX)
P="$T/proj"
mkdir -p "$P/src" "$T/run" "$T/state" "$T/config/bwgate"
chmod 0700 "$T/run"
export XDG_RUNTIME_DIR="$T/run" XDG_STATE_HOME="$T/state" \
    XDG_CONFIG_HOME="$T/config" HOME="$T"
unset BWGATE_SOCKET
# Rotation on, so the log's size stays bounded too.
echo '{"console": {"audit_max_bytes": 4194304, "audit_keep": 4}}' \
    > "$T/config/bwgate/config.json"
cat > "$T/config/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"soak-deny","command":["rm"],"verdict":"deny","reason":"soak: denied"}
]}
JSON
cd "$P"
CPID= OPID=
pids=()
cleanup() {
	[ -n "$OPID" ] && kill "$OPID" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$BWGATE" --headless > "$T/out" 2> "$T/err" &
CPID=$!
for _ in $(seq 200); do grep -q '^export' "$T/out" 2>/dev/null && break; sleep 0.05; done
S="$XDG_RUNTIME_DIR/bwgate/agent.sock"

# The operator: approves what waits, kills the long sleeps once they run.
operator() {
	while :; do
		# One listing per round (the console keeps 1,000 requests: a
		# listing is megabytes of JSON, the soak's own main cost).
		"$BWGATE" list --json 2>/dev/null | jq -r '.[] |
		    if .state == "pending" then "approve \(.id)"
		    elif .state == "running" and (.command | test("^sleep 30"))
		    then "kill \(.id)" else empty end' 2>/dev/null |
		    while read -r verb id; do
			"$BWGATE" "$verb" "$id" > /dev/null 2>&1
		done
		sleep 0.05
	done
}
operator &
OPID=$!

# One agent: its share of the mix, one request at a time.
agent() {
	local a="$1" n="$2" i
	for ((i = 0; i < n; i++)); do
		case $(( (i + a) % 6 )) in
		0) "$BWGATE" run -- true ;;
		1) "$BWGATE" run -- rm -f nothing ;;
		2) "$BWGATE" run -- sh -c 'echo asked' ;;
		3) "$BWGATE" run -- sleep 30 ;;
		4) timeout -s KILL 0.3 "$BWGATE" run -- sleep 5 ;;
		5) printf 'garbage %d\n' "$i" | "$PEER" -t 5 -n 1 "$S" ;;
		esac > /dev/null 2>&1
		echo >> "$T/done.$a"
	done
}
per=$(( (N + AGENTS - 1) / AGENTS ))
for a in $(seq 1 $AGENTS); do agent "$a" "$per" & pids+=($!); done

done_count() { cat "$T"/done.* 2>/dev/null | wc -l; }
checkpoint() {
	local rss fds procs audit
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$CPID/status")
	fds=$(ls "/proc/$CPID/fd" | wc -l)
	procs=$(ps -eo ppid= | awk -v p="$CPID" '$1 == p' | wc -l)
	audit=$(cat "$XDG_STATE_HOME"/bwgate/audit.jsonl* | wc -c)
	printf '  %7d requests  rss %6d KiB  fds %4d  children %3d  audit %8d bytes\n' \
	    "$1" "$rss" "$fds" "$procs" "$audit"
}
echo "soak: $N requests from $AGENTS agents (mix of 6 kinds)"
t0=$(date +%s)
next=$(( N / 10 ))
while [ "$(done_count)" -lt $(( per * AGENTS )) ]; do
	if ! kill -0 "$CPID" 2>/dev/null; then
		echo "  the console died"; exit 1
	fi
	d=$(done_count)
	if [ "$d" -ge "$next" ]; then
		checkpoint "$d"
		next=$(( next + N / 10 ))
	fi
	sleep 0.5
done
wait "${pids[@]}"
pids=()
checkpoint "$(done_count)"
echo "  $(( $(date +%s) - t0 )) s in all"
