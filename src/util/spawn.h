/*
 * spawn: the one way bwgate starts another program (exec from a child
 * that shares our memory until then, clone(CLONE_VM | CLONE_VFORK) as
 * posix_spawn does: no page tables copied), or a process of its own (fork
 * + a function: the live monitor); as a daemon with SPAWN_DETACH (the git
 * watcher, forked). tests/build/spawn.sh checks that no
 * other object forks or execs.
 *
 * The caller names, for each descriptor number the child should have, the
 * parent's descriptor that goes there (fds[i] becomes descriptor i; -1
 * leaves i closed). Sources are first parked above every target, so a
 * source that sits on a target number is never clobbered. Every other
 * descriptor is closed on exec (close_range, or a loop where the kernel
 * lacks it). The child starts with every signal at its default disposition
 * and an empty mask (a parent that ignores SIGPIPE must not hand that to
 * `yes | head -1`). An exec failure comes back through a close-on-exec
 * pipe, so "bwrap is missing" is told apart from a command's exit 127.
 *
 *	const int fds[] = { devnull, out, err };
 *	struct spawn sp = SPAWN_INIT;
 *	sp.argv = av.v; sp.fds = fds; sp.nfds = 3; sp.flags = SPAWN_PGROUP;
 *	if (spawn_start(&sp, &cause) != 0) ...
 *	poll sp.pidfd ...; spawn_wait(&sp); sp.status
 *	spawn_release(&sp);
 *
 * join names descriptors open on cgroup membership files (cgroup v1
 * "tasks", v2 "cgroup.procs"): the child writes "0" into each before exec,
 * so the program and all it starts are born inside. In cgroup v1 a thread
 * moving itself skips the global lock whose taking waits for an RCU grace
 * period (milliseconds, more on an idle machine); moving another process
 * does not. A failed join is a failed start.
 *
 * Between fork and exec the child makes only async-signal-safe calls.
 */
#ifndef BWGATE_SPAWN_H
#define BWGATE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct buf;

enum spawn_flag {
	SPAWN_PGROUP = (1 << 0),	/* a new process group (pgid = pid) */
	SPAWN_SETSID = (1 << 1),	/* a new session */
	SPAWN_SEARCH = (1 << 2),	/* look argv[0] up in $PATH */
	SPAWN_DETACH = (1 << 3)		/* a daemon: a new session, and the
					   program runs in a grandchild that
					   init adopts; pid is the child in
					   between, which exits at once (reap
					   it with spawn_wait) */
};

/* Special sources in fds[]. */
#define SPAWN_CLOSED	(-1)	/* leave the number closed */
#define SPAWN_DEVNULL	(-2)	/* /dev/null, read-write */

struct spawn {
	/* in */
	char *const	*argv;
	const int	*fds;
	size_t		 nfds;
	int		 flags;
	int		 deathsig;	/* sent when the parent dies; 0: none */
	const int	*join;		/* cgroup files to join, or NULL */
	size_t		 njoin;
	/* Instead of exec: run fn(fn_arg) in the child once its descriptors
	   are in place (every other one closed), and exit with what it
	   returns; argv[0] only names it in messages. For the live monitor
	   (monitor.c), a loop of bwgate's own that needs no program of its
	   own; its parent must hold no lock the child needs (no other thread
	   in the middle of malloc: the child is not limited to
	   async-signal-safe calls). */
	int		(*fn)(void *);
	void		*fn_arg;
	/* out */
	pid_t		 pid;
	int		 pidfd;		/* readable once it exited, or -1 */
	int		 status;	/* wait status once reaped */
	bool		 reaped;
	/* in: the environment (NAME=VALUE, NULL-terminated), or NULL for
	   this process's own */
	char *const	*envp;
	/* in: namespaces to enter (setns, in this order) after the cgroup
	   join and before anything else (a project's pod: pod.h) */
	const int	*setns;
	size_t		 nsetns;
};
#define SPAWN_INIT { NULL, NULL, 0, 0, 0, NULL, 0, NULL, NULL, -1, -1, 0, \
	false, NULL, NULL, 0 }

/* Start the program; 0, or -1 with *cause (nothing is left behind). */
int	spawn_start(struct spawn *, char **cause);
/* Reap the child (blocking, retried on EINTR); its wait status. */
int	spawn_wait(struct spawn *);
/* Signal the child's process group (SPAWN_PGROUP/SETSID) or the child. */
int	spawn_kill(const struct spawn *, int sig);
/* Close the pidfd (the child must have been reaped or be left to init). */
void	spawn_release(struct spawn *);

/*
 * Run a program to completion with stdin on /dev/null and the given
 * descriptor (1 or 2) captured into out (up to max bytes); the other one
 * is the caller's. Returns the wait status, or -1 with *cause.
 */
int	spawn_capture(char *const *argv, int flags, int which,
	    struct buf *out, size_t max, char **cause);

/* The full path of a program on $PATH (or a copy of a name with '/'),
   or NULL. */
char	*spawn_which(const char *name);

#endif
