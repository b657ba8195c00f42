/* aside: a function run beside the caller (aside.h). */
#include "autoconf.h"

#include <signal.h>

#include "aside.h"

void
aside_start(struct aside *a, void *(*fn)(void *), void *arg)
{
	sigset_t	all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	a->running = pthread_create(&a->thread, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!a->running)
		fn(arg);
}

void
aside_join(struct aside *a)
{
	if (a->running)
		pthread_join(a->thread, NULL);
	a->running = false;
}
