#!/bin/bash
# discovery: clients find the project's console from the user id and the
# project alone, whatever XDG_RUNTIME_DIR their harness passes (Codex gives
# MCP servers a filtered environment): a console under $XDG_RUNTIME_DIR
# links its agent socket into the directory used without it, and removes
# the link when it ends.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"
unset BWGATE_SOCKET	# the project's own socket, as agents' consoles have

P=$(new_project)
start_console --headless || { ok_if "the console starts" false; done_testing; exit; }
sock=$(sed -n 's/^export BWGATE_SOCKET=//p' "$T/console.out")
sock=${sock//\'/}
link="/tmp/bwgate-$(id -u)/$(basename "$sock")"
ok_if "the console links its socket into /tmp/bwgate-UID" test -L "$link"
assert_eq "  leading to its socket" "$(readlink "$link")" "$sock"
listed() {	# ENV...: bwgate list in the project, with that environment
	(cd "$P/src" && env -u BWGATE_SOCKET "$@" "$BWGATE" list --json)
}
assert_eq "without XDG_RUNTIME_DIR: found" \
    "$(listed -u XDG_RUNTIME_DIR | jq -c .)" "[]"
mkdir -m 700 "$T/other-run"
assert_eq "with another XDG_RUNTIME_DIR: found" \
    "$(listed XDG_RUNTIME_DIR="$T/other-run" | jq -c .)" "[]"
stop_console
ok_unless "the link goes with the console" test -L "$link"
listed -u XDG_RUNTIME_DIR > /dev/null 2>&1
ok_unless "and nothing is found after it" test "$?" -eq 0
done_testing
