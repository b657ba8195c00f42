/*
 * proctree: signal a process and its descendants (see proctree.h).
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sched.h>
#include <linux/nsfs.h>

#include "proctree.h"
#include "xalloc.h"

struct proc_parent {
	pid_t	pid;
	pid_t	ppid;
};

/*
 * /proc/PID/stat after "(comm)" (which may hold anything, even ")"):
 * " state ppid pgrp session ...", in buf; NULL if pid is gone.
 */
static const char *
proc_stat_fields(pid_t pid, char *buf, size_t size)
{
	char	 path[64], *p;
	ssize_t	 n;
	int	 fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return (p = strrchr(buf, ')')) != NULL ? p + 1 : NULL;
}

/* The parent and session of pid from /proc/PID/stat; -1 if gone. */
static int
proc_stat_ids(pid_t pid, long *ppid, long *sid)
{
	char		 buf[512];
	const char	*p = proc_stat_fields(pid, buf, sizeof buf);

	return p != NULL && sscanf(p, " %*c %ld %*d %ld", ppid, sid) == 2 ?
	    0 : -1;
}

/* When pid started (clock ticks after boot, /proc/PID/stat), or 0. */
unsigned long long
proc_start_time(pid_t pid)
{
	char			 buf[1024];
	const char		*p = proc_stat_fields(pid, buf, sizeof buf);
	unsigned long long	 t;

	/* Field 22, the 20th after "(comm)". */
	if (p == NULL || sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u "
	    "%*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &t) != 1)
		return 0;
	return t;
}

bool
proc_exiting(pid_t pid)
{
	char		 buf[1024];
	const char	*p = proc_stat_fields(pid, buf, sizeof buf);
	unsigned long	 flags;

	if (p == NULL)
		return true;		/* gone already */
	/* state ppid pgrp session tty_nr tpgid flags */
	if (sscanf(p, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return (flags & 0x4) != 0;	/* PF_EXITING */
}

bool
proc_net_listener(const char *line, unsigned *port, unsigned *state,
    unsigned long *inode)
{
	/* "  0: 0100007F:1F90 00000000:0000 0A 00000000:00000000
	   00:00000000 00000000 1000 0 12345 ..." (the last: the socket's
	   inode) */
	*inode = 0;
	return sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x "
	    "%*x:%*x %*x:%*x %*x %*u %*u %lu", port, state, inode) >= 2;
}

pid_t
proc_ppid(pid_t pid)
{
	long	ppid, sid;

	return proc_stat_ids(pid, &ppid, &sid) == 0 ? (pid_t)ppid : -1;
}

int
session_kill(pid_t sid, int sig)
{
	DIR		*d;
	struct dirent	*de;
	long		 ppid, s;
	int		 sent = 0;

	if (sid <= 1 || (d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

		if (pid > 0 && pid != getpid() &&
		    proc_stat_ids(pid, &ppid, &s) == 0 && s == sid &&
		    kill(pid, sig) == 0)
			sent++;
	}
	closedir(d);
	return sent;
}

pid_t
reap_session(pid_t pid, int *status, bool block)
{
	siginfo_t	info;

	memset(&info, 0, sizeof info);
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT |
	    (block ? 0 : WNOHANG)) != 0)
		return -1;
	if (info.si_pid != pid)
		return 0;
	/* Still a zombie: its number cannot name another session yet. */
	if (info.si_code != CLD_EXITED)
		session_kill(pid, SIGKILL);
	return waitpid(pid, status, 0);
}

int
proctree_kill(pid_t root, int sig)
{
	struct proc_parent	*all = NULL;
	pid_t			*tree;
	size_t			 nall = 0, cap = 0, ntree = 1;
	DIR			*d;
	struct dirent		*de;
	int			 sent = 0;

	if (root <= 0)
		return 0;
	if ((d = opendir("/proc")) != NULL) {
		while ((de = readdir(d)) != NULL) {
			pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);
			pid_t ppid;

			if (pid <= 0 || pid == root ||
			    (ppid = proc_ppid(pid)) <= 0)
				continue;
			if (nall == cap) {
				cap = cap ? cap * 2 : 256;
				all = xreallocarray(all, cap, sizeof *all);
			}
			all[nall].pid = pid;
			all[nall++].ppid = ppid;
		}
		closedir(d);
	}
	/* Breadth first from root: each level follows the one before. */
	tree = xcalloc(nall + 1, sizeof *tree);
	tree[0] = root;
	for (size_t i = 0; i < ntree; i++)
		for (size_t j = 0; j < nall; j++)
			if (all[j].ppid == tree[i] && all[j].pid != 0) {
				tree[ntree++] = all[j].pid;
				all[j].pid = 0;	/* taken */
			}
	for (size_t i = ntree; i-- > 0;)
		if (kill(tree[i], sig) == 0)
			sent++;
	free(tree);
	free(all);
	return sent;
}

