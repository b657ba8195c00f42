#!/bin/bash
# How bwgate answers the recorded system calls: one task calling again and
# again gets the CPU handed to and fro (the kernel's synchronous wake-up),
# calls from several tasks are answered plainly, so a parallel build is
# not piled up on one CPU. Whichever way, every call is answered and the
# change report is exact: a loop of one shell, two loops at once, then
# one again, each creating files.
. "$(dirname "$0")/libtest.sh"

P="$T/project"
mkdir -p "$P/.git"
cd "$P" || exit 1
LOG="$T/bwgate.log"

# sh's own redirections: one process for each loop, no fork per file.
loop='i=0; while [ $i -lt 200 ]; do : > "$1$i"; i=$((i+1)); done'
BWGATE_LOG=$LOG "$BWGATE" exec --json -- sh -c "
	f() { $loop; }
	f one
	f two & f three & wait
	f four" > "$T/r.json" 2> "$T/err"
rc=$?
assert_eq "the run succeeds" "$rc" 0
method=$(jq -r .changes_method "$T/r.json")
for w in one two three four; do
	n=$(jq --arg w "$w" '[.changes.created[] | select(startswith($w))] |
	    length' "$T/r.json")
	assert_eq "all 200 files of loop '$w' reported ($method)" "$n" 200
done

several="plain answers for calls from several tasks"
one="one task calling in a row: the CPU handed to and fro"
if [ "$method" != syscalls ]; then
	skip "$several" "no recorded calls here ($method)"
	skip "$one" "no recorded calls here ($method)"
elif grep -q "no synchronous wake-up" "$LOG"; then
	why=$(grep -o 'no synchronous wake-up.*' "$LOG" | head -1)
	skip "$several" "$why"
	skip "$one" "$why"
else
	# Loops two and three run side by side; four ends the run alone.
	ok_if "$several" grep -q "synchronous wake-up off" "$LOG"
	last=$(grep -o "synchronous wake-up o[nf]*" "$LOG" | tail -1)
	assert_eq "$one" "$last" "synchronous wake-up on"
fi

done_testing
