/*
 * placeholder: shared placeholders for protected paths that do not exist.
 *
 * A protected path that is absent (no .bwgate.json, no .git) is covered
 * by an empty file or directory mounted read-only, so the command cannot
 * create it. Several sandboxes may run in one project at once, so the
 * placeholders are shared: a registry per project in the runtime
 * directory (flock'd) records which paths are bwgate's placeholders and
 * which processes use them; the last user removes them. A registry left by
 * a crashed run is cleaned up by the next run in that project.
 *
 *	struct placeholders *ph = placeholders_open(project, &cause);
 *	placeholders_make(ph, "/p/.bwgate.json", false, &cause);
 *	placeholders_close(ph);		registers us, unlocks
 *	... run ...
 *	placeholders_release(project);	the last user removes them
 */
#ifndef BWGATE_PLACEHOLDER_H
#define BWGATE_PLACEHOLDER_H

#include <stdbool.h>

struct placeholders;

/* Lock the project's registry; drop processes that are gone. */
struct placeholders *placeholders_open(const char *project, char **cause);
/* Ensure a placeholder at path (create it unless it is one already);
   -1 with cause when something else is in the way. */
int	 placeholders_make(struct placeholders *, const char *path, bool dir,
	    char **cause);
/* Is this existing path one of the registry's placeholders? */
bool	 placeholders_known(const struct placeholders *, const char *path);
/* Register this process as a user, save, unlock, free. */
void	 placeholders_close(struct placeholders *);
/* This process is done: when no user is left, remove the placeholders. */
void	 placeholders_release(const char *project);

#endif
