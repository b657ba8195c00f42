#!/bin/sh
# One door for the project (beneath.h): no object of bwgate but the door
# imports a call that opens, stats, reads a link of, watches, lists,
# removes or renames a file by name (nm -u over every object file), and
# no source but the door calls openat2. The objects that name files of
# their own are listed below, each with the calls it may import and why:
# bwgate's own directories (runtime, state, configuration), share/, the
# system (/proc, /sys, cgroups, /dev, programs on PATH), or the project's
# root directory itself as the operator named it. A call not listed for
# an object fails the test, so a new project path by string cannot slip
# in unseen. Every project file bwgate reads goes through the door:
# beneath_open_regular (no link followed, non-blocking, regular, bounded).
set -u
b=${BWGATE_BUILDDIR:-.}
s=${srcdir:-.}
. "$(dirname "$0")/lib-imports.sh"
echo "1..3"

door="libutil_a-beneath.o"
# By name, relative to a directory or to the working directory: opening,
# stating, reading links, lists, watches, canonical paths, changes.
CALLS="open open64 __open_2 __open64_2 openat openat64 __openat_2
__openat64_2 creat creat64 fopen fopen64 freopen freopen64 opendir scandir
scandir64 nftw nftw64 ftw glob glob64 stat stat64 lstat lstat64 fstatat
fstatat64 newfstatat statx __xstat __xstat64 __lxstat __lxstat64
__fxstatat __fxstatat64 statfs statvfs access faccessat euidaccess eaccess
readlink __readlink_chk readlinkat __readlinkat_chk realpath
__realpath_chk canonicalize_file_name name_to_handle_at inotify_add_watch
fanotify_mark getxattr lgetxattr listxattr chdir chroot unlinkat renameat
renameat2 mkdirat linkat symlinkat mknodat fchmodat fchownat utimensat
unlink rmdir rename mkdir link symlink truncate chmod chown lchown utime
utimes lutimes mkfifo mkfifoat mknod setxattr lsetxattr removexattr"

