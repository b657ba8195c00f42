/*
 * snapshot-int: the snapshot's storage, shared by the scan and the diff:
 * entries in an arena, indexed by path hash.
 */
#ifndef BWGATE_SNAPSHOT_INT_H
#define BWGATE_SNAPSHOT_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"
#include "strv.h"

struct arena_chunk {
	struct arena_chunk	*next;
	size_t			 used;
	size_t			 size;
	char			 data[];
};

struct snapshot {
	struct snapshot_entry	*v;
	size_t			 n;
	struct arena_chunk	*arena;
	uint32_t		*index;		/* path hash -> entry + 1 */
	size_t			 mask;
	struct strv		 warnings;
};

/* The scan's options, sorted, and its root (shared by the scan threads). */
/* A directory waiting to be scanned, named by its entry. */
struct scan_dir {
	const char	*path;
	uint32_t	 len;
	uint32_t	 entry;		/* index in the owner's entry vector */
};

struct scan_shared {
	int			 rootfd;
	struct strv		 names;		/* opaque component names */
	struct strv		 paths;		/* opaque relative paths */
	struct strv		 skip;		/* relative paths left out */
	struct scan_dir		*jobs;
	size_t			 njobs;
	atomic_size_t		 next;
	atomic_int		 use_statx;	/* 0 after ENOSYS: fstatat */
};

/* Sort the options into component names, relative paths and skips. */
void		 scan_shared_init(struct scan_shared *,
		    const struct snapshot_opts *);
void		 scan_shared_release(struct scan_shared *);
/* Open the project's root to read, through the door; -1 with cause. */
int		 scan_open_root(const char *root, char **cause);
/* True when an entry's path (len bytes) or its name makes it opaque. */
int		 scan_is_opaque(const struct scan_shared *, const char *path,
		    size_t len, const char *name, size_t namelen);
/* True when a path is on the skip list. */
int		 scan_is_skipped(const struct scan_shared *, const char *path,
		    size_t len);
/* statx one name in a directory into e; -1 with errno on failure. */
int		 snapshot_stat(struct scan_shared *, int dfd, const char *name,
		    struct snapshot_entry *);
/* Carve n bytes out of an arena; free a whole arena. */
void		*snapshot_arena_alloc(struct arena_chunk **, size_t);
void		 snapshot_arena_free(struct arena_chunk *);
/* Index the entries by path (marks duplicates). */
void		 snapshot_build_index(struct snapshot *);

/* A fast 32-bit hash of a path. */
uint32_t	snapshot_hash(const char *, size_t);
/* The slot of a path in a snapshot's index (an empty slot if absent). */
size_t		snapshot_slot(const struct snapshot *, const char *, size_t,
		    uint32_t hash);

#endif
