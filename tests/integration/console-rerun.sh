#!/bin/bash
# console-rerun: `rerun` on the control socket makes a new request that is
# classified afresh and decided like any other: an ask waits for the
# operator again, and the network and extra writable paths an agent asked
# for in a request the operator denied are dropped. The attack: an agent
# asks for a writable host directory and the network, the operator denies
# it, someone re-runs it; nothing may be written outside the project.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
X="$T/outside"
mkdir -p "$X"

# ctl JSON: one control message; prints the reply.
ctl() {
	printf '%s\n' "$1" | "$PEER" -t 10 -n 1 -w ok "$CTL" | grep -v '"hello"' |
	    head -1
}
state_of() {
	"$BWGATE" list --json --socket "$S" |
	    jq -r ".[] | select(.id == $1) | .state"
}

start_console --headless
(cd "$P" && BWGATE_SOCKET="$S" "$BWGATE" run --network --rw "$X" -- \
    sh -c "touch '$X/pwned'" > "$T/a.out" 2> "$T/a.err"
    echo $? > "$T/a.rc") &
wait_for 10 sh -c "[ \"\$('$BWGATE' list --json --socket '$S' |
    jq -r '.[0].state')\" = pending ]"
"$BWGATE" deny --socket "$S" 1 > /dev/null
wait_for 10 test -s "$T/a.rc"
assert_eq "the request was denied" "$(state_of 1)" denied

reply=$(ctl '{"type":"rerun","id":1}')
assert_match "rerun answers with a new id" "$reply" '"id":2'
ok_if "the re-run waits for the operator" \
    wait_for 5 sh -c "[ \"\$('$BWGATE' list --json --socket '$S' |
    jq -r '.[] | select(.id == 2) | .state')\" = pending ]"
argv=$(jq -c 'select(.record == "request" and .request.id == 2) |
    .bwrap_argv | .[0:index("--")]' "$AUDIT")
assert_match "the re-run has its own sandbox argv" "$argv" "unshare"
ok_unless "its sandbox lost the extra writable path" grep -qF "$X" <<<"$argv"
# (its argv no longer tells: without network a sandbox has the project's
# own loopback, --share-net; pod.h)
assert_eq "and the network" "$(jq -c 'select(.record == "request") |
    [.request.id, .request.asked.network // false]' "$AUDIT" | tr -d '\n')" \
    "[1,true][2,false]"
ok_unless "nothing ran yet" test -e "$X/pwned"

"$BWGATE" approve --socket "$S" 2 > /dev/null
ok_if "the approved re-run ran" wait_for 20 sh -c "[ \"\$('$BWGATE' list \
    --json --socket '$S' | jq -r '.[] | select(.id == 2) | .state')\" = \
    finished ]"
ok_unless "it could not write outside the project" test -e "$X/pwned"

# An approved request keeps what the operator approved; a re-run of an
# allowlisted command still waits here (no --auto-allowlisted).
(cd "$P" && BWGATE_SOCKET="$S" "$BWGATE" run -- true > /dev/null 2>&1) &
wait_for 10 sh -c "[ \"\$('$BWGATE' list --json --socket '$S' |
    jq -r '.[] | select(.id == 3) | .state')\" = pending ]"
"$BWGATE" approve --socket "$S" 3 > /dev/null
wait_for 20 sh -c "[ \"\$('$BWGATE' list --json --socket '$S' |
    jq -r '.[] | select(.id == 3) | .state')\" = finished ]"
reply=$(ctl '{"type":"rerun","id":3}')
assert_match "rerun of a finished request" "$reply" '"id":4'
ok_if "it waits for a decision too" wait_for 5 sh -c "[ \"\$('$BWGATE' \
    list --json --socket '$S' | jq -r '.[] | select(.id == 4) | \
    .state')\" = pending ]"
reply=$(ctl '{"type":"rerun","id":4}')
assert_match "a pending request cannot be re-run" "$reply" 'cannot re-run'
stop_console
done_testing