# object (without its archive prefix): calls it may import -- why
allowed() {
	case "$1" in
	# bwgate's own directories: runtime (sockets, links, locks, caches),
	# state (audit, history, undo store), configuration, share/.
	cmd-consoles.o) echo "opendir" ;;		# the runtime directory
	audit.o) echo "open unlink rename link" ;;	# the state directory
	client.o) echo "access lstat stat" ;;	# the runtime dir's
					# sockets and links; the working
					# directory's canonical path (which
					# project); /proc/self/fd
	console-listen.o) echo "open unlink lstat stat chmod mkfifo" ;;
					# its sockets, FIFO, lock (runtime)
	console-link.o) echo "unlink lstat readlink symlink" ;; # its link
	# Links from other machines (remote.h): the link sockets in the
	# runtime directory; /proc of the peer that linked (is it connect's
	# ssh?); the executor's own runtime directory.
	remote.o) echo "unlink stat open fopen" ;;
	cmd-executor.o) echo "lstat unlink" ;;
	cmd-connect.o) echo "stat" ;;
	history.o) echo "fopen access open" ;;	# the state directory
	allowlist-layers.o) echo "lstat stat" ;;	# configuration files;
					# a profile's writable paths, for
					# bwrap to bind (a project profile's
					# checked inside by narrow.h)
	allowlist-hosts.o) echo "open" ;;		# the user's project
					# file (configuration, O_NOFOLLOW)
	allowlist-trust.o) echo "stat" ;;		# the trust table
	config.o) echo "access stat" ;;	# share/, configuration,
					# /proc/self/exe
	danger.o|envask.o|netgroups.o) echo "stat" ;;	# their user tables
	rules.o) echo "open" ;;			# the operator's rule files;
					# the project's through the door
	secrets.o) echo "stat" ;;		# the operator's secrets.json
					# (configuration)
	jsonutil.o) echo "open" ;;		# share/ and configuration
					# tables (non-blocking, regular,
					# bounded; json_load_fd for the
					# door's)
	digestcache.o) echo "open stat" ;;	# the rule and configuration
					# files a request came from:
					# non-blocking, regular, bounded
	hook-perms.o) echo "stat" ;;		# Claude Code's managed and
					# user settings (the project's:
					# through the door)
	log.o) echo "fopen" ;;			# the --log file named
	file.o) echo "open unlink rename mkdir lstat" ;; # runtime/state
	rundir.o) echo "open mkdir lstat" ;;	# the runtime directory
	undo-store.o) echo "open opendir stat unlink rename rmdir" ;;
	undo-save.o) echo "open mkdir readlinkat statx" ;; # its store;
					# readlinkat, statx of what the
					# door opened ("" at a descriptor)
	undo-object.o) echo "open stat unlink rename linkat" ;;
	undo-commit.o) echo "open unlink rmdir" ;;
	spool.o) echo "open opendir unlink unlinkat rmdir" ;; # ended requests'
					# output (state)
	undo-pack.o|undo-plan.o|undo-apply.o) echo "open" ;;	# the undo store (state)
	bpfcache.o|gitscan-cache.o) echo "open" ;;	# caches (runtime);
					# /proc/self/exe
	gitwatch-client.o) echo "openat opendir lstat open" ;; # runtime;
					# /proc/sys
	pod.o) echo "open unlink stat" ;;	# its socket, lock (runtime)
					# and pods directory (state); our
					# own /proc/self/ns/user
	bwgate_pod-pod-main.o) echo "chdir chmod fstatat mkdirat open \
	    openat unlinkat readlink" ;;	# the pod's /tmp (state, by
					# descriptor, no link followed),
					# its socket (runtime), /proc/PID,
					# /proc/self/exe (its init)
	gitwatch-daemon.o) echo "open unlink lstat stat inotify_add_watch" ;;
					# its socket and file (runtime);
					# watches /proc/self/fd/N of what
					# the door opened; the root itself
	sha256.o) echo "open" ;;		# sha256_file: no project file
					# (the unit tests)
	# The system: /proc, /sys, cgroups, /dev, programs on PATH.
	cmd-doctor.o) echo "access fopen readlink mkdir" ;; # /proc, /sys,
					# /dev/net/tun; its empty probe
					# project in the runtime directory
	cmd-run.o) echo "stat" ;;		# /dev/null
	console-lifecycle.o) echo "readlink stat unlink" ;; # /proc/self/exe;
					# the root itself; its session
					# rules (runtime)
	console-request.o) echo "access stat" ;;	# /bin/bash; a
					# request's working directory,
					# canonical (a directory, whether
					# it exists)
	limiter.o) echo "fopen open opendir rmdir mkdir stat" ;; # cgroups
	runner.o|proctree.o) echo "open opendir stat readlink" ;; # /proc
	engine-service.o) echo "fopen opendir readlink stat" ;; # a
					# service's /proc/PID/{stat,fd,net,
					# exe}; bwgate's helper program
	monitor.o|netproxy-conn.o) echo "fopen" ;;	# /proc/sys; the
					# test's hosts file
	netproxy.o|netstack.o|observe-flight.o) echo "open" ;; # /dev/null,
					# /proc/PID/ns, /proc/PID/mem
	observe-call.o) echo "open stat" ;;	# /proc/PID/root, /proc/PID/ns
	observe-listener.o) echo "opendir openat fstatat readlinkat stat" ;;
					# /proc: a port's listener, by its
					# socket in /proc/N/fd (report
					# project_services)
	netbackend.o|libexec.o) echo "access readlink" ;; # programs:
					# /proc/self/exe, PATH
	spawn.o) echo "access open" ;;		# PATH, /dev/null
	probe.o) echo "access lstat open stat" ;; # /proc, system files,
					# bwrap
	sandbox-proc.o) echo "stat" ;;		# /proc, /sys to mask
	sandbox-reach.o) echo "stat" ;; # the directories bwrap
					# binds, as bwrap resolves them
					# (search permission, no read)
	sandbox.o) echo "lstat open readlink stat" ;; # system
					# directories, /etc/resolv.conf, the
					# helper; the root and working
					# directory as named; bind sources
					# opened O_PATH | O_NOFOLLOW
	sandbox-user.o) echo "access open openat fstatat opendir unlink rename lstat stat" ;;
					# the user's home (which secrets
					# to hide), its cache (runtime),
					# /proc/sys, setpriv; the root's
					# owner
	path.o) echo "access lstat realpath stat" ;; # canonical paths and
					# PATH, before the project is known
	hook-path.o) echo "readlink realpath" ;;	# where Claude Code
					# would write, resolved as the
					# kernel will (nothing opened)
	engine-prestart.o) echo "stat" ;;	# the root itself
	# Inside the sandbox: the helper and its file writes see only the
	# sandbox's view (bwrap); its "." is the project's root there.
	bwgate-helper.o) echo "access stat opendir" ;;	# PATH,
					# /proc/self/ns, /proc/self/fd
	helper-write.o) echo "open" ;;
	gitwatch-main.o) echo "chdir open" ;;	# "/" and /dev/null
	# Not yet through the door (issue 25, left for the helpers changing
	# them): the recorder's observer, the live monitor. Each opens one
	# name at a time below a descriptor, or looks without following a
	# link.
	observe-judge.o) echo "fopen open fstatat readlinkat readlink lstat stat" ;;
					# and /proc/PID/{maps,mem,fd}
	monitor-watch.o) echo "open fstatat opendir inotify_add_watch" ;;
	# The observer deciding (issue 36): it looks inside the sandbox's
	# root (/proc/PID/root), one name at a time without following a
	# link; the delegate makes the judged calls inside the sandbox, on
	# names resolved with RESOLVE_NO_SYMLINKS, under the sandbox's mounts.
	observe-act.o) echo "fstatat openat open fopen" ;;	# and
					# /proc/PID/{fd,status}
	helper-act.o) echo "chmod linkat mkdirat mknodat symlinkat unlinkat open chdir" ;;
					# /proc/self/fd/N of what it
					# opened, /dev/null, "/"
	observe-setid.o) echo "readlink" ;;	# /proc/PID/fd/N, for the report
	*) echo "" ;;
	esac
}

