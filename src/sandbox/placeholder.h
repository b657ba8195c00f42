/*
 * placeholder: shared placeholders for protected paths that do not exist.
 *
 * A protected path that is absent (no .git in a git-write run, a
 * configured path) is covered by an empty file or directory mounted
 * read-only, so the command cannot create it. Several sandboxes may run
 * in one project at once, so the placeholders are shared: a registry per
 * project in the runtime directory records which entries are bwgate's
 * placeholders (project-relative path, device and inode) and which
 * processes use them (pid and start time: a pid alone is reused); the
 * last user removes them. A registry left by a killed run is cleaned up
 * by the next bwgate that looks at that project (any command that names
 * it: a run, `bwgate check`, a console starting).
 *
 * Every placeholder is made and removed through the project's descriptor
 * (beneath.h), and removed only while it is still the entry made (device
 * and inode) and still empty, so nothing a person put there is lost.
 *
 *	struct placeholders *ph = placeholders_open(project, root, &cause);
 *	placeholders_make(ph, ".bwgate.json", false, &cause);
 *	placeholders_close(ph);		registers us, unlocks
 *	... run ...
 *	placeholders_release(project, root);	the last user removes them
 */
#ifndef BWGATE_PLACEHOLDER_H
#define BWGATE_PLACEHOLDER_H

#include <stdbool.h>
#include <sys/stat.h>

struct placeholders;

/* Lock the project's registry (root: its descriptor, beneath.h); drop
   processes that are gone. */
struct placeholders *placeholders_open(const char *project, int root,
	    char **cause);
/* Ensure a placeholder at rel (create it unless it is one already);
   -1 with cause when something else is in the way. */
int	 placeholders_make(struct placeholders *, const char *rel, bool dir,
	    char **cause);
/* Is the existing entry rel (st: its lstat) one of the registry's? */
bool	 placeholders_known(const struct placeholders *, const char *rel,
	    const struct stat *st);
/* Register this process as a user, save, unlock, free. */
void	 placeholders_close(struct placeholders *);
/* This process is done: when no user is left, remove the placeholders
   (root: the project's descriptor, or -1 to open it here). */
void	 placeholders_release(const char *project, int root);

#endif
