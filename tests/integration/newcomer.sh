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

# `make install prefix=DIR` lays out DIR/bin and DIR/share/bwgate.
mkdir -p "$T/inst/bin" "$T/inst/share"
cp "$BWGATE" "$T/inst/bin/bwgate"
ln -s bwgate "$T/inst/bin/bwgate-sh"
cp -r "$BWGATE_SRCDIR/share/bwgate" "$T/inst/share/"
out=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate" check -- ls 2>&1); rc=$?
assert_eq "installed under another prefix: check works" "$rc" 0
assert_match "with the data beside it" "$out" \
    "rule: +$T/inst/bin/../share/bwgate/allowlist.json:ls"
err=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate-sh" -c 2>&1); rc=$?
assert_eq "bwgate-sh is installed beside it" "$rc:$(head -1 <<< "$err")" \
    "2:bwgate-sh: -c: option requires an argument"
done_testing
