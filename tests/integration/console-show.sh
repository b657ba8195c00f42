#!/bin/bash
# console-show: `bwgate show ID` from the running console and, once it is
# gone, from the audit log and its rotated files.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
cat > "$XDG_CONFIG_HOME/bwgate/config.json" <<'JSON'
{"console": {"audit_max_bytes": 100000, "audit_keep": 50},
 "output_limit": 1000}
JSON
start_console --headless --auto-allowlisted

"$BWGATE" run -- touch made-by-1 > /dev/null 2>&1
"$BWGATE" run -- sleep 0 > /dev/null 2>&1
esc=$(printf 'x\033[2Jy')
"$BWGATE" run -- touch "$esc" > /dev/null 2>&1

"$BWGATE" show 1 > "$T/s1" 2> "$T/s1.err"
assert_eq "show from the console" "$?" 0
ok_if "it names the command" grep -q 'touch made-by-1' "$T/s1"
ok_if "it has the change report" grep -q '+ made-by-1' "$T/s1"
# Does the report of request $1 (show --report) list $2 as created?
report_created() {
	"$BWGATE" show --report "$1" | jq -s -e --arg f "$2" \
	    '.[0].changes.created | index($f) != null'
}
ok_if "--report is the JSON report" report_created 1 made-by-1
ok_if "--json has the request" \
    sh -c "'$BWGATE' show --json 1 | jq -s -e '.[0].request.command == \"touch made-by-1\"'"
"$BWGATE" show 3 > "$T/s3"
ok_unless "an escape sequence in the command does not reach the terminal raw" \
    grep -q "$(printf '\033')" "$T/s3"
# (the argv as shell text, $'x\x1b[2Jy', its backslash doubled when shown)
ok_if "it is shown escaped" grep -q 'x\\\\x1b\[2Jy' "$T/s3"
"$BWGATE" show 99 2> "$T/s99.err"
assert_eq "an unknown id: exit 1" "$?" 1
ok_if "it says so" grep -q 'no request 99' "$T/s99.err"
"$BWGATE" run -- seq 1 2000 > /dev/null 2>&1
"$BWGATE" show --output 4 > "$T/o4" 2> "$T/o4.err"
assert_eq "--output of a cut output: exit 0" "$?" 0
assert_eq "  the part kept" "$(wc -c < "$T/o4")" 1000
ok_if "  stderr says it was cut, and that the rest was not kept" \
    grep -q 'request 4: stdout cut at the output limit.*not kept' "$T/o4.err"

# Enough requests to rotate the log a few times.
for i in $(seq 1 30); do "$BWGATE" run -- true > /dev/null 2>&1; done
stop_console
ok_if "the log rotated" test -f "$AUDIT.2"
"$BWGATE" show 1 > "$T/a1" 2> "$T/a1.err"
assert_eq "show from the audit log (a rotated file)" "$?" 0
ok_if "it names the command" grep -q 'touch made-by-1' "$T/a1"
ok_if "it has the change report" grep -q '+ made-by-1' "$T/a1"
ok_if "it says the output is not in the log" grep -q 'output is kept only' "$T/a1"
"$BWGATE" show --output 1 > /dev/null 2> "$T/o.err"
assert_eq "--output from the log: exit 1" "$?" 1
ok_if "it says why" grep -q 'no output kept' "$T/o.err"
ok_if "--report from the log" report_created 1 made-by-1
last=$(jq -s 'map(select(.record == "result")) | last | .id' "$AUDIT")
ok_if "the newest request from the current file" "$BWGATE" show --report "$last"
done_testing
