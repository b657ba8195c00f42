#!/bin/bash
# bench-console: end to end through the console.
#  1. `bwgate run -- true` (allowlisted, headless --auto-allowlisted console)
#     against bare bwrap with the same argv. Target: <= 1.5x.
#  2. Time for 1,000 queued requests to be answered: `true` run in the
#     sandbox, and ask verdicts denied by the headless rule (the protocol,
#     queue and audit path alone).
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}" "${BWGATE_BUILDDIR:?}"
N=${N:-50}
PEER="$BWGATE_BUILDDIR/tests/integration/console-peer"
T=$(mktemp -d /tmp/bwgate-bench.XXXXXX)
P="$T/proj"
mkdir -p "$P/.git/hooks" "$P/src" "$T/run" "$T/state"
chmod 0700 "$T/run"
for i in $(seq 1 50); do echo "$i" > "$P/src/f$i.c"; done
echo '{}' > "$P/.bwgate.json"
export XDG_RUNTIME_DIR="$T/run" XDG_STATE_HOME="$T/state"
unset BWGATE_SOCKET
cd "$P"
CPID=
trap '[ -n "$CPID" ] && kill $CPID 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT

start() {
	rm -f "$T/out"
	"$BWGATE" --headless "$@" > "$T/out" 2> "$T/err" &
	CPID=$!
	for i in $(seq 100); do
		grep -q '^export' "$T/out" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "console did not start"; cat "$T/err"; exit 1
}
stop() { kill "$CPID"; wait "$CPID" 2>/dev/null; CPID=; }

median() {
	local t0 t1 i
	for i in $(seq 1 "$N"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1000 }'
}

start --auto-allowlisted
"$BWGATE" run --json -- true > "$T/report.json" 2>/dev/null
mapfile -t ARGV < <(jq -r '.bwrap_argv[]' "$T/report.json")
bare=(); redir=()
for ((i = 0; i < ${#ARGV[@]}; i++)); do
	a=${ARGV[$i]}
	case "$a" in
	--bind-fd|--ro-bind-fd)
		bare+=("$a" "${ARGV[$((i + 1))]}" "${ARGV[$((i + 2))]}")
		redir+=("${ARGV[$((i + 1))]}<${ARGV[$((i + 2))]}")
		i=$((i + 2)) ;;
	--seccomp) i=$((i + 1)) ;;
	--json-status-fd)
		bare+=("$a" "${ARGV[$((i + 1))]}")
		redir+=("${ARGV[$((i + 1))]}>/dev/null")
		i=$((i + 1)) ;;
	*) bare+=("$a") ;;
	esac
done
run_bare() { eval "exec ${redir[*]}"; exec "${bare[@]}"; }
m_bare=$(median bash -c "$(declare -p bare redir); $(declare -f run_bare); run_bare")
m_run=$(median "$BWGATE" run -- true)
m_exec=$(median "$BWGATE" exec --quiet -- true)
echo "runs per case: $N (median wall time)"
printf '  bare bwrap, same argv        %8.3f ms\n' "$m_bare"
printf '  bwgate exec -- true          %8.3f ms\n' "$m_exec"
printf '  bwgate run -- true (console) %8.3f ms\n' "$m_run"
ratio=$(awk -v a="$m_run" -v b="$m_bare" 'BEGIN { printf "%.2f", a / b }')
ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "ok" : "OVER TARGET" }')
echo "  run / bare bwrap: ${ratio}x (target <= 1.5x: $ok)"

if [ -x "$PEER" ]; then
	t0=$(date +%s%N)
	res=$("$PEER" -t 600 -L 10 -m 100 "$XDG_RUNTIME_DIR/bwgate/agent.sock" true 2>&1 || true)
	t1=$(date +%s%N)
	printf '  1000 queued requests run (10 agents x 100): %s in %.2f s\n' \
	    "$res" "$(awk -v n=$((t1 - t0)) 'BEGIN { print n / 1e9 }')"
fi 2>/dev/null
stop

# Ask verdicts denied at once by the headless rule: no sandbox involved.
if [ -x "$PEER" ]; then
	start --auto-allowlisted
	t0=$(date +%s%N)
	"$PEER" -t 600 -L 10 -m 100 "$XDG_RUNTIME_DIR/bwgate/agent.sock" \
	    "touch x" > "$T/deny.out" 2>&1
	t1=$(date +%s%N)
	n=$(grep -c 'denied' "$T/err")
	printf '  1000 queued requests denied (headless rule): %d denials in %.2f s\n' \
	    "$n" "$(awk -v n=$((t1 - t0)) 'BEGIN { print n / 1e9 }')"
	stop
else
	echo "  (build tests/integration/console-peer for the queue figures)"
fi
exit 0
