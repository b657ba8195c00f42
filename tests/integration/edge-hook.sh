#!/bin/bash
# edge-hook: `bwgate hook claude-code` fails closed. Claude Code runs the
# tool call anyway when a PreToolUse hook exits with anything but 0 or 2,
# crashes or times out, so every failure of the hook's own is exit 2 with
# the reason on stderr (Claude Code's blocking code): unparsable input, a
# lone surrogate (JSON.stringify's "\ud800", which cJSON refuses), a
# \u0000, no console, a console that dies mid-request, its deadline, a
# fatal signal, out of memory, bad options. And Write/Edit paths resolve
# as Claude Code resolves them: relative to the call's cwd, ~ against
# HOME, then through links.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P"
payload() {	# TOOL INPUT-JSON
	jq -cn --arg tool "$1" --argjson input "$2" --arg cwd "$P" '{
	    session_id: "abc123", cwd: $cwd, hook_event_name: "PreToolUse",
	    tool_name: $tool, tool_input: $input}'
}
hook() {
	"$BWGATE" hook claude-code "$@" > "$T/hook.out" 2> "$T/hook.err"
}
# blocks NAME PATTERN: exit 2, nothing on stdout, the reason on stderr
blocks() {
	local rc=$1 name=$2 pat=$3
	assert_eq "$name: exit 2 (blocks)" "$rc" 2
	assert_match "  the reason on stderr" "$(cat "$T/hook.err")" "$pat"
	ok_unless "  nothing on stdout" test -s "$T/hook.out"
}
export BWGATE_SOCKET="$T/none.sock"

echo 'not json' | hook; blocks $? "unparsable input" "^bwgate: hook: the hook input:1: invalid JSON"
printf '' | hook; blocks $? "empty input" "the hook input is empty"
echo '[1]' | hook; blocks $? "not an object" "not a JSON object"
# Raw JSON text, as Claude Code's JSON.stringify writes a lone surrogate.
printf '%s' '{"cwd":"'"$P"'","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo \ud800; rm -rf src"}}' | hook
blocks $? "a lone surrogate in the Bash command" \
    "field 'tool_input.command' holds a lone UTF-16 surrogate"
printf '%s' '{"cwd":"'"$P"'","tool_name":"Bash","tool_input":{"command":"echo \udc00"}}' | hook
blocks $? "a lone low surrogate" "field 'tool_input.command' holds a lone"
printf '%s' '{"cwd":"'"$P"'","tool_name":"Bash","tool_input":{"command":"echo \ud83d\ude00"}}' | hook
assert_match "a surrogate pair is a character: decided (no console)" \
    "$(cat "$T/hook.err")" "none is reachable"
printf '%s' '{"cwd":"'"$P"'","tool_name":"Bash","tool_input":{"command":"true\u0000; rm -rf src"}}' | hook
blocks $? "\\u0000 in the Bash command" \
    "field 'tool_input.command' holds a NUL character \\(\\\\u0000\\): refused, not cut short"
printf '%s' '{"cwd":"'"$P"'","tool_name":"Write","tool_input":{"file_path":"'"$P"'/a","content":"abc\u0000def\n"}}' | hook
blocks $? "\\u0000 in a Write's content" "field 'tool_input.content' holds a NUL"
payload Write "$(jq -cn --arg f "$P/a"$'\n''b' '{file_path: $f, content: "x"}')" | hook
blocks $? "a newline in a Write's path" \
    "field 'tool_input.file_path' holds a control character \\(U\\+000A"
printf '{"cwd":"%s","tool_name":"Bash","tool_input":{"command":"echo \xff"}}' "$P" | hook
blocks $? "invalid UTF-8" "field 'tool_input.command' holds invalid UTF-8"
python3 -c 'import json; print(json.dumps({"cwd": "/", "tool_name": "Bash",
    "tool_input": {"command": "echo " + "x" * 200000}}))' | hook
blocks $? "an over-long command" "field 'tool_input.command' is longer than"
payload Bash '{"command":"echo hi"}' | hook
blocks $? "no console" "commands run only through the bwgate console, and none is reachable"
payload Write "$(jq -cn --arg f "$P/src/new.c" '{file_path: $f, content: "x"}')" |
    hook --writes console
blocks $? "--writes console, no console" "file writes go through the bwgate console, and none is reachable"
payload Write '{"content":"x"}' | hook
blocks $? "Write without file_path" "the Write input has no 'file_path' string"
echo '{}' | hook --without-console maybe
blocks $? "a bad option value" "--without-console: 'maybe' is not deny or pass"
echo '{}' | hook --deadline soon
blocks $? "a bad deadline" "--deadline: 'soon' is not a number"
echo '{}' | "$BWGATE" hook codex > "$T/hook.out" 2> "$T/hook.err"
blocks $? "an unknown harness" "only 'bwgate hook claude-code'"

# Out of memory: some limit between these makes reading 15 MB fail; each
# run blocks either way. (A sanitizer build cannot start under an address
# space limit at all: its shadow memory alone is terabytes.)
if ldd "$BWGATE" 2>/dev/null | grep -q 'libasan'; then
	skip "under a memory limit: exit 2 every time" "a sanitizer build"
	skip "  out of memory seen and blocked" "a sanitizer build"
