/*
 * netgroups: named groups of hosts ("@npm", "@pypi") and the one way a
 * list of host patterns enters a policy.
 *
 * The groups ship in config_datadir()/domain-groups.json, {"groups":
 * {"npm": {"description": "...", "domains": ["registry.npmjs.org"]}}};
 * $XDG_CONFIG_HOME/bwgate/domain-groups.json adds groups or replaces one
 * of the same name. Expansion checks every pattern (domains.h), so a
 * policy holds plain, valid patterns only.
 *
 *	if (netgroups_expand(&given, &pol.domains, &cause) != 0) ... refuse
 */
#ifndef BWGATE_NETGROUPS_H
#define BWGATE_NETGROUPS_H

#include <cjson/cJSON.h>

#include "strv.h"

/* Append the patterns of in to out, groups expanded, no duplicates; -1
   with cause naming an unknown group or a bad pattern. */
int	 netgroups_expand(const struct strv *in, struct strv *out,
	    char **cause);
/* Every group: {"NAME": {"description","domains"}} (caller deletes), or
   NULL with cause. */
cJSON	*netgroups_load(char **cause);

#endif
