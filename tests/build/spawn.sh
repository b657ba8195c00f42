#!/bin/sh
# One way to start a program (spawn.h): no object of bwgate but spawn.c
# imports fork, exec or their wrappers (nm -u over every object file, the
# terminal UI's too). The exception, listed with why: bwgate-helper, which
# runs inside the sandbox and replaces itself with the command once its
# filter is in place.
set -u
b=${BWGATE_BUILDDIR:-.}
echo "1..2"

spawner="libutil_a-spawn.o"
calls="fork vfork _Fork clone clone3 execv execve execvp execvpe execl
execlp execle fexecve execveat posix_spawn posix_spawnp system popen"

allowed() {
	case "$1" in
	bwgate-helper.o) echo "execv execvp" ;;	# becomes the command
	*) echo "" ;;
	esac
}

bad=0
n=0
for o in $(find "$b/src" "$b/ui" -name '*.o' | sort); do
	base=$(basename "$o")
	short=${base#*_a-}
	short=${short#bwgate-}
	short=${short#bwgate_helper-}
	short=${short#tests_fuzz_fuzz_*-}
	[ "$base" = "$spawner" ] && continue
	n=$((n + 1))
	ok=$(allowed "$short")
	for c in $(nm -u "$o" | awk '{ print $2 }' | sed 's/@.*//' | sort -u); do
		for f in $calls; do
			[ "$c" = "$f" ] || continue
			case " $ok " in
			*" $c "*) ;;
			*) echo "# $short imports $c: start programs through spawn.h"
			   bad=1 ;;
			esac
		done
	done
done
if [ "$n" -lt 50 ]; then
	echo "not ok 1 - only $n objects found under $b/src"
	exit 1
fi
[ "$bad" = 0 ] && echo "ok 1 - no object but spawn.c forks or execs ($n objects)" ||
    echo "not ok 1 - an object forks or execs outside spawn.c"

# The spawner itself does import them (the check sees what it should).
if nm -u "$(find "$b/src" -name "$spawner")" | grep -qw fork; then
	echo "ok 2 - spawn.c imports fork (the check is not blind)"
else
	echo "not ok 2 - spawn.c imports no fork: is nm working?"
	bad=1
fi
[ "$bad" = 0 ]
