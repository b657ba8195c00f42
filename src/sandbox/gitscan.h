/*
 * gitscan: where the .git entries of a project are, without reading every
 * directory of a large project on every run.
 *
 * A scan records every directory it saw (device, inode, change time) and
 * every .git (inode). A later scan starts from an earlier one and takes a
 * directory's entries as they were when its change time is the one
 * recorded and is older than the earlier scan's start by GITSCAN_SETTLE_SEC:
 * a new name, a removal or a rename in or out of a directory all set its
 * change time to the present, and no one can set it back. Other
 * directories are read again, and those not seen before are walked whole,
 * so a scan costs a stat per directory instead of a read. The settling
 * time is git's "racily clean" rule: a change in the same clock tick as
 * the recorded read would leave the time unchanged.
 *
 *	struct gitscan *gs = gitscan_project(project, rootfd, &cause);
 *	...the command runs...
 *	struct gitscan *now = gitscan_refresh(gs, rootfd);	 // after it
 *
 * Only for src/sandbox (sandbox-git.c).
 */
#ifndef BWGATE_GITSCAN_H
#define BWGATE_GITSCAN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "strv.h"

#define GITSCAN_SETTLE_SEC	2
/* Directories deeper than this, or with a longer path, are not read:
   the one holding them is "deep" (read-only whole inside, searched whole
   after the run when it is new: sandbox-git.c). */
#define GITSCAN_MAX_DEPTH	128
#define GITSCAN_REL_MAX		2048

struct git_dir {
	char		*rel;		/* "" for the project root */
	dev_t		 dev;
	ino_t		 ino;
	struct timespec	 ctime;
	bool		 opaque;	/* could not be read: read each time */
	bool		 deep;		/* holds a directory too deep to read:
					   read-only whole, read each time */
};

struct gitscan {
	struct strv	 gits;		/* project-relative .git paths */
	ino_t		*git_ino;
	size_t		 ngit;
	struct git_dir	*dirs;		/* sorted by rel (strcmp) */
	size_t		 ndirs, dirs_cap;
	size_t		 ndeep;		/* of them, deep */
	struct timespec	 when;		/* the scan began */
	bool		 ctime_ok;	/* the file system keeps change times */
	bool		 watched;	/* a watcher's answer: gits and opaque
					   dirs only (gitwatch.h) */
	size_t		 read;		/* directories read, not taken as were */
	size_t		 read_settled;	/* ... of those, settled when read */
	char		*error;		/* a directory could not be checked */
};

/* Every directory of the project from rootfd (read whole). */
struct gitscan	*gitscan_walk(int rootfd);
/* The project now, from an earlier scan (see above). */
struct gitscan	*gitscan_refresh(const struct gitscan *old, int rootfd);
/* The project now, from the scan kept in the runtime directory when there
   is one worth trusting; keeps the result there (from 256 directories on:
   fewer are read faster than the file). NULL with cause when the
   project cannot be opened or a directory in it cannot be checked. */
struct gitscan	*gitscan_project(const char *project, int rootfd,
		    char **cause);
/* The index of the directory rel (len bytes) in gs, or -1; of the
   directory holding rel (rel is not ""), or -1. */
ssize_t		 gitscan_find(const struct gitscan *, const char *rel,
		    size_t len);
ssize_t		 gitscan_parent(const struct gitscan *, const char *rel);
/* Sort the directories by rel (after pushing them out of order). */
void		 gitscan_sort(struct gitscan *);
/* Append a directory, a .git (their rel is then gs's). */
void		 gitscan_push_dir(struct gitscan *, struct git_dir);
void		 gitscan_push_git(struct gitscan *, char *rel, ino_t);

/* gitscan-cache.c: the scans kept in the runtime directory. */
/* The runtime directory's file PREFIX-DEV-INO[SUFFIX] for the project
   whose root is st (NULL without a runtime directory). */
char		*gitscan_rundir_file(const struct stat *st, const char *prefix,
		    const char *suffix);
struct gitscan	*gitscan_cache_load(const char *path);
void		 gitscan_cache_save(const char *path, const struct gitscan *);
/* Reading counted names (also gitwatch's answers): the tag c then a
   space; a decimal number then sep; len bytes of a sane relative path
   then a newline (caller frees). */
struct gs_cursor {
	const char	*p, *end;
};
bool		 gs_take_tag(struct gs_cursor *, char c);
bool		 gs_take_num(struct gs_cursor *, unsigned long long *, char sep);
char		*gs_take_rel(struct gs_cursor *, unsigned long long len);

#endif