/* The IPC namespace of /proc/PATH/ns/ipc: is it (dev, ino)? */
static bool
ipcns_is(const char *dir, const struct stat *ns)
{
	char		path[512];
	struct stat	st;

	snprintf(path, sizeof path, "%s/ns/ipc", dir);
	return stat(path, &st) == 0 && st.st_dev == ns->st_dev &&
	    st.st_ino == ns->st_ino;
}

/* Is process pid in the namespace? Its own entry, or where its main
   thread has exited (no namespaces left in its entry), its threads'. */
static bool
ipcns_holds(pid_t pid, const struct stat *ns)
{
	char		 dir[32], sub[384], path[64];
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	bool		 in = false;

	snprintf(dir, sizeof dir, "/proc/%d", (int)pid);
	if (ipcns_is(dir, ns))
		return true;
	snprintf(path, sizeof path, "%s/ns/ipc", dir);
	if (stat(path, &st) == 0 || errno != ENOENT)
		return false;	/* another namespace, or not ours to read */
	snprintf(path, sizeof path, "%s/task", dir);
	if ((d = opendir(path)) == NULL)
		return false;
	while (!in && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
		in = ipcns_is(sub, ns);
	}
	closedir(d);
	return in;
}

bool
ipcns_usable(int nsfd)
{
	struct stat	ns, self;

	if (nsfd < 0 || fstat(nsfd, &ns) != 0 ||
	    stat("/proc/self/ns/ipc", &self) != 0)
		return false;
#ifdef NS_GET_NSTYPE
	if (ioctl(nsfd, NS_GET_NSTYPE) != CLONE_NEWIPC)
		return false;
#endif
	if (ns.st_dev == self.st_dev && ns.st_ino == self.st_ino)
		return false;
	return proc_is_own();
}

int
ipcns_open(pid_t pid, unsigned long long ino)
{
	char		path[64];
	struct stat	st;
	int		fd;

	snprintf(path, sizeof path, "/proc/%d/ns/ipc", (int)pid);
	if (ino == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (unsigned long long)st.st_ino != ino) {
		close(fd);
		return -1;
	}
	return fd;
}

bool
proc_is_own(void)
{
	char	buf[32];
	ssize_t	n;

	if ((n = readlink("/proc/self", buf, sizeof buf - 1)) <= 0)
		return false;
	buf[n] = '\0';
	return strtol(buf, NULL, 10) == (long)getpid();
}

/*
 * Signal pid if it is in the namespace: held by a pidfd while it is looked
 * at, so a process that ended meanwhile is never taken for another that
 * got its number (kill() where there are no pidfds). True when signalled
 * (sig 0: when it is in it).
 */
static bool
ipcns_signal_one(pid_t pid, const struct stat *ns, int sig,
    bool (*skip)(pid_t, void *), void *arg)
{
	int	pidfd;
	bool	done = false;

	/* Most are not: looked at once, without a pidfd. */
	if (!ipcns_holds(pid, ns))
		return false;
	if ((pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0 &&
	    errno != ENOSYS)
		return false;	/* gone */
	if (ipcns_holds(pid, ns) && (skip == NULL || !skip(pid, arg)))
		done = sig == 0 || (pidfd >= 0 ? syscall(SYS_pidfd_send_signal,
		    pidfd, sig, NULL, 0) == 0 : kill(pid, sig) == 0);
	if (pidfd >= 0)
		close(pidfd);
	return done;
}

int
ipcns_signal(int nsfd, int sig, pid_t except, bool (*skip)(pid_t, void *),
    void *arg)
{
	struct stat	 ns;
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	if (!ipcns_usable(nsfd) || fstat(nsfd, &ns) != 0 ||
	    (d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char	*end;
		long	 pid = strtol(de->d_name, &end, 10);

		if (end == de->d_name || *end != '\0' || pid <= 1 ||
		    pid == except)
			continue;
		if (ipcns_signal_one((pid_t)pid, &ns, sig, skip, arg))
			n++;
	}
	closedir(d);
	return n;
}

int
ipcns_kill(int nsfd, pid_t except)
{
	int	n = -1;

	for (int round = 0; round < 200; round++) {
		if ((n = ipcns_signal(nsfd, SIGKILL, except, NULL, NULL)) <= 0)
			break;
		usleep(round < 20 ? 1000 : 10000);
	}
	return n == 0 ? 0 : -1;
}
