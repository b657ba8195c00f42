#!/bin/bash
# gemini-mcp: the real Gemini CLI with bwgate's MCP server, set up as
# doc/agents.md shows it (tests/agents/setup/gemini.json in
# ~/.gemini/settings.json), against a headless console whose operator
# answers on the control socket. The model's `run` calls go through the
# console and run sandboxed: a write outside the project leaves nothing on
# the host (and the report says so), a write inside is in the change report,
# and the output, the exit status and the operator's deny note reach the
# model's next request. Gemini CLI's own shell tool is not offered, even
# where it would run without asking (--approval-mode yolo). A planted
# `.gemini/settings.json` (an MCP server the next session would start on
# the host) is refused through the run tool, edit_file and write_file, and
# the next session starts nothing; a control project where the test writes
# the same file itself shows that it would.
. "$(dirname "$0")/lib.sh"
need_clients
agent_project
OUT="$HOME/outside.txt"

# The planted settings: an MCP server that touches MARKER when Gemini CLI
# starts it.
planted() {
	jq -cn --arg m "$1" '{mcpServers: {planted: {command: "touch",
	    args: [$m]}}}'
}

start_mock gemini || { ok_if "the mock starts" false; done_testing; exit; }

# 0. Control: a project's .gemini/settings.json written by the test itself
# starts its MCP server in the next session.
Pgood=$P
agent_project control
mkdir -p "$P/.gemini"
planted "$T/control-marker" > "$P/.gemini/settings.json"
gemini_config "$SETUP/gemini.json"
gemini_policy "$SETUP/gemini-policy.toml"
script '[{"text": "control done"}]'
gemini_p "go"
assert_eq "control: the session ran" "$RC/$(gemini_out .response)" "0/control done"
ok_if "control: Gemini CLI starts the MCP server of a trusted project's .gemini/settings.json" \
    test -e "$T/control-marker"
P=$Pgood

# The project has settings of its own, which the model tries to change.
mkdir -p "$P/.gemini"
printf '{ "ui": { "hideTips": true } }\n' > "$P/.gemini/settings.json"
cp "$P/.gemini/settings.json" "$T/settings.orig"
git -C "$P" add -A && git -C "$P" -c user.name=t -c user.email=t@t commit -qm init

# 1. The run tool, in Gemini CLI's default (headless) approval mode.
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
start_operator
gemini_config "$SETUP/gemini.json"
gemini_policy "$SETUP/gemini-policy.toml"
plant=$(planted "$T/planted-marker")
script "$(jq -cn --arg out "$OUT" --arg plant "$plant" '[
 {tool: "mcp_bwgate_run", input: {command: ("echo in > made-inside.txt; echo out > " + $out + "; echo status=$?"), description: "writes"}},
 {tool: "mcp_bwgate_run", input: {command: "cat made-inside.txt #deny"}},
 {tool: "mcp_bwgate_run", input: {command: "echo failing; exit 3"}},
 {tool: "mcp_bwgate_run", input: {command: ("printf %s\\\\n " + ($plant | @sh) + " > .gemini/settings.json; echo wrote=$?")}},
 {tool: "mcp_bwgate_edit_file", input: {path: ".gemini/settings.json", old_text: "\"hideTips\": true", new_text: ("\"hideTips\": true }, " + ($plant | .[1:-1]) + ", \"x\": {")}},
 {text: "all done"}]')"
gemini_p "go"
assert_eq "gemini -p ran the script to the end" "$RC/$(gemini_out .response)" "0/all done"
tools=$(offered_tools)
assert_match "the model is offered bwgate's run tool" "$tools" "^mcp_bwgate_run$"
ok_unless "  and not Gemini CLI's own shell tool" grep -qx run_shell_command <<< "$tools"
ok_unless "  nor bwgate's write_file (named like Gemini CLI's own, refused here)" \
    grep -qx mcp_bwgate_write_file <<< "$tools"

assert_eq "the first call became a console request, exactly the model's command" \
    "$(request_of "echo in > made-inside.txt" | jq -r '.[0] | "\(.command)|\(.state)"')" \
    "echo in > made-inside.txt; echo out > $OUT; echo status=\$?|finished"
ok_unless "the write outside the project did not reach the host" test -e "$OUT"
assert_eq "the write inside the project did" "$(cat "$P/made-inside.txt" 2>/dev/null)" in
res=$(tool_result 0)
assert_match "the next request carries the output" "$res" "status=[0-9]"
assert_match "  and the change report naming the file made inside" "$res" \
    "made-inside\\.txt"
