#!/bin/bash
# bench-observe: what the violation observer (seccomp user notification)
# costs. Each figure is measured with the observer and without it
# (BWGATE_NO_NOTIFY=1: the helper still runs, no filter is installed):
#	1. one write-intent system call (open O_WRONLY|O_CREAT in the
#	   project), in microseconds, and a read-only open for contrast;
#	2. a compile-like workload: cc -c of a generated C project;
#	3. `bwgate exec -- true` (the helper's start-up cost), also against
#	   --no-observe (no helper at all);
#	4. one exec (execve is notified and recorded, report "executed"):
#	   EXECS runs of /bin/true, in microseconds each.
# Medians of R runs; ratios with/without. Target (issue 3): ~45 us per
# write call, ~0% on a compile.
set -u
: "${BWGATE:?}"
R=${R:-5}
CALLS=${CALLS:-20000}
FILES=${FILES:-40}
EXECS=${EXECS:-2000}
P=$(mktemp -d /tmp/bwgate-bench-observe.XXXXXX)
trap 'chmod -R u+rwX "$P"; rm -rf "$P"' EXIT
mkdir -p "$P/.git/hooks" "$P/src"
cd "$P" || exit 1

command -v python3 >/dev/null || { echo "bench-observe: needs python3"; exit 1; }
command -v cc >/dev/null || { echo "bench-observe: needs cc"; exit 1; }

# A small C project: each file includes a shared header and some code.
cat > src/common.h <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct item { int id; char name[32]; double v; };
EOF
for i in $(seq 1 "$FILES"); do
	{
		echo '#include "common.h"'
		for j in $(seq 1 20); do
			echo "static double f${j}(struct item *it) { double s = 0; for (int k = 0; k < it->id; k++) s += k * it->v / ($j + 1); return s; }"
		done
		echo "double unit$i(void) { struct item it = { $i, \"x\", 1.5 }; return f1(&it) + f2(&it) + f20(&it); }"
	} > "src/u$i.c"
