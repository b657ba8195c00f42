#!/bin/bash
# mcp-sdk: `bwgate mcp` driven by the official MCP TypeScript SDK
# (@modelcontextprotocol/sdk, tests/mcp/package-lock.json) over stdio:
# tools, commands through a headless console (allowlisted, operator
# approved and denied over the control socket, cancelled), file tools and
# traversal attempts, checked on the host afterwards.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	skip "MCP SDK tests" "node and npm are not installed (./quickstart installs nodejs and npm)"
	done_testing; exit
fi
# The SDK, installed once per build tree from the committed lock file.
SDK="$BWGATE_BUILDDIR/tests/mcp-sdk"
if ! cmp -s "$BWGATE_SRCDIR/tests/mcp/package-lock.json" \
    "$SDK/package-lock.json" || [ ! -d "$SDK/node_modules/@modelcontextprotocol/sdk" ]; then
	mkdir -p "$SDK"
	cp "$BWGATE_SRCDIR/tests/mcp/package.json" \
	    "$BWGATE_SRCDIR/tests/mcp/package-lock.json" "$SDK/"
	if ! (cd "$SDK" && npm ci --no-audit --no-fund --loglevel=error) \
	    > "$T/npm.log" 2>&1; then
		sed 's/^/# /' "$T/npm.log"
		ok_if "npm ci installs the MCP SDK" false
		done_testing; exit
	fi
fi
cp "$BWGATE_SRCDIR/tests/mcp/client.mjs" "$SDK/client.mjs"

P=$(new_project)
export MCP_PROJECT="$P" BWGATE
cd "$P"
printf 'l1\nl2\nl3\nl4\n' > lines.txt
printf 'a a a\n' > rep.txt
echo '{}' > .bwgate.json
echo "host secret" > "$T/secret"
ln -s "$T" out
ln -s /etc/passwd passwd
mkdir -p sub/mod/.git

step() {
	jq -c "select(.step == \"$1\")" "$T/sdk.jsonl"
}

# 1. A headless console that runs allowlisted commands and denies the rest.
start_console --headless --auto-allowlisted || { ok_if "the console starts" false; done_testing; exit; }
node "$SDK/client.mjs" auto > "$T/sdk.jsonl" 2> "$T/sdk.err"
assert_eq "the SDK client ran to the end" "$?" 0
sed 's/^/# /' "$T/sdk.err" | head -20
assert_eq "initialize: server name" \
    "$(step server | jq -r .info.name)" bwgate
assert_eq "initialize: tools capability" \
    "$(step server | jq -c '.capabilities.tools != null')" true
assert_eq "tools/list names the five tools" "$(step tools | jq -c .names)" \
    '["run","read_file","write_file","edit_file","list_directory"]'
assert_eq "every tool has an object input schema" \
    "$(step tools | jq .schemas)" true
assert_eq "ping" "$(step ping | jq .ok)" true
assert_eq "allowlisted run: stdout" \
    "$(step allowlisted | jq -r .structured.stdout)" hello-mcp
assert_eq "allowlisted run: exit status 0, not an error" \
    "$(step allowlisted | jq -c '[.structured.exit_status, .isError]')" '[0,false]'
assert_eq "allowlisted run: verdict" \
    "$(step allowlisted | jq -r .structured.verdict)" allow
assert_eq "run with env: the variable reaches the command" \
    "$(step env | jq -r .structured.stdout)" from-the-agent
assert_eq "writer run: change report" \
    "$(step writer | jq -c .structured.changes.created)" '["made-by-run"]'
ok_if "writer run: the file is in the project" test -f "$P/made-by-run"
assert_eq "ask verdict, headless: a tool error" \
    "$(step ask-headless | jq -c '[.isError, .structured.state, .structured.by]')" \
    '[true,"denied","headless"]'
assert_match "ask verdict, headless: the note says why" \
    "$(step ask-headless | jq -r .text)" "needs an operator"
ok_unless "denied command did not run" test -e "$P/x"
assert_match "deny rule: reason" "$(step deny-rule | jq -r .text)" \
    "never delete in tests"
