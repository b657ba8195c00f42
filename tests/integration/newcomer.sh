#!/bin/bash
# newcomer: bwgate finds its shipped data from the build tree and from an
# install under any prefix, with no BWGATE_DATADIR.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P"
out=$(env -u BWGATE_DATADIR "$BWGATE" check -- ls 2>&1); rc=$?
assert_eq "from the build tree: check works" "$rc" 0
assert_match "with the source tree's rules" "$out" \
    "rule: .*share/bwgate/allowlist.json:ls"

# `make install prefix=DIR` lays out DIR/bin, DIR/libexec/bwgate and
# DIR/share/bwgate.
mkdir -p "$T/inst/bin" "$T/inst/share" "$T/inst/libexec/bwgate"
cp "$BWGATE" "$T/inst/bin/bwgate"
cp "$(dirname "$BWGATE")/bwgate-helper" "$T/inst/libexec/bwgate/"
ln -s bwgate "$T/inst/bin/bwgate-sh"
cp -r "$BWGATE_SRCDIR/share/bwgate" "$T/inst/share/"
out=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate" check -- ls 2>&1); rc=$?
assert_eq "installed under another prefix: check works" "$rc" 0
assert_match "with the data beside it" "$out" \
    "rule: +$T/inst/bin/../share/bwgate/allowlist.json:ls"
err=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate-sh" -c 2>&1); rc=$?
assert_eq "bwgate-sh is installed beside it" "$rc:$(head -1 <<< "$err")" \
    "2:bwgate-sh: -c: option requires an argument"
# The observer's helper is found there too: changes come from recorded
# system calls where the kernel notifies them, not from a scan.
method=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate" exec --json --project "$P" \
    -- touch installed.txt 2>/dev/null | jq -r .changes_method)
if [ "$(cd "$P" && "$BWGATE" exec --json -- touch built.txt 2>/dev/null |
    jq -r .changes_method)" = syscalls ]; then
	assert_eq "installed: the observer's helper is found" "$method" syscalls
else
	skip "installed: the observer's helper is found" \
	    "no seccomp notification here (the build tree scans too)"
fi
done_testing