done
cat > build.sh <<'EOF'
set -e
mkdir -p obj
for f in src/*.c; do cc -O1 -c "$f" -o "obj/$(basename "$f" .c).o"; done
cc -shared -o obj/libunits.so obj/*.o
rm -rf obj
EOF

# Per-call time (us) printed by the command, median of R runs.
percall() {
	local mode="$1" what="$2"
	for r in $(seq 1 "$R"); do
		BWGATE_NO_NOTIFY=$mode "$BWGATE" exec --json -- python3 -c "
import os, time
n = $CALLS
t = time.perf_counter()
for i in range(n):
    os.close(os.open('f', $what))
print('%.3f' % ((time.perf_counter() - t) / n * 1e6))" 2>/dev/null |
		jq -r .stdout
	done | sort -n | awk 'NF { a[++n] = $1 } END { print a[int((n + 1) / 2)] }'
}

# The same, but the fastest run (least disturbed by other load).
percall_min() {
	for r in $(seq 1 $((R * 2))); do
		BWGATE_NO_NOTIFY=$1 "$BWGATE" exec --json -- python3 -c "
import os, time
n = $CALLS
t = time.perf_counter()
for i in range(n):
    os.close(os.open('f', $2))
print('%.3f' % ((time.perf_counter() - t) / n * 1e6))" 2>/dev/null |
		jq -j .stdout
	done | sort -n | awk 'NF { print; exit }'
}

# Median wall times in ms of R runs of a command, observed and not,
# interleaved so that load from elsewhere hits both alike: "A B".
pair_ms() {
	for r in $(seq 1 "$R"); do
		for mode in 0 1; do
			t0=$(date +%s%N)
			BWGATE_NO_NOTIFY=$mode "$@" >/dev/null 2>&1
			t1=$(date +%s%N)
			echo "$mode $(( (t1 - t0) / 1000 ))"
		done
	done | awk '
	function med(v, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return v[int((n + 1) / 2)] / 1000
	}
	$1 == 0 { a[++na] = $2 } $1 == 1 { b[++nb] = $2 }
	END { printf "%.1f %.1f", med(a, na), med(b, nb) }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

mode=$("$BWGATE" exec --json -- true 2>/dev/null | jq -r .sandbox.violations)
echo "observer mode here: $mode"
[ "$mode" = exact ] || echo "bench-observe: no seccomp user notification: figures compare two fallbacks"

W=$(percall 0 'os.O_WRONLY | os.O_CREAT')
W0=$(percall 1 'os.O_WRONLY | os.O_CREAT')
RD=$(percall 0 'os.O_RDONLY')
RD0=$(percall 1 'os.O_RDONLY')
echo "write-intent open: $W us observed, $W0 us unobserved: +$(awk -v a="$W" -v b="$W0" 'BEGIN { printf "%.1f", a - b }') us per call"
echo "read-only open:    $RD us observed, $RD0 us unobserved (not notified)"
WM=$(percall_min 0 'os.O_WRONLY | os.O_CREAT')
WM0=$(percall_min 1 'os.O_WRONLY | os.O_CREAT')
echo "write-intent open, fastest of $((R * 2)): $WM us observed, $WM0 us unobserved: +$(awk -v a="$WM" -v b="$WM0" 'BEGIN { printf "%.1f", a - b }') us per call"

set -- $(pair_ms "$BWGATE" exec --quiet -- sh build.sh)
C=$1 C0=$2
echo "compile ($FILES files): $C ms observed, $C0 ms unobserved: ratio $(ratio "$C" "$C0")"
N=$("$BWGATE" exec --json -- sh build.sh 2>/dev/null | jq -r .sandbox.observed_calls)
echo "compile: $N observed calls x $WM us = $(awk -v n="$N" -v w="$WM" -v c="$C0" 'BEGIN { printf "%.1f ms, %.2f%% of the compile", n * w / 1000, n * w / 10 / c }')"

set -- $(R=$((R * 4)) pair_ms "$BWGATE" exec --quiet -- true)
T1=$1 T0=$2
echo "exec -- true: $T1 ms observed, $T0 ms unobserved: ratio $(ratio "$T1" "$T0")"
# Without the helper at all (--no-observe), interleaved with observed runs.
set -- $(R=$((R * 4)) pair_ms sh -c '
	if [ "$BWGATE_NO_NOTIFY" = 1 ]; then
		exec env -u BWGATE_NO_NOTIFY "$0" exec --quiet --no-observe -- true
	fi
	exec "$0" exec --quiet -- true' "$BWGATE")
echo "exec -- true: $1 ms observed, $2 ms without the helper: ratio $(ratio "$1" "$2")"

# 4. Exec recording: the fastest of 2R runs, observed and not.
perexec_min() {
	for r in $(seq 1 $((R * 2))); do
		BWGATE_NO_NOTIFY=$1 "$BWGATE" exec --json -- sh -c "
t0=\$(date +%s%N); i=0
while [ \$i -lt $EXECS ]; do /bin/true; i=\$((i + 1)); done
t1=\$(date +%s%N); echo \$(( (t1 - t0) / $EXECS / 1000 ))" 2>/dev/null |
		jq -j .stdout
	done | sort -n | awk 'NF { print; exit }'
}
X=$(perexec_min 0)
X0=$(perexec_min 1)
echo "exec of /bin/true, fastest of $((R * 2)): $X us observed (recorded), $X0 us unobserved: $(awk -v a="$X" -v b="$X0" 'BEGIN { printf "%+d", a - b }') us per exec (fork+exec noise on a loaded host is larger than one notification)"
E=$("$BWGATE" exec --json -- sh build.sh 2>/dev/null |
    jq -r '[.executed[].count] | add')
echo "compile: $E execs recorded, each one notification like a write call (about $WM us)"
