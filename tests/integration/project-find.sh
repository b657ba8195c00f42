#!/bin/bash
# project-find: every command finds its project by one rule (path.h
# path_project_of): the directory's own .git, else the nearest ancestor
# whose .git is the caller's. A stray .git in an ancestor that others can
# write (a /tmp/.git), another user's, or a home directory kept in git
# never captures a directory below it; `bwgate exec` and the console
# started in the same directory agree.
. "$(dirname "$0")/libtest.sh"
. "$(dirname "$0")/console-lib.sh"

# exec_project DIR: the project `bwgate exec` took in DIR.
exec_project() {
	(cd "$1" && "$BWGATE" exec --json -- true 2> "$T/exec.err") |
	    jq -r .project
}
# console_project DIR: the project of a console started in DIR.
console_project() {
	P="$1"
	start_console --headless > /dev/null || return
	jq -r 'select(.record == "console-start") | .project' "$AUDIT" |
	    tail -n 1
	stop_console
}

# A stray .git in a directory anyone can write (as /tmp).
mkdir -p "$T/tmp/.git" "$T/tmp/proj"
echo 'ref: refs/heads/main' > "$T/tmp/.git/HEAD"
chmod 1777 "$T/tmp"
got=$(exec_project "$T/tmp/proj")
assert_eq "exec below a world-writable dir's .git: its own dir ($(tail -1 "$T/exec.err"))" \
    "$got" "$T/tmp/proj"
assert_eq "  the console started there agrees" \
    "$(console_project "$T/tmp/proj")" "$T/tmp/proj"

# A home directory kept in git (dotfiles).
mkdir -p "$T/home/.git" "$T/home/proj"
got=$(HOME="$T/home" exec_project "$T/home/proj")
assert_eq "exec below a home directory's .git: its own dir" "$got" \
    "$T/home/proj"
assert_eq "  the console agrees" \
    "$(HOME="$T/home" console_project "$T/home/proj")" "$T/home/proj"

# The caller's own repository still holds its subdirectories.
mkdir -p "$T/repo/.git" "$T/repo/src/deep"
assert_eq "exec in a subdirectory of the caller's repository: the repository" \
    "$(exec_project "$T/repo/src/deep")" "$T/repo"
assert_eq "  the console agrees" "$(console_project "$T/repo/src/deep")" \
    "$T/repo"
# A directory with its own .git is its own project, whoever made it.
mkdir -p "$T/tmp/own/.git"
assert_eq "a directory's own .git makes it the project" \
    "$(exec_project "$T/tmp/own")" "$T/tmp/own"

# Another user's .git (only root can make one).
mkdir -p "$T/other/.git" "$T/other/proj"
if chown 65534 "$T/other/.git" 2>/dev/null &&
    [ "$(stat -c %u "$T/other/.git")" = 65534 ]; then
	assert_eq "exec below another user's .git: its own dir" \
	    "$(exec_project "$T/other/proj")" "$T/other/proj"
	assert_eq "  the console agrees" \
	    "$(console_project "$T/other/proj")" "$T/other/proj"
else
	# The suite runs as root too (CI): that run covers it.
	skip "another user's .git" "only root outside a user namespace can give a file to another user"
fi
chmod 0755 "$T/tmp"
done_testing
