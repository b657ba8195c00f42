#!/bin/sh
# One way to start a program (spawn.h): no object of bwgate but spawn.c
# imports fork, exec or their wrappers (nm -u over every object file, the
# terminal UI's too). The exceptions, listed with why: bwgate-helper, which
# runs inside the sandbox and replaces itself with the command once its
# filter is in place, and forks the observer's delegate before that.
set -u
b=${BWGATE_BUILDDIR:-.}
. "$(dirname "$0")/lib-imports.sh"
echo "1..2"

spawner="libutil_a-spawn.o"
CALLS="fork vfork _Fork clone clone3 execv execve execvp execvpe execl
execlp execle fexecve execveat posix_spawn posix_spawnp system popen"

allowed() {
	case "$1" in
	bwgate-helper.o) echo "execv execvp" ;;	# becomes the command
	helper-act.o) echo "fork" ;;		# the observer's delegate: a
					# copy of the helper made before
					# the filter, no program started
					# (clone with CLONE_PARENT through
					# syscall(), which nm cannot see;
					# fork when the helper is an init)
	*) echo "" ;;
	esac
}

bad=0
imports_scan "$spawner" "start programs through spawn.h" "$b/src" "$b/ui" ||
    bad=1
if [ "$N" -lt 50 ]; then
	echo "not ok 1 - only $N objects found under $b/src"
	exit 1
fi
[ "$bad" = 0 ] && echo "ok 1 - no object but spawn.c forks or execs ($N objects)" ||
    echo "not ok 1 - an object forks or execs outside spawn.c"

# The spawner itself does import them (the check sees what it should).
if nm -u "$(find "$b/src" -name "$spawner")" | grep -qw fork; then
	echo "ok 2 - spawn.c imports fork (the check is not blind)"
else
	echo "not ok 2 - spawn.c imports no fork: is nm working?"
	bad=1
fi
[ "$bad" = 0 ]
