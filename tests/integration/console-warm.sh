#!/bin/bash
# console-warm: the console keeps one `bwgate exec` started ahead of need;
# the next request runs in it (its pid is the one in the start record),
# another is started after; stdin streams into it (and without input the
# command reads /dev/null); a warm exec killed from outside is replaced after the next run; with
# console.warm_exec false there is none; nothing is left at the end.
# (Stdin is /dev/null where a request must not stream it: a pipe or a file
# as stdin makes `bwgate run` stream it, and such a request starts cold.)
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P"

# The console's idle warm exec: its child still waiting for a policy.
warm_pid() {
	local p
	for p in $(pgrep -P "$CPID"); do
		waiting_for_policy "$p" && grep -q 'exec' "/proc/$p/cmdline" &&
		    { echo "$p"; return 0; }
	done
	return 1
}
start_pid() {
	jq -r "select(.record == \"start\" and .id == $1) | .pid" "$AUDIT"
}

start_console --headless --auto-allowlisted
ok_if "a warm exec waits after the start" wait_for 10 warm_pid
w1=$(warm_pid)
out=$("$BWGATE" run -- echo warm 2>/dev/null < /dev/null)
assert_eq "a request runs" "$out" warm
assert_eq "  in the warm exec" "$(start_pid 1)" "$w1"
another_warm() { local w; w=$(warm_pid) && [ "$w" != "$w1" ]; }
ok_if "another one waits after it" wait_for 10 another_warm
w2=$(warm_pid)

# stdin streams into the warm exec's stdin pipe.
out=$(printf 'in\n' | "$BWGATE" run -- cat 2>/dev/null)
assert_eq "a request with stdin runs" "$out" in
assert_eq "  in the warm exec" "$(start_pid 2)" "$w2"
ok_if "  and another waits" wait_for 10 sh -c \
    "p=\$(pgrep -P $CPID | head -1); [ -n \"\$p\" ] && [ \"\$p\" != $w2 ]"
# Without input, the command's stdin is /dev/null, as in a cold start.
out=$("$BWGATE" run -- stat -L -c %F /dev/stdin 2>/dev/null < /dev/null)
assert_eq "without input the command reads /dev/null" "$out" \
    "character special file"
w2=$(warm_pid)

# Killed from outside: the console goes on, the next run starts cold,
# and then there is a warm one again.
kill -KILL "$w2"
ok_if "a killed warm exec is reaped" wait_for 10 sh -c \
    "! ps -o stat= -p $w2 | grep -q ."
out=$("$BWGATE" run -- echo after 2>/dev/null < /dev/null)
assert_eq "the next request runs" "$out" after
ok_if "then a warm exec waits again" wait_for 10 warm_pid
stop_console
assert_eq "clean exit" "$CRC" 0
no_exec_left() { [ -z "$(project_execs)" ]; }
ok_if "the warm exec went with the console" wait_for 10 no_exec_left

# Killed from outside halfway through making its sandbox: bwrap dies by
# its parent-death signal, and what it had started but not yet bound to
# its own life (bwrap's sandbox waits on an eventfd for bwrap before it
# sets its parent-death signal) is left to init, forever. That window is
# too short to hit on purpose; a bwrap that leaves a child of its own
# behind stands in for it. The console kills what is left in the exec's
# session when it reaps the killed exec.
# The stand-in's child outlives it unless it ends well.
printf '#!/bin/sh\ncase "$*" in *helper*) sleep 1234.5 & s=$! ;; esac\n%s "$@"\nrc=$?\n[ -n "${s:-}" ] && kill "$s"\nexit $rc\n' \
    "$(command -v bwrap)" > "$T/bwrap-orphan"
chmod +x "$T/bwrap-orphan"
proc_ppid() { ps -o ppid= -p "$1" | tr -d ' '; }
# The warm exec, once the sandbox it prestarted has that child.
armed_pid() {
	local w s
	w=$(warm_pid) || return 1
	for s in $(pgrep -f 'sleep 1234[.]5'); do
		[ "$(proc_ppid "$(proc_ppid "$s")")" = "$w" ] &&
		    { echo "$w"; return 0; }
	done
	return 1
}
BWGATE_BWRAP="$T/bwrap-orphan" start_console --headless --auto-allowlisted
"$BWGATE" run -- true < /dev/null
ok_if "a warm exec whose bwrap has a child of its own" wait_for 10 armed_pid
w3=$(armed_pid)
kill -KILL "$w3"
ok_if "killed, nothing of its sandbox is left" wait_for 10 sh -c \
    "! pgrep -f 'sleep 1234[.]5' > /dev/null"
out=$("$BWGATE" run -- echo after 2>/dev/null < /dev/null)
assert_eq "the next request runs" "$out" after
stop_console
pkill -KILL -f 'sleep 1234[.]5'

# Off: no warm exec.
echo '{"console": {"warm_exec": false}}' > "$XDG_CONFIG_HOME/bwgate/config.json"
start_console --headless --auto-allowlisted
"$BWGATE" run -- true < /dev/null
ok_unless "console.warm_exec false: none" warm_pid
stop_console
rm "$XDG_CONFIG_HOME/bwgate/config.json"
done_testing
