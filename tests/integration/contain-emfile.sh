#!/bin/bash
# Descriptor exhaustion (issue 9, section 5): with its descriptors used up
# by clients, the console neither spins on accept() nor floods its log; it
# keeps serving the connections it has and accepts again once some close.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ]; then
	skip "descriptor exhaustion" "python3 not installed"
	done_testing; exit
fi
P=$(new_project)
cd "$P" || exit 1
# The console with a low descriptor limit.
REAL=$BWGATE
printf '#!/bin/sh\nulimit -n 48\nexec "%s" "$@"\n' "$REAL" > "$T/lowfd"
chmod +x "$T/lowfd"
BWGATE="$T/lowfd" start_console --headless --auto-allowlisted || exit 1
BWGATE=$REAL

# CPU ticks (user + system) the console has used.
ticks() { awk '{ print $14 + $15 }' "/proc/$CPID/stat"; }

# A client holding 100 connections (more than the console can take).
"$PY" - "$S" "$T" <<'PYEOF' &
import socket, sys, os, time
path, t = sys.argv[1], sys.argv[2]
conns = []
for i in range(100):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)	# lands in the backlog even when not accepted
    conns.append(s)
open(t + "/held", "w").write("1")
while not os.path.exists(t + "/release"):
    time.sleep(0.05)
for s in conns:
    s.close()
PYEOF
HOLDER=$!
CLEANUP_EXTRA="kill -KILL $CPID $HOLDER 2>/dev/null"
wait_for 10 test -e "$T/held"
# Let the console run into the limit, then measure a 2 s window.
wait_for 10 grep -q 'accept: Too many open files' "$T/console.err" \
    "$T/console.out"
ok_if "exhaustion noticed" grep -q 'accept: Too many open files' \
    "$T/console.err" "$T/console.out"
T0=$(ticks)
END=$(( $(date +%s) + 2 ))
while [ "$(date +%s)" -lt "$END" ]; do sleep 0.1; done
T1=$(ticks)
echo "# console CPU ticks in the window: $((T1 - T0))"
ok_if "console does not spin (< 0.3 s CPU in 2 s)" test $((T1 - T0)) -lt 30
N=$(cat "$T/console.err" "$T/console.out" | grep -c 'accept:')
echo "# accept messages: $N"
ok_if "log not flooded (<= 3 accept lines)" test "$N" -le 3
ok_if "console still alive" kill -0 "$CPID"

# Release the connections: the console accepts and serves again.
touch "$T/release"
wait "$HOLDER"
out=$(printf '{"type":"frob"}\n' | "$PEER" -t 10 -n 1 "$S")
assert_match "a new client is served after recovery" "$out" \
    "unknown message type 'frob'"
stop_console
assert_eq "console exits cleanly" "$CRC" 0
done_testing
