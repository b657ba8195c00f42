/*
 * observe-flight: which calls may still be between the observer's look
 * and the kernel's own lookup, for the change report's symbolic links.
 *
 * A symbolic link made, removed or replaced in the project changes where
 * a path through that name leads. The observer resolves a call's path
 * while the call waits, then lets it continue: if the link changes after
 * that look and before the kernel's lookup, the call lands where the
 * observer did not look. That needs two tasks with calls in flight at
 * once, so the report widens only when it cannot exclude one:
 *
 *	- at a link change by task B, any other task whose last
 *	  file-changing call was let through may still be in it, unless
 *	  /proc/TID/syscall shows it gone or blocked in a call that is not
 *	  one of those (a task makes one call at a time);
 *	- after it, until B is seen past that call the same way (or makes
 *	  its next notified call), any other task's call is resolved while
 *	  the change may not have happened yet.
 *
 * Unknown (a task that cannot be read, "running", blocked in a
 * notified call, more tasks than are kept) counts as in flight. The
 * widening's scan is taken before the caller continues, so it precedes
 * whatever the race could have changed unseen.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "observe-int.h"
#include "xalloc.h"

/* Is task tid past its last notified call (gone, or blocked in a call
   the helper does not notify)? */
static bool
flight_past(pid_t tid)
{
	char	p[64], buf[64];
	ssize_t	n;
	long	nr;
	char	*end;
	int	fd;

	snprintf(p, sizeof p, "/proc/%d/syscall", (int)tid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno == ESRCH;
	buf[n] = '\0';
	nr = strtol(buf, &end, 10);
	if (end == buf || (*end != ' ' && *end != '\n'))
		return false;		/* "running" */
	return !observe_notified_nr((int)nr);
}

/* Forget tid in the set of tasks with a call let through. */
static void
flight_remove(struct observer *obs, pid_t tid)
{
	for (size_t i = 0; i < obs->nflight; i++) {
		if (obs->flight[i] == tid) {
			obs->flight[i] = obs->flight[--obs->nflight];
			return;
		}
	}
}

bool
observe_flight_begin(struct observer *obs, pid_t tid)
{
	bool	race = false;

	/* Its own previous call is over: it is making this one. */
	flight_remove(obs, tid);
	if (obs->link_tid == tid)
		obs->link_tid = 0;
	if (obs->link_tid != 0) {
		if (flight_past(obs->link_tid))
			obs->link_tid = 0;
		else
			race = true;
	}
	return race;
}

void
observe_flight_end(struct observer *obs, pid_t tid)
{
	if (obs->nflight < OBSERVE_FLIGHT_MAX)
		obs->flight[obs->nflight++] = tid;
	else
		obs->flight_over = true;
}

bool
observe_flight_link(struct observer *obs, pid_t tid)
{
	bool	race = obs->flight_over;

	obs->link_tid = tid;
	for (size_t i = 0; i < obs->nflight; ) {
		if (obs->flight[i] != tid && flight_past(obs->flight[i]))
			obs->flight[i] = obs->flight[--obs->nflight];
		else {
			if (obs->flight[i] != tid)
				race = true;
			i++;
		}
	}
	return race;
}
