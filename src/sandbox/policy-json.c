/* policy-json: a sandbox policy as JSON and back (see policy-json.h). */
#include "autoconf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "policy-json.h"
#include "xalloc.h"

enum pj_type { PJ_STR, PJ_BOOL, PJ_STRV };

/* The table of fields: adding one to struct sandbox_policy means adding
   it here. */
static const struct pj_field {
	const char	*name;
	enum pj_type	 type;
	size_t		 off;
} pj_fields[] = {
	{ "project", PJ_STR, offsetof(struct sandbox_policy, project) },
	{ "cwd", PJ_STR, offsetof(struct sandbox_policy, cwd) },
	{ "profile", PJ_STR, offsetof(struct sandbox_policy, profile) },
	{ "project_readonly", PJ_BOOL,
	    offsetof(struct sandbox_policy, project_readonly) },
	{ "git_writable", PJ_BOOL,
	    offsetof(struct sandbox_policy, git_writable) },
	{ "agent_config_writable", PJ_BOOL,
	    offsetof(struct sandbox_policy, agent_config_writable) },
	{ "network", PJ_BOOL, offsetof(struct sandbox_policy, network) },
	{ "domains", PJ_STRV, offsetof(struct sandbox_policy, domains) },
	{ "allow_userns", PJ_BOOL,
	    offsetof(struct sandbox_policy, allow_userns) },
	{ "allow_ptrace", PJ_BOOL,
	    offsetof(struct sandbox_policy, allow_ptrace) },
	{ "seccomp", PJ_BOOL, offsetof(struct sandbox_policy, seccomp) },
	{ "rw_paths", PJ_STRV, offsetof(struct sandbox_policy, rw_paths) },
	{ "ro_paths", PJ_STRV, offsetof(struct sandbox_policy, ro_paths) },
	{ "hide_paths", PJ_STRV, offsetof(struct sandbox_policy, hide_paths) },
	{ "protected", PJ_STRV, offsetof(struct sandbox_policy, protected) },
	{ "agent_config", PJ_STRV,
	    offsetof(struct sandbox_policy, agent_config) },
	{ "git_hooks", PJ_STRV, offsetof(struct sandbox_policy, git_hooks) },
	{ "env_pass", PJ_STRV, offsetof(struct sandbox_policy, env_pass) },
	{ "env_set", PJ_STRV, offsetof(struct sandbox_policy, env_set) },
	{ "env_agent", PJ_BOOL, offsetof(struct sandbox_policy, env_agent) },
	{ "env_in", PJ_STRV, offsetof(struct sandbox_policy, env_in) },
};
#define PJ_NFIELDS (sizeof pj_fields / sizeof pj_fields[0])

/*
 * A field added to struct sandbox_policy must be added to the table, or
 * exec --policy-fd would silently run without it. This breaks the build
 * on 64-bit hosts until the table and the size below are updated together.
 */
_Static_assert(sizeof(void *) != 8 || sizeof(struct sandbox_policy) == 304,
    "struct sandbox_policy changed: update pj_fields in policy-json.c");

/* The policy as one JSON object. */
cJSON *
sandbox_policy_json(const struct sandbox_policy *pol)
{
	cJSON		*j = cJSON_CreateObject();
	const char	*base = (const char *)pol;

	for (size_t i = 0; i < PJ_NFIELDS; i++) {
		const struct pj_field	*f = &pj_fields[i];
		const void		*p = base + f->off;

		switch (f->type) {
		case PJ_STR:
			if (*(char *const *)p == NULL)
				cJSON_AddNullToObject(j, f->name);
			else
				cJSON_AddStringToObject(j, f->name,
				    *(char *const *)p);
			break;
		case PJ_BOOL:
			cJSON_AddBoolToObject(j, f->name, *(const bool *)p);
			break;
		case PJ_STRV:
			cJSON_AddItemToObject(j, f->name,
			    json_strv((const struct strv *)p));
			break;
		}
	}
	return j;
}

/* The field a key names, or NULL. */
static const struct pj_field *
pj_find(const char *name)
{
	for (size_t i = 0; i < PJ_NFIELDS; i++)
		if (strcmp(pj_fields[i].name, name) == 0)
			return &pj_fields[i];
	return NULL;
}

/* Read a policy back, strictly. */
int
sandbox_policy_from_json(const cJSON *j, struct sandbox_policy *pol,
    char **cause)
{
	const struct pj_field	*f;
	const cJSON		*e;
	char			*base = (char *)pol;
	uint32_t		 seen = 0;

	if (!cJSON_IsObject(j)) {
		*cause = xstrdup("policy: not a JSON object");
		return -1;
	}
	cJSON_ArrayForEach(e, j) {
		void	*p;

		if (e->string == NULL || (f = pj_find(e->string)) == NULL) {
			*cause = xasprintf("policy: unknown key '%s'",
			    e->string != NULL ? e->string : "");
			return -1;
		}
		p = base + f->off;
		seen |= 1u << (f - pj_fields);
		switch (f->type) {
		case PJ_STR:
			if (!cJSON_IsString(e) && !cJSON_IsNull(e))
				goto bad;
			free(*(char **)p);
			*(char **)p = cJSON_IsString(e) ?
			    xstrdup(e->valuestring) : NULL;
			break;
		case PJ_BOOL:
			if (!cJSON_IsBool(e))
				goto bad;
			*(bool *)p = cJSON_IsTrue(e);
			break;
		case PJ_STRV:
			strv_release((struct strv *)p);
			if (!cJSON_IsArray(e) ||
			    json_get_strv(e, (struct strv *)p) != 0)
				goto bad;
			break;
		}
	}
	for (size_t i = 0; i < PJ_NFIELDS; i++) {
		if ((seen & (1u << i)) == 0) {
			*cause = xasprintf("policy: no '%s'",
			    pj_fields[i].name);
			return -1;
		}
	}
	if (pol->project == NULL || pol->cwd == NULL) {
		*cause = xstrdup("policy: no project or working directory");
		return -1;
	}
	return 0;
bad:
	*cause = xasprintf("policy: '%s' has the wrong type", f->name);
	return -1;
}
