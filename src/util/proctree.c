/*
 * proctree: signal a process and its descendants (see proctree.h).
 */
#include "autoconf.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctree.h"
#include "xalloc.h"

struct proc_parent {
	pid_t	pid;
	pid_t	ppid;
};

/* The parent of pid from /proc/PID/stat, or -1. */
pid_t
proc_ppid(pid_t pid)
{
	char	 path[64], buf[512], *p;
	ssize_t	 n;
	int	 fd;
	long	 ppid;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold anything, even ")". */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
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