bad=0
imports_scan "$door" "go through the door (beneath.h)" "$b/src" || bad=1
if [ "$N" -lt 50 ]; then
	echo "not ok 1 - only $N objects found under $b/src"
	exit 1
fi
[ "$bad" = 0 ] && echo "ok 1 - no object but the door opens, stats, walks or removes by name ($N objects)" ||
    echo "not ok 1 - an object opens, stats, walks or removes by name outside the door"

# openat2 is reached through syscall(): look at the sources. Besides the
# door: the observer, which resolves inside a sandbox's root
# (/proc/PID/root), not the project's, and the delegate, which resolves inside the sandbox (helper-act.c); the
# observer's judgement of a nested sandbox's call and of openat2's resolve
# flags (observe-act.c) resolves from the caller's root or its own
# directory (/proc/PID/root, /proc/PID/cwd, /proc/PID/fd/N), O_PATH.
others=$(grep -l 'SYS_openat2\|__NR_openat2' "$s"/src/*/*.c |
    grep -v -e 'src/util/beneath.c$' \
    -e 'src/run/observe-call.c$' -e 'src/run/observe-judge.c$' \
    -e 'src/run/observe-act.c$' -e 'src/sandbox/helper-act.c$')
if [ -z "$others" ]; then
	echo "ok 2 - openat2 only in the door (and the observer's resolver)"
else
	echo "not ok 2 - openat2 outside the door: $others"
	bad=1
fi

# The door itself does import them (the check sees what it should).
if nm -u "$(find "$b/src" -name "$door")" | grep -qw unlinkat; then
	echo "ok 3 - the door imports unlinkat (the check is not blind)"
else
	echo "not ok 3 - the door imports no unlinkat: is nm working?"
	bad=1
fi
[ "$bad" = 0 ]
