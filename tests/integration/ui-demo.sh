#!/bin/bash
# ui-demo: ./quickstart on a terminal runs the console with a demo agent;
# once the operator quits, the last lines say how the daily workflow
# starts (newcomer.sh checks them without a terminal).
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/ui-lib.sh"

# The demo picks its own socket and throwaway project (under $T).
{
	echo '#!/bin/sh'
	printf 'TMPDIR=%s; export TMPDIR\n' "$(shell_q "$T")"
	printf '%s %s 2> %s\n' "$(shell_q "$BWGATE_SRCDIR/share/bwgate/demo.sh")" \
	    "$(shell_q "$BWGATE")" "$(shell_q "$T/demo.err")"
	printf 'echo $? > %s\n' "$(shell_q "$T/demo.rc")"
	echo 'exec sleep 3600'
} > "$T/demo.sh"
chmod +x "$T/demo.sh"
tm new-session -d -s ui -x 100 -y 30 "$T/demo.sh"
check_screen "the demo's console is up" 15 'queue '
# The demo agent's first command (ls -la) is allowlisted and runs; a
# later one waits for the operator.
check_screen "the demo agent's requests arrive" 15 '^! +[0-9]+ '
keys q
check_screen "q asks first" 5 'pending will be denied'
keys y
ok_if "the demo ends" wait_for 30 test -s "$T/demo.rc"
assert_eq "the demo exits 0" "$(cat "$T/demo.rc" 2>/dev/null)" 0
check_screen "then says what is next" 5 \
    '^Next: supervise an agent in your own project'
check_screen "the console, the tmux pane, headless" 5 \
    'bwgate --headless --auto-allowlisted'
check_screen "and the one setting per agent" 5 \
    '^Then give each agent its one setting \(README, "The daily workflow"\)'
done_testing
