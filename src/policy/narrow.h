/*
 * narrow: a project's .bwgate.json may narrow the sandbox, never widen it.
 *
 * Only the shipped defaults and the user's configuration may grant more
 * than the project: a project file's profiles may not give the network,
 * a writable .git (git_writable), writable paths outside the project, or
 * replace a profile of a lower layer under the same name; and its rules
 * that can run a command (allow, ask) may not name a lower layer's
 * profile that grants any of those. A file that tries is refused as a
 * whole (allowlist.c drops the layer and keeps the error; the rules of
 * the other layers still load).
 *
 * Nested sandboxes: a profile key that allows them must be refused here
 * too when one is added to struct profile.
 */
#ifndef BWGATE_NARROW_H
#define BWGATE_NARROW_H

#include <stdbool.h>
#include <stddef.h>

#include "rules.h"

/* 0 if the project file only narrows; -1 with cause (naming file, line
   and key) if not. lower are the other layers, lowest first. */
int	 narrow_check(const struct rulefile *proj,
	    const struct rulefile *const *lower, size_t nlower,
	    const char *project, char **cause);
/* Is this profile path (absolute, or "~/...") inside the project, after
   resolving symbolic links? */
bool	 narrow_path_inside(const char *path, const char *project);
/* What a profile grants beyond the project, in words ("network"), or
   NULL when nothing. */
const char *narrow_widens(const struct profile *, const char *project);

#endif
