# lib.sh: helpers for the tests that drive the real Claude Code and Codex CLI
# through bwgate (tests/agents/*.sh; source it after setting nothing else).
#
#	need_clients			the installed clients, or a failure
#	agent_project [NAME]		a git project; sets P
#	start_console [OPTIONS...]	`bwgate OPTIONS` in $P; sets CPID
#	start_operator			answers the console's requests (below)
#	start_mock anthropic|openai	the model's API on loopback; sets MOCK_URL
#	script JSON			the model's turns for the next session
#	claude_p PROMPT [ARGS...]	`claude -p` in $P; sets RC, $T/claude.json
#	claude_bg, codex_bg		the same in the background; CLPID, CXPID
#	codex_exec PROMPT [ARGS...]	`codex exec` in $P; sets RC
#	gemini_config [SETUP...]	Gemini CLI's settings, $P trusted
#	gemini_p PROMPT [ARGS...]	`gemini -p` in $P; sets RC, $T/gemini.json
#	tool_result N			what the client sent back for turn N
#	offered_tools			the tools the model was offered
#	request_of TEXT			the console's requests whose command has TEXT
#	state_of TEXT, state_is TEXT STATE	the state of the first of them
#
# The clients run with the test's HOME (libtest.sh), their own temporary
# directory inside $T, no telemetry, no updates, and the mock as their only
# model API. `bwgate`, `claude`, `codex` and `gemini` are on PATH by those
# names, as the setups in doc/agents.md (tests/agents/setup/) call them.
# The console is found the way the documented setups find it: by the
# project, without BWGATE_SOCKET.
#
# The operator answers over the control socket (bwgate approve/deny), by a
# tag in the command text: `#deny` denies with the note "not this one",
# `#hold` leaves the request waiting, `#afterN` approves it N seconds after
# it first saw it, anything else is approved at once.
. "$BWGATE_SRCDIR/tests/integration/libtest.sh"

AGENTS_SRC="$BWGATE_SRCDIR/tests/agents"
SETUP="$AGENTS_SRC/setup"
CLIENTS="$BWGATE_BUILDDIR/tests/agents-clients"
AUDIT="$XDG_STATE_HOME/bwgate/audit.jsonl"
unset BWGATE_SOCKET
CPID= OPID= MPID=
MOCK_LOG="$T/mock.log"
MOCK_SCRIPT="$T/mock.script"

mkdir -p "$T/bin" "$T/tmp"
ln -s "$BWGATE" "$T/bin/bwgate"
ln -s "$CLIENTS/bin/claude" "$T/bin/claude"
ln -s "$CLIENTS/bin/codex" "$T/bin/codex"
ln -s "$CLIENTS/bin/gemini" "$T/bin/gemini"
export PATH="$T/bin:$PATH"

# Stop what the test started: operator, console, mock.
agents_teardown() {
	[ -n "$OPID" ] && kill -TERM "$OPID" 2>/dev/null && wait "$OPID" 2>/dev/null
	[ -n "$CPID" ] && kill -TERM "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	[ -n "$MPID" ] && kill -TERM "$MPID" 2>/dev/null && wait "$MPID" 2>/dev/null
	OPID= CPID= MPID=
}
TEARDOWN=agents_teardown

# The clients, installed by tests/agents/install.sh (./quickstart
# check-agents does it): a test without them fails, it does not skip.
need_clients() {
	if ! "$CLIENTS/bin/claude" --version > /dev/null 2>&1 ||
	    ! "$CLIENTS/bin/codex" --version > /dev/null 2>&1 ||
	    ! "$CLIENTS/bin/gemini" --version > /dev/null 2>&1; then
		ok_if "Claude Code, Codex and Gemini CLI are installed (tests/agents/install.sh '$CLIENTS')" false
		done_testing
		exit 1
	fi
}

# A project under git with a file in src/: sets P.
agent_project() {
	P="$T/${1:-proj}"
	mkdir -p "$P/src"
	git -C "$P" init -q
	echo hello > "$P/src/a.txt"
}

# The console for $P, headless; sets CPID.
start_console() {
	rm -f "$T/console.out"
	(cd "$P" && exec "$BWGATE" --log "$T/console.log" "$@" \
	    > "$T/console.out" 2> "$T/console.err") &
	CPID=$!
	if ! wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/console.out"; then
		sed 's/^/# console: /' "$T/console.err"
		return 1
	fi
}

stop_console() {
	kill -TERM "$CPID" 2>/dev/null
	wait "$CPID" 2>/dev/null
	CPID=
}

