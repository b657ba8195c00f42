/*
 * snapshot-int: the snapshot's storage, shared by the scan and the diff:
 * entries in an arena, indexed by path hash.
 */
#ifndef BWGATE_SNAPSHOT_INT_H
#define BWGATE_SNAPSHOT_INT_H

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

/* A fast 32-bit hash of a path. */
uint32_t	snapshot_hash(const char *, size_t);
/* The slot of a path in a snapshot's index (an empty slot if absent). */
size_t		snapshot_slot(const struct snapshot *, const char *, size_t,
		    uint32_t hash);

#endif
