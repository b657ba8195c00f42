/*
 * undo-int: what the store (undo-store.c), the recording of a run
 * (undo-rec.h) and putting one back (undo-apply.c) share.
 */
#ifndef BWGATE_UNDO_INT_H
#define BWGATE_UNDO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strv.h"
#include "undo.h"

#define UNDO_MANIFEST_VERSION	1
/* Files of this size or less are kept in the run's pack (runs/<id>/pack:
   the manifest's "pack_off" and "pack_len" say where), larger ones as
   objects. */
#define UNDO_PACK_FILE		(256U << 10)

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

/*
 * Planning's lookups (undo-index.c): keys of entries (i: the entry's
 * index), sorted by path or by device and inode, then searched.
 */
struct undo_key {
	const char	*path;
	uint64_t	 dev, ino;
	size_t		 i;
};
void	 undo_index_sort(struct undo_key *, size_t, bool by_path);
/* The index of the first entry at path, or SIZE_MAX. */
size_t	 undo_index_path(const struct undo_key *, size_t, const char *);
/* The first position of (dev, ino) in keys sorted by inode (n if none:
   the caller walks on while the keys are equal). */
size_t	 undo_index_ino(const struct undo_key *, size_t, uint64_t dev,
	    uint64_t ino);

/*
 * The journal of an undo (undo-rollback.c): each step taken on the
 * project, with what takes it back. Paths are relative to root.
 */
struct stat;
struct uj_step;
struct undo_journal {
	int		 root;
	struct uj_step	*steps;
	size_t		 n;
};
void	 undo_journal_init(struct undo_journal *, int root);
/* from was renamed to to (back: to -> from). */
void	 undo_journal_renamed(struct undo_journal *, const char *from,
	    const char *to);
/* path was made (back: removed, if it is still that inode). */
void	 undo_journal_made(struct undo_journal *, const char *path);
/* The empty directory path (st) was removed (back: made again). */
void	 undo_journal_rmdir(struct undo_journal *, const char *path,
	    const struct stat *st);
/* path's mode (and modification time) are about to change: -1 when it
   cannot be looked at. */
int	 undo_journal_meta(struct undo_journal *, const char *path,
	    bool times);
/* path (open at fd) is about to be rewritten in place: its content is
   copied to copy (a new name beneath root) first. -1 with cause. */
int	 undo_journal_content(struct undo_journal *, const char *path, int fd,
	    const char *copy, char **cause);
/* Take every step back, newest first; -1 with *failed (what could not
   be) when one could not. */
int	 undo_journal_rollback(struct undo_journal *, char **failed);
void	 undo_journal_release(struct undo_journal *);

#endif
