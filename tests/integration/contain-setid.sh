#!/bin/bash
# No setuid or setgid from a run (issue 36, item 4): every way a command
# sets S_ISUID or S_ISGID (chmod, fchmod, fchmodat, fchmodat2, mkdir,
# mknod, open/creat with the bits in the mode, install -m) is refused in
# every profile; openat2, whose mode is in memory the filter cannot read,
# is made by the observer's delegate from the copy bwgate read (without
# the observer it answers ENOSYS). The host afterwards has no file with either bit.
# With seccomp notification the observer answers them and the report
# names each attempt (reason "setid"); without it (BWGATE_NO_NOTIFY=1)
# the deny filter refuses them unseen, and the report says violations
# are inferred.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
X="$T/extra"
mkdir -p "$X"
cd "$P" || exit 1
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)

# The attacks, run in the current directory; each prints NAME=errno or
# NAME=ok, and "found" lists what has a bit set afterwards.
cat > "$T/attack.sh" <<'EOF'
try() { n=$1; shift; if "$@" 2>/dev/null; then echo "$n=ok"; else echo "$n=refused"; fi; }
cp /bin/true t
try chmod-4755 chmod 4755 t
try chmod-u+s chmod u+s t
try chmod-g+s chmod g+s t
mkdir d
try chmod-g+s-dir chmod g+s d
try mkdir-m-2775 mkdir -m 2775 d2
try install-m-4755 install -m 4755 /bin/true i
EOF
cat > "$T/attack.py" <<'EOF'
import ctypes, errno, os, stat, struct
def tr(name, f):
    try:
        f(); print(name + "=ok")
    except OSError as e:
        print(name + "=" + errno.errorcode[e.errno])
tr("open-6755", lambda: os.close(os.open("o", os.O_CREAT | os.O_WRONLY, 0o6755)))
tr("open-plain", lambda: os.close(os.open("plain", os.O_CREAT | os.O_WRONLY, 0o755)))
fd = os.open("plain", os.O_RDONLY)
tr("fchmod-4755", lambda: os.fchmod(fd, 0o4755))
tr("fchmodat-nofollow", lambda: os.chmod("plain", 0o2755, follow_symlinks=False))
tr("mknod-4755", lambda: os.mknod("n", stat.S_IFREG | 0o4755))
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def raw(nr, *a):
    if libc.syscall(nr, *a) < 0:
        e = ctypes.get_errno(); raise OSError(e, os.strerror(e))
tr("fchmodat2-4755", lambda: raw(452, -100, b"plain", 0o4755, 0))
how = struct.pack("QQQ", os.O_CREAT | os.O_WRONLY, 0o4755, 0)
tr("openat2", lambda: raw(437, -100, b"o2", how, len(how)))
tr("creat-2755", lambda: raw(85, b"c", 0o2755))	# x86_64 creat
# Without O_CREAT the kernel ignores the mode: whatever is there is let be.
tr("open-nocreat", lambda: raw(2, b"plain", os.O_RDONLY, 0o4755))
tr("openat-nocreat", lambda: raw(257, -100, b"plain", os.O_RDONLY, 0o6755))
tr("open-wronly-nocreat", lambda: raw(2, b"plain", os.O_WRONLY, 0o4755))
EOF

# Files under $1 with a setuid or setgid bit, as the host sees them.
# (Paths in the report are as the command named them.)
setid_files() {
	find "$1" -perm /6000 -print 2>/dev/null
}

