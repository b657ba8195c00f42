#!/bin/sh
# testhooks: the environment variables that exist only for the tests are
# read in one place (src/util/testhook.c, through testhook_get()): no
# other source of bwgate has one's name as a string of its own (a
# getenv("NAME") or the like; comments and messages may name it), and
# bwgate(1) lists each as "For tests only". TAP.
src="${BWGATE_SRCDIR:-$(dirname "$0")/../..}"
echo "1..3"

names=$(sed -n 's/^[[:space:]]*\[TESTHOOK_[A-Z0-9_]*\] = "\(BWGATE_[A-Z0-9_]*\)",$/\1/p' \
    "$src/src/util/testhook.c")
n=$(echo "$names" | grep -c .)
if [ "$n" -ge 6 ]; then
	echo "ok 1 - $n test hooks in src/util/testhook.c"
else
	echo "not ok 1 - only $n test hooks found in src/util/testhook.c"
	exit 1
fi

bad=0
for v in $names; do
	others=$(grep -rlF "\"$v\"" "$src/src" "$src/ui" |
	    grep -v -e '/src/util/testhook\.c$' -e '/src/util/testhook\.h$')
	[ -z "$others" ] && continue
	echo "# $v is named outside testhook.c: $others"
	bad=1
done
[ "$bad" = 0 ] && echo "ok 2 - no other source names a test hook" ||
    echo "not ok 2 - a source reads a test hook by name"

mbad=0
for v in $names; do
	awk -v v="$v" '$0 == ".B " v { getline; if ($0 ~ /^For tests only/) f = 1 }
	    END { exit !f }' "$src/doc/bwgate.1" && continue
	echo "# bwgate(1) does not list $v as \"For tests only\""
	mbad=1
done
[ "$mbad" = 0 ] && echo "ok 3 - bwgate(1) lists every test hook as for tests only" ||
    echo "not ok 3 - bwgate(1) misses a test hook"
[ "$bad" = 0 ] && [ "$mbad" = 0 ]
