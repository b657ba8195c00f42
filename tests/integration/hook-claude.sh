#!/bin/bash
# hook-claude: `bwgate hook claude-code` with recorded PreToolUse payloads of
# the documented shape: Bash is rewritten to `bwgate sh -c '...'` (and the
# rewritten command, run by bash -c, prints what the original prints, for a
# table of hard strings), no console means deny (or pass when configured),
# Write/Edit to protected paths or outside the project are denied.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"
# cat reads here-documents in the table below; let it run headless.
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"cat","command":["cat"],"verdict":"allow","profile":"readonly","reason":"test reader"},
 {"id":"mkdir","command":["mkdir"],"verdict":"allow","profile":"project","reason":"test maker"},
 {"id":"ln","command":["ln"],"verdict":"allow","profile":"project","reason":"test linker"}
]}
JSON

# A PreToolUse payload as Claude Code sends it: payload TOOL INPUT-JSON
payload() {
	jq -cn --arg tool "$1" --argjson input "$2" --arg cwd "$P" '{
	    session_id: "abc123", transcript_path: "/tmp/t.jsonl", cwd: $cwd,
	    permission_mode: "default", hook_event_name: "PreToolUse",
	    tool_name: $tool, tool_input: $input}'
}
bash_payload() {
	payload Bash "$(jq -cn --arg c "$1" \
	    '{command: $c, description: "test", timeout: 120000}')"
}
hook() {
	"$BWGATE" hook claude-code "$@" > "$T/hook.out" 2> "$T/hook.err"
}

# No console: blocked (exit 2, Claude Code's blocking code; the reason
# on stderr is what the model reads). More failures: edge-hook.sh.
bash_payload 'echo hi' | hook; rc=$?
assert_eq "no console: exit 2 (blocks)" "$rc" 2
assert_match "no console: the reason says how to start one" \
    "$(cat "$T/hook.err")" "start one with 'bwgate'"
bash_payload 'echo hi' | hook --without-console pass
assert_eq "no console, pass: no output, exit 0" "$?/$(cat "$T/hook.out")" "0/"
payload Read '{"file_path":"/etc/passwd"}' | hook
assert_eq "other tools pass untouched" "$?/$(cat "$T/hook.out")" "0/"
echo 'not json' | hook
assert_eq "malformed input: exit 2 (blocks)" "$?" 2
hook --without-console maybe < /dev/null
assert_eq "bad option value: exit 2 (blocks)" "$?" 2

# File tools: protected paths and paths outside the project.
fdecision() {	# TOOL PATH [HOOK OPTIONS]
	local tool="$1" path="$2"; shift 2
	payload "$tool" "$(jq -cn --arg f "$path" '{file_path: $f, content: "x",
	    old_string: "a", new_string: "b"}')" | hook "$@"
	if [ $? -eq 2 ]; then
		echo block
	elif [ -s "$T/hook.out" ]; then
		jq -r '.hookSpecificOutput.permissionDecision' "$T/hook.out"
	else
		echo none
	fi
}
assert_eq "Write inside the project: no objection" \
    "$(fdecision Write "$P/src/new.c")" none
assert_eq "Write to .git/hooks: deny" \
    "$(fdecision Write "$P/.git/hooks/pre-commit")" deny
assert_match "  with the sandbox's reason" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "is protected .*git-write profile"
assert_eq "Write to .envrc: deny" "$(fdecision Write "$P/.envrc")" deny
assert_match "  the hint names the profile that unlocks it, not git-write" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "is protected .*agent-config profile"
assert_eq "Edit of a nested .git/config: deny" \
    "$(fdecision Edit "$P/vendor/lib/.git/config")" deny
assert_eq "Edit of .bwgate.json: deny" "$(fdecision Edit "$P/.bwgate.json")" deny
assert_eq "Write of .envrc (agent configuration): deny" \
    "$(fdecision Write "$P/sub/.envrc")" deny
assert_match "  with the table's reason" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "direnv runs it"
assert_eq "Write of a CI workflow (attention): ask" \
    "$(fdecision Write "$P/.github/workflows/ci.yml")" ask
assert_match "  with the rule's reason" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "needs attention \\(.github/workflows: CI runs it"
assert_eq "Write outside the project: deny" \
    "$(fdecision Write "$T/elsewhere.txt")" deny
ln -s "$T" "$P/out"
assert_eq "Write through a symlink out of the project: deny" \
    "$(fdecision Write "$P/out/planted")" deny

