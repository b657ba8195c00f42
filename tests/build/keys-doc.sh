#!/bin/sh
# keys-doc: the console's key table (ui/keys.c, which the ? help is made
# from) and the KEYS list of bwgate(1) name the same keys. TAP.
src="${BWGATE_SRCDIR:-$(dirname "$0")/../..}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# Names in the table: the third field of each entry, split on blanks.
sed -n 's/^[[:space:]]*{ [^,]*, \(true\|false\), "\([^"]*\)".*/\2/p' \
    "$src/ui/keys.c" | tr ' ' '\n' | grep -v '^$' | sort -u > "$T/table"

# Terms of the man page's list: the line after each .TP between the
# markers; font macros, quoted separators and "/" between keys dropped.
awk '/^\.\\" keys: begin/ { on = 1; next }
    /^\.\\" keys: end/ { on = 0 }
    on && tp { print; tp = 0; next }
    on && /^\.TP/ { tp = 1 }' "$src/doc/bwgate.1" |
    sed -e 's/^\.B \/$/SLASH/' -e 's/^\.[BR]*[[:space:]]*//' \
    -e 's/", "/ /g' -e 's/\\-/-/g' -e 's/ \/ / /g' |
    tr ' ' '\n' | sed 's/^SLASH$/\//' | grep -v '^$' | sort -u > "$T/man"

echo "1..3"
n=$(wc -l < "$T/table")
if [ "$n" -ge 20 ]; then
	echo "ok 1 - the key table has $n names"
else
	echo "not ok 1 - the key table has only $n names (parse error?)"
fi
if diff "$T/table" "$T/man" > "$T/diff"; then
	echo "ok 2 - bwgate(1) lists every key of the table"
	echo "ok 3 - and no key the table lacks"
else
	only_table=$(sed -n 's/^< //p' "$T/diff" | tr '\n' ' ')
	only_man=$(sed -n 's/^> //p' "$T/diff" | tr '\n' ' ')
	[ -z "$only_table" ] && echo "ok 2 - bwgate(1) lists every key" ||
	    echo "not ok 2 - keys missing from bwgate(1): $only_table"
	[ -z "$only_man" ] && echo "ok 3 - no key the table lacks" ||
	    echo "not ok 3 - bwgate(1) names keys the table lacks: $only_man"
fi
