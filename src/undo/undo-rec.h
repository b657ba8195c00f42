/*
 * undo-rec: one run being recorded (undo.h), shared by the files that
 * record it. Not for use outside src/run.
 *
 *	undo-save.c	the supervisor's decisions: which inode to keep, when,
 *			within which limits; the run's id; the lifecycle
 *	undo-pack.c	a small file's content into the run's pack
 *	undo-object.c	a larger file's content as an object of the store
 *	undo-manifest.c	the manifest: the run's before and after states and
 *			what they refer to, as JSON text
 *	undo-commit.c	at the end: the pack and objects synced, then the
 *			manifest written, and the report's "undo"
 */
#ifndef BWGATE_UNDO_REC_H
#define BWGATE_UNDO_REC_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "sha256.h"
#include "snapshot.h"
#include "strv.h"
#include "undo.h"

/* One content of the run's pack. */
struct undo_packed {
	char		 sha[SHA256_HEX_LEN + 1];
	uint64_t	 off, len;
};

#define UNDO_PACK_BUF	(1 << 20)

/* One inode seen by the recorder. */
struct undo_kept {
	dev_t		 dev;
	ino_t		 ino;
	char		*sha;		/* content kept, or NULL */
	char		*target;	/* a symbolic link's target */
	char		*why;		/* why its content was not kept */
	char		*path;		/* the name it was kept under */
	bool		 multi;		/* it had other names */
	bool		 packed;	/* its content is in the run's pack */
	bool		 clone;		/* sha: a clone's name */
	uint64_t	 poff, plen;	/* where, and how long */
	/* Opened for appending only: its content is not kept, only its
	   length (size), until a call may change its start (then its first
	   size bytes are kept after all, read from afd). */
	bool		 append;
	int		 afd;
	uint64_t	 ctime;		/* at first sight (ns) */
	char		*prefix_sha;	/* of its start, if cheap */
	/* The inode at first sight, before any call changed it (another
	   name of it may be recorded later, after a change). */
	uint32_t	 mode;
	uint64_t	 size;
	int64_t		 mtime;
	int64_t		 btime;		/* -1: unknown */
};

struct undo_rec {
	char			*project;
	char			*command;
	char			*store;
	struct undo_limits	 lim;
	unsigned long		 id;		/* 0: none yet */
	int			 blobs_fd;
	uint64_t		 run_bytes;	/* new objects' bytes */
	uint64_t		 ref_bytes;	/* every object it refers to */
	uint64_t		 store_bytes;	/* the store's, at the start */
	unsigned		 tmp_seq;
	struct undo_kept	*k;
	size_t			 nk;
	size_t			 ck;
	uint32_t		*index;		/* ino hash -> k index + 1 */
	size_t			 mask;
	char			*broken;	/* the store failed: why */
	int			 lock_fd;	/* the store's lock (undo_lock) */
	struct timespec		 start;		/* the run's (before it ran) */
	bool			 multi;		/* a kept file had other names */
	size_t			 nappend;	/* kept by length */
	/* The run's pack: its descriptor, what is written of it, what
	   waits in the buffer, and the contents it holds by sha256. */
	int			 pack_fd;
	uint64_t		 pack_size;	/* written and buffered */
	char			*pbuf;
	size_t			 plen;
	struct undo_packed	*pk;
	size_t			 npk, cpk;
	uint32_t		*pindex;	/* sha hash -> pk index + 1 */
	size_t			 pmask;
	struct strv		 newobjs;	/* clones made: synced at the end */
};

/* undo-save.c: claim the run's id and directory (once); -1 when the
   store is broken (u->broken says why). */
int	 undo_rec_claim(struct undo_rec *);
/* undo-save.c: the kept entry of an inode, or NULL. */
struct undo_kept *undo_rec_find(struct undo_rec *, dev_t, ino_t);

/* undo-pack.c: a small file's content (open at fd) into the pack: 0
   kept, 1 it is not small after all (read it again as an object), -1
   with k->why. */
int	 undo_rec_pack(struct undo_rec *, struct undo_kept *, int fd);
/* undo-pack.c: write out the pack's buffer; -1 with errno. */
int	 undo_pack_flush(struct undo_rec *);

/* undo-object.c: keep the content of the file open at fd (its first
   limit bytes; UINT64_MAX: all) as an object (k->sha, or k->why). */
void	 undo_object_keep(struct undo_rec *, struct undo_kept *, int fd,
	    uint64_t limit);

/* undo-manifest.c: the run's manifest as JSON text (caller frees), and
   in *unsaved (caller deletes) what undo will not restore, {path, why}. */
char	*undo_manifest_text(struct undo_rec *, const struct result *r,
	    const struct snapshot_paths *rec, const struct snapshot_opts *,
	    cJSON **unsaved);

#endif