# The operator: every 50 ms, each pending request of $P's console is
# approved, denied or left waiting by the tag in its command; each decision
# is logged in $T/operator.log.
operate() {
	local id cmd line first now n
	cd "$P" || return
	while :; do
		now=$(date +%s)
		bwgate list --json 2>/dev/null |
		    jq -r '.[] | select(.state == "pending") | [.id, .command] | @json' |
		while IFS= read -r line; do
			id=$(jq -r '.[0]' <<< "$line")
			cmd=$(jq -r '.[1]' <<< "$line")
			case $cmd in
			*'#hold'*) continue ;;
			*'#after'[0-9]*)
				# Approve N seconds after the request was first seen.
				first=$(sed -n "s/^$id //p" "$T/operator.seen" 2>/dev/null)
				[ -n "$first" ] || { echo "$id $now" >> "$T/operator.seen"; continue; }
				n=${cmd##*#after}; n=${n%%[!0-9]*}
				[ "$now" -ge $((first + n)) ] || continue
				bwgate approve "$id" ;;
			*'#deny'*) bwgate deny --note "not this one" "$id" ;;
			*) bwgate approve "$id" ;;
			esac > /dev/null 2>&1 && echo "$id $cmd" >> "$T/operator.log"
		done
		sleep 0.05
	done
}

start_operator() {
	operate &
	OPID=$!
}

# The model's API on loopback: start_mock anthropic|openai; sets MOCK_URL.
start_mock() {
	rm -f "$T/mock.port"
	echo '[]' > "$MOCK_SCRIPT"
	node "$AGENTS_SRC/mock-$1.mjs" "$MOCK_SCRIPT" "$MOCK_LOG" "$T/mock.port" \
	    2> "$T/mock.err" &
	MPID=$!
	if ! wait_for 10 test -s "$T/mock.port"; then
		sed 's/^/# mock: /' "$T/mock.err"
		return 1
	fi
	MOCK_URL="http://127.0.0.1:$(cat "$T/mock.port")"
}

# The turns of the next session (a JSON array, see mock-*.mjs); the
# request log starts again.
script() {
	printf '%s\n' "$1" > "$MOCK_SCRIPT"
	: > "$MOCK_LOG"
}

# The environment every client runs with: the mock, nothing else. Claude
# Code would otherwise defer MCP tools behind its tool search (a real model
# loads them first); ENABLE_TOOL_SEARCH=false offers them at once, so a
# script can call them in its first turn. client_exec replaces the shell
# with the client (for a pid to signal).
client_env() {
	(client_exec "$@")
}
client_exec() {
	exec env TMPDIR="$T/tmp" \
	    ANTHROPIC_BASE_URL="$MOCK_URL" ANTHROPIC_API_KEY=test \
	    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
	    DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
	    DISABLE_BUG_COMMAND=1 CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1 \
	    ENABLE_TOOL_SEARCH=false \
	    CODEX_HOME="$HOME/.codex" MOCK_API_KEY=test \
	    GOOGLE_GEMINI_BASE_URL="$MOCK_URL" GEMINI_API_KEY=test \
	    "$@"
}

# claude -p PROMPT ARGS... in $P, at most LIMIT seconds (default 120);
# sets RC (124 when it had to be killed), output in $T/claude.json.
claude_p() {
	local prompt="$1"; shift
	(cd "$P" && client_env timeout -k 5 "${LIMIT:-120}" \
	    claude -p "$prompt" --output-format json "$@" \
	    < /dev/null > "$T/claude.json" 2> "$T/claude.err")
	RC=$?
	[ "$RC" -eq 0 ] || sed 's/^/# claude: /' "$T/claude.err" | head -20
}

# claude -p PROMPT ARGS... in $P in the background; sets CLPID.
claude_bg() {
	local prompt="$1"; shift
	(cd "$P" && client_exec claude -p "$prompt" --output-format json "$@" \
	    < /dev/null > "$T/claude.json" 2> "$T/claude.err") &
	CLPID=$!
}

# Claude Code's answer: a field of $T/claude.json.
claude_out() {
	jq -r "$1" "$T/claude.json" 2>/dev/null
}

