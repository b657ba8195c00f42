#!/bin/bash
# bench-undo: what keeping a run's undo costs (bwgate(1), UNDO). Each
# figure is a ratio against its baseline measured in the same run, in
# interleaved pairs (which goes first alternates), median of R:
#	1. building bwgate inside the sandbox (every object file rewritten:
#	   the sources touched, make -j2), undo on / off; target <= 1.05;
#	2. sed -i over FILES (10,000) small files, on and off;
#	3. one line appended to an APPEND_MB (200 MiB) file, on / off;
#	   target <= 2 (its length is kept, not a copy);
#	4. one byte written into a BIG_MB (1 GiB) file, on / off; target
#	   <= 5 on ext4 (a copy) and, where the file system clones (a loop-
#	   mounted XFS image, root with mkfs.xfs only), <= 1.2;
#	5. planning the undo of PLAN_FILES (40,000) changed files (undo
#	   --dry-run): target < 2 s, and the ratio to a quarter of them
#	   (about 4 if planning is O(n log n), 16 if quadratic);
# and the store's size after each.
set -u
: "${BWGATE:?}" "${BWGATE_SRCDIR:?}"
R=${R:-3}
FILES=${FILES:-10000}
BIG_MB=${BIG_MB:-1024}
APPEND_MB=${APPEND_MB:-200}
PLAN_FILES=${PLAN_FILES:-40000}
JOBS=${JOBS:-2}
W=$(mktemp -d /tmp/bwgate-bench-undo.XXXXXX)
MNT=
trap '[ -n "$MNT" ] && umount "$MNT"; chmod -R u+rwX "$W"; rm -rf "$W"' EXIT
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

# SKIP="build sed": leave those out (a quick look at the others).
skip() { case " ${SKIP:-} " in *" $1 "*) return 0;; esac; return 1; }

# 1. A build of bwgate itself.
if ! skip build; then
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
rm -rf "$XDG_STATE_HOME/bwgate/undo" "$P"
fi

# 2. sed -i over many files.
if ! skip sed; then
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
fi

# pairs NAME TARGET PROJECT CMD...: R interleaved pairs of one command with
# undo on and off; the median ratio on/off against TARGET.
pairs() {
	local name="$1" target="$2" p="$3" i mode t on off
	shift 3
	: > "$W/pr"
	for i in $(seq 1 "$R"); do
		order="on off"
		[ $((i % 2)) -eq 0 ] && order="off on"
		for mode in $order; do
			[ -n "${BEFORE:-}" ] && (cd "$p" && eval "$BEFORE")
			t=$(run "$mode" "$p" "$@")
			echo "$t" > "$W/t.$mode"
		done
		on=$(cat "$W/t.on") off=$(cat "$W/t.off")
		echo "$on / $off" | bc -l >> "$W/pr"
		printf '%s %d: undo on %.3f s, off %.3f s\n' "$name" "$i" "$on" "$off"
	done
	ratio=$(median < "$W/pr")
	printf '%s: median ratio on/off %.2f (target <= %s: %s); store %s bytes\n' \
	    "$name" "$ratio" "$target" \
	    "$(awk -v r="$ratio" -v t="$target" 'BEGIN { print r <= t ? "ok" : "OVER" }')" \
	    "$(store)"
	rm -rf "$XDG_STATE_HOME/bwgate/undo"
}

# 3. One line appended to a large file.
P="$W/append"
mkdir -p "$P/.git"
head -c $((APPEND_MB << 20)) /dev/urandom > "$P/log"
sync
BEFORE='truncate -s '$((APPEND_MB << 20))' log' \
    pairs "append a line to a $APPEND_MB MiB file" 2 "$P" sh -c 'echo one more line >> log'
rm -rf "$P"

# 4. One byte written into a large file in place: on this file system,
# then on a loop-mounted XFS image (reflink) with the store beside it.
big() {
	local P="$1/big" fs="$2" target="$3"
	mkdir -p "$P/.git"
	head -c $((BIG_MB << 20)) /dev/urandom > "$P/big"
	# On disk first, as a project's large file would be (a clone of a
	# file just written waits for it to be written out).
	sync
	BWGATE_UNDO_FILE_MAX=$((BIG_MB + 1))M BWGATE_UNDO_RUN_MAX=$((BIG_MB + 1))M \
	    BWGATE_UNDO_TOTAL_MAX=$((BIG_MB * 4))M \
	    pairs "one byte into a $BIG_MB MiB file ($fs)" "$target" "$P" \
	    sh -c 'printf x | dd of=big conv=notrunc 2>/dev/null'
	rm -rf "$P"
}
big "$W" "$(stat -f -c %T "$W")" 5
if [ "$(id -u)" -eq 0 ] && command -v mkfs.xfs > /dev/null 2>&1; then
	truncate -s $((BIG_MB * 2 + 512))M "$W/xfs.img"
	mkfs.xfs -q -m reflink=1 "$W/xfs.img" && mkdir -p "$W/xfs" &&
	    mount -o loop "$W/xfs.img" "$W/xfs" && MNT="$W/xfs"
fi
if [ -n "$MNT" ]; then
	state=$XDG_STATE_HOME
	export XDG_STATE_HOME="$MNT/state"
	mkdir -p "$XDG_STATE_HOME"
	big "$MNT" "xfs, reflink" 1.2
	export XDG_STATE_HOME="$state"
	umount "$MNT" && MNT=
	rm -f "$W/xfs.img"
else
	echo "one byte into a $BIG_MB MiB file (xfs, reflink): skipped (needs root, mkfs.xfs and a loop device)"
fi

# 5. Planning the undo of many changed files (the plan only: --dry-run).
plan() {
	local n="$1" P="$W/plan$1" id t0 t1
	mkdir -p "$P/.git" "$P/t"
	python3 - "$P/t" "$n" <<'PY'
import sys, os
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    sub = os.path.join(d, "d%d" % (i // 500))
    os.makedirs(sub, exist_ok=True)
    open(os.path.join(sub, "f%d" % i), "w").write("v1 %d\n" % i)
PY
	id=$(cd "$P" && "$BWGATE" exec --json --project "$P" -- python3 -c '
import os
for d, _, fs in os.walk("t"):
    for f in fs:
        open(os.path.join(d, f), "w").write("v2\n")' 2>/dev/null | jq -r .undo.id)
	t0=$(now)
	"$BWGATE" undo --project "$P" --dry-run "$id" > "$W/plan.out" 2>&1
	t1=$(now)
	echo "$t1 - $t0" | bc -l
	rm -rf "$P" "$XDG_STATE_HOME/bwgate/undo"
}
small=$(plan $((PLAN_FILES / 4)))
large=$(plan "$PLAN_FILES")
printf 'undo plan of %d changed files: %.2f s (target < 2 s: %s); of %d: %.2f s; ratio %.2f (4 when O(n log n), 16 when quadratic)\n' \
    "$PLAN_FILES" "$large" "$(awk -v t="$large" 'BEGIN { print t < 2 ? "ok" : "OVER" }')" \
    $((PLAN_FILES / 4)) "$small" "$(echo "$large / $small" | bc -l)"
