#!/bin/bash
# decide-fifo (issue 36): where the observer makes opens through its
# delegate, opening a FIFO for writing that has no reader yet waits for
# one, as the kernel would (`mkfifo p; cmd > p & cat p`), without holding
# up any other call; O_NONBLOCK still fails with ENXIO; a waiting open
# whose caller is killed ends with it, and the run ends. Before, such an
# open failed at once with ENXIO. Run as root, as an ordinary user and
# nested (.ci/run).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
# A deadline: where opens fail at once (before), the readers would wait.
run() { timeout 60 "$BWGATE" exec --quiet --project "$P" "$@" 2>&1; }

# 1. The writer opens first and waits; the reader comes later. Meanwhile
#    other calls (a file made) go on.
out=$(run -- sh -c 'mkfifo p
	(echo through-the-fifo > p; echo writer-done > w.txt) &
	echo other > other.txt
	sleep 0.3; cat p; wait; cat w.txt; rm -f p w.txt other.txt')
assert_match "the writer waited for the reader" "$out" \
    "^through-the-fifo"
assert_match "and its open returned then" "$out" "writer-done"
ok_unless "no ENXIO" sh -c 'printf "%s" "$1" | grep -q "No such device"' _ "$out"

# 2. Several writers waiting at once, each read in turn.
out=$(run -- sh -c 'mkfifo p
	for i in 1 2 3; do (echo w$i > p) & done
	n=0; while [ $n -lt 3 ]; do
		while read -r l; do echo "$l"; n=$((n + 1)); done < p
	done; wait; rm -f p' | sort | tr '\n' ' ')
assert_eq "three waiting writers, three reads" "$out" "w1 w2 w3 "

# 3. O_NONBLOCK: ENXIO, as the kernel says.
out=$(run -- python3 -c '
import os, errno
os.mkfifo("p")
try:
    os.open("p", os.O_WRONLY | os.O_NONBLOCK)
    print("opened")
except OSError as e:
    print("errno", e.errno == errno.ENXIO)
os.unlink("p")')
assert_eq "O_NONBLOCK without a reader: ENXIO" "$out" "errno True"

# 4. A waiting writer killed: the run ends (no wait left behind).
start=$(date +%s)
out=$(timeout 60 "$BWGATE" exec --quiet --project "$P" -- sh -c 'mkfifo p
	timeout 0.5 sh -c "echo x > p"; echo rc=$?; rm -f p' 2>&1)
assert_eq "the killed writer's open ended with it" "$out" "rc=124"
ok_if "  and the run ended promptly" test $(( $(date +%s) - start )) -lt 30

done_testing
