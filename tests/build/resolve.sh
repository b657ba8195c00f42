#!/bin/sh
# resolve: one way to resolve a path inside the project, the door
# (src/util/beneath.c: openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or
# one name at a time). The others are named here, each with why, and a
# new one fails this test (sources, comments left aside roughly: a call
# is a name followed by "("). TAP.
#
#   realpath(3)   src/util/path.c: canonical paths outside the project
#                 (bwgate's own files, the system's, what bwrap binds)
#                 and finding which directory is the project;
#                 src/cli/hook-path.c: the hook's resolver, which must
#                 reach the file Claude Code's write reaches (links
#                 followed, as the kernel does).
#   openat2(2)    src/util/beneath.c: the door; the observer
#                 (src/run/observe-{call,act,judge}.c), which resolves
#                 in the traced process's root (/proc/PID/root), not the
#                 project's; the delegate (src/sandbox/helper-act.c),
#                 which makes the judged calls inside the sandbox.
#   pathwalk_*    src/util/pathwalk.c, for the observer only (a traced
#                 process's paths, lexically, links read through it).
src="${BWGATE_SRCDIR:-$(dirname "$0")/../..}"
echo "1..4"

# Source files under src/ and ui/ matching pattern, minus the allowed.
outside() {
	pat=$1
	shift
	grep -rlE --include='*.c' --include='*.h' "$pat" "$src/src" "$src/ui" |
	    sed "s|^$src/||" | while read -r f; do
		ok=0
		for a in "$@"; do
			case "$f" in $a) ok=1 ;; esac
		done
		[ "$ok" = 0 ] && echo "$f"
	done
}

n=$(grep -rlE --include='*.c' 'realpath[[:space:]]*\([^3)]|SYS_openat2|__NR_openat2|pathwalk_[a-z]+[[:space:]]*\(' \
    "$src/src" "$src/ui" | wc -l)
if [ "$n" -ge 5 ]; then
	echo "ok 1 - the resolvers are seen ($n files)"
else
	echo "not ok 1 - only $n files call a resolver: is the source tree at $src?"
	exit 1
fi

bad=0
o=$(outside 'realpath[[:space:]]*\([^3)]' src/util/path.c src/cli/hook-path.c)
if [ -z "$o" ]; then
	echo "ok 2 - realpath only in path.c and the hook's resolver"
else
	echo "not ok 2 - realpath elsewhere (use path.h, or the door inside the project): $o"
	bad=1
fi
o=$(outside 'SYS_openat2|__NR_openat2' src/util/beneath.c \
    'src/run/observe-*.c' src/sandbox/helper-act.c)
if [ -z "$o" ]; then
	echo "ok 3 - openat2 only in the door, the observer and the delegate"
else
	echo "not ok 3 - openat2 elsewhere (use beneath.h): $o"
	bad=1
fi
o=$(outside 'pathwalk_[a-z]+[[:space:]]*\(' 'src/util/pathwalk.[ch]' \
    'src/run/observe*.c' 'src/run/observe*.h')
if [ -z "$o" ]; then
	echo "ok 4 - pathwalk only for the observer"
else
	echo "not ok 4 - pathwalk outside the observer (use beneath.h): $o"
	bad=1
fi
[ "$bad" = 0 ]
