/*
 * allowlist-write: the verdict of an agent's direct file write (the MCP
 * file tools, the Claude Code hook's --writes console), given the way a
 * command's is (allowlist.h): what a command writing the same path would
 * meet in the danger table counts the same, and bwgate's own table of
 * paths (filewrite.h) decides the rest.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "allowlist-int.h"
#include "allowlist.h"
#include "cleanup.h"
#include "danger.h"
#include "filewrite.h"
#include "xalloc.h"

void
allowlist_classify_write(const struct allowlist *al, const char *rel,
    const struct strv *protected, struct classification *c)
{
	struct filewrite_match	 fm;
	struct danger_hit	 hit = DANGER_HIT_INIT;

	classification_release(c);
	c->profile = xstrdup("project");
	filewrite_classify(rel, protected, &fm);
	if (fm.kind == FILEWRITE_PROTECTED) {
		/* Read-only in every sandbox: approving could not help. */
		c->verdict = VERDICT_DENY;
		c->rule = xstrdup("file-write");
		c->reason = xasprintf("write_file: '%s' is protected (%s: %s); "
		    "the sandbox keeps it read-only", rel, fm.entry, fm.why);
		return;
	}
	if (al != NULL && danger_check_write(al->danger, rel, &hit)) {
		c->verdict = VERDICT_DANGER;
		c->rule = xstrdup("file-write");
		c->reason = xasprintf("danger: %s (%s)", hit.reason, hit.id);
		c->danger = steal_pointer(&hit.id);
		c->stake = steal_pointer(&hit.stake);
		danger_hit_release(&hit);
		return;
	}
	danger_hit_release(&hit);
	c->rule = xstrdup("file-write");
	if (fm.kind == FILEWRITE_ATTENTION) {
		c->verdict = VERDICT_ASK;
		c->reason = xasprintf("write_file: '%s' is %s (%s: %s)", rel,
		    filewrite_kind_name(fm.kind), fm.entry, fm.why);
		return;
	}
	c->verdict = VERDICT_ALLOW;
	c->reason = xasprintf("write_file: %s", fm.why);
}
