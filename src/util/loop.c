/*
 * loop: a small poll(2) event loop.
 *
 * Registrations live in a plain array; poll() is rebuilt each pass (the
 * numbers here are small: a few dozen descriptors). Removal during dispatch
 * only marks an entry dead so the pass in progress stays valid.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "xalloc.h"

struct loop_fd {
	int		 fd;
	short		 events;
	loop_fd_cb	 cb;
	void		*arg;
	bool		 dead;
};

struct loop_tmr {
	int		 id;
	int64_t		 when;
	loop_timer_cb	 cb;
	void		*arg;
};

struct loop_sig {
	loop_signal_cb	 cb;
	void		*arg;
};

struct loop {
	struct loop_fd	*fds;
	size_t		 nfds;
	struct loop_tmr	*tmrs;
	size_t		 ntmrs;
	int		 next_id;
	struct pollfd	*pfd;
	size_t		 pfd_cap;
};

/* One self-pipe and handler table for the whole process. */
static int		 sig_pipe[2] = { -1, -1 };
static struct loop_sig	 sig_handlers[65];

static void
sig_catch(int signo)
{
	int		saved = errno;
	unsigned char	c = (unsigned char)signo;

	(void)!write(sig_pipe[1], &c, 1);
	errno = saved;
}

static void
sig_read(int fd, short revents, void *arg)
{
	unsigned char	buf[64];
	ssize_t		n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] < 65 && sig_handlers[buf[i]].cb != NULL)
				sig_handlers[buf[i]].cb(buf[i],
				    sig_handlers[buf[i]].arg);
}

int64_t
loop_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct loop *
loop_new(void)
{
	return xcalloc(1, sizeof(struct loop));
}

void
loop_free(struct loop *l)
{
	if (l == NULL)
		return;
	free(l->fds);
	free(l->tmrs);
	free(l->pfd);
	free(l);
}

void
loop_add(struct loop *l, int fd, short events, loop_fd_cb cb, void *arg)
{
	for (size_t i = 0; i < l->nfds; i++) {
		if (l->fds[i].fd == fd && !l->fds[i].dead) {
			l->fds[i].events = events;
			l->fds[i].cb = cb;
			l->fds[i].arg = arg;
			return;
		}
	}
	l->fds = xreallocarray(l->fds, l->nfds + 1, sizeof *l->fds);
	l->fds[l->nfds++] = (struct loop_fd){ fd, events, cb, arg, false };
}

void
loop_set_events(struct loop *l, int fd, short events)
{
	for (size_t i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd && !l->fds[i].dead)
			l->fds[i].events = events;
}

void
loop_remove(struct loop *l, int fd)
{
	for (size_t i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd)
			l->fds[i].dead = true;
}

int
loop_timer(struct loop *l, int64_t ms, loop_timer_cb cb, void *arg)
{
	l->tmrs = xreallocarray(l->tmrs, l->ntmrs + 1, sizeof *l->tmrs);
	l->tmrs[l->ntmrs++] = (struct loop_tmr){ ++l->next_id,
	    loop_now_ms() + ms, cb, arg };
	return l->next_id;
}

void
loop_cancel(struct loop *l, int id)
{
	for (size_t i = 0; i < l->ntmrs; i++) {
		if (l->tmrs[i].id == id) {
			l->tmrs[i] = l->tmrs[--l->ntmrs];
			return;
		}
	}
}

void
loop_signal(struct loop *l, int signo, loop_signal_cb cb, void *arg)
{
	struct sigaction	sa;

	if (sig_pipe[0] == -1) {
		if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
			return;
	}
	loop_add(l, sig_pipe[0], POLLIN, sig_read, NULL);
	sig_handlers[signo].cb = cb;
	sig_handlers[signo].arg = arg;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = sig_catch;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, NULL);
}

/* Drop registrations marked dead during the last pass. */
static void
loop_compact(struct loop *l)
{
	size_t	j = 0;

	for (size_t i = 0; i < l->nfds; i++)
		if (!l->fds[i].dead)
			l->fds[j++] = l->fds[i];
	l->nfds = j;
}

/* Run every timer that is due (timers may add or cancel timers). */
static void
loop_fire_timers(struct loop *l)
{
	int64_t	now = loop_now_ms();

	for (size_t i = 0; i < l->ntmrs; i++) {
		if (l->tmrs[i].when <= now) {
			struct loop_tmr t = l->tmrs[i];

			l->tmrs[i] = l->tmrs[--l->ntmrs];
			t.cb(t.arg);
			i = (size_t)-1;	/* the array changed: rescan */
		}
	}
}

int
loop_run_once(struct loop *l, int max_ms)
{
	int64_t	now = loop_now_ms();
	int	timeout = max_ms, n;
	size_t	npfd;

	loop_compact(l);
	for (size_t i = 0; i < l->ntmrs; i++) {
		int64_t left = l->tmrs[i].when - now;

		if (left < 0)
			left = 0;
		if (timeout < 0 || left < timeout)
			timeout = (int)left;
	}
	if (l->nfds > l->pfd_cap) {
		l->pfd_cap = l->nfds;
		l->pfd = xreallocarray(l->pfd, l->pfd_cap, sizeof *l->pfd);
	}
	npfd = l->nfds;
	for (size_t i = 0; i < npfd; i++) {
		l->pfd[i].fd = l->fds[i].events ? l->fds[i].fd : -1;
		l->pfd[i].events = l->fds[i].events;
		l->pfd[i].revents = 0;
	}
	n = poll(l->pfd, npfd, timeout);
	if (n < 0 && errno != EINTR)
		return -1;
	for (size_t i = 0; n > 0 && i < npfd; i++) {
		struct loop_fd *f = &l->fds[i];

		if (l->pfd[i].revents == 0 || f->dead)
			continue;
		f->cb(f->fd, l->pfd[i].revents, f->arg);
	}
	loop_fire_timers(l);
	return 0;
}