else
head -c 15000000 /dev/zero | tr '\0' ' ' > "$T/big.json"
oom=no all2=yes
for kb in 14000 16000 18000 20000 22000 24000 28000 32000; do
	( ulimit -v $kb; exec "$BWGATE" hook claude-code ) < "$T/big.json" \
	    > "$T/hook.out" 2> "$T/hook.err"
	rc=$?
	[ $rc -eq 2 ] || { all2="no ($rc at $kb KiB: $(cat "$T/hook.err"))"; }
	grep -q "out of memory; the tool call is blocked" "$T/hook.err" && oom=yes
done
assert_eq "under a memory limit: exit 2 every time" "$all2" yes
assert_eq "  out of memory seen and blocked" "$oom" yes
fi

# A console that dies mid-request, one that never answers (the deadline),
# and a fatal signal while waiting.
fake() {	# MODE: a fake console at $T/fake.sock
	rm -f "$T/fake.sock" "$T/fake.sock.ready"
	python3 "$BWGATE_SRCDIR/tests/integration/fakeconsole.py" "$T/fake.sock" "$1" &
	FAKE=$!
	CLEANUP_EXTRA="kill $FAKE 2>/dev/null"
	wait_for 20 test -e "$T/fake.sock.ready"
}
wpayload=$(payload Write "$(jq -cn --arg f "$P/src/new.c" '{file_path: $f, content: "int x;\n"}')")
fake close
hook --socket "$T/fake.sock" --writes console <<< "$wpayload"
blocks $? "a console that dies mid-request" \
    "the console closed the connection before writing 'src/new.c'"
kill $FAKE; wait $FAKE 2>/dev/null
fake hang
hook --socket "$T/fake.sock" --writes console --deadline 2 <<< "$wpayload"
blocks $? "a console that never answers: the deadline" \
    "no decision within the hook's deadline \\(2 s, --deadline\\); the tool call is blocked"
"$BWGATE" hook claude-code --socket "$T/fake.sock" --writes console \
    <<< "$wpayload" > "$T/hook.out" 2> "$T/hook.err" &
hp=$!
waiting() { [ "$(ls /proc/$hp/fd 2>/dev/null | wc -l)" -ge 4 ] && grep -q '^State:.*S' /proc/$hp/status; }
wait_for 20 waiting
sleep 0.3
kill -SEGV $hp; wait $hp
blocks $? "a fatal signal (SIGSEGV) while waiting" "internal error \\(fatal signal\\); the tool call is blocked"
kill $FAKE; wait $FAKE 2>/dev/null
CLEANUP_EXTRA=

# Write/Edit paths resolve like Claude Code: relative to the call's cwd,
# ~ against HOME, then through the real file system.
fdecision() {	# TOOL PATH [CWD]: the decision, "none" or "block"
	jq -cn --arg f "$2" --arg cwd "${3:-$P}" --arg t "$1" '{cwd: $cwd,
	    hook_event_name: "PreToolUse", tool_name: $t,
	    tool_input: {file_path: $f, content: "x", old_string: "a",
	    new_string: "b"}}' | hook
	local rc=$?
	if [ $rc -eq 2 ]; then echo block
	elif [ -s "$T/hook.out" ]; then
		jq -r '.hookSpecificOutput.permissionDecision' "$T/hook.out"
	else echo none; fi
}
mkdir -p "$P/sub" "$T/outside"
ln -s "$T/outside" "$P/link"
ln -s "$T/outside/new-target" "$P/dangling"
assert_eq "relative path inside the project: no objection" \
    "$(fdecision Write src/new.c)" none
assert_eq "relative path through a link out of the project: deny" \
    "$(fdecision Write link/x)" deny
assert_match "  the reason says where it leads" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "outside"
assert_eq "relative to the call's cwd (sub/../link/x): deny" \
    "$(fdecision Write ../link/x "$P/sub")" deny
assert_eq "relative ../ out of the project: deny" \
    "$(fdecision Write ../../elsewhere "$P/sub")" deny
assert_eq "a new directory below a link out: deny" \
    "$(fdecision Write link/newdir/deeper/x)" deny
assert_eq "a dangling link out of the project: deny" \
    "$(fdecision Write dangling)" deny
assert_match "  naming the link" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "is a symbolic link to '$T/outside/new-target', which does not exist"
assert_eq "~/.bashrc (HOME outside the project): deny" \
    "$(fdecision Edit '~/.bashrc')" deny
assert_match "  resolved against HOME" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "'$HOME/.bashrc' is outside"
assert_eq "~ alone: deny" "$(fdecision Write '~')" deny
assert_eq "a file named ~x in the cwd (not a home): no objection" \
    "$(fdecision Write '~x')" none
assert_eq "relative .git/hooks/pre-commit: deny (protected)" \
    "$(fdecision Write .git/hooks/pre-commit)" deny
assert_eq "relative from sub: ../.github/workflows/ci.yml asks" \
    "$(fdecision Write ../.github/workflows/ci.yml "$P/sub")" ask
assert_eq "/.. (fuzz-hook found a crash there): deny" \
    "$(fdecision MultiEdit /..)" deny
assert_eq "cwd / (no project): block" "$(fdecision Write /etc/x /)" block
assert_eq "a relative path and a relative cwd: block" \
    "$(fdecision Write src/x relative/dir)" block
ok_unless "nothing was written outside" test -e "$T/outside/x"
done_testing
