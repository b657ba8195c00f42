#!/bin/bash
# exec-executed: the report records what actually ran (execve/execveat
# seen by the seccomp observer): "executed": [{"path","argv","count"}],
# the first distinct ones counted and capped, failed PATH lookups left
# out; recording never blocks or changes the command. Through the
# console each program is marked with whether the allowlist would allow
# it on its own.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)

jexec -- sh -c 'ls > /dev/null; ls > /dev/null; /bin/echo hi > /dev/null
    nonexistent-program 2> /dev/null; exit 3'
assert_eq "the command's own status" "$?" 3
if [ "$(jq -r .sandbox.violations "$T/report.json")" != exact ]; then
	skip "no seccomp user notification here: nothing is recorded"
	done_testing
	exit 0
fi
ex() {
	jq -c --arg p "$1" '[.executed[] | select(.path == $p)] | .[0]' \
	    "$T/report.json"
}
assert_match "the command itself is first" \
    "$(jq -c '.executed[0].argv' "$T/report.json")" '^\["sh","-c","ls'
assert_eq "ls counted twice" "$(ex /usr/bin/ls | jq .count)" 2
assert_eq "argv as run" "$(ex /bin/echo | jq -c .argv)" '["/bin/echo","hi"]'
ok_unless "a failed PATH lookup is not listed" \
    grep -q nonexistent-program <<<"$(jq -c '[.executed[].path]' \
    "$T/report.json")"
assert_eq "not truncated" "$(jq .executed_truncated "$T/report.json")" false

# Arguments as the program got them: a long one (past the first read of
# each string), one of 3,000 bytes (across a page boundary wherever it
# starts; one longer than PATH_MAX may come as "?"), only the first 64.
long=$(printf 'L%.0s' $(seq 1 300))
jexec -- sh -c '/bin/echo "$1" short "" end > /dev/null
    set -- $(seq 1 70); /bin/true "$@"' sh "$long"
assert_eq "a long argument whole" \
    "$(ex /bin/echo | jq -c '.argv')" "[\"/bin/echo\",\"$long\",\"short\",\"\",\"end\"]"
assert_eq "at most 64 arguments" "$(ex /bin/true | jq '.argv | length')" 64
assert_eq "the 64th as run" "$(ex /bin/true | jq -r '.argv[63]')" 63
jexec -- python3 -c 'import os; os.execv("/bin/true", ["/bin/true", "P" * 3000, "x"])'
assert_eq "an argument of 3,000 bytes, whole" \
    "$(ex /bin/true | jq -r '.argv[1] | length')" 3000
assert_eq "and the one after it" "$(ex /bin/true | jq -r '.argv[2]')" x

# Capped: the first 256 distinct, the rest only flagged.
jexec -- sh -c 'i=0; while [ $i -lt 300 ]; do /bin/true $i; i=$((i+1)); done'
assert_eq "capped at 256 distinct" "$(jq '.executed | length' \
    "$T/report.json")" 256
assert_eq "truncation flagged" "$(jq .executed_truncated "$T/report.json")" \
    true

# Through the console: what the allowlist would not allow is marked.
. "$(dirname "$0")/console-lib.sh"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"make","pattern":"make *","verdict":"allow","profile":"project","reason":"build"}
]}
JSON
chmod 0644 "$XDG_CONFIG_HOME/bwgate/allowlist.json"
printf 'all:\n\trm -f gone\n\tls > /dev/null\n' > "$P/Makefile"
start_console --headless --auto-allowlisted
(cd "$P" && "$BWGATE" run --json -- make all > "$T/run.json" 2> "$T/run.err")
assert_eq "make ran at once (allowlisted)" "$?" 0
stop_console
rep=$(jq -c 'select(.record == "result") | .report' "$AUDIT" | tail -1)
assert_eq "make itself is allowlisted" "$(jq -c '[.executed[] |
    select(.argv[0] == "make")][0].allowlisted' <<<"$rep")" true
assert_eq "the rm it ran is not" "$(jq -c '[.executed[] |
    select(.argv[0] == "rm")][0].allowlisted' <<<"$rep")" false
assert_eq "ls is" "$(jq -c '[.executed[] | select(.argv[0] == "ls")][0].allowlisted' \
    <<<"$rep")" true
ok_if "the agent's report carries the marks" jq -e \
    '[.. | objects | select(.allowlisted == false)] | length > 0' "$T/run.json"
done_testing