# The Codex configuration: the mock as model provider, no update check,
# no analytics, plus the setup given (a file of tests/agents/setup/).
codex_config() {
	mkdir -p "$HOME/.codex"
	{
		cat <<-EOF
		model = "gpt-mock"
		model_provider = "mock"
		check_for_update_on_startup = false

		[analytics]
		enabled = false

		[model_providers.mock]
		name = "mock"
		base_url = "$MOCK_URL/v1"
		env_key = "MOCK_API_KEY"
		wire_api = "responses"

		EOF
		[ $# -gt 0 ] && cat "$@"
	} > "$HOME/.codex/config.toml"
}

# codex exec PROMPT ARGS... in $P, at most LIMIT seconds (default 120);
# sets RC, output in $T/codex.out.
codex_exec() {
	local prompt="$1"; shift
	(cd "$P" && client_env timeout -k 5 "${LIMIT:-120}" \
	    codex exec --skip-git-repo-check "$@" "$prompt" \
	    < /dev/null > "$T/codex.out" 2> "$T/codex.err")
	RC=$?
	[ "$RC" -eq 0 ] || sed 's/^/# codex: /' "$T/codex.err" | tail -20
}

# codex exec PROMPT ARGS... in $P in the background; sets CXPID.
codex_bg() {
	local prompt="$1"; shift
	(cd "$P" && client_exec codex exec --skip-git-repo-check "$@" "$prompt" \
	    < /dev/null > "$T/codex.out" 2> "$T/codex.err") &
	CXPID=$!
}

# Gemini CLI's user settings: the mock's API key as the way to sign in
# (GOOGLE_GEMINI_BASE_URL in client_exec points it at the mock), no usage
# statistics, telemetry or updates, then the setups given (files of
# tests/agents/setup/, merged in order); $P is a trusted folder (Gemini CLI
# refuses to run headless in one that is not).
gemini_config() {
	mkdir -p "$HOME/.gemini"
	jq -n '[inputs] | reduce .[] as $s ({
	    security: {auth: {selectedType: "gemini-api-key"}},
	    privacy: {usageStatisticsEnabled: false},
	    telemetry: {enabled: false},
	    general: {enableAutoUpdate: false,
	        enableAutoUpdateNotification: false}}; . * $s)' \
	    "$@" < /dev/null > "$HOME/.gemini/settings.json"
	jq -n --arg p "$P" '{($p): "TRUST_FOLDER"}' \
	    > "$HOME/.gemini/trustedFolders.json"
	rm -rf "$HOME/.gemini/policies"
}

# A Gemini CLI policy file (tests/agents/setup/gemini-policy.toml) as the
# user's: ~/.gemini/policies/bwgate.toml (gemini_config removes it).
gemini_policy() {
	mkdir -p "$HOME/.gemini/policies"
	cp "$1" "$HOME/.gemini/policies/bwgate.toml"
}

# gemini -p PROMPT ARGS... in $P, at most LIMIT seconds (default 120);
# sets RC, output (--output-format json) in $T/gemini.json.
gemini_p() {
	local prompt="$1"; shift
	(cd "$P" && client_env timeout -k 5 "${LIMIT:-120}" \
	    gemini -p "$prompt" --output-format json "$@" \
	    < /dev/null > "$T/gemini.json" 2> "$T/gemini.err")
	RC=$?
	[ "$RC" -eq 0 ] || sed 's/^/# gemini: /' "$T/gemini.err" | tail -20
}

# Gemini CLI's answer: a field of $T/gemini.json.
gemini_out() {
	jq -r "$1" "$T/gemini.json" 2>/dev/null
}

# The state of the console's request whose command contains TEXT (the
# first such), or nothing.
state_of() {
	request_of "$1" | jq -r '.[0].state // empty'
}

# Is the first request whose command contains TEXT in STATE? (for wait_for)
state_is() {
	[ "$(state_of "$1")" = "$2" ]
}

# What the client sent back to the model for turn N: the text of the
# tool result (Anthropic), function call output (OpenAI) or function
# response (Gemini) in the last request that carries it.
tool_result() {
	jq -rs --arg id "toolu_$1" --arg call "call_$1" '
	    [.[] | .body // {} |
	     ((.messages // [])[] | select(.role == "user") |
	      (.content | if type == "array" then .[] else empty end) |
	      select(.type == "tool_result" and .tool_use_id == $id) |
	      (if .is_error then "[error] " else "" end) +
	      (.content | if type == "string" then .
	       else map(.text // "") | join("\n") end)),
	     ((.input // [])[] |
	      select(.type == "function_call_output" and .call_id == $call) |
	      (.output | if type == "string" then .
	       else map(.text // "") | join("\n") end)),
	     ((.contents // [])[] | (.parts // [])[] | .functionResponse // empty |
	      select(.id == $call) | .response |
	      if .error then "[error] " + (.error | tostring)
	      else .output // tostring end)
	    ] | last // ""' "$MOCK_LOG"
}

# The names of the tools the model was offered in the session's first
# request with tools, one a line (a namespace's as NAMESPACE__NAME; a
# Gemini request's function declarations by their names).
offered_tools() {
	jq -rs '[.[] | .body.tools // empty | select(length > 0)][0] // [] |
	    .[] | if .type == "namespace" then .name + "__" + .tools[].name
	    elif .functionDeclarations then .functionDeclarations[].name
	    else .name // empty end' "$MOCK_LOG"
}

# The console's requests (bwgate list --json) whose command contains TEXT.
request_of() {
	(cd "$P" && bwgate list --json) |
	    jq -c --arg t "$1" '[.[] | select(.command | contains($t))]'
}

# The audit records of the requests whose command contains TEXT.
audit_requests() {
	jq -c --arg t "$1" 'select(.record == "request" and
	    (.request.command | contains($t)))' "$AUDIT" 2>/dev/null
}
