/*
 * undo-int: what undo-store.c, undo-save.c and undo-apply.c share.
 */
#ifndef BWGATE_UNDO_INT_H
#define BWGATE_UNDO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "strv.h"
#include "undo.h"

#define UNDO_MANIFEST_VERSION	1

char		*undo_run_dir(const char *store, unsigned long id);
char		*undo_read_small(const char *path, size_t max, size_t *len);
void		 undo_run_dirs(const char *store, struct strv *ids);
/* Prune to leave room bytes under the total (never the run keep); the
   bytes the store holds after. Takes the store's lock itself. */
uint64_t	 undo_prune(const char *store, const struct undo_limits *,
		    uint64_t room, const char *keep);
/* The store's lock (flock on <store>/lock): shared while a blob is
   saved, exclusive while pruning. -1 when it cannot be had. */
int		 undo_lock(const char *store, int how);

#endif
