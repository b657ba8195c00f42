#!/bin/bash
# An undo that fails part way takes back what it had done: the project is
# byte for byte as it was before the undo started (content, modes, file
# modification times, link targets, names), and the failure is said in one
# line. The failures are real: a directory or a file made immutable
# (chattr +i, which stops root too) after the run, so that one step of the
# undo fails after others succeeded (removals, renames back, files made
# again, content rewritten). Then the flag goes, and the same undo works.
. "$(dirname "$0")/libtest.sh"

# The tree as text: type, mode, link target, file modification time and
# content digest, per name (the undo's staging directory left out: it
# must be gone, checked apart).
tree() {
	(cd "$1" && find . -path ./.git -prune -o -path './.bwgate-undo*' \
	    -prune -o -printf '%y %m %p -> %l\n' | LC_ALL=C sort &&
	    find . -path ./.git -prune -o -type f -printf '%T@ %p\n' |
	    LC_ALL=C sort -k2 &&
	    find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z |
	    xargs -0 -r sha256sum)
}

P=$(new_project)
if [ "$(id -u)" -ne 0 ]; then
	skip "an undo that fails is taken back" "chattr +i needs root"
	done_testing
	exit
fi
if ! chattr +i "$P/src" 2>/dev/null; then
	skip "an undo that fails is taken back" \
	    "no immutable flag on this file system"
	done_testing
	exit
fi
chattr -i "$P/src"
# Whatever happens, the flags go before $T is removed.
IMMUTABLE=()
unfreeze() {
	[ ${#IMMUTABLE[@]} -eq 0 ] || chattr -i "${IMMUTABLE[@]}" 2>/dev/null
	return 0
}
CLEANUP_EXTRA=unfreeze

setup() {
	rm -rf "$P"/*
	cd "$P" || exit 1
	mkdir -p d e r1/sub hl
	echo one > a.txt && chmod 644 a.txt
	echo gone > d/gone.txt
	echo keep > d/keep.txt
	head -c 70000 /dev/urandom > e/mod.bin
	echo x > r1/sub/x
	ln -s a.txt lnk
	echo shared > hl/one && ln hl/one hl/two
	touch -d '2001-02-03 04:05:06.123456789' a.txt e/mod.bin hl/one
}
# The run: makes, removes, rewrites, re-modes, renames, links.
RUNCMD='echo new > top.txt; mkdir made; echo m > made/f; rm d/gone.txt;
head -c 1000 /dev/zero > e/mod.bin; echo more >> hl/two; chmod 600 a.txt;
mv r1 r2; rm lnk; ln -s d lnk'

# try WHAT FROZEN...: the run, then FROZEN immutable, then an undo that
# must fail and leave the tree as the run left it.
try() {
	local what="$1" id rc
	shift
	setup
	tree "$P" > "$T/before"
	jexec -- sh -c "$RUNCMD"
	id=$(jfield .undo.id)
	ok_if "$what: the run can be undone" test "$(jfield .undo.possible)" = true
	tree "$P" > "$T/as-run"
	IMMUTABLE=("$@")
	chattr +i "${IMMUTABLE[@]}"
	"$BWGATE" undo --project "$P" --run "$id" > "$T/out" 2> "$T/err"
	rc=$?
	unfreeze
	IMMUTABLE=()
	ok_if "$what: the undo fails (status $rc)" test "$rc" = 125
	ok_if "$what: it says so in one line ($(cat "$T/err"))" \
	    test "$(wc -l < "$T/err")" = 1
	assert_match "$what: and that nothing was changed" "$(cat "$T/err")" \
	    "nothing was changed"
	tree "$P" > "$T/after"
	ok_if "$what: the tree is as the run left it" diff -u "$T/as-run" "$T/after"
	ok_unless "$what: no staging directory is left" \
	    compgen -G "$P/.bwgate-undo*"
	"$BWGATE" undo --project "$P" --run "$id" > "$T/out" 2>&1
	rc=$?
	ok_if "$what: once it can, the same undo works ($(tail -1 "$T/out"))" \
	    test "$rc" = 0
	tree "$P" > "$T/after"
	ok_if "$what: the tree is as before the run" diff -u "$T/before" "$T/after"
}

# d cannot take d/gone.txt back: fails among the names made again, after
# the removals and the renames back.
try "a directory that cannot take a file back" "$P/d"
# a.txt cannot get its mode back: the very last step fails, after the
# content of e/mod.bin and hl/two was rewritten in place.
try "a file whose mode cannot come back" "$P/a.txt"
# The project's top cannot take the staging directory: nothing at all.
try "a project that cannot take the staging directory" "$P"
done_testing
