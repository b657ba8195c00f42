#!/bin/bash
# project-socket: one console per project. Each project's console has its
# own socket; run/list find the console of their directory's project with
# no BWGATE_SOCKET; `bwgate consoles` lists them; a second console for a
# project names the one that holds it; audit records carry a console id.
. "$(dirname "$0")/libtest.sh"

AUDIT="$XDG_STATE_HOME/bwgate/audit.jsonl"
A=$(new_project a)
B=$(new_project b)
mkdir -p "$A/src/deep"

# start NAME DIR: a headless console; its pid in $NAME_PID.
start() {
	(cd "$2" && exec "$BWGATE" --headless --auto-allowlisted \
	    > "$T/$1.out" 2> "$T/$1.err") &
	eval "${1}_PID=$!"
	wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/$1.out"
}
start ca "$A" || echo "# $(cat "$T/ca.err")"
start cb "$B" || echo "# $(cat "$T/cb.err")"
CLEANUP_EXTRA="kill -KILL $ca_PID $cb_PID 2>/dev/null"
ok_if "a console for a second project starts too" kill -0 "$cb_PID"
sa=$(sed -n 's/^export BWGATE_SOCKET=//p' "$T/ca.out")
sb=$(sed -n 's/^export BWGATE_SOCKET=//p' "$T/cb.out")
ok_unless "each project has its own socket" test "$sa" = "$sb"
assert_match "under the runtime directory" "$sa" \
    "^$XDG_RUNTIME_DIR/bwgate/agent-[0-9a-f]{16}\\.sock\$"

# Clients find the console of their directory's project.
(cd "$A/src/deep" && "$BWGATE" run -- ls > /dev/null 2>&1)
assert_eq "run from a subdirectory of A: exit 0" "$?" 0
(cd "$B" && "$BWGATE" run -- ls > /dev/null 2>&1)
assert_eq "run in B: exit 0" "$?" 0
ida=$(jq -r 'select(.record == "console-start" and .project == "'"$A"'") |
    .console' "$AUDIT")
idb=$(jq -r 'select(.record == "console-start" and .project == "'"$B"'") |
    .console' "$AUDIT")
ok_unless "two console ids" test "$ida" = "$idb"
assert_eq "A's request went to A's console" \
    "$(jq -r 'select(.record == "request" and (.request.cwd | startswith("'"$A"'"))) |
    .console' "$AUDIT")" "$ida"
assert_eq "B's request went to B's console" \
    "$(jq -r 'select(.record == "request" and .request.cwd == "'"$B"'") |
    .console' "$AUDIT")" "$idb"
assert_eq "both are request 1: the console id tells them apart" \
    "$(jq -r 'select(.record == "request") | .id' "$AUDIT" | sort -u)" 1
ok_unless "every record has a console id" \
    jq -e 'select(has("console") | not)' "$AUDIT"
out=$(cd "$A" && "$BWGATE" list)
assert_match "bwgate list in A shows A's request" "$out" "ls"
(cd "$T" && "$BWGATE" run -- ls > /dev/null 2>&1)
assert_eq "outside any project: no console (125)" "$?" 125

# bwgate consoles.
out=$("$BWGATE" consoles --json)
assert_eq "bwgate consoles lists both" \
    "$(jq -r 'map(.project) | sort | join(" ")' <<< "$out")" "$A $B"
assert_eq "with their sockets and pids" \
    "$(jq -r ".[] | select(.project == \"$A\") | \"\(.socket) \(.pid)\"" \
    <<< "$out")" "$sa $ca_PID"

# A second console for A says who holds it.
(cd "$A" && "$BWGATE" --headless > /dev/null 2> "$T/second.err"); rc=$?
assert_eq "a second console for A: refused" "$rc" 125
assert_match "it names the holder" "$(cat "$T/second.err")" \
    "already listening on '$sa' \\(pid $ca_PID\\)"
ok_if "the first console is unharmed" kill -0 "$ca_PID"

kill -TERM "$ca_PID" "$cb_PID"
wait "$ca_PID" "$cb_PID"
out=$("$BWGATE" consoles)
assert_eq "after they stop: none" "$out" "no console is running"
done_testing
