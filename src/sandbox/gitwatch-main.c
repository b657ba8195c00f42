/*
 * bwgate-gitwatch: the project watcher as a program of its own (see
 * gitwatch.h), started by a run with
 *
 *	bwgate-gitwatch PROJECT DEV INO BUDGET	its lock, held, on descriptor 3
 *
 * BUDGET: the inotify watches it may take (its share of the quarter of
 * the user's that all watchers may take together: gitwatch-client.c).
 *
 * A fresh image rather than a fork of the run: the run has threads at
 * that moment, and a forked copy would inherit whatever lock one of them
 * held (the allocator's, under a sanitizer). Detached: nothing of the
 * run's but the lock; it writes its pid into the lock file.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gitscan.h"
#include "gitwatch.h"

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	struct stat	 st, lock;
	sigset_t	 all;
	char		*end, *sock;
	int		 null;

	size_t		 budget;

	if (argc != 5 || fstat(3, &lock) != 0 || !S_ISREG(lock.st_mode)) {
		fprintf(stderr, "usage: bwgate-gitwatch PROJECT DEV INO BUDGET "
		    "(started by bwgate, its lock on descriptor 3)\n");
		return 2;
	}
	memset(&st, 0, sizeof st);
	errno = 0;
	st.st_dev = (dev_t)strtoumax(argv[2], &end, 10);
	if (errno != 0 || *end != '\0')
		return 2;
	st.st_ino = (ino_t)strtoumax(argv[3], &end, 10);
	if (errno != 0 || *end != '\0')
		return 2;
	budget = (size_t)strtoumax(argv[4], &end, 10);
	if (errno != 0 || *end != '\0')
		return 2;
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if ((sock = gitscan_rundir_file(&st, "gitwatch", ".sock")) == NULL ||
	    (null = open("/dev/null", O_RDWR)) < 0)
		return 0;
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	if (syscall(SYS_close_range, 4U, ~0U, 0) != 0)
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	if (chdir("/") != 0)
		return 0;
	/* Who it is, for people (its /proc is closed to them: not
	   dumpable). */
	if (ftruncate(3, 0) == 0)
		dprintf(3, "%ld %zu\n", (long)getpid(), budget);
	gitwatch_daemon(argv[1], &st, budget, 3, sock);
}
