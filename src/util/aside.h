/*
 * aside: run one function in a thread of its own while the caller goes on
 * (work that waits on the kernel, such as making or removing a cgroup,
 * beside other such work), then wait for it. The thread blocks every
 * signal, so signals keep going to the caller's thread.
 *
 *	struct aside a = ASIDE_INIT;
 *	aside_start(&a, fn, arg);	runs fn(arg) inline if no thread
 *	... other work ...
 *	aside_join(&a);			fn is done; again is harmless
 */
#ifndef BWGATE_ASIDE_H
#define BWGATE_ASIDE_H

#include <pthread.h>
#include <stdbool.h>

struct aside {
	pthread_t	 thread;
	bool		 running;
};
#define ASIDE_INIT { .running = false }

void	 aside_start(struct aside *, void *(*fn)(void *), void *arg);
void	 aside_join(struct aside *);

#endif