ok_if "deny rule: the file is still there" test -f "$P/a.txt" -o -f "$P/src/a.txt"
assert_match "run cwd outside the project refused" \
    "$(step cwd-outside | jq -r .text)" "not allowed|outside"
assert_eq "read_file" "$(step read | jq -r .structured.content)" hello
assert_eq "read_file offset/limit" \
    "$(step read-lines | jq -c '[.structured.content, .structured.total_lines]')" \
    '["l2\nl3\n",4]'
for s in dotdot dotdot-inner absolute symlink-out symlink-file; do
	assert_eq "read_file $s: refused" "$(step $s | jq .isError)" true
done
assert_match "'..' refused with a reason" "$(step dotdot | jq -r .text)" "'\.\.' is not allowed"
assert_match "absolute path outside refused" "$(step absolute | jq -r .text)" "'/etc/passwd' is outside"
assert_match "symlink out refused" "$(step symlink-out | jq -r .text)" "symbolic link"
assert_eq "write through a symlink out: refused" \
    "$(step write-through-link | jq .isError)" true
ok_unless "nothing planted outside the project" test -e "$T/planted"
for s in write-git write-deep-git; do
	assert_match "$s: refused as protected" "$(step $s | jq -r .text)" \
	    "is protected .*git-write profile"
done
assert_match "write-policy: refused as protected, no profile offered" \
    "$(step write-policy | jq -r .text)" "is protected .*: leave it alone$"
ok_unless ".git/hooks untouched" test -e "$P/.git/hooks/pre-commit"
ok_unless "nested .git untouched" test -e "$P/sub/mod/.git/config"
assert_eq ".bwgate.json untouched" "$(cat "$P/.bwgate.json")" '{}'
assert_eq "write_file: created (the sandbox's change report)" \
    "$(step write | jq -c .structured.changes.created)" \
    '["new","new/dir","new/dir/file.txt"]'
assert_eq "write_file: allowed by the file-write rules" \
    "$(step write | jq -c '[.structured.verdict, .structured.state]')" \
    '["allow","finished"]'
assert_eq "edit_file: modified (change report)" \
    "$(step edit | jq -c .structured.changes.modified)" '["new/dir/file.txt"]'
assert_eq "edit_file produces the expected file" "$(cat "$P/new/dir/file.txt")" \
    "$(printf 'one\n2\nthree')"
assert_match "edit_file shows a diff" "$(step edit | jq -r .structured.diff)" \
    "^@@ line 2 @@"
assert_match "ambiguous edit refused" "$(step edit-ambiguous | jq -r .text)" \
    "occurs 3 times"
assert_eq "replace_all edit" "$(cat "$P/rep.txt")" "b b b"
assert_eq "list_directory" "$(step list | jq -c '.structured.entries')" \
    '[{"name":"dir","type":"directory","size":'"$(stat -c %s "$P/new/dir")"'}]'
assert_match "unknown tool: JSON-RPC error" "$(step unknown-tool | jq -r .thrown)" \
    "unknown tool"
assert_eq "mistyped argument: invalid params (-32602)" \
    "$(step bad-args | jq .code)" -32602
assert_eq "file writes are audited as console requests" \
    "$(jq -r 'select(.record == "request" and .request.rule == "file-write")
        | .request.command' "$AUDIT" | tr '\n' '|')" \
    "write 14 bytes to new/dir/file.txt|write 12 bytes to new/dir/file.txt|write 6 bytes to rep.txt|write 9 bytes to .github/workflows/ci.yml|"
assert_eq "  run by bwgate's helper, as data (no shell)" \
    "$(jq -c 'select(.record == "request" and .request.rule == "file-write")
        | .request.argv' "$AUDIT" | sort -u)" '["/run/bwgate/helper","--write"]'
assert_match "the console shows the edit as a diff" \
    "$(jq -rs '[.[] | select(.record == "request" and .request.rule == "file-write")][1]
        | .request.write.diff' "$AUDIT" | tr '\n' '|')" \
    "^@@ -2,1 \\+2,1 @@\\|-two\\|\\+2\\|"
