#!/bin/bash
# console-prestart-idle (issue 38): whenever the console was idle long
# enough to prepare a sandbox, the next read-only request runs in the
# prestarted one. Checked against the real console, exec, bwrap and
# helper, with no fixed wait for readiness (an idle moment only: a request
# that comes while the sandbox is still being made is handed to it and
# waits), in rounds after a short idle moment and back to back: each
# request but the first is prestarted (report sandbox.prestarted), and the
# execs' debug log counts one "prestarted sandbox taken" per such request.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

P=$(new_project)
cd "$P" || exit 1
echo data > f
export BWGATE_LOG="$T/exec.log"	# the console's execs log what they take
run_pre() {
	env OLDPWD=/ "$BWGATE" run --json -- "$@" > "$T/r.json" 2> /dev/null \
	    < /dev/null
	jq -r .sandbox.prestarted "$T/r.json"
}
start_console --headless --auto-allowlisted
first=$(run_pre cat f)
assert_eq "the first request has nothing predicted" "$first" null
hits=0 rounds=6
for i in $(seq 1 "$rounds"); do
	sleep 0.2	# an idle moment (not a wait for readiness)
	got=$(run_pre cat f)
	assert_eq "after an idle moment ($i): the request is prestarted" "$got" true
	[ "$got" = true ] && hits=$((hits + 1))
done
for i in $(seq 1 "$rounds"); do
	got=$(run_pre ls)
	assert_eq "back to back ($i): the request is prestarted" "$got" true
	[ "$got" = true ] && hits=$((hits + 1))
done
stop_console
assert_eq "the execs' log counts one prestarted sandbox taken per hit" \
    "$(grep -c 'prestarted sandbox taken' "$T/exec.log")" "$hits"
ok_if "no exec is left" test -z "$(project_execs)"
done_testing
