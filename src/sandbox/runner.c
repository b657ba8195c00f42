/*
 * runner: start bwrap (through spawn) with a controlled set of
 * descriptors, and stop the sandbox around it.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "runner.h"
#include "sandbox.h"
#include "spawn.h"
#include "xalloc.h"

int
runner_args_memfd(const struct strv *argv, size_t at, size_t opts_end,
    char **cause)
{
	struct buf	b = BUF_INIT;
	int		fd, e, rc;

	fd = memfd_create("bwrap-args", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		*cause = xasprintf("cannot create bwrap's argument file: %s",
		    strerror(errno));
		return -1;
	}
	/* One write (a call per argument was a hundred calls). */
	for (size_t i = at + 1; i < opts_end && i < argv->n; i++)
		buf_add(&b, argv->v[i], strlen(argv->v[i]) + 1);
	rc = b.len > 0 ? write_full(fd, b.data, b.len) : 0;
	buf_release(&b);
	if (rc != 0)
		goto fail;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	*cause = xasprintf("cannot write bwrap's argument file: %s",
	    strerror(e));
	return -1;
}

void
runner_args_use(struct strv *argv, size_t at, size_t opts_end, int num)
{
	struct strv	out = STRV_INIT;

	for (size_t i = 0; i <= at && i < argv->n; i++)
		strv_push(&out, argv->v[i]);
	strv_push(&out, "--args");
	strv_push_owned(&out, xasprintf("%d", num));
	for (size_t i = opts_end; i < argv->n; i++)
		strv_push(&out, argv->v[i]);
	strv_release(argv);
	*argv = out;
}

/* Start bwrap with its descriptors in place. */
int
runner_spawn(const struct strv *argv, const int *fds, size_t nfds,
    int stdin_fd, bool merge, const int *join, size_t njoin,
    const int *ns, size_t nns, struct runner *r, char **cause)
{
	struct spawn	 sp = SPAWN_INIT;
	int		 outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int		*map;
	size_t		 nmap = SANDBOX_FD_BASE + nfds;

	memset(r, 0, sizeof *r);
	r->pidfd = r->out_fd = r->err_fd = -1;
	/* merge: the command's stdout and stderr are one pipe (order kept). */
	if (pipe2(outp, O_CLOEXEC) != 0 ||
	    (!merge && pipe2(errp, O_CLOEXEC) != 0)) {
		*cause = xasprintf("cannot create pipes: %s", strerror(errno));
		goto fail;
	}
	map = xcalloc(nmap, sizeof *map);
	map[0] = stdin_fd;
	map[1] = outp[1];
	map[2] = merge ? outp[1] : errp[1];
	for (size_t i = 0; i < nfds; i++)
		map[SANDBOX_FD_BASE + i] = fds[i] >= 0 ? fds[i] : SPAWN_CLOSED;
	sp.argv = argv->v;
	sp.fds = map;
	sp.nfds = nmap;
	/* Its own group: bwrap's children before --new-session takes them
	   out can be reached as one (runner_kill_tree). */
	sp.flags = SPAWN_PGROUP;
	sp.deathsig = SIGKILL;	/* bwrap adds its own too */
	sp.join = join;
	sp.njoin = njoin;
	sp.setns = ns;
	sp.nsetns = nns;
	if (spawn_start(&sp, cause) != 0) {
		free(map);
		goto fail;
	}
	free(map);
	close(outp[1]);
	if (!merge)
		close(errp[1]);
	r->pid = sp.pid;
	r->pidfd = sp.pidfd;
	r->out_fd = outp[0];
	r->err_fd = errp[0];
	fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
	if (r->err_fd >= 0)
		fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
	return 0;

fail:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return -1;
}

/* Signal the sandbox: its pid namespace, and bwrap's process group. */
int
runner_kill_tree(const struct runner *r, uint64_t pidns, int sig)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64];
	struct stat	 st;
	int		 n = 0;

	if (r->pid <= 0)
		return 0;	/* not started */
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
	/* bwrap's group: bwrap and its children still setting up the
	   sandbox (before the pid namespace is known, or to end it all). A
	   SIGTERM otherwise goes to the namespace only: bwrap dying first
	   would cut the command's grace period short. */
	if ((pidns == 0 || sig == SIGKILL) && kill(-r->pid, sig) == 0)
		n++;
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
