/*
 * cleanup: scope-bound release of short-lived resources.
 *
 *	_cleanup_free_ char *p = ...;	freed when p goes out of scope
 *	_cleanup_close_ int fd = ...;	closed when fd goes out of scope (if >= 0)
 *	return steal_pointer(&p);	hand ownership to the caller
 */
#ifndef BWGATE_CLEANUP_H
#define BWGATE_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void
cleanup_freep(void *p)
{
	free(*(void **)p);
}

static inline void
cleanup_closep(int *fd)
{
	int	saved = errno;

	if (*fd >= 0)
		close(*fd);
	errno = saved;
}

static inline void *
steal_pointer(void *pp)
{
	void	**p = pp, *v = *p;

	*p = NULL;
	return v;
}

static inline int
steal_fd(int *fd)
{
	int	v = *fd;

	*fd = -1;
	return v;
}

#define _cleanup_free_	__attribute__((cleanup(cleanup_freep)))
#define _cleanup_close_	__attribute__((cleanup(cleanup_closep)))

#endif
