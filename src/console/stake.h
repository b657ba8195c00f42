/*
 * stake: what a dangerous command (danger.h) puts at stake in this
 * project, in words for the operator before approving: "deletes 312 files
 * (4.1 MiB) under src/". A delete's operands are looked up beneath the
 * project (beneath.h: no symbolic link followed, nothing outside opened)
 * and counted, at most STAKE_MAX_ENTRIES entries in all so that a huge
 * tree cannot stall the console; other stakes are said by the danger's
 * reason alone.
 *
 *	char *s = stake_judge(project, cwd, "delete", &targets, true, &keep);
 */
#ifndef BWGATE_STAKE_H
#define BWGATE_STAKE_H

#include <stdbool.h>

#include "strv.h"

#define STAKE_MAX_ENTRIES	100000
#define STAKE_NAMED		3	/* a pattern's matches named */

/* What a dangerous command puts at stake, measured in one walk of a
   delete's operands (targets: as written, relative to cwd): the
   description (caller frees: "deletes out1.txt (6 B, tracked), 3 files
   (4.0 KiB, untracked) under build/"), or NULL when the danger's reason
   says all there is (not a delete). A pattern in an operand's last
   component is expanded against the project as it is now, the first
   STAKE_NAMED - 1 matches named and the rest counted when there are more
   than STAKE_NAMED; in a git project each says whether git tracks it
   (gitops_tracked). *undo_restores: measured (danger_measurable), and
   undo would put back everything the delete removes: every operand
   inside the project but not the whole project, none a symbolic link,
   every entry looked at (at most STAKE_MAX_ENTRIES), no file over undo's
   limit for one file and all within its limit for one run
   (undo_limits_get), undo on; an operand that does not exist deletes
   nothing; a pattern at the top only after a literal start. Sandboxed
   mode runs such a delete at once (issue 41). */
char	*stake_judge(const char *project, const char *cwd,
	    const char *stake, const struct strv *targets, bool measured,
	    bool *undo_restores);

#endif
