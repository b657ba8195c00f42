/*
 * digestcache: the sha256 of files, read again only when a file changed.
 *
 * A file is known by its device, inode, size, modification and change
 * times. As git does with its index ("racy git"), a file changed within
 * DIGESTCACHE_SETTLE_MS of being read is not remembered: file times tick
 * coarsely, so a second write in the same tick could keep all of them.
 *
 *	struct digestcache *dc = digestcache_new();
 *	if (digestcache_file(dc, path, hex) != 0) ... errno
 *	digestcache_free(dc);
 */
#ifndef BWGATE_DIGESTCACHE_H
#define BWGATE_DIGESTCACHE_H

#include "sha256.h"

#define DIGESTCACHE_SETTLE_MS	2000
/* Larger files, and all but regular files, have no digest (-1). */
#define DIGESTCACHE_MAX		(16 << 20)

struct digestcache;

struct digestcache *digestcache_new(void);
/* The digest of the regular file path (opened non-blocking); -1. */
int	 digestcache_file(struct digestcache *, const char *path,
	    char out[SHA256_HEX_LEN + 1]);
void	 digestcache_free(struct digestcache *);

#endif
