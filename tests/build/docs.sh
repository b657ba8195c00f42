#!/bin/sh
# docs: what the documents say matches the program. bwgate --version
# names the version of NEWS's first heading; the man pages render without
# warnings and hold no sentence swallowed by a font macro (".BR SECURITY .
# Exit 0 when ..." renders as "SECURITY.Exit0when..."). TAP.
set -u
src="${BWGATE_SRCDIR:-$(dirname "$0")/../..}"
b="${BWGATE_BUILDDIR:-.}"
echo "1..4"

news=$(sed -n '1s/^bwgate \([0-9][0-9.]*\).*/\1/p' "$src/NEWS")
got=$("$b/bwgate" --version 2>&1)
if [ -n "$news" ] && [ "$got" = "bwgate $news" ]; then
	echo "ok 1 - bwgate --version names NEWS's version ($news)"
else
	echo "not ok 1 - bwgate --version says '$got', NEWS's first heading" \
	    "names '$news'"
fi

# Warnings from the formatter (man's own, where man is installed).
warn=""
if command -v groff >/dev/null 2>&1; then
	for m in "$src"/doc/*.[1-9]; do
		w=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
		[ -n "$w" ] && warn="$warn ${m##*/}: $w"
	done
	if [ -z "$warn" ]; then
		echo "ok 2 - the man pages render without warnings"
	else
		echo "not ok 2 - the formatter warns:$warn"
	fi
else
	echo "ok 2 # SKIP groff is not installed"
fi

# Three plain words in a row as arguments of an alternating-font macro
# are prose that will be set without spaces.
prose=$(awk '/^\.(BR|RB|IR|RI|BI|IB) / {
	line = $0; gsub(/"[^"]*"/, "\"", line)
	n = split(line, a, " "); run = 0
	for (i = 2; i <= n; i++) {
		if (a[i] ~ /^[A-Za-z]+$/) { if (++run >= 3) { print FILENAME ":" FNR ": " $0; next } }
		else run = 0
	}
}' "$src"/doc/*.[1-9])
if [ -z "$prose" ]; then
	echo "ok 3 - no prose inside a font macro's arguments"
else
	echo "not ok 3 - prose set without spaces: $prose"
fi

# Each man page's title line names the same version.
bad=""
for m in "$src"/doc/*.[1-9]; do
	head -n 1 "$m" | grep -q "\"bwgate $news\"" || bad="$bad ${m##*/}"
done
if [ -z "$bad" ]; then
	echo "ok 4 - the man pages' title lines name bwgate $news"
else
	echo "not ok 4 - a man page's .TH names another version:$bad"
fi
