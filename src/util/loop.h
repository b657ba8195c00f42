/*
 * loop: one poll(2)-based event loop (descriptors, timers, signals).
 *
 * Handlers run from loop_run_once(); they change state and return quickly.
 * Signals are turned into events through a self-pipe, so handlers run in
 * normal context, never inside a signal handler.
 *
 *	struct loop *l = loop_new();
 *	loop_add(l, fd, POLLIN, on_readable, arg);
 *	int t = loop_timer(l, 5000, on_timeout, arg);
 *	loop_signal(l, SIGTERM, on_term, arg);
 *	while (!done) loop_run_once(l, -1);
 *	loop_free(l);
 */
#ifndef BWGATE_LOOP_H
#define BWGATE_LOOP_H

#include <poll.h>
#include <stdint.h>

struct loop;

typedef void (*loop_fd_cb)(int fd, short revents, void *arg);
typedef void (*loop_timer_cb)(void *arg);
typedef void (*loop_signal_cb)(int signo, void *arg);

struct loop	*loop_new(void);
void		 loop_free(struct loop *);
/* Watch fd; replaces an earlier registration of the same fd. */
void		 loop_add(struct loop *, int fd, short events, loop_fd_cb,
		    void *arg);
void		 loop_set_events(struct loop *, int fd, short events);
void		 loop_remove(struct loop *, int fd);
/* One-shot timer after ms milliseconds; returns an id for loop_cancel. */
int		 loop_timer(struct loop *, int64_t ms, loop_timer_cb, void *arg);
void		 loop_cancel(struct loop *, int id);
/* Deliver signo through the loop (installs a handler). */
void		 loop_signal(struct loop *, int signo, loop_signal_cb, void *arg);
/* Wait at most max_ms (-1: until something happens) and dispatch. */
int		 loop_run_once(struct loop *, int max_ms);
/* Monotonic milliseconds. */
int64_t		 loop_now_ms(void);

#endif
