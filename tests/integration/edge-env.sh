#!/bin/bash
# edge-env: the environment is part of the verdict. An allowlisted command
# with a variable that makes a program run other code (BASH_ENV, ENV,
# LD_PRELOAD, GIT_CONFIG_*, NODE_OPTIONS... share/bwgate/env-ask.json) set
# by the agent is asked about, the reason naming the variable; a headless
# console (no operator) denies it, so the planted file never runs. Through
# `bwgate run`, `bwgate sh -c` and the MCP server's run tool; the user's
# env-ask.json adds names.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"ls","command":["ls"],"verdict":"allow","profile":"readonly","reason":"lists"},
 {"id":"printenv","command":["printenv"],"verdict":"allow","profile":"readonly","reason":"test"}
]}
JSON
# What the attacker planted: it prints a marker (the readonly profile
# could not write one) and, were it run on the host, a file in $T.
printf 'echo PLANTED-RAN; touch %q/planted-ran\n' "$T" > "$P/evil.sh"
ok_if "the shipped table parses" jq -e '.env | length > 50' \
    "$BWGATE_SRCDIR/share/bwgate/env-ask.json"

start_console --headless --auto-allowlisted || { ok_if "the console starts" false; done_testing; exit; }
export BWGATE_SOCKET="$S"

out=$(MYVAR=plain "$BWGATE" run -- printenv MYVAR 2>/dev/null)
assert_eq "an ordinary variable: allowed as before" "$out" plain

out=$(BASH_ENV="$P/evil.sh" "$BWGATE" sh -c 'ls' 2>&1); rc=$?
ok_unless "BASH_ENV with bash -c 'ls': the planted file did not run" \
    grep -q PLANTED-RAN <<< "$out"
assert_eq "  the headless console denied it (exit 77)" "$rc" 77
reason() {	# the reason of the last request
	"$BWGATE" list --json | jq -r 'max_by(.id) | .verdict + " " + .reason'
}
assert_match "  verdict ask, the reason names BASH_ENV" "$(reason)" \
    "^ask lists.*; but the agent's environment sets BASH_ENV \\(bash reads and runs"

for v in ENV LD_PRELOAD GIT_CONFIG_COUNT NODE_OPTIONS PERL5OPT PYTHONSTARTUP \
    PROMPT_COMMAND SHELLOPTS LD_AUDIT GIT_SSH_COMMAND; do
	env "$v=$P/evil.sh" "$BWGATE" run -- ls > /dev/null 2>&1; rc=$?
	assert_match "$v: asked (denied headless, exit $rc), named" \
	    "$rc $(reason)" "^77 ask .*the agent's environment sets $v "
done

out=$(GIT_PAGER=cat PAGER=less "$BWGATE" run -- ls evil.sh 2>/dev/null)
assert_eq "a harmless value (GIT_PAGER=cat, PAGER=less): allowed" "$out" evil.sh
GIT_PAGER="sh $P/evil.sh" "$BWGATE" run -- ls > /dev/null 2>&1; rc=$?
assert_match "GIT_PAGER='sh evil.sh': asked" "$rc $(reason)" \
    "^77 ask .*the agent's environment sets GIT_PAGER "
out=$(MYHOOK=1 "$BWGATE" run -- ls evil.sh 2>/dev/null)
assert_eq "a name not in the table: allowed" "$out" evil.sh
echo '{"version":1,"env":[{"name":"MYHOOK*","reason":"our tool runs it"}]}' \
    > "$XDG_CONFIG_HOME/bwgate/env-ask.json"
MYHOOK=1 "$BWGATE" run -- ls > /dev/null 2>&1; rc=$?
assert_match "the user's env-ask.json adds a name" "$rc $(reason)" \
    "^77 ask .*the agent's environment sets MYHOOK \\(our tool runs it\\)"
echo '{"version":1,"env":[{"name":"X="}]}' > "$XDG_CONFIG_HOME/bwgate/env-ask.json"
MYVAR=1 "$BWGATE" run -- ls > /dev/null 2>&1; rc=$?
assert_match "a broken env-ask.json: ask (fail closed), saying why" \
    "$rc $(reason)" "^77 ask .*cannot be checked: .*cannot be read .*env\\[0\\] needs a"
rm "$XDG_CONFIG_HOME/bwgate/env-ask.json"

# The MCP server's run tool, as the issue found it.
mcp() {	# one tools/call (id 2); stdin stays open until it is answered
	: > "$T/mcp.out"
	{ printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$1"
	  wait_for 60 grep -q '"id":2' "$T/mcp.out"; } |
	    timeout 90 "$BWGATE" mcp --project "$P" > "$T/mcp.out" 2>/dev/null
	jq -c 'select(.id == 2)' "$T/mcp.out"
}
out=$(mcp "$(jq -cn --arg e "$P/evil.sh" '{jsonrpc:"2.0",id:2,method:"tools/call",
    params:{name:"run",arguments:{command:"ls",env:{BASH_ENV:$e}}}}')")
ok_unless "MCP run {command: ls, env: {BASH_ENV}}: evil.sh did not run" \
    grep -q PLANTED-RAN <<< "$out"
assert_eq "  a tool error" "$(jq -r .result.isError <<< "$out")" true
assert_match "  the console's reason names BASH_ENV" "$(reason)" \
    "^ask .*the agent's environment sets BASH_ENV"
ok_unless "the host has no trace of the planted file" test -e "$T/planted-ran"
stop_console
done_testing
