#!/bin/bash
# bench-undo: what keeping a run's undo costs (bwgate(1), UNDO). Each
# figure with undo on and off (BWGATE_UNDO=0), side by side:
#	1. building bwgate inside the sandbox (every object file rewritten:
#	   the sources touched, make -j2), median of R pairs; target: at most
#	   5 % slower;
#	2. sed -i over FILES (10,000) small files;
#	3. one byte written into a BIG_MB (1 GiB) file (its copy is kept:
#	   the size limit raised for this case);
# and the store's size after each.
set -u
: "${BWGATE:?}" "${BWGATE_SRCDIR:?}"
R=${R:-3}
FILES=${FILES:-10000}
BIG_MB=${BIG_MB:-1024}
JOBS=${JOBS:-2}
W=$(mktemp -d /tmp/bwgate-bench-undo.XXXXXX)
trap 'chmod -R u+rwX "$W"; rm -rf "$W"' EXIT
export XDG_STATE_HOME="$W/state" XDG_RUNTIME_DIR="$W/run" HOME="$W/home"
mkdir -p "$XDG_STATE_HOME" "$XDG_RUNTIME_DIR" "$HOME"
chmod 700 "$XDG_RUNTIME_DIR"

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
store() { du -sb "$XDG_STATE_HOME/bwgate/undo" 2>/dev/null | cut -f1 | grep . || echo 0; }
# run ON|OFF PROJECT CMD...: seconds of one bwgate exec.
# A run that bwgate could not start (status 125: on a loaded machine
# another test may take its cgroup away) is run again, up to 3 times.
run() {
	local on="$1" p="$2" t0 t1 u=1 try
	shift 2
	[ "$on" = on ] || u=0
	for try in 1 2 3; do
		t0=$(now)
		(cd "$p" && BWGATE_UNDO=$u "$BWGATE" exec --quiet --project "$p" \
		    -- "$@") > /dev/null 2>&1
		[ $? -ne 125 ] && break
	done
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

# 1. A build of bwgate itself.
P="$W/build"
mkdir -p "$P"
git -C "$BWGATE_SRCDIR" archive HEAD | tar -x -C "$P"
mkdir -p "$P/.git"
(cd "$P" && ./bootstrap > /dev/null 2>&1 && ./configure -q > /dev/null 2>&1 &&
    make -s -j"$JOBS" > /dev/null 2>&1) || { echo "bench-undo: cannot build a copy"; exit 1; }
: > "$W/ratios"
for i in $(seq 1 "$R"); do
	# Which goes first alternates (the first build after the touch
	# finds colder caches).
	order="on off"
	[ $((i % 2)) -eq 0 ] && order="off on"
	for mode in $order; do
		find "$P/src" "$P/ui" -name '*.c' -exec touch {} +
		t=$(run "$mode" "$P" make -s -j"$JOBS")
		echo "$t" > "$W/t.$mode"
	done
	on=$(cat "$W/t.on") off=$(cat "$W/t.off")
	echo "$on / $off" | bc -l >> "$W/ratios"
	printf 'build %d: undo on %.2f s, off %.2f s\n' "$i" "$on" "$off"
done
ratio=$(median < "$W/ratios")
printf 'build: median ratio on/off %.3f (target <= 1.05); store %s bytes\n' \
    "$ratio" "$(store)"
rm -rf "$XDG_STATE_HOME/bwgate/undo"

# 2. sed -i over many files.
P="$W/sed"
mkdir -p "$P/.git" "$P/t"
python3 - "$P/t" "$FILES" <<'PY'
import sys, os
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    sub = os.path.join(d, "d%d" % (i // 500))
    os.makedirs(sub, exist_ok=True)
    open(os.path.join(sub, "f%d.txt" % i), "w").write("alpha beta %d\n" % i * 20)
PY
for mode in off on; do
	t=$(run "$mode" "$P" sh -c 'find t -name "*.txt" -print0 | xargs -0 sed -i s/alpha/ALPHA/')
	printf 'sed -i over %d files: undo %s %.2f s; store %s bytes\n' \
	    "$FILES" "$mode" "$t" "$(store)"
	(cd "$P" && "$BWGATE" exec --quiet --project "$P" -- sh -c \
	    'find t -name "*.txt" -print0 | xargs -0 sed -i s/ALPHA/alpha/') \
	    > /dev/null 2>&1
done
rm -rf "$XDG_STATE_HOME/bwgate/undo" "$P"

# 3. One big file modified in place.
P="$W/big"
mkdir -p "$P/.git"
head -c $((BIG_MB << 20)) /dev/zero > "$P/big"
for mode in off on; do
	t=$(BWGATE_UNDO_FILE_MAX=$((BIG_MB + 1))M BWGATE_UNDO_RUN_MAX=$((BIG_MB + 1))M \
	    BWGATE_UNDO_TOTAL_MAX=$((BIG_MB * 2))M \
	    run "$mode" "$P" sh -c 'printf x | dd of=big conv=notrunc 2>/dev/null')
	printf 'one byte into a %d MiB file: undo %s %.2f s; store %s bytes\n' \
	    "$BIG_MB" "$mode" "$t" "$(store)"
done
