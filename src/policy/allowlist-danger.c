/* allowlist-danger: what the danger table (danger.h) and the deletes
   table (share/bwgate/deletes.json) say of a classified command: the
   verdict danger, and a delete's operands for its at-stake line. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "allowlist-int.h"
#include "cleanup.h"
#include "danger.h"
#include "xalloc.h"

/* The operands of the deletes table's commands (a plain rm) beside a
   danger's delete, added to all: false when there is one whose operands
   cannot be measured (rm -f $F && rm -rf build). */
static bool
allowlist_danger_plain(const struct allowlist *al, const struct danger *t,
    const struct sh_script *s, const bool *allowed, struct strv *all)
{
	struct danger_hit	hit = DANGER_HIT_INIT;
	struct strv		plain = STRV_INIT;
	bool			any, ok;

	if (t == al->deletes || al->deletes == NULL)
		return true;
	any = danger_check(al->deletes, s, allowed, &hit);
	danger_hit_release(&hit);
	if (!any)
		return true;
	if ((ok = danger_measurable(al->deletes, s, allowed, &plain)))
		for (size_t i = 0; i < plain.n; i++)
			if (!strv_contains(all, plain.v[i]))
				strv_push(all, plain.v[i]);
	strv_release(&plain);
	return ok;
}

/* A command the danger table names: the verdict danger, its reason
   first, whatever the rules allowed. A delete the danger table does not
   name (deletes.json: rm -f out*.txt) keeps its verdict; its operands
   are kept for its at-stake line all the same. */
void
allowlist_danger_allowed(const struct allowlist *al,
    const struct sh_script *s, const bool *allowed, struct classification *c)
{
	struct danger_hit	 hit = DANGER_HIT_INIT;
	struct strv		 all = STRV_INIT;
	const struct danger	*t = NULL;
	char			*reason;

	if (danger_check(t = al->danger, s, allowed, &hit)) {
		reason = xasprintf("danger: %s (%s)%s%s", hit.reason, hit.id,
		    c->verdict == VERDICT_ALLOW ? "; the rules allow it: " :
		    "", c->verdict == VERDICT_ALLOW ? c->reason : "");
		free(c->reason);
		c->reason = reason;
		c->verdict = VERDICT_DANGER;
		c->danger = steal_pointer(&hit.id);
		strv_release(&c->runs);
		c->project_root = false;
	} else if (al->deletes == NULL ||
	    !danger_check(t = al->deletes, s, allowed, &hit))
		t = NULL;
	if (t != NULL) {
		c->stake = steal_pointer(&hit.stake);
		strv_release(&c->targets);
		c->targets = hit.targets;
		hit.targets = (struct strv)STRV_INIT;
		/* Only deletes, each operand known: the caller can measure
		   them against undo (stake_judge). Those of a plain rm
		   beside a danger's are measured too (rm -f big && rm -rf
		   build: undo must put back both). */
		if (strcmp(c->stake, "delete") == 0 &&
		    danger_measurable(t, s, allowed, &all) &&
		    allowlist_danger_plain(al, t, s, allowed, &all)) {
			strv_release(&c->targets);
			c->targets = all;
			all = (struct strv)STRV_INIT;
			c->measured = true;
		}
	}
	strv_release(&all);
	danger_hit_release(&hit);
}
