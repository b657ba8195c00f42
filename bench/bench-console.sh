#!/bin/bash
# bench-console: end to end through the console.
#  1. `bwgate run -- true` (allowlisted, headless --auto-allowlisted console)
#     against bare bwrap with the same argv. Target: <= 1.5x. Its stdout
#     and stderr go to different files, as an agent's harness reads them
#     (one file for both asks exec for one pipe: a cold start).
#  2. Time for 1,000 queued requests to be answered: `true` run in the
#     sandbox, and ask verdicts denied by the headless rule (the protocol,
#     queue and audit path alone).
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}" "${BWGATE_BUILDDIR:?}"
. "$(dirname "$0")/bare-bwrap.sh"
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
# The running console's agent socket (the project's own).
sock() { sed -n 's/^export BWGATE_SOCKET=//p' "$T/out"; }

median() {
	local t0 t1 i
	for i in $(seq 1 "$N"); do
		[ -n "${GAP:-}" ] && sleep "$GAP"
		t0=$(date +%s%N)
		"$@" >/dev/null 2>"$T/stderr"
		t1=$(date +%s%N)
		${AFTER:-:}
		echo $(( (t1 - t0) / 1000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1000 }'
}

start --auto-allowlisted
"$BWGATE" run --json -- true > "$T/report.json" 2>/dev/null
bare_bwrap "$T/report.json"
if ! bash -c "$BARE_LINE" > /dev/null 2>&1; then
	echo "bare bwrap with the same mounts fails:"
	bash -c "$BARE_LINE" 2>&1 | head -3
	exit 1
fi
bare_clean
m_bare=$(AFTER=bare_clean median bash -c "$BARE_LINE")
m_run=$(median "$BWGATE" run -- true)
m_exec=$(median "$BWGATE" exec --quiet -- true)
echo "runs per case: $N (median wall time)"
printf '  bare bwrap, same argv        %8.3f ms\n' "$m_bare"
printf '  bwgate exec -- true          %8.3f ms\n' "$m_exec"
printf '  bwgate run -- true (console) %8.3f ms\n' "$m_run"
ratio=$(awk -v a="$m_run" -v b="$m_bare" 'BEGIN { printf "%.2f", a / b }')
ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "ok" : "OVER TARGET" }')
echo "  run / bare bwrap: ${ratio}x (target <= 1.5x: $ok)"
# Pairs: bare bwrap then bwgate run, one after the other N times, so a
# shared machine's load falls on both alike; the ratio of each pair, its
# median and spread (10th to 90th percentile).
pairs() {
	local i t0 t1 t1b t2
	for i in $(seq 1 "$N"); do
		[ -n "${GAP:-}" ] && sleep "$GAP"
		t0=$(date +%s%N)
		bash -c "$BARE_LINE" >/dev/null 2>&1
		t1=$(date +%s%N)
		bare_clean
		[ -n "${GAP:-}" ] && sleep "$GAP"
		t1b=$(date +%s%N)
		"$BWGATE" run -- true >/dev/null 2>"$T/stderr"
		t2=$(date +%s%N)
		echo "$(( t1 - t0 )) $(( t2 - t1b ))"
	done | awk '{ printf "%.4f\n", $2 / $1 }' | sort -n | awk '
	{ r[NR] = $1 } END {
		printf "%.2fx (pairs %.2f to %.2f, 10th to 90th percentile, %d pairs)",
		    r[int((NR + 1) / 2)], r[int(NR * 0.1) + 1], r[int(NR * 0.9)], NR
	}'
}
echo "  run / bare bwrap in pairs: $(pairs)"
echo "  paced 50 ms apart, in pairs: $(GAP=0.05 pairs)"
# Paced as an agent runs commands (50 ms apart, so the console's
# prestarted sandbox is ready and the CPUs idle between runs).
m_pbare=$(GAP=0.05 AFTER=bare_clean median bash -c "$BARE_LINE")
m_prun=$(GAP=0.05 median "$BWGATE" run -- true)
printf '  paced 50 ms apart: bare bwrap %.3f ms, bwgate run %.3f ms (%.2fx)\n' \
    "$m_pbare" "$m_prun" "$(awk -v a="$m_prun" -v b="$m_pbare" \
    'BEGIN { print a / b }')"

stop

