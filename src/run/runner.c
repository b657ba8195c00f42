/*
 * runner: fork and exec bwrap with a controlled set of descriptors.
 *
 * Between fork and exec only async-signal-safe calls are made. The
 * descriptors named in the argv are first moved above every target number
 * and then into place, so a source that happens to sit on a target number
 * is never clobbered.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"
#include "sandbox.h"
#include "xalloc.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

/* Report errno through the exec-error pipe and exit. */
static void __attribute__((noreturn))
child_fail(int errpipe, int err)
{
	(void)!write(errpipe, &err, sizeof err);
	_exit(125);
}

static void __attribute__((noreturn))
child_exec(const struct strv *argv, const int *fds, size_t nfds, int stdin_fd,
    int out, int err, int errpipe)
{
	int	high = SANDBOX_FD_BASE + (int)nfds + 8;
	int	moved[256];
	sigset_t all;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* bwrap and the sandbox die with us (bwrap adds its own too). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (nfds > sizeof moved / sizeof moved[0])
		child_fail(errpipe, EMFILE);
	/* Park everything above the targets first. */
	if ((errpipe = fcntl(errpipe, F_DUPFD_CLOEXEC, high)) < 0)
		_exit(125);
	stdin_fd = fcntl(stdin_fd, F_DUPFD_CLOEXEC, high);
	out = fcntl(out, F_DUPFD_CLOEXEC, high);
	err = fcntl(err, F_DUPFD_CLOEXEC, high);
	if (stdin_fd < 0 || out < 0 || err < 0)
		child_fail(errpipe, errno);
	for (size_t i = 0; i < nfds; i++) {
		moved[i] = -1;
		if (fds[i] >= 0 &&
		    (moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, high)) < 0)
			child_fail(errpipe, errno);
	}
	if (dup2(stdin_fd, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		child_fail(errpipe, errno);
	for (size_t i = 0; i < nfds; i++) {
		int target = SANDBOX_FD_BASE + (int)i;

		if (moved[i] >= 0) {
			if (dup2(moved[i], target) < 0)
				child_fail(errpipe, errno);
		} else
			close(target);
	}
	/* Everything else: close on exec (errpipe included). */
	syscall(SYS_close_range, SANDBOX_FD_BASE + (unsigned)nfds, ~0U,
	    CLOSE_RANGE_CLOEXEC);
	execv(argv->v[0], argv->v);
	child_fail(errpipe, errno);
}

int
runner_spawn(const struct strv *argv, const int *fds, size_t nfds,
    int stdin_fd, bool merge, struct runner *r, char **cause)
{
	int	outp[2], errp[2] = { -1, -1 }, ep[2], err = 0;
	ssize_t	n;

	memset(r, 0, sizeof *r);
	r->pidfd = r->out_fd = r->err_fd = -1;
	if (pipe2(outp, O_CLOEXEC) != 0 ||
	    (!merge && pipe2(errp, O_CLOEXEC) != 0) ||
	    pipe2(ep, O_CLOEXEC) != 0) {
		*cause = xasprintf("cannot create pipes: %s", strerror(errno));
		return -1;
	}
	r->pid = fork();
	if (r->pid < 0) {
		*cause = xasprintf("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (r->pid == 0)
		child_exec(argv, fds, nfds, stdin_fd, outp[1],
		    merge ? outp[1] : errp[1], ep[1]);
	close(outp[1]);
	if (!merge)
		close(errp[1]);
	close(ep[1]);
	while ((n = read(ep[0], &err, sizeof err)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (n > 0) {
		waitpid(r->pid, NULL, 0);
		close(outp[0]);
		if (!merge)
			close(errp[0]);
		*cause = xasprintf("cannot run '%s': %s", argv->v[0],
		    strerror(err));
		return -1;
	}
	r->out_fd = outp[0];
	r->err_fd = errp[0];
	fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
	if (r->err_fd >= 0)
		fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
	r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	return 0;
}

int
runner_kill_tree(const struct runner *r, uint64_t pidns, int sig)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64];
	struct stat	 st;
	int		 n = 0;

	if (pidns != 0 && (d = opendir("/proc")) != NULL) {
		while ((de = readdir(d)) != NULL) {
			pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

			if (pid <= 0 || pid == r->pid)
				continue;
			snprintf(path, sizeof path, "/proc/%d/ns/pid", pid);
			if (stat(path, &st) == 0 && st.st_ino == pidns &&
			    kill(pid, sig) == 0)
				n++;
		}
		closedir(d);
	}
	if (sig == SIGKILL && !r->reaped)
		kill(r->pid, SIGKILL);	/* --die-with-parent does the rest */
	return n;
}

int
runner_wait(struct runner *r)
{
	if (!r->reaped) {
		while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
			;
		r->reaped = 1;
	}
	return r->status;
}

void
runner_close(struct runner *r)
{
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	r->out_fd = r->err_fd = r->pidfd = -1;
}
