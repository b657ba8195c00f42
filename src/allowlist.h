/*
 * allowlist: verdicts for command strings (allow / ask / deny) and the
 * sandbox profile each verdict runs with.
 *
 * Rules come in layers: the shipped share/bwgate/allowlist.json, the
 * user's $XDG_CONFIG_HOME/bwgate/allowlist.json and the project's
 * .bwgate.json. The strictest decision wins (deny > ask > allow). A
 * project file's allow rules count only once the operator trusted that
 * file's exact content. Format: bwgate-allowlist(5).
 *
 *	struct allowlist *al = allowlist_load(project, &cause);
 *	struct classification c = CLASSIFICATION_INIT;
 *	allowlist_classify(al, "git status", &c);
 *	allowlist_profile_apply(al, c.profile, &policy, &cause);
 *	classification_release(&c);
 *	allowlist_free(al);
 */
#ifndef BWGATE_ALLOWLIST_H
#define BWGATE_ALLOWLIST_H

#include <cjson/cJSON.h>

#include "sandbox.h"
#include "strv.h"

enum verdict {
	VERDICT_ALLOW,
	VERDICT_ASK,
	VERDICT_DENY,
};

struct classification {
	enum verdict	 verdict;
	char		*rule;		/* "FILE:ID" that decided, or NULL */
	char		*reason;	/* in words, for people and agents */
	struct strv	 commands;	/* the simple commands found */
	char		*profile;	/* sandbox profile name */
};
#define CLASSIFICATION_INIT { VERDICT_ASK, NULL, NULL, STRV_INIT, NULL }

struct allowlist;

/* Load all layers for a project (NULL: no project layer). */
struct allowlist *allowlist_load(const char *project, char **cause);
void		 allowlist_free(struct allowlist *);
/* Classify a command string; never fails (unparsable -> ask). */
void		 allowlist_classify(const struct allowlist *, const char *command,
		    struct classification *);
/* Classify an argv (quoted and classified as a command string). */
void		 allowlist_classify_argv(const struct allowlist *,
		    const struct strv *argv, struct classification *);
/* Apply a named profile to a policy; -1 with cause if unknown. */
int		 allowlist_profile_apply(const struct allowlist *,
		    const char *profile, struct sandbox_policy *, char **cause);
void		 classification_release(struct classification *);
cJSON		*classification_json(const struct classification *);
const char	*verdict_name(enum verdict);

#endif
