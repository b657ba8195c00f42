#!/bin/sh
# The core's layers call only downwards, and none of them uses curses:
# every symbol an archive needs from bwgate's own archives must come from
# its own layer or a lower one (nm over the archives, lowest layer first).
set -u
b=${BWGATE_BUILDDIR:-.}
layers="util shell sandbox policy report undo gitops net run console"
work=$(mktemp -d "${TMPDIR:-/tmp}/bwgate-layers.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "1..2"

for l in $layers; do
	a="$b/src/$l/lib$l.a"
	[ -f "$a" ] || { echo "not ok 1 - $a is missing"; exit 1; }
	nm -u "$a" | awk 'NF == 2 { print $2 }' | sort -u > "$work/$l.needs"
	nm --defined-only "$a" | awk 'NF == 3 && $2 ~ /^[TDBRCVW]$/ { print $3 }' |
	    sort -u > "$work/$l.has"
done

bad=0
below=""
for l in $layers; do
	above=0
	for h in $layers; do
		if [ "$above" = 1 ]; then
			comm -12 "$work/$l.needs" "$work/$h.has" |
			    sed "s/^/# $l calls up into $h: /" > "$work/up"
			if [ -s "$work/up" ]; then
				cat "$work/up"
				bad=1
			fi
		fi
		[ "$h" = "$l" ] && above=1
	done
done
if [ "$bad" = 0 ]; then
	echo "ok 1 - no layer calls a layer above it ($layers)"
else
	echo "not ok 1 - a layer calls a layer above it"
fi

# curses: whatever the curses libraries define, shared (found with ldd)
# or linked into bwgate (their archives, configure's default).
libs=$(ldd "$b/bwgate" 2>/dev/null | awk '/ncurses|tinfo/ { print $3 }')
if [ -n "$libs" ]; then
	# shellcheck disable=SC2086
	nm -D --defined-only $libs | awk 'NF == 3 { print $3 }'
else
	dir=$(pkg-config --variable=libdir ncursesw 2>/dev/null)
	for a in "$dir/libncursesw.a" "$dir/libtinfo.a"; do
		[ -f "$a" ] && nm --defined-only "$a" 2>/dev/null
	done | awk 'NF == 3 && $2 ~ /^[TDBRCVW]$/ { print $3 }'
fi | sed 's/@.*//' | sort -u > "$work/curses"
if [ ! -s "$work/curses" ]; then
	echo "not ok 2 - cannot find the curses libraries of $b/bwgate"
	exit 1
fi
cbad=0
for l in $layers; do
	comm -12 "$work/$l.needs" "$work/curses" | sed "s/^/# $l uses curses: /" > "$work/c"
	if [ -s "$work/c" ]; then cat "$work/c"; cbad=1; fi
done
# Sanity: the front end (ui/) does use curses, so the list is not empty
# by mistake.
if ! nm -u "$b"/ui/*.o | awk 'NF == 2 { print $2 }' | sed 's/@.*//' |
    sort -u | comm -12 - "$work/curses" | grep -q .; then
	echo "not ok 2 - the curses symbol list matched nothing in bwgate"
	exit 1
fi
if [ "$cbad" = 0 ]; then
	echo "ok 2 - the core does not use curses"
else
	echo "not ok 2 - the core uses curses"
fi
[ "$bad" = 0 ] && [ "$cbad" = 0 ]
