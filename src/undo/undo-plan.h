/*
 * undo-plan: what undo-plan.c (reading the manifest, checking the project,
 * planning) hands to undo-apply.c (doing it, all or nothing). Internal to
 * undo; undo.h is its face.
 */
#ifndef BWGATE_UNDO_PLAN_H
#define BWGATE_UNDO_PLAN_H

#include <sys/stat.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "strv.h"
#include "undo-int.h"

enum ue_type { UE_FILE, UE_DIR, UE_LINK, UE_OTHER };

/* One manifest entry. */
struct ue {
	const char	*path;
	enum ue_type	 type;
	mode_t		 mode;
	uint64_t	 size;
	int64_t		 mtime;
	uint64_t	 dev;
	uint64_t	 ino;
	const char	*blob;
	int64_t		 pack_off;	/* in the run's pack; -1: an object */
	uint64_t	 pack_len;
	const char	*target;
	bool		 opaque;
	int64_t		 btime;		/* -1: unknown */
	bool		 append;	/* kept by length only */
	bool		 clone;		/* blob: a clone's name */
	const char	*prefix;	/* its start's sha256, or NULL */
	int64_t		 ctime;		/* after: -1 unknown */
	uint64_t	 cut_from;	/* before: the size undo cuts back */
	uid_t		 uid;
	gid_t		 gid;
	/* Planning. */
	bool		 now;		/* present now */
	struct stat	 st;		/* its state now */
	int64_t		 nbtime;	/* its birth time now, -1: unknown */
	bool		 claimed;	/* after: a rename source */
	bool		 blocked;	/* cannot be looked at (EACCES) */
	bool		 unlocked;	/* after: opened by plan_unlock */
	bool		 placed;	/* before: its inode is at its name */
};

enum act_kind { ACT_STAGE, ACT_REMOVE, ACT_RMDIR, ACT_MKDIR, ACT_UNSTAGE,
	ACT_MAKE, ACT_LINK, ACT_SYMLINK, ACT_CONTENT, ACT_META };

struct act {
	enum act_kind	 kind;
	char		*path;		/* where it acts (current name) */
	char		*to;		/* STAGE/UNSTAGE: the other name */
	struct ue	*b;		/* the before entry, if any */
	struct stat	 id;		/* REMOVE/STAGE: the inode expected */
	int		 depth;
};

struct undo_plan {
	char		*project;
	cJSON		*m;
	char		*store;
	struct ue	*b, *a;
	size_t		 nb, na;
	struct act	*acts;
	size_t		 nacts;
	struct strv	 lines;
	size_t		 conflicts;
	size_t		 cannot;
	int		 root;
	char		*stage;
	struct timespec	 since;		/* the run's start */
	size_t		 blocked;	/* paths that cannot be looked at */
	/* Lookups (undo-index.c): before and after entries by path and by
	   inode (before: the kept one; after: the one there now). */
	struct undo_key	*bpath, *apath, *bino, *aino;
	size_t		 naino;
	struct undo_journal j;		/* what apply did, to take it back */
};

/* b's kept content, the run's pack (positioned at it) or its object;
   *len its length (-1 with errno). */
int	blob_open(struct undo_plan *, const struct ue *, uint64_t *);
/* Open the directories the run left closed to their owner; how many. */
int	plan_unlock(struct undo_plan *);
/* Look again and plan again (after plan_unlock). */
void	plan_again(struct undo_plan *);

#endif