for prof in project git-write readonly; do
	if [ $prof = readonly ]; then
		dir=$X	# the project is read-only: an extra writable path
		rm -rf "${X:?}"/*
	else
		dir=$P
	fi
	"$BWGATE" exec --json-fd 3 --project "$P" --profile $prof --rw "$X" \
	    -- sh -c 'cd "$0" && exec "$@"' "$dir" sh -c "$(cat "$T/attack.sh")" \
	    > "$T/out.$prof" 2> "$T/err" 3> "$T/rep.$prof"
	named=$(jq -r '[.violations[] | select(.reason == "setid") | .path] |
	    sort | join(" ")' "$T/rep.$prof")
	assert_eq "$prof: the report names each attempt" "$named" \
	    "d d2 i t"
	for a in chmod-4755 chmod-u+s chmod-g+s chmod-g+s-dir mkdir-m-2775 \
	    install-m-4755; do
		ok_if "$prof: $a refused" grep -qx "$a=refused" "$T/out.$prof"
	done
	if [ -n "$PY" ]; then
		"$BWGATE" exec --json-fd 3 --project "$P" --profile $prof \
		    --rw "$X" -- sh -c 'cd "$0" && exec "$@"' "$dir" \
		    "$PY" -c "$(cat "$T/attack.py")" >> "$T/out.$prof" 2> "$T/err" \
		    3> "$T/rep.$prof"
		for a in open-6755 fchmod-4755 fchmodat-nofollow mknod-4755 \
		    fchmodat2-4755; do
			ok_if "$prof: $a refused (EPERM)" \
			    grep -qx "$a=EPERM" "$T/out.$prof"
		done
		if [ "$(uname -m)" = x86_64 ]; then
			ok_if "$prof: creat 02755 refused (EPERM)" \
			    grep -qx "creat-2755=EPERM" "$T/out.$prof"
			ok_if "$prof: open and openat without O_CREAT ignore the mode" \
			    grep -qx "openat-nocreat=ok" "$T/out.$prof"
			ok_if "$prof: (open)" \
			    grep -qx "open-nocreat=ok" "$T/out.$prof"
			ok_if "$prof: (open for writing)" \
			    grep -qx "open-wronly-nocreat=ok" "$T/out.$prof"
		fi
		# openat2: made by the observer's delegate from the copy
		# bwgate read, which makes no setuid or setgid mode.
		ok_if "$prof: openat2 06755 refused (EPERM)" \
		    grep -qx "openat2=EPERM" "$T/out.$prof"
		ok_if "$prof: an ordinary mode still works" \
		    grep -qx "open-plain=ok" "$T/out.$prof"
		# (glibc may name a file /proc/self/fd/N: its last part only)
		named=$(jq -r '[.violations[] | select(.reason == "setid") |
		    .path | sub(".*/"; "") | select(test("^[0-9]+$") | not)] |
		    unique | join(" ")' "$T/rep.$prof")
		assert_eq "$prof: the report names each attempt (python)" \
		    "$named" "c n o plain"
	else
		skip "$prof: python attacks" "python3 not installed"
	fi
	assert_eq "$prof: no setuid or setgid file on the host" \
	    "$(setid_files "$P"; setid_files "$X")" ""
	[ -s "$T/out.$prof" ] || cat "$T/err" >&2
done
echo "# project profile: $(tr '\n' ' ' < "$T/out.project")"

# Without notification: refused by the deny filter, the report cannot
# name it and says its violations are inferred.
rm -rf "${X:?}"/*
BWGATE_NO_NOTIFY=1 "$BWGATE" exec --json-fd 3 --project "$P" --profile readonly \
    --rw "$X" -- \
    sh -c 'cd "$0" && exec "$@"' "$X" sh -c "$(cat "$T/attack.sh")" \
    > "$T/out.nn" 2> "$T/err.nn" 3> "$T/rep.nn"
for a in chmod-4755 chmod-u+s mkdir-m-2775 install-m-4755; do
	ok_if "no notification: $a refused" grep -qx "$a=refused" "$T/out.nn"
done
if [ -n "$PY" ] && [ "$(uname -m)" = x86_64 ]; then
	BWGATE_NO_NOTIFY=1 "$BWGATE" exec --project "$P" --profile readonly \
	    --rw "$X" -- \
	    sh -c 'cd "$0" && exec "$@"' "$X" "$PY" -c "$(cat "$T/attack.py")" \
	    > "$T/out.nnpy" 2> /dev/null
	ok_if "no notification: openat 06755 with O_CREAT refused" \
	    grep -qx "open-6755=EPERM" "$T/out.nnpy"
	ok_if "no notification: open(2) without O_CREAT ignores the mode" \
	    grep -qx "open-nocreat=ok" "$T/out.nnpy"
	ok_if "no notification: openat2 answers ENOSYS (its mode is in memory)" \
	    grep -qx "openat2=ENOSYS" "$T/out.nnpy"
fi
assert_eq "no notification: no setuid or setgid file on the host" \
    "$(setid_files "$X")" ""
assert_match "no notification: the report says it only infers" \
    "$(cat "$T/err.nn")" "violations are inferred from error output"

# The deny filter leaves these calls to the observer: a command the
# helper cannot observe is not run (else a listener of its own could let
# them through). The observer's cached program, broken, makes the
# helper's install fail (EINVAL).
ls "$XDG_RUNTIME_DIR"/bwgate/bpf-observe-* > /dev/null 2>&1 ||
	ok_if "the observer's program is cached" false
for f in "$XDG_RUNTIME_DIR"/bwgate/bpf-observe-*; do
	printf '\377\377\0\0\0\0\0\0' > "$f"
done
"$BWGATE" exec --project "$P" -- touch ran > "$T/out.bad" 2> "$T/err.bad"
assert_eq "no observer: the command is not run (125)" "$?" 125
ok_unless "no observer: nothing ran" test -e "$P/ran"
assert_match "no observer: it says why" "$(cat "$T/err.bad")" \
    "cannot observe the command|cannot protect the project here"
rm -f "$XDG_RUNTIME_DIR"/bwgate/bpf-observe-* "$P/ran"

done_testing
