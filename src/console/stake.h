/*
 * stake: what a dangerous command (danger.h) puts at stake in this
 * project, in words for the operator before approving: "deletes 312 files
 * (4.1 MiB) under src/". A delete's operands are looked up beneath the
 * project (beneath.h: no symbolic link followed, nothing outside opened)
 * and counted, at most STAKE_MAX_ENTRIES entries in all so that a huge
 * tree cannot stall the console; other stakes are said by the danger's
 * reason alone.
 *
 *	char *s = stake_describe(project, cwd, "delete", &targets);
 */
#ifndef BWGATE_STAKE_H
#define BWGATE_STAKE_H

#include <stdbool.h>

#include "strv.h"

#define STAKE_MAX_ENTRIES	100000

/* The description (caller frees), or NULL when the danger's reason says
   all there is (not a delete). */
char	*stake_describe(const char *project, const char *cwd,
	    const char *stake, const struct strv *targets);

/* Would undo put back everything a delete of targets (their operands, as
   written, relative to cwd) removes? Every operand inside the project
   but not the whole project, none a symbolic link, every
   entry looked at (at most STAKE_MAX_ENTRIES), no file over undo's limit
   for one file and all within its limit for one run (undo_limits_get),
   undo on; an operand that does not exist deletes nothing; a pattern in
   the last component is measured by what it matches now. Sandboxed mode
   runs such a delete at once (issue 41). */
bool	 stake_undo_restores(const char *project, const char *cwd,
	    const struct strv *targets);

#endif
