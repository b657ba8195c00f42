/*
 * malloccrash: an LD_PRELOAD shim that crashes the process inside malloc,
 * where a real crash most often happens and the one place a crash handler
 * must not allocate: once the file named by $BWGATE_FAULT_CRASH exists,
 * the next allocation takes the shim's (non-recursive) allocator lock and
 * raises SIGSEGV while holding it, as a crash inside glibc's malloc leaves
 * its arena locked. From then on every allocation waits for that lock: a
 * handler that calls malloc, free or stdio hangs instead of returning the
 * terminal and dying.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void	*(*real_malloc)(size_t);
static void	*(*real_calloc)(size_t, size_t);
static void	*(*real_realloc)(void *, size_t);
static void	 (*real_free)(void *);
static pthread_mutex_t	 arena = PTHREAD_MUTEX_INITIALIZER;
static volatile int	 crashed;

/* dlsym may allocate before the real functions are known. */
static char	 boot[8192];
static size_t	 boot_used;

static void
resolve(void)
{
	static int	 busy;

	if (real_malloc != NULL || busy)
		return;
	busy = 1;
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	busy = 0;
}

static void *
boot_alloc(size_t n)
{
	void	*p;

	n = (n + 15) & ~(size_t)15;
	if (boot_used + n > sizeof boot)
		return NULL;
	p = boot + boot_used;
	boot_used += n;
	return p;
}

/* Crash now if asked; after the crash, wait for the lock forever. */
static void
gate(void)
{
	const char	*f;

	if (crashed) {
		pthread_mutex_lock(&arena);	/* never returns */
		return;
	}
	if ((f = getenv("BWGATE_FAULT_CRASH")) != NULL && access(f, F_OK) == 0) {
		pthread_mutex_lock(&arena);
		crashed = 1;
		raise(SIGSEGV);
	}
}

void *
malloc(size_t n)
{
	resolve();
	if (real_malloc == NULL)
		return boot_alloc(n);
	gate();
	return real_malloc(n);
}

void *
calloc(size_t a, size_t b)
{
	void	*p;

	resolve();
	if (real_calloc == NULL) {
		if ((p = boot_alloc(a * b)) != NULL)
			memset(p, 0, a * b);
		return p;
	}
	gate();
	return real_calloc(a, b);
}

void *
realloc(void *p, size_t n)
{
	resolve();
	gate();
	return real_realloc(p, n);
}

void
free(void *p)
{
	if ((char *)p >= boot && (char *)p < boot + sizeof boot)
		return;
	resolve();
	if (crashed)
		gate();
	real_free(p);
}
