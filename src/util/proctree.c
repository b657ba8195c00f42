/*
 * proctree: signal a process and its descendants (see proctree.h).
 */
#include "autoconf.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proctree.h"
#include "xalloc.h"

struct proc_parent {
	pid_t	pid;
	pid_t	ppid;
};

/* The parent and session of pid from /proc/PID/stat; -1 if gone. */
static int
proc_stat_ids(pid_t pid, long *ppid, long *sid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp session ...": comm may hold
	   anything, even ")". */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %ld %*d %ld", ppid, sid) != 2)
		return -1;
	return 0;
}

/* When pid started (clock ticks after boot, /proc/PID/stat), or 0. */
unsigned long long
proc_start_time(pid_t pid)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 t;
	ssize_t			 n;
	int			 fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Field 22, the 20th after "(comm)". */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1, " %*c %*d %*d "
	    "%*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
	    "%*d %llu", &t) != 1)
		return 0;
	return t;
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
