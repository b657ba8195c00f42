/*
 * policy-json: a struct sandbox_policy to JSON and back, so that the
 * console can hand `bwgate exec` the exact policy the operator approved
 * (exec re-derives nothing from configuration or rules).
 *
 * Every field of struct sandbox_policy that shapes the sandbox is written
 * (helper and helper_fd are not: the observer is set up by the process
 * that runs the command). Reading is strict: a missing or unknown key, or
 * a value of the wrong type, is an error, so a field added to the struct
 * but not here cannot go missing silently.
 */
#ifndef BWGATE_POLICY_JSON_H
#define BWGATE_POLICY_JSON_H

#include <cjson/cJSON.h>

#include "sandbox.h"

cJSON	*sandbox_policy_json(const struct sandbox_policy *);
/* Fill pol (sandbox_policy_init'ed) from j; -1 with cause on error. */
int	 sandbox_policy_from_json(const cJSON *j, struct sandbox_policy *pol,
	    char **cause);

#endif
