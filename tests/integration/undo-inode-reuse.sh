#!/bin/bash
# undo-inode-reuse: inode numbers are reused, so undo tells a file from a
# new one that took its number by the birth time (undo-apply.c ue_same).
# The run removes f and makes g until g has f's inode number, with f's
# size, mode and modification time; undo must put f back with its own
# content and remove g, not rename g to f (which is what a proof by device
# and inode alone does: f would hold g's text).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
echo original > "$P/f"
# The run: g takes f's inode number (tried until the file system gives it
# back; the tries are removed).
# g is made to look like f in all but content and birth: the same size,
# mode and modification time (undo would otherwise restore f's content
# anyway after renaming g back).
jexec -- python3 -c '
import os
st = os.stat("f")
os.unlink("f")
for i in range(2000):
    n = "t%d" % i
    with open(n, "w") as w:
        w.write("IMPOSTOR\n")
    os.chmod(n, st.st_mode & 0o7777)
    os.utime(n, ns=(st.st_atime_ns, st.st_mtime_ns))
    if os.stat(n).st_ino == st.st_ino:
        os.rename(n, "g")
        break
    os.unlink(n)
'
id=$(jfield .undo.id)
ok_if "the run can be undone" test "$(jfield .undo.possible)" = true
if [ ! -e "$P/g" ]; then
	skip "undo tells a reused inode by its birth time" \
	    "the file system gave f's inode number to none of 2,000 new files"
	done_testing; exit
fi
if ! stat -c %W "$P/g" | grep -qv '^0$'; then
	skip "undo tells a reused inode by its birth time" \
	    "no birth time on this file system (stat %W is 0)"
	done_testing; exit
fi
"$BWGATE" undo --project "$P" --run "$id" > "$T/undo.out" 2>&1
assert_eq "undo succeeds" "$?" 0
assert_eq "f has its own content back" "$(cat "$P/f" 2>&1)" original
ok_unless "g, new in the run, is gone" test -e "$P/g"
ok_unless "no try is left" compgen -G "$P/t[0-9]*"
done_testing
