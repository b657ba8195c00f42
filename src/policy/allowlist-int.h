/*
 * allowlist-int: what allowlist.c (classify), allowlist-layers.c and
 * allowlist-trust.c share. Private to src/policy.
 */
#ifndef BWGATE_ALLOWLIST_INT_H
#define BWGATE_ALLOWLIST_INT_H

#include "allowlist.h"
#include "rules.h"


enum layer_kind {
	LAYER_DEFAULT,
	LAYER_USER,
	LAYER_PROJECT,
};

struct layer {
	enum layer_kind	 kind;
	struct rulefile	 rf;
	bool		 trusted;	/* allow rules and profiles count */
};

struct allowlist {
	struct layer	 layers[3];
	size_t		 nlayers;
};

/* allowlist.c: classify text; with only != NULL consider just that rule. */
void	 allowlist_classify_only(const struct allowlist *,
	    const struct rule *, const char *, struct classification *);

/* allowlist-layers.c: a profile, later layers first; untrusted project
   files skipped. */
const struct profile *allowlist_profile(const struct allowlist *,
	    const char *);

/* allowlist-trust.c: is this content (sha256) of file trusted? */
bool	 allowlist_is_trusted(const char *, const char *, char **);

#endif
