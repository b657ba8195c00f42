# console-lib.sh: helpers for the console tests (source after libtest.sh).
#
#	start_console [OPTIONS...]	console in $P; sets CPID, S, CTL
#	stop_console			SIGTERM and wait; sets CRC
#	audit_valid			every audit line is JSON
#	fd_count PID, zombies PID	for leak checks
#	waiting_for_policy PID		a warm exec of the console, idle

PEER="$BWGATE_BUILDDIR/tests/integration/console-peer"
AUDIT="$XDG_STATE_HOME/bwgate/audit.jsonl"
S="$XDG_RUNTIME_DIR/bwgate/agent.sock"
# A fixed socket for every console and client of the test (the default is
# one per project: project-socket.sh tests that).
export BWGATE_SOCKET="$S"
mkdir -p -m 0700 "$XDG_RUNTIME_DIR/bwgate"
CTL="$XDG_RUNTIME_DIR/bwgate/control.sock"
CPID=

# Test rules: a long-running allowed command, a writer, a deny rule.
mkdir -p "$XDG_CONFIG_HOME/bwgate"
cat > "$XDG_CONFIG_HOME/bwgate/allowlist.json" <<'JSON'
{"version":1,"rules":[
 {"id":"sleep","command":["sleep"],"verdict":"allow","profile":"readonly","reason":"waits"},
 {"id":"touch","command":["touch"],"verdict":"allow","profile":"project","reason":"test writer"},
 {"id":"no-rm","command":["rm"],"verdict":"deny","reason":"never delete in tests"}
]}
JSON

start_console() {
	rm -f "$T/console.out"
	# Ids go on from a project's last console (console-history.sh):
	# each console of these tests counts from 1.
	rm -rf "$XDG_STATE_HOME/bwgate/ids"
	(cd "$P" && exec "$BWGATE" --log "$T/console.log" "$@" \
	    > "$T/console.out" 2> "$T/console.err") &
	CPID=$!
	# The export line comes once the sockets listen.
	if ! wait_for 10 grep -q '^export BWGATE_SOCKET=' "$T/console.out"; then
		echo "# console did not start:"; sed 's/^/# /' "$T/console.err"
		return 1
	fi
	CLEANUP_EXTRA="kill -KILL $CPID 2>/dev/null"
	TEARDOWN="kill -TERM $CPID 2>/dev/null; wait $CPID 2>/dev/null"
}

stop_console() {
	kill -TERM "$CPID" 2>/dev/null
	wait "$CPID"
	CRC=$?
}

# The `bwgate exec --policy-fd` processes working in the project: this
# console's (other tests' consoles may run beside it). The pattern's
# brackets keep pgrep from finding a script's own line.
project_execs() {
	local p
	for p in $(pgrep -f -- '[ ]exec --policy-fd '); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$P" ] && echo "$p"
	done
}

audit_valid() {
	[ -s "$AUDIT" ] && jq -e . "$AUDIT" > /dev/null
}

fd_count() {
	ls "/proc/$1/fd" | wc -l
}

# Is $1 a warm exec still waiting for its policy? Its descriptor 5 is then
# the pipe the console writes the policy into (exec closes it once it has
# read the policy, and the number goes to whatever it opens next).
waiting_for_policy() {
	local l
	l=$(readlink "/proc/$1/fd/5" 2>/dev/null) || return 1
	case $l in pipe:*) ;; *) return 1 ;; esac
	[ -n "$CPID" ] && ls -l "/proc/$CPID/fd" 2>/dev/null | grep -qF -- "$l"
}

# Does the console hold at most $1 descriptors now? (for wait_for)
fds_at_most() {
	test "$(fd_count "$CPID")" -le "$1"
}

# Zombie children of a process.
zombies() {
	ps -o stat= --ppid "$1" | grep -c '^Z' || true
}

# The audit records of a request: audit_of ID RECORD -> JSON lines.
audit_of() {
	jq -c "select(.id == $1 and .record == \"$2\")" "$AUDIT"
}
