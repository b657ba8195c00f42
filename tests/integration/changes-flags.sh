#!/bin/bash
# changes-flags: every way open(2) can write is in the change report built
# from the recorded calls, whatever else the flags say: O_RDWR without
# O_CREAT or O_TRUNC (a write in place), O_WRONLY alone, O_TRUNC with
# O_RDONLY (Linux truncates), through open and openat (openat2 answers
# ENOSYS: contain-setid.sh). Each is checked against the report of the
# same command by snapshots.
. "$(dirname "$0")/libtest.sh"

if ! command -v python3 > /dev/null; then
	skip "open flags" "no python3 to call open(2) with exact flags"
	done_testing; exit
fi
populate() {
	mkdir -p "$1"
	echo "keep" > "$1/keep.txt"
}
P="$T/probe"
populate "$P"
cd "$P" || exit 1
jexec -- true
if [ "$(jfield .changes_method)" != '"syscalls"' ]; then
	skip "open flags" "no seccomp user notification: $(jq -r '.warnings[]' < "$T/report.json" | tr '\n' ' ')"
	done_testing; exit
fi

# name | python statements (os imported; the file is keep.txt)
cases=(
	'rdwr in place|fd = os.open("keep.txt", os.O_RDWR); os.write(fd, b"KEEP")'
	'rdwr pwrite at the end|fd = os.open("keep.txt", os.O_RDWR); os.pwrite(fd, b"!", 5)'
	'wronly alone|fd = os.open("keep.txt", os.O_WRONLY); os.write(fd, b"KE")'
	'rdonly with trunc|os.close(os.open("keep.txt", os.O_RDONLY | os.O_TRUNC))'
	'openat rdwr|d = os.open(".", os.O_RDONLY); fd = os.open("keep.txt", os.O_RDWR, dir_fd=d); os.write(fd, b"K")'
)
# The raw system call by number (x86_64): open(2) itself.
if [ "$(uname -m)" = x86_64 ]; then
	cases+=(
		'open(2) rdwr|import ctypes; libc = ctypes.CDLL(None); fd = libc.syscall(2, b"keep.txt", os.O_RDWR); os.write(fd, b"K")'
	)
fi
i=0
for c in "${cases[@]}"; do
	i=$((i + 1))
	name=${c%%|*} code=${c#*|}
	for m in syscalls snapshot; do
		p="$T/p$i-$m"
		populate "$p"
		(cd "$p" && "$BWGATE" exec --json --changes "$m" --project "$p" \
		    -- python3 -c "import os; $code" > "$T/r$i-$m.json" \
		    2> "$T/e$i-$m")
	done
	assert_eq "$name: the file did change" \
	    "$(jq -c .changes.modified < "$T/r$i-snapshot.json")" '["keep.txt"]'
	assert_eq "$name: by recorded calls" \
	    "$(jq -r .changes_method < "$T/r$i-syscalls.json")" syscalls
	assert_eq "$name: in the recorded calls' report" \
	    "$(jq -c .changes.modified < "$T/r$i-syscalls.json")" '["keep.txt"]'
done
done_testing