# --writes console without a console: block (or pass when configured).
assert_eq "--writes console, no console: block" \
    "$(fdecision Write "$P/src/new.c" --writes console)" block
assert_match "  saying none is reachable" "$(cat "$T/hook.err")" \
    "file writes go through the bwgate console, and none is reachable"
assert_eq "--writes console, no console, pass: nothing" \
    "$(fdecision Write "$P/src/new.c" --writes console --without-console pass)" none

# With a console: Bash is rewritten.
start_console --headless --auto-allowlisted || { ok_if "the console starts" false; done_testing; exit; }
bash_payload "echo 'it''s'" | hook
assert_eq "console: allow" \
    "$(jq -r .hookSpecificOutput.permissionDecision "$T/hook.out")" allow
assert_eq "updatedInput keeps the other fields" \
    "$(jq -c '.hookSpecificOutput.updatedInput | [.description, .timeout]' "$T/hook.out")" \
    '["test",120000]'
assert_match "updatedInput runs bwgate sh -c" \
    "$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")" \
    "^\\{ __bwgate_cwd=\\\$\\(BWGATE_APPROVAL_MS=115000 (BWGATE_[A-Z]+='[^']*' )*'[^']*/bwgate' sh --cwd-fd=3 -c '"

# The user's own Claude Code rules still hold: a deny rule refuses the
# command (Claude Code would check the rewritten one, which no rule
# names), an ask rule makes Claude Code ask; from every settings file.
decision() {
	bash_payload "$1" | hook
	jq -r '.hookSpecificOutput | .permissionDecision + " " +
	    (.updatedInput.command // "-")' "$T/hook.out"
}
mkdir -p "$HOME/.claude" "$P/.claude"
echo '{"permissions":{"deny":["Bash(touch:*)","Read(./.env)"],"ask":["Bash(git push *)"]}}' \
    > "$HOME/.claude/settings.json"
assert_match "user deny rule Bash(touch:*): touch x denied" \
    "$(decision 'touch x')" "^deny -$"
assert_match "  the reason names the rule" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "rule 'Bash\\(touch:\\*\\)'"
assert_match "  inside a compound command and with quotes" \
    "$(decision "echo a && 'tou'ch y | cat")" "^deny -$"
assert_match "  inside a substitution" "$(decision 'echo $(touch z)')" "^deny -$"
assert_match "other commands still allowed and rewritten" \
    "$(decision 'echo touch')" "^allow \\{ __bwgate_cwd=\\\$\\(BWGATE_APPROVAL_MS="
assert_match "ask rule: ask, with the rewritten command" \
    "$(decision 'git push origin main')" "^ask \\{ __bwgate_cwd=\\\$\\(BWGATE_APPROVAL_MS=[0-9]+ (BWGATE_[A-Z]+='[^']*' )*'.*/bwgate' sh --cwd-fd=3 -c 'git push"
echo '{"permissions":{"deny":["Bash(rm *)"]}}' > "$P/.claude/settings.local.json"
assert_match "project local deny rule Bash(rm *): rm denied" \
    "$(decision 'rm -rf build')" "^deny -$"
assert_match "  but not a longer name (rmdir)" "$(decision 'rmdir d')" "^allow "
echo '{"permissions":' > "$P/.claude/settings.json"
assert_match "a broken settings file: deny (fail closed)" \
    "$(decision 'echo hi')" "^deny -$"
# The project's settings are read through the door: a FIFO there
# answers at once (no read that waits for a writer), a link is not
# followed; both fail closed, saying why.
rm -f "$P/.claude/settings.json"
mkfifo "$P/.claude/settings.json"
bash_payload 'echo hi' | timeout 20 "$BWGATE" hook claude-code \
    > "$T/hook.out" 2> "$T/hook.err"
assert_match "a FIFO as the project's settings: denied at once" \
    "$(jq -r '.hookSpecificOutput | .permissionDecision + " " +
    .permissionDecisionReason' "$T/hook.out")" \
    "^deny .*'\.claude/settings\.json' is not a regular file \(a FIFO\)"
rm -f "$P/.claude/settings.json"
echo '{"permissions":{"allow":["Bash(*)"]}}' > "$T/elsewhere.json"
ln -s "$T/elsewhere.json" "$P/.claude/settings.json"
assert_match "a link as the project's settings: not followed, denied" \
    "$(decision 'echo hi')" "^deny -$"
assert_match "  saying it is a link" \
    "$(jq -r .hookSpecificOutput.permissionDecisionReason "$T/hook.out")" \
    "'\.claude/settings\.json' is or goes through a symbolic link"
rm -f "$P/.claude/settings.json" "$T/elsewhere.json"
rm -rf "$HOME/.claude" "$P/.claude"
ok_if "no settings: allowed again" test "$(decision 'touch x' | cut -d' ' -f1)" = allow

# Hard strings: the rewritten command (through the console and the
# sandbox) prints exactly what the original prints run by bash.
i=0
while IFS= read -r -d '' s; do
	i=$((i + 1))
	want=$(bash -c "$s" 2>&1; echo "rc=$?")
	bash_payload "$s" | hook
	cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")
	got=$(bash -c "$cmd" 2>/dev/null; echo "rc=$?")
	assert_eq "hard string $i: same output through the console" "$got" "$want" ||
	    printf '# string: %q\n' "$s"
done < <(printf '%s\0' \
    "printf '%s\n' \"it's\" 'say \"hi\"' 'a\\b'" \
    "echo a; echo b" \
    $'echo one\necho two' \
    $'cat <<EOF\nline \\$x three\n  indented \'q\' "d"\nEOF' \
    $'cat <<\'X\'\n$not expanded `either`\nX' \
    $'printf \'%s|\' $\'tab\\there\' $\'quote\\\'s\' $\'nl\\nx\'' \
    $'echo \'h\u00e9llo \u2713\' "\u00e9\t"' \
    "printf '%s\n' '\$HOME' \"\\\$PATH\" '\\\\' '\`x\`'" \
    "echo \"a'b\" 'c\"d' && false")

# cd carries over as in Claude Code's own wrapper (`eval CMD && pwd -P`):
# the host's shell ends where the sandbox's did, inside the project, when
# the command succeeded; its status is the command's either way.
mkdir -p "$P/src/deep"
carried() {	# COMMAND: what the wrapper's pwd prints, and the status
	bash_payload "$1" | hook
	cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")
	(cd "$P" && bash -c 'eval "$1" > /dev/null 2>&1 && pwd -P; echo "rc=$?"' \
	    sh "$cmd")
}
assert_eq "cd src/deep: the host's next directory" \
    "$(carried 'cd src/deep')" "$P/src/deep"$'\n'"rc=0"
assert_eq "cd then a later command: where it ended" \
    "$(carried 'cd src && ls > /dev/null && cd deep')" "$P/src/deep"$'\n'"rc=0"
assert_eq "cd and a failure: not carried, the status kept" \
    "$(carried 'cd src && false')" "rc=1"
assert_eq "cd out of the project: not carried" \
    "$(carried 'cd /tmp')" "$P"$'\n'"rc=0"
assert_eq "a trailing comment: still carried" \
    "$(carried 'cd src # go')" "$P/src"$'\n'"rc=0"

# The final directory is looked up through the door (beneath.h), from the
# project's root: a symbolic link on the way is refused, never followed,
# even one to a directory inside, and bwgate says why; the host's shell
# stays where it was. The command's shell names a link of its own making
# as its directory (its pwd is a function of the command's).
# (A function definition needs an operator, or the sandboxed mode.)
mkdir -p "$T/outside/sub" "$P/real"
stop_console
start_console --headless --auto-sandboxed || { ok_if "the console starts" false; done_testing; exit; }
landed() {	# COMMAND: the host's directory after it, stderr in carried.err
	bash_payload "$1" | hook
	cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")
	if [ -n "${RACER:-}" ]; then	# run through the racer instead
		cmd=$(printf '%s' "$cmd" |
		    sed "s|'[^']*/bwgate' sh --cwd-fd=3|'$RACER' sh --cwd-fd=3|")
	fi
	(cd "$P" && bash -c 'eval "$1" > /dev/null 2> "$2"; pwd -P' \
	    sh "$cmd" "$T/carried.err")
}
for how in "out:$T/outside:out" "via:$T/outside:via/sub" "in:real:in"; do
	name=${how%%:*} to=${how#*:}; to=${to%:*} final=${how##*:}
	assert_eq "final directory $final, a link to $to: the host stays" \
	    "$(landed "ln -s '$to' $name && pwd() { echo '$P/$final'; }")" "$P"
	assert_match "  bwgate says why" "$(cat "$T/carried.err")" \
	    "^bwgate: the final directory is not carried over: '$final' is or goes through a symbolic link"
	rm -f "$P/$name"
done
assert_eq "the same, no link: carried" \
    "$(landed "pwd() { echo '$P/real'; }")" "$P/real"
# Checked, then swapped for a link to the outside before the host's cd (as
# another sandbox of the project can): the host's shell sees where it
# landed and goes back.
printf '#!/bin/sh\n"$BWGATE" "$@"; st=$?\nrm -rf "%s/d" && ln -s "%s/outside" "%s/d"\nexit $st\n' \
    "$P" "$T" "$P" > "$T/racer"
chmod +x "$T/racer"
assert_eq "final directory swapped for a link after the check: the host stays" \
    "$(RACER=$T/racer landed 'mkdir d && cd d')" "$P"
assert_match "  and says so" "$(cat "$T/carried.err")" \
    "^bwgate: the final directory changed on the way: not carried over"
rm -f "$P/d"
stop_console
start_console --headless --auto-allowlisted || { ok_if "the console starts" false; done_testing; exit; }

# --writes console: Claude Code's own file tools become console requests;
# a Write the console made is allowed (Claude Code writes the same bytes
# and reports success), an Edit it made stopped with what happened.
reason() {
	jq -r '.hookSpecificOutput | .permissionDecision + " " +
	    .permissionDecisionReason' "$T/hook.out"
}
payload Write "$(jq -cn --arg f "$P/src/new.c" '{file_path: $f,
    content: "int x;\n"}')" | hook --writes console
assert_match "Write through the console: done" "$(reason)" \
    "^allow bwgate: the console wrote 'src/new.c' \\(request [0-9]+"
assert_eq "  the file" "$(cat "$P/src/new.c")" "int x;"
payload Edit "$(jq -cn --arg f "$P/src/a.txt" '{file_path: $f,
    old_string: "hello", new_string: "bye"}')" | hook --writes console
assert_match "Edit through the console: done" "$(reason)" "^deny bwgate: done"
assert_eq "  the file" "$(cat "$P/src/a.txt")" "bye"
printf 'a1\nb1\n' > "$P/src/m.txt"
payload MultiEdit "$(jq -cn --arg f "$P/src/m.txt" '{file_path: $f,
    edits: [{old_string: "a1", new_string: "A"},
            {old_string: "b1", new_string: "B"}]}')" | hook --writes console
assert_eq "MultiEdit through the console: both edits" \
    "$(cat "$P/src/m.txt")" "$(printf 'A\nB')"
payload Edit "$(jq -cn --arg f "$P/src/a.txt" '{file_path: $f,
    old_string: "absent", new_string: "x"}')" | hook --writes console
assert_match "Edit with missing text: deny with why" "$(reason)" \
    "old_text was not found"
payload Write "$(jq -cn --arg f "$P/.github/workflows/ci.yml" '{file_path: $f,
    content: "export X=1\n"}')" | hook --writes console
