#!/bin/bash
# bwgate exec --events-fd: the live stream sees a 10k-file copy into new
# nested directories, renames and deletes, stays silent for excluded
# trees, and says when it lost events (the change report stays exact).
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P" || exit 1
# A 10k-file tree to copy, made on the host side.
/usr/bin/python3 - "$P/seed" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(100):
    sub = os.path.join(root, "d%03d" % d, "deeper")
    os.makedirs(sub)
    for f in range(100):
        with open(os.path.join(sub, "f%03d" % f), "w") as fh:
            fh.write("x")
PY
mkdir -p "$P/node_modules/pkg"
# Everything the copy below creates under copy/ (seed as it is now).
(cd "$P/seed" && find . -mindepth 1 | sed 's|^\./|copy/|') | sort -u > "$T/expected"

"$BWGATE" exec --json --project "$P" --events-fd 3 -- \
	sh -c 'cp -a seed copy && mv seed/d000 seed/moved && rm -r copy/d001 &&
	       echo x > node_modules/pkg/index.js' \
	3> "$T/events.jsonl" > "$T/report.json"
assert_eq "command ran" "$(jfield .exit_code)" 0
jq -r 'select(.event=="created") | .path' < "$T/events.jsonl" | sort -u > "$T/seen"
echo copy >> "$T/expected"; sort -u -o "$T/expected" "$T/expected"
missing=$(comm -23 "$T/expected" "$T/seen" | wc -l)
assert_eq "10k-file copy into new nested directories: every path seen" "$missing" 0
# (The moved directory existed before the run, so it is watched from the
# start: a directory made during the run can be moved before its watch
# exists, and then shows up as created under its new name. Its times may
# change first, so a "modified" event may come before the move.)
assert_eq "the move is an event" "$(jq -c 'select(.path=="seed/d000" and
	.event!="created" and .event!="modified") | [.event, .to]' \
	"$T/events.jsonl")" '["moved","seed/moved"]'
ok_if "the delete is an event" \
	jq -s -e 'any(.[]; .event=="deleted" and .path=="copy/d001")' "$T/events.jsonl"
ok_unless "excluded trees are silent" grep -q 'node_modules/pkg' "$T/events.jsonl"
assert_eq "events are JSON lines with a time and a count" \
	"$(jq -s 'all(.[]; (.time_ms|type)=="number" and (.count|type)=="number")' "$T/events.jsonl")" true
assert_eq "stream not lossy" "$(jfield .events_lossy)" false

# Repeated writes coalesce into one event with a count.
echo start > "$P/hot.log"
"$BWGATE" exec --quiet --project "$P" --events-fd 3 -- \
	sh -c 'i=0; while [ $i -lt 300 ]; do echo $i >> hot.log; i=$((i+1)); done' \
	3> "$T/hot.jsonl"
# (The kernel itself merges identical consecutive events, so the count is
# of the events delivered, not of write calls.)
lines=$(grep -c '"hot.log"' "$T/hot.jsonl")
ok_if "300 writes to one file are a handful of lines" test "$lines" -ge 1 -a "$lines" -le 5
assert_eq "they are modifications with a count" \
	"$(jq -cs '[.[] | select(.path=="hot.log") | .event] | unique' "$T/hot.jsonl")" '["modified"]' 

# Lossy: out of inotify watches (a queue overflow is forced in
# test-monitor), the stream says so and the change report is still exact.
BWGATE_MONITOR_MAX_WATCHES=3 "$BWGATE" exec --json --project "$P" --events-fd 3 -- \
	cp -a seed copy2 3> "$T/ovf.jsonl" > "$T/report.json"
assert_eq "watch limit flagged as lossy" "$(jfield .events_lossy)" true
ok_if "the stream itself says it is lossy" \
	jq -s -e 'any(.[]; .event=="lossy" and (.warning|test("watch")))' "$T/ovf.jsonl"
assert_eq "change report still exact when the stream is lossy" \
	"$(jfield '.changes.created|length')" "$(( $(wc -l < "$T/expected") ))"
ok_if "the warning says the report is exact" \
	jq -e '.warnings[] | select(test("still exact"))' "$T/report.json"

# Bad descriptor: a clear error, nothing runs.
"$BWGATE" exec --quiet --project "$P" --events-fd 9 -- touch ran 2> "$T/err"
assert_eq "--events-fd on a closed descriptor is 125" "$?" 125
ok_unless "nothing ran" test -e "$P/ran"

done_testing
