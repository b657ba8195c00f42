/*
 * snapshot: the project's file tree before and after a command, and the
 * change report computed from the two (the authoritative one: it does not
 * depend on anything having watched live).
 *
 *	struct snapshot_opts o = SNAPSHOT_OPTS_INIT;
 *	o.exclude = &cfg.exclude;
 *	struct snapshot *before = snapshot_take(project, &o, &cause);
 *	... run the command ...
 *	struct snapshot *after = snapshot_take(project, &o, &cause);
 *	snapshot_diff(before, after, &result.changes);
 *	snapshot_free(before); snapshot_free(after);
 *
 * A snapshot records every entry under the root (files, directories,
 * symlinks, devices, fifos, sockets; not the root itself) by its path
 * relative to the root, with type, mode, owner, size, link count, device,
 * inode, and modification, change and birth times in nanoseconds (birth
 * time when statx(2) gives it). Symlinks are never followed. Paths are raw
 * bytes (no UTF-8 guarantee); they may be longer than PATH_MAX.
 *
 * Excluded trees are opaque: the entry itself is recorded but its contents
 * are neither scanned nor reported, and it is compared by type, mode and
 * identity only (so `npm install` shows as one "created node_modules").
 * ".git" is always excluded this way (as a path component anywhere), plus
 * opts.exclude: a pattern without '/' is a component name matched at any
 * depth ("node_modules"), one with '/' a path relative to the root
 * ("build/out", a leading "./" or trailing '/' is ignored). opts.skip lists
 * exact relative paths left out entirely, subtree included (placeholders
 * bwgate itself created).
 *
 * Scanning uses getdents64 and statx relative to directory descriptors, in
 * two threads when the machine has two CPUs and the tree has more than one
 * subtree. Entries that vanish during the scan are skipped silently;
 * directories that cannot be read are recorded and named in
 * snapshot_warnings().
 *
 * snapshot_diff() rules (see snapshot-diff.c for the reasoning):
 * - a path present in only one snapshot is created or deleted; a path in
 *   both is modified when its type, identity (device, inode, birth time),
 *   mode, owner, or (not for directories) size, mtime or ctime differ;
 *   a ctime change that comes with a link count change alone (ln, rm of
 *   another link) is not a modification; a directory whose entries changed
 *   is not itself modified (its new or removed entries are reported);
 * - a deleted path and a created path with the same identity (device,
 *   inode, type, and birth time when known) are one rename {from, to};
 *   when size, mtime or mode changed too, "to" is also listed as modified;
 *   a path present in both snapshots never takes part in a rename, so an
 *   editor's atomic save (write a temp file, rename it over the target)
 *   reports the target as modified and nothing else;
 * - the entries under a renamed directory that moved along with it are
 *   implied and not listed (unless they changed: then modified);
 * - created, modified and renamed are sorted parents first
 *   (x, x/y, x/y/f); deleted lists children before their parents.
 *
 * snapshot_take() returns NULL with *cause set (caller frees) when the
 * root cannot be opened or read. A snapshot is immutable once taken and
 * owned by the caller; snapshot_free() releases it.
 */
#ifndef BWGATE_SNAPSHOT_H
#define BWGATE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "strv.h"

struct snapshot_opts {
	const struct strv	*exclude;	/* opaque trees, or NULL */
	const struct strv	*skip;		/* exact paths left out, or NULL */
	int			 threads;	/* 0: automatic, 1: one, 2: two */
};
#define SNAPSHOT_OPTS_INIT { NULL, NULL, 0 }

/* One recorded entry (read-only view for callers and tests). */
struct snapshot_entry {
	const char	*path;		/* relative, in the snapshot's arena */
	uint32_t	 len;
	uint32_t	 hash;
	uint32_t	 mode;		/* st_mode: type and permissions */
	uint32_t	 flags;		/* SNAPSHOT_* below */
	uint32_t	 uid;
	uint32_t	 gid;
	uint32_t	 nlink;
	uint64_t	 dev;
	uint64_t	 ino;
	uint64_t	 size;
	int64_t		 mtime;		/* nanoseconds since the epoch */
	int64_t		 ctime;
	int64_t		 btime;		/* valid with SNAPSHOT_BTIME */
};
#define SNAPSHOT_BTIME		(1 << 0)	/* birth time is known */
#define SNAPSHOT_OPAQUE		(1 << 1)	/* excluded: contents not scanned */
#define SNAPSHOT_UNREADABLE	(1 << 2)	/* directory could not be read */
#define SNAPSHOT_DUPLICATE	(1 << 3)	/* listed twice (a rename raced
						   the scan): ignored */

struct snapshot;

struct snapshot	*snapshot_take(const char *root,
		    const struct snapshot_opts *, char **cause);