assert_match "attention path, headless console: denied by it" "$(reason)" \
    "^deny bwgate: writing '.github/workflows/ci.yml' \\(request [0-9]+\\) denied by headless"
ok_unless "  the workflow not written" test -e "$P/.github/workflows/ci.yml"
assert_eq "the console audited the hook's writes" \
    "$(jq -r 'select(.record == "request" and .request.rule == "file-write")
        | .request.agent' "$AUDIT" | sort -u)" claude-code
stop_console

# The call's own timeout bounds the wait for the operator: a request not
# decided in time is withdrawn and the model told why (Claude Code would
# otherwise move the command to the background and the session hang).
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
bash_payload 'touch waited' | hook
assert_match "a 2-minute Bash timeout: 115 s for the decision" \
    "$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")" \
    "BWGATE_APPROVAL_MS=115000 "
payload Bash '{"command":"touch waited","timeout":6000}' | hook
cmd=$(jq -r .hookSpecificOutput.updatedInput.command "$T/hook.out")
assert_match "a 6 s timeout: at least 1 s for the decision" "$cmd" \
    "BWGATE_APPROVAL_MS=1000 "
start=$(date +%s)
(cd "$P" && timeout 30 bash -c "$cmd") > "$T/wait.out" 2> "$T/wait.err"
rc=$?
assert_eq "not decided in time: exit 77 (denied)" "$rc" 77
ok_if "  well before the Bash tool's timeout" test $(( $(date +%s) - start )) -lt 6
assert_match "  the model is told why" "$(cat "$T/wait.err")" \
    "withdrawn: the operator did not decide within 1 s"
withdrawn() {
	"$BWGATE" list --json | jq -e '.[] | select(.command == "touch waited" and .state == "withdrawn")'
}
ok_if "  withdrawn in the console" wait_for 10 withdrawn
ok_unless "  and never run" test -e "$P/waited"
stop_console
done_testing
