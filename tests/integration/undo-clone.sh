#!/bin/bash
# bwgate undo where the file system clones (issue 38): on a loop-mounted
# XFS (reflink) or btrfs image, a file rewritten in place is kept as a
# clone, not a copy ("clone" in the manifest, almost no space used, the
# file neither read nor hashed), undo puts the exact bytes back, and a
# damaged clone (cut short) is refused, never written into the project.
# Needs root, a loop device and mkfs.xfs or mkfs.btrfs (./quickstart
# installs xfsprogs); skipped with the reason otherwise.
. "$(dirname "$0")/libtest.sh"

MB=$((1 << 20))
fs=""
if [ "$(id -u)" -ne 0 ]; then
	why="not root (a loop mount needs it)"
elif command -v mkfs.xfs > /dev/null 2>&1; then
	fs=xfs
elif command -v mkfs.btrfs > /dev/null 2>&1; then
	fs=btrfs
else
	why="neither mkfs.xfs nor mkfs.btrfs is installed (xfsprogs)"
fi
M="$T/mnt"
if [ -n "$fs" ]; then
	mkdir -p "$M"
	truncate -s 400M "$T/fs.img"
	if [ "$fs" = xfs ]; then
		mkfs.xfs -q -m reflink=1 "$T/fs.img" > /dev/null 2>&1
	else
		mkfs.btrfs -q "$T/fs.img" > /dev/null 2>&1
	fi
	if ! mount -o loop "$T/fs.img" "$M" 2> "$T/mount.err"; then
		why="cannot loop-mount a $fs image here: $(head -1 "$T/mount.err")"
		fs=""
	else
		CLEANUP_EXTRA='umount "$M" 2>/dev/null || umount -l "$M"'
	fi
fi
if [ -z "$fs" ]; then
	skip "undo keeps a clone where the file system clones" "$why"
	done_testing
	exit 0
fi

# The store on the same file system (a clone cannot cross one).
export XDG_STATE_HOME="$M/state"
mkdir -p "$XDG_STATE_HOME"
P="$M/proj"
mkdir -p "$P/.git"
head -c $((64 * MB)) /dev/urandom > "$P/big"
want=$(sha256sum < "$P/big")
sync
used() { sync; df --output=used -B1 "$M" | tail -1; }
u0=$(used)
jexec -- sh -c 'printf x | dd of=big conv=notrunc 2>/dev/null'
grew=$(( $(used) - u0 ))
id=$(jfield .undo.id)
m=$(ls "$XDG_STATE_HOME"/bwgate/undo/*/runs/"$id"/manifest.json)
ok_if "$fs: the file is kept as a clone ($(jq -c '.before[0]' "$m"))" \
    test "$(jq -r '.before[] | select(.path == "big") | .clone' "$m")" = true
ok_if "$fs: the clone costs almost no space ($grew bytes for 64 MiB)" \
    test "$grew" -lt $((8 * MB))
"$BWGATE" undo --project "$P" --run "$id" > "$T/undo.out" 2>&1
ok_if "$fs: undo succeeds ($(tail -2 "$T/undo.out"))" test $? = 0
assert_eq "$fs: the exact bytes are back" "$want" "$(sha256sum < "$P/big")"

# A clone cut short (a damaged store) is refused, the file left alone.
jexec -- sh -c 'printf y | dd of=big conv=notrunc 2>/dev/null'
id=$(jfield .undo.id)
m=$(ls "$XDG_STATE_HOME"/bwgate/undo/*/runs/"$id"/manifest.json)
blob=$(jq -r '.before[] | select(.path == "big") | .blob' "$m")
truncate -s $((32 * MB)) "$XDG_STATE_HOME"/bwgate/undo/*/objects/"$blob"
now=$(sha256sum < "$P/big")
"$BWGATE" undo --project "$P" --run "$id" > "$T/undo.out" 2>&1
assert_match "$fs: a damaged clone is refused with a line" \
    "$(cat "$T/undo.out")" "cannot: big \(its kept content is missing or damaged\)"
assert_eq "$fs: the file is left alone" "$now" "$(sha256sum < "$P/big")"

cd / || exit 1
done_testing