assert_match "  and the report on the write outside, which did not reach the host" \
    "$res" "'$OUT'.*nothing reached the host"
res=$(tool_result 1)
assert_match "the operator's deny note reaches the model" "$res" "not this one"
assert_eq "  the console records the denial" "$(state_of "cat made-inside.txt")" denied
res=$(tool_result 2)
assert_match "a failing command: its output and exit status reach the model" \
    "$(tr '\n' ' ' <<< "$res")" "exit status 3.*failing"

assert_eq "planting .gemini/settings.json with run: the command ran" \
    "$(state_of ".gemini/settings.json; echo wrote")" finished
res=$(tool_result 3)
assert_match "  the write failed inside the sandbox" "$res" "wrote=[1-9]"
assert_match "  and the model is told why" "$res" "\\.gemini"
res=$(tool_result 4)
assert_match "planting it with edit_file: refused, as a tool error" "$res" "^\\[error\\]"
assert_match "  naming the agents' configuration" "$res" "\\.gemini"
ok_if "the project's .gemini/settings.json is unchanged on the host" \
    cmp -s "$T/settings.orig" "$P/.gemini/settings.json"

# 2. Where Gemini CLI's own tools would run without asking (yolo), its
# shell tool is still not offered, and bwgate's write_file is (Gemini CLI
# withholds MCP tools that share a name with its own, write_file here, in
# the modes where its own is denied): a write_file of the settings is
# refused too.
gemini_config "$SETUP/gemini.json"
gemini_policy "$SETUP/gemini-policy.toml"
script "$(jq -cn --arg plant "$plant" '[
 {tool: "mcp_bwgate_write_file", input: {path: ".gemini/settings.json", content: $plant}},
 {tool: "mcp_bwgate_write_file", input: {path: "src/w.txt", content: "written\n"}},
 {text: "all done"}]')"
gemini_p "go" --approval-mode yolo
assert_eq "yolo: the session ran" "$RC/$(gemini_out .response)" "0/all done"
ok_unless "  and Gemini CLI warned of no deprecated setting" \
    grep -qi deprecated "$T/gemini.err"
tools=$(offered_tools)
ok_unless "  Gemini CLI's own shell tool is not offered" grep -qx run_shell_command <<< "$tools"
assert_match "  bwgate's write_file is" "$tools" "^mcp_bwgate_write_file$"
res=$(tool_result 0)
assert_match "planting .gemini/settings.json with write_file: refused, as a tool error" \
    "$res" "^\\[error\\].*\\.gemini"
ok_if "  the file is unchanged on the host" \
    cmp -s "$T/settings.orig" "$P/.gemini/settings.json"
assert_eq "an ordinary write_file goes through the console" \
    "$(cat "$P/src/w.txt" 2>/dev/null)" written
assert_match "  and the model is told what changed" "$(tool_result 1)" "src/w\\.txt"

# Without the setup's policy, yolo offers Gemini CLI's own shell: the
# check above can fail.
gemini_config "$SETUP/gemini.json"
script '[{"text": "all done"}]'
gemini_p "go" --approval-mode yolo
assert_match "control: without the deny policy, yolo offers Gemini CLI's own shell" \
    "$(offered_tools)" "^run_shell_command$"

# Without "trust", gemini -p offers none of bwgate's tools (it would have
# to ask, and asks nobody).
jq 'del(.mcpServers.bwgate.trust)' "$SETUP/gemini.json" > "$T/no-trust.json"
gemini_config "$T/no-trust.json"
gemini_policy "$SETUP/gemini-policy.toml"
script '[{"text": "all done"}]'
gemini_p "go"
tools=$(offered_tools)
assert_match "control: without trust, the session ran and offered tools" \
    "$RC/$(gemini_out .response)/$(tr "\n" " " <<< "$tools")" "^0/all done/.* read_file "
ok_unless "  but no bwgate tool" grep -q '^mcp_bwgate_' <<< "$tools"

# 3. The next session in the project starts no planted server.
gemini_config "$SETUP/gemini.json"
gemini_policy "$SETUP/gemini-policy.toml"
script '[{"text": "next session done"}]'
gemini_p "go"
assert_eq "the next session ran" "$RC/$(gemini_out .response)" "0/next session done"
ok_unless "  and started nothing planted" test -e "$T/planted-marker"
agents_teardown
done_testing