/* Append the differences between two snapshots of the same root to out. */
void		 snapshot_diff(const struct snapshot *before,
		    const struct snapshot *after, struct changes *out);
size_t		 snapshot_count(const struct snapshot *);
/* Entry i, in no particular order (0 <= i < snapshot_count()). */
const struct snapshot_entry *snapshot_entry(const struct snapshot *, size_t);
/* The entry for a relative path, or NULL. */
const struct snapshot_entry *snapshot_find(const struct snapshot *,
		    const char *path);
/* Problems met while scanning (unreadable directories, ...). */
const struct strv *snapshot_warnings(const struct snapshot *);
void		 snapshot_free(struct snapshot *);

/*
 * The same report from chosen paths only (the syscall method, fed by the
 * observer): each path is recorded the first time it is added, before the
 * call that names it runs; snapshot_paths_diff() looks at the same paths
 * again and diffs the two with snapshot_diff(). Paths are relative to the
 * root; one under an opaque tree stands for the tree, a skipped one is
 * dropped. Cost: O(paths added), whatever the size of the project.
 *
 *	sp = snapshot_paths_new(project, &o, &cause);
 *	... snapshot_paths_add(sp, "src/a.c") per file-changing call ...
 *	snapshot_paths_diff(sp, &result.changes);
 *	snapshot_paths_free(sp);
 */
struct snapshot_paths;

struct snapshot_paths *snapshot_paths_new(const char *root,
		    const struct snapshot_opts *, char **cause);
void		 snapshot_paths_add(struct snapshot_paths *, const char *rel);
/* A rename: both names and, when from is a directory, every name below it
   and the same names below to (the scan sees those move too). */
void		 snapshot_paths_add_tree(struct snapshot_paths *,
		    const char *from, const char *to);
/*
 * Widen: what the observer could not resolve soundly (a /proc magic link
 * it cannot read, a path it could not read, a file with other hard links)
 * makes the report the whole project's: a scan now, before the call runs
 * (for the paths not named so far, their state before the command), and
 * one at the end. why (copied) says what widened it; the first
 * SNAPSHOT_WIDEN_MAX distinct reasons are kept. A file changed with more
 * than one hard link widens by itself (snapshot_paths_add).
 */
#define SNAPSHOT_WIDEN_MAX	8
void		 snapshot_paths_widen(struct snapshot_paths *,
		    const char *why);
bool		 snapshot_paths_widened(const struct snapshot_paths *);
const struct strv *snapshot_paths_why(const struct snapshot_paths *);
/* Problems met by a widening's scans. */
const struct strv *snapshot_paths_warnings(const struct snapshot_paths *);
/* Did a recorded call name rel, or an opaque tree or renamed directory
   holding it? (Which request a live event belongs to: engine-loop.c.) */
bool		 snapshot_paths_claims(const struct snapshot_paths *,
		    const char *rel);
/* Paths recorded so far. */
size_t		 snapshot_paths_count(const struct snapshot_paths *);
void		 snapshot_paths_diff(struct snapshot_paths *,
		    struct changes *out);
/* The recorded paths' states before the command (after _diff). */
const struct snapshot *snapshot_paths_before(const struct snapshot_paths *);
/* After _diff: the recorded paths' states at the end. */
const struct snapshot *snapshot_paths_after(const struct snapshot_paths *);
/* Call fn(arg, rootfd, rel, how) for each path a call names (not the
   names below a renamed tree, nor skipped or opaque ones), before it is
   recorded: undo keeps what the file was there (undo.h). how: the call
   only appends (SNAPSHOT_HOOK_APPEND); the path was seen before, or the
   call can change only what was opened before, so nothing new is kept
   (SNAPSHOT_HOOK_SEEN); rel NULL: any file opened may change. */
#define SNAPSHOT_HOOK_APPEND	(1 << 0)
#define SNAPSHOT_HOOK_SEEN	(1 << 1)
typedef void	 snapshot_hook_fn(void *, int rootfd, const char *rel,
		    unsigned how);
void		 snapshot_paths_hook(struct snapshot_paths *,
		    snapshot_hook_fn *, void *);
/* snapshot_paths_add() for an open that only appends. */
void		 snapshot_paths_add_append(struct snapshot_paths *,
		    const char *rel);
/* A call on a descriptor open already (ftruncate, a shared mapping...)
   may change rel's content anywhere (rel NULL: the file is not known):
   the hook is told, nothing is recorded. */
void		 snapshot_paths_content(struct snapshot_paths *,
		    const char *rel);
/* The project's descriptor the recorder works beneath. */
int		 snapshot_paths_rootfd(const struct snapshot_paths *);
void		 snapshot_paths_free(struct snapshot_paths *);

#endif
