#!/bin/bash
# decide-resolve (issue 36): openat2's own resolve flags keep their meaning
# when the observer's delegate makes the open: RESOLVE_BENEATH refuses
# "../x" (EXDEV), RESOLVE_NO_SYMLINKS a link on the way (ELOOP),
# RESOLVE_NO_XDEV a mount crossed (EXDEV); RESOLVE_IN_ROOT that makes a
# name mean another file than the one judged fails closed (EACCES). Before,
# the flags were dropped and each of these files was made. Checked on the
# host. Run as root, as an ordinary user and nested (.ci/run).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
mkdir -p "$P/sub"
ln -s sub "$P/lnk"
cat > "$P/o2.py" <<'PY'
import ctypes, os, errno, struct
libc = ctypes.CDLL(None, use_errno=True)
def openat2(dfd, path, flags, mode, resolve):
    how = struct.pack("QQQ", flags, mode, resolve)
    buf = ctypes.create_string_buffer(how)
    r = libc.syscall(437, dfd, path.encode(), buf, len(how))
    return r if r >= 0 else -ctypes.get_errno()
B, IR, NX, NS = 0x08, 0x10, 0x01, 0x04
W = os.O_CREAT | os.O_WRONLY
sub = os.open("sub", os.O_RDONLY | os.O_DIRECTORY)
def show(name, r):
    print(name, "ok" if r >= 0 else errno.errorcode[-r])
show("beneath-escape", openat2(sub, "../escape.txt", W, 0o644, B))
show("beneath-inside", openat2(sub, "in.txt", W, 0o644, B))
show("nosymlinks", openat2(-100, "lnk/x.txt", W, 0o644, NS))
show("noxdev-abs", openat2(-100, "/tmp/nx.txt", W, 0o644, NX))
show("noxdev-rel", openat2(-100, "sub/nx.txt", W, 0o644, NX))
show("inroot-dotdot", openat2(sub, "../../in2.txt", W, 0o644, IR))
show("plain", openat2(-100, "plain.txt", W, 0o644, 0))
PY
if [ "$(uname -m)" != x86_64 ]; then
	skip "openat2's resolve flags" "the test calls openat2 by its x86_64 number"
	done_testing
	exit 0
fi
out=$("$BWGATE" exec --quiet --project "$P" -- python3 o2.py 2>&1 | tr '\n' ' ')
assert_eq "each flag kept its meaning" "$out" "beneath-escape EXDEV \
beneath-inside ok nosymlinks ELOOP noxdev-abs EXDEV noxdev-rel ok \
inroot-dotdot EACCES plain ok "
ok_unless "RESOLVE_BENEATH: ../escape.txt not made" test -e "$P/escape.txt"
ok_unless "RESOLVE_NO_SYMLINKS: sub/x.txt not made" test -e "$P/sub/x.txt"
ok_if "what the flags allow is made" test -e "$P/sub/in.txt" -a \
    -e "$P/sub/nx.txt" -a -e "$P/plain.txt"

done_testing
