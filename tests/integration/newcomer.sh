#!/bin/bash
# newcomer: bwgate finds its shipped data from the build tree and from an
# install under any prefix, with no BWGATE_DATADIR; the demo ./quickstart
# runs ends with the lines that start the daily workflow.
. "$(dirname "$0")/libtest.sh"

P=$(new_project)
cd "$P"
out=$(env -u BWGATE_DATADIR "$BWGATE" check -- ls 2>&1); rc=$?
assert_eq "from the build tree: check works" "$rc" 0
assert_match "with the source tree's rules" "$out" \
    "rule: .*share/bwgate/allowlist.json:ls"

# `make install prefix=DIR` lays out DIR/bin, DIR/libexec/bwgate and
# DIR/share/bwgate.
mkdir -p "$T/inst/bin" "$T/inst/share" "$T/inst/libexec/bwgate"
cp "$BWGATE" "$T/inst/bin/bwgate"
cp "$(dirname "$BWGATE")/bwgate-helper" "$T/inst/libexec/bwgate/"
ln -s bwgate "$T/inst/bin/bwgate-sh"
cp -r "$BWGATE_SRCDIR/share/bwgate" "$T/inst/share/"
out=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate" check -- ls 2>&1); rc=$?
assert_eq "installed under another prefix: check works" "$rc" 0
assert_match "with the data beside it" "$out" \
    "rule: +$(realpath "$T")/inst/share/bwgate/allowlist.json:ls"
err=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate-sh" -c 2>&1); rc=$?
assert_eq "bwgate-sh is installed beside it" "$rc:$(head -1 <<< "$err")" \
    "2:bwgate-sh: -c: option requires an argument"
# The observer's helper is found there too: changes come from recorded
# system calls where the kernel notifies them, not from a scan.
method=$(env -u BWGATE_DATADIR "$T/inst/bin/bwgate" exec --json --project "$P" \
    -- touch installed.txt 2>/dev/null | jq -r .changes_method)
if [ "$(cd "$P" && "$BWGATE" exec --json -- touch built.txt 2>/dev/null |
    jq -r .changes_method)" = syscalls ]; then
	assert_eq "installed: the observer's helper is found" "$method" syscalls
else
	skip "installed: the observer's helper is found" \
	    "no seccomp notification here (the build tree scans too)"
fi

# The demo without a terminal (./quickstart in CI or a pipe): each command
# through the sandbox, then what to do next. Its throwaway project is made
# under $T and removed.
out=$(TMPDIR="$T" "$BWGATE_SRCDIR/share/bwgate/demo.sh" "$BWGATE" \
    < /dev/null 2>&1); rc=$?
assert_eq "demo: exits 0" "$rc" 0
assert_match "demo: the write to /etc is refused" "$out" \
    "refused write '/etc/motd' \(read-only\)"
assert_match "demo: the hook is refused" "$out" \
    "refused create '.*/\.git/hooks/pre-commit' \(protected\)"
last=$(printf '%s\n' "$out" | tail -n 8)
assert_match "demo: it ends saying what is next" "$last" \
    "^Next: supervise an agent in your own project"
assert_match "demo: the console, started in the project" "$last" \
    "cd ~/myproject && bwgate +#"
assert_match "demo: in a tmux pane" "$last" \
    "cd ~/myproject && bwgate --tmux"
assert_match "demo: headless" "$last" \
    "bwgate --headless --auto-allowlisted"
assert_match "demo: the one setting per agent, README's section named" \
    "$last" "one setting \(README, \"The daily workflow\"\)"
ok_if "README has that section" grep -qx "The daily workflow" \
    "$BWGATE_SRCDIR/README"
assert_match "demo: Claude Code's setting" "$last" \
    "claude mcp add bwgate -- bwgate mcp"
assert_match "demo: any other harness" "$last" "SHELL=bwgate-sh"
# bwgate not on PATH: install it first (the build tree's make install).
if PATH=/usr/bin:/bin command -v bwgate > /dev/null; then
	skip "demo: not installed: says how to install" \
	    "bwgate is installed in /usr/bin or /bin here"
else
	out=$(PATH=/usr/bin:/bin TMPDIR="$T" \
	    "$BWGATE_SRCDIR/share/bwgate/demo.sh" "$BWGATE" < /dev/null 2>&1)
	assert_match "demo: not installed: says how to install" \
	    "$(printf '%s\n' "$out" | tail -n 8)" \
	    "make -C ${BWGATE%/*} install +# first"
fi
ok_unless "demo: its throwaway project is gone" \
    sh -c 'ls -d "$1"/bwgate-demo.* 2>/dev/null | grep -q .' _ "$T"
done_testing
