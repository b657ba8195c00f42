#!/bin/bash
# console-load: 32 agents x 50 commands at once; nothing lost, replies
# matched to requests, no descriptor or zombie leak.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
start_console --headless --auto-allowlisted
# Poll the console's descriptor count (evaluated anew on every try).
fds_back_to() { test "$(fd_count "$CPID")" -eq "$1"; }
# The baseline is taken before any request (the first one's connection
# may still be open for a moment after its client has its answer), once
# the console's warm exec is there: it holds that exec's pipes.
warm_ready() {
	local p
	for p in $(pgrep -P "$CPID"); do
		waiting_for_policy "$p" && return 0
	done
	return 1
}
wait_for 10 warm_ready
fds=$(fd_count "$CPID")
ls -l "/proc/$CPID/fd" > "$T/fds.before"
"$BWGATE" run -- true
ok_if "the first request leaves no descriptor" wait_for 10 fds_back_to "$fds"
# On a leak, say which descriptors are new.
show_fds() {
	ls -l "/proc/$CPID/fd" | diff "$T/fds.before" - | sed 's/^/# /'
}

out=$("$PEER" -t 600 -L 32 -m 50 "$S" true 2> "$T/load.err")
assert_eq "32 x 50 requests: every one answered, matched, ids unique" \
    "$out" "ok 1600"
[ -s "$T/load.err" ] && head -5 "$T/load.err" | sed 's/^/# /'
ok_if "no descriptor leak" wait_for 10 fds_back_to "$fds" || show_fds
assert_eq "no zombies" "$(zombies "$CPID")" 0
# (Across the log's rotated files too: 1,601 reports with their bwrap
# argv pass the 16 MiB rotation when a nested run's reports are longer.)
assert_eq "audit: one result per request" \
    "$(cat "$AUDIT" "$AUDIT".[0-9]* 2>/dev/null |
	jq -c 'select(.record=="result")' | wc -l)" 1601
ok_if "audit log valid" audit_valid

# Many agents disconnecting at once while their commands wait or run.
for i in $(seq 16); do
	printf '{"type":"submit","command":"sleep 30"}\n' | "$PEER" -x "$S"
done
ok_if "abandoned requests all end" wait_for 30 sh -c \
    "[ \$(\"$BWGATE\" list --json | jq '[.[] | select(.state==\"running\" or .state==\"approved\" or .state==\"pending\")] | length') -eq 0 ]"
ok_if "no descriptor leak after disconnects" wait_for 10 fds_back_to "$fds" ||
    show_fds
assert_eq "no zombies after disconnects" "$(zombies "$CPID")" 0
stop_console
assert_eq "clean exit" "$CRC" 0
done_testing
