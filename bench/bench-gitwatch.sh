#!/bin/bash
# bench-gitwatch: what the project's git watcher (bwgate-gitwatch,
# src/sandbox/gitwatch.h) saves. Before every writable run bwgate must know
# every .git in the project (to keep each read-only); without the watcher
# it stats every directory against the last scan's cache (gitscan-cache.c)
# and reads those that changed; with it, it asks the watcher, which has
# followed every change with inotify.
#
# A project of GW_DIRS directories (default 2000, 20000 and 40000, five
# files each, a nested .git in every 1,000th; the watcher takes at most a
# quarter of the user's inotify watches, 48,134 of the default 192,536, so
# a larger one runs without it), `bwgate exec -- touch x`:
#  - with the watcher (it is started by the first writable run and waited
#    for), against
#  - BWGATE_GITWATCH=0 (the cache alone, what runs without the watcher),
# in pairs (one of each, R times, default 15, the order alternating), so
# a shared machine's load falls on both alike: each side's median and
# the median of the pairs' ratios with their spread. Without the watcher
# the run also looks for the agents' configuration files (.claude/ ...)
# in every directory the scan saw (sandbox-agents.c), which a watched
# project leaves to the observer: that is part of what it saves.
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
: "${BWGATE:?}"
R=${R:-15}
GW_DIRS=${GW_DIRS:-2000 20000 40000}
T=$(mktemp -d /tmp/bwgate-bench-gitwatch.XXXXXX)
mkdir -p "$T/run" "$T/state" "$T/config"
chmod 0700 "$T/run"
export XDG_RUNTIME_DIR="$T/run" XDG_STATE_HOME="$T/state"
export XDG_CONFIG_HOME="$T/config"
unset BWGATE_SOCKET BWGATE_GITWATCH
trap 'wait 2>/dev/null; rm -rf "$T"' EXIT

# The watcher of this bench's runtime directory, if one runs.
watcher() {
	local p
	for p in $(pgrep -f -- 'gitwatch'); do
		grep -qa -- "$T" "/proc/$p/environ" 2>/dev/null &&
		    { echo "$p"; return 0; }
	done
	return 1
}
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000 ))
}
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for n in $GW_DIRS; do
	P="$T/p$n"
	mkdir -p "$P/.git/hooks"
	echo "[core]" > "$P/.git/config"
	python3 - "$P" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%d" % (i // 100), "e%d" % i)
    os.makedirs(d)
    for f in range(1, 6):
        open(os.path.join(d, "f%d" % f), "w").close()
    if i % 1000 == 0:
        os.mkdir(os.path.join(d, ".git"))
        with open(os.path.join(d, ".git", "config"), "w") as c:
            c.write("[core]\n")
PY
	cd "$P" || exit 1
	# The first writable run scans it all and starts the watcher.
	"$BWGATE" exec --quiet -- touch x > /dev/null 2>&1
	for i in $(seq 100); do watcher > /dev/null && break; sleep 0.1; done
	if ! watcher > /dev/null; then
		echo "$n directories: the watcher did not start (its share of the inotify watches?)"
		continue
	fi
	# One warm-up run of each (the cache file, the page cache).
	BWGATE_GITWATCH=0 "$BWGATE" exec --quiet -- touch x > /dev/null 2>&1
	"$BWGATE" exec --quiet -- touch x > /dev/null 2>&1
	: > "$T/on"
	: > "$T/off"
	: > "$T/ratio"
	for i in $(seq 1 "$R"); do
		if [ $((i % 2)) = 0 ]; then
			on=$(ms "$BWGATE" exec --quiet -- touch x)
			off=$(BWGATE_GITWATCH=0 ms "$BWGATE" exec --quiet -- touch x)
		else
			off=$(BWGATE_GITWATCH=0 ms "$BWGATE" exec --quiet -- touch x)
			on=$(ms "$BWGATE" exec --quiet -- touch x)
		fi
		echo "$on" >> "$T/on"
		echo "$off" >> "$T/off"
		awk -v a="$off" -v b="$on" 'BEGIN { printf "%.3f\n", a / b }' \
		    >> "$T/ratio"
	done
	sort -n "$T/ratio" > "$T/ratio.s"
	printf '%6d directories (%d files): with the watcher %.1f ms, without %.1f ms\n' \
	    "$n" $((n * 5)) "$(awk '{ print $1 / 1000 }' <<< "$(med < "$T/on")")" \
	    "$(awk '{ print $1 / 1000 }' <<< "$(med < "$T/off")")"
	awk '{ r[NR] = $1 } END {
		printf "        without / with: %.2fx (pairs %.2f to %.2f, 10th to 90th percentile, %d pairs)\n",
		    r[int((NR + 1) / 2)], r[int(NR * 0.1) + 1], r[int(NR * 0.9)], NR
	}' "$T/ratio.s"
	w=$(watcher) && kill "$w"
	cd "$T" || exit 1
	rm -rf "$P"
done
