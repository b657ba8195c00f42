/*
 * runner: start bwrap with exactly the descriptors its argv names.
 *
 * The child gets stdin, two pipes for stdout/stderr and the sandbox's
 * descriptors moved to SANDBOX_FD_BASE + i; everything else is closed. An
 * exec failure comes back through a close-on-exec pipe, so "bwrap is
 * missing" is told apart from a command's own status.
 *
 *	struct runner r;
 *	if (runner_spawn(&argv, sb.fds, sb.nfds, 0, false, NULL, 0, NULL, 0,
 *	    &r, &cause) != 0) ...
 *	poll r.out_fd, r.err_fd, r.pidfd ...
 *	runner_kill_tree(&r, pidns, SIGTERM);
 *	runner_wait(&r);  r.status
 *	runner_close(&r);
 */
#ifndef BWGATE_RUNNER_H
#define BWGATE_RUNNER_H

#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

#include "strv.h"

struct runner {
	pid_t	pid;		/* bwrap */
	int	pidfd;		/* readable when bwrap exited (or -1) */
	int	out_fd;		/* command stdout (read end) */
	int	err_fd;		/* command stderr (read end) */
	int	status;		/* wait status once reaped */
	int	reaped;
};

/* merge: one pipe for stdout and stderr (err_fd is -1), order kept;
   join: cgroup files bwrap joins before it starts (spawn.h), or NULL. */
/* bwrap's options (after argv[at], bwrap, up to opts_end) as a sealed
   memory file for --args, so none of them (the --setenv of the agent's
   environment among them) shows in the process list; -1 with cause.
   runner_args_use then puts "--args NUM" in their place (NUM: the file's
   descriptor in bwrap). */
int	runner_args_memfd(const struct strv *argv, size_t at, size_t opts_end,
	    char **cause);
void	runner_args_use(struct strv *argv, size_t at, size_t opts_end,
	    int num);
/* ns: namespaces bwrap starts in (the project's pod: pod.h), or NULL. */
int	runner_spawn(const struct strv *argv, const int *fds, size_t nfds,
	    int stdin_fd, bool merge, const int *join, size_t njoin,
	    const int *ns, size_t nns, struct runner *, char **cause);
/* Signal every process in the sandbox's pid namespace (by inode); with
   SIGKILL, or before the namespace is known, bwrap's process group too.
   Never for a sandbox in the project's pid namespace (pidns 0 there: the
   engine ends it by its cgroup, engine_signal_run). */
int	runner_kill_tree(const struct runner *, uint64_t pidns, int sig);
/* Reap bwrap (blocking); returns its wait status. */
int	runner_wait(struct runner *);
void	runner_close(struct runner *);

#endif