# Where the time of `bwgate run -- true` goes, from the debug log of the
# console and its exec children (BWGATE_LOG), as medians over N runs; with
# the warm exec (the default: a prestarted sandbox for this read-only
# command) and without (console.warm_exec false).
phases() {
	local log="$T/phase.log" i
	rm -f "$log"
	start_logged() { BWGATE_LOG="$log" start --auto-allowlisted; }
	start_logged
	for i in 1 2 3; do "$BWGATE" run -- true >/dev/null 2>&1; done
	: > "$log"
	for i in $(seq 1 "$N"); do
		echo "$(date +%s.%N) 0 CLIENT: start" >> "$log"
		"$BWGATE" run -- true >/dev/null 2>"$T/stderr"
		echo "$(date +%s.%N) 0 CLIENT: end" >> "$log"
	done
	stop
	# A prestarted run's sandbox was made before its request: its
	# phases are those of the request, from the hand-over on (12-16).
	awk '
	function mark(name) { if (!(name in t)) t[name] = $1 }
	function span(x, from, to) {
		printf "%d %.3f\n", x, (t[to] - t[from]) * 1000
	}
	/CLIENT: start/ { delete t; mark("a") }
	/submit received/ { mark("b") }
	/ queued \(/ { mark("c") }
	/: warm exec pid|: exec pid .* started/ { mark("d") }
	/prestarted sandbox taken/ { mark("p") }
	/engine_run: start|run_probe: start/ { mark("e") }
	/engine_run: spawned|run_spawn: spawned/ { mark("f") }
	/observe_hello_reply/ { mark("g") }
	/engine_bwrap_exited/ { mark("h") }
	/engine_run: done/ { mark("i") }
	/job_finish: request/ { mark("j") }
	/CLIENT: end/ {
		mark("k")
		span(1, "a", "b"); span(2, "b", "c"); span(3, "c", "d")
		if ("p" in t) {
			span(12, "d", "p"); span(13, "p", "h")
		} else {
			span(4, "d", "e"); span(5, "e", "f"); span(6, "f", "g")
			span(7, "g", "h")
		}
		span(8, "h", "i"); span(9, "i", "j"); span(10, "j", "k")
		span(11, "a", "k")
	}' "$log" | sort -k1,1n -k2,2n | awk -v N="$N" '
	BEGIN {
		split("client start, connect, submit|classify, dry build, " \
		    "audit|console to exec (spawn, or hand to the warm one)|" \
		    "exec: process start, read the spec|exec: build, spawn " \
		    "bwrap|bwrap: namespaces, mounts, helper|the command, " \
		    "bwrap exits|exec: report|exec exits, console reads it|" \
		    "result to the client, client exits|in all|" \
		    "exec: read the spec, take the prestarted sandbox|" \
		    "the command (sent to the helper), bwrap exits", name, "|")
		split("1 2 3 4 5 6 12 7 13 8 9 10 11", order, " ")
	}
	{ v[$1, ++n[$1]] = $2 }
	END {
		for (i = 1; i <= 13; i++) {
			x = order[i]
			# (A phase of a few runs only: the first ones,
			# before a sandbox was prestarted.)
			if (n[x] * 2 < N)
				continue
			printf "    %6.2f ms  %s%s\n", v[x, int((n[x] + 1) / 2)],
			    name[x], n[x] < N ? " (" n[x] " runs)" : ""
		}
	}'
}
echo "phases of bwgate run -- true through the console, warm exec:"
phases
mkdir -p "$T/cfg/bwgate"
echo '{"console": {"warm_exec": false}}' > "$T/cfg/bwgate/config.json"
echo "the same, cold exec (console.warm_exec false):"
(export XDG_CONFIG_HOME="$T/cfg"; phases)
m_cold=$(export XDG_CONFIG_HOME="$T/cfg"; start --auto-allowlisted
    median "$BWGATE" run -- true; stop)
printf '  bwgate run -- true, cold exec %8.3f ms (%.2fx bare)\n' "$m_cold" \
    "$(awk -v a="$m_cold" -v b="$m_bare" 'BEGIN { print a / b }')"
start --auto-allowlisted

if [ -x "$PEER" ]; then
	t0=$(date +%s%N)
	res=$("$PEER" -t 600 -L 10 -m 100 "$(sock)" true 2>&1 || true)
	t1=$(date +%s%N)
	printf '  1000 queued requests run (10 agents x 100): %s in %.2f s\n' \
	    "$res" "$(awk -v n=$((t1 - t0)) 'BEGIN { print n / 1e9 }')"
fi 2>/dev/null
stop

# Ask verdicts denied at once by the headless rule: no sandbox involved.
if [ -x "$PEER" ]; then
	start --auto-allowlisted
	t0=$(date +%s%N)
	"$PEER" -t 600 -L 10 -m 100 "$(sock)" \
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