assert_eq "attention path, headless: denied" \
    "$(step write-attention | jq -c '[.isError, .structured.state, .structured.by]')" \
    '[true,"denied","headless"]'
assert_match "  the reason names the rule" \
    "$(step write-attention | jq -r .structured.reason)" "^danger: changes CI configuration.*\\(ci-config\\)"
ok_unless "  the workflow was not written" test -e "$P/.github/workflows/ci.yml"
assert_eq "client closed, server exited" "$(step closed | jq .ok)" true
stop_console

# 2. A headless console where the operator decides on the control socket.
echo v1 > "$P/stale.txt"
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
node "$SDK/client.mjs" operator > "$T/sdk.jsonl" 2> "$T/sdk.err"
assert_eq "the SDK client ran to the end (operator)" "$?" 0
sed 's/^/# /' "$T/sdk.err" | head -20
assert_eq "approved by the operator: ran" \
    "$(step approved | jq -c '[.isError, .structured.exit_status]')" '[false,0]'
assert_eq "approved: the file it wrote" "$(cat "$P/ok.txt")" approved
assert_match "progress: queued (ask), approved, running, file events" \
    "$(step approved | jq -r '.progress | join("|")')" \
    "^request [0-9]+ queued \\(ask: .*\\|approved by operator\\|running(\\|running: 1 file event)?$"
assert_eq "denied by the operator: tool error" \
    "$(step denied | jq -c '[.isError, .structured.by, .structured.note]')" \
    '[true,"operator","not today"]'
assert_eq "  worded as bwgate run and the hook word it" \
    "$(step denied | jq -r .text)" "denied by the operator: not today"
ok_unless "denied: nothing written" test -e "$P/no.txt"
assert_eq "CI write approved by the operator (--danger): written" \
    "$(step write-approved | jq -c '[.isError, .structured.verdict]')/$(cat "$P/.github/workflows/ci.yml")" \
    '[false,"danger"]/{}'
assert_match "  progress said it was queued as danger, like a command writing it" \
    "$(step write-approved | jq -r '.progress[0]')" "queued \\(danger: changes CI configuration"
ok_unless "  and says danger once" sh -c \
    "grep -q 'danger: danger:' '$T/sdk.jsonl'"
assert_eq "edit of a file changed before approval: not written" \
    "$(step edit-stale | jq -c '[.isError, .structured.state, .structured.changes.modified]')" \
    '[true,"finished",[]]'
assert_match "  the agent is told why" "$(step edit-stale | jq -r .text)" \
    "changed since this write was shown; nothing was written"
assert_eq "  the newer content is kept" "$(cat "$P/stale.txt")" "v2 from someone else"
assert_match "cancelled: the call was aborted" \
    "$(step cancelled | jq -r .thrown)" "test cancels|abort"
id=$(step cancelled | jq -r .id)
killed() {
	"$BWGATE" list --json 2>/dev/null | jq -e ".[] | select(.id == $id and
	    .state == \"killed\" and .note == \"cancelled by the agent\")"
}
ok_if "cancelled: the console killed the command" wait_for 10 killed
killed >/dev/null || { "$BWGATE" list --json; step cancelled; } | sed 's/^/# /'

# 3. An operator slower than the client's timeout: progress every 15 s
# while the request waits, so a client that resets its timeout on
# progress (resetTimeoutOnProgress, 16 s here) waits for the approval.
node "$SDK/client.mjs" beat > "$T/sdk.jsonl" 2> "$T/sdk.err"
sed 's/^/# /' "$T/sdk.err" | head -20
assert_eq "a wait past the client's timeout: the run's output arrives" \
    "$(step beat | jq -c '[.isError, .structured.stdout]')" '[false,"waited-long\n"]'
assert_match "  progress said it was still waiting, steadily" \
    "$(step beat | jq -r '.progress | join("|")')" \
    "still waiting for approval \\(1[0-9] s\\)\\|request [0-9]+ still waiting for approval \\(([23][0-9]) s\\)"
ok_if "  after more than the client's 16 s ($(step beat | jq .seconds) s)" \
    test "$(step beat | jq '.seconds > 16')" = true
stop_console
done_testing
