/* engine-spec: an engine run's policy, command and limits as JSON. */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "engine-spec.h"
#include "jsonutil.h"
#include "spawn.h"
#include "policy-json.h"
#include "xalloc.h"

/* A field added to struct engine_opts that comes from the configuration
   or the rules must travel in the spec too (see engine_spec_json). */
_Static_assert(sizeof(void *) != 8 || sizeof(struct engine_opts) == 488,
    "struct engine_opts changed: update engine-spec.c");

/* Keys a spec may hold. */
static const char *const spec_keys[] = {
	"version", "policy", "argv", "command", "timeout_ms", "grace_ms",
	"output_limit", "exclude", "attention", "limits", "shown_argv_sha256",
	"stdin", "merge", "cwd", "services", NULL
};

/* The spec of an engine run. */
cJSON *
engine_spec_json(const struct engine_opts *o)
{
	cJSON	*j = cJSON_CreateObject(), *lim;

	cJSON_AddNumberToObject(j, "version", ENGINE_SPEC_VERSION);
	cJSON_AddItemToObject(j, "policy", sandbox_policy_json(&o->policy));
	cJSON_AddItemToObject(j, "argv", json_strv(&o->argv));
	if (o->command != NULL)
		cJSON_AddStringToObject(j, "command", o->command);
	else
		cJSON_AddNullToObject(j, "command");
	cJSON_AddNumberToObject(j, "timeout_ms", o->timeout_ms);
	cJSON_AddNumberToObject(j, "grace_ms", o->grace_ms);
	cJSON_AddNumberToObject(j, "output_limit", (double)o->output_limit);
	cJSON_AddItemToObject(j, "exclude", json_strv(&o->exclude));
	cJSON_AddItemToObject(j, "attention", json_strv(&o->attention));
	lim = cJSON_AddObjectToObject(j, "limits");
	cJSON_AddNumberToObject(lim, "memory", (double)o->limits.memory);
	cJSON_AddNumberToObject(lim, "pids", o->limits.pids);
	cJSON_AddNumberToObject(lim, "cpu", o->limits.cpu_s);
	/* No input: the command reads /dev/null, whatever exec's stdin is
	   (a warm exec has a pipe there, for a request that streams). */
	if (o->stdin_fd == SPAWN_DEVNULL)
		cJSON_AddStringToObject(j, "stdin", "null");
	/* One stream for stdout and stderr, order kept (whatever exec's 1
	   and 2 are: a warm exec has two pipes). */
	if (o->merge_output)
		cJSON_AddTrueToObject(j, "merge");
	/* Where the shell ended, through a descriptor of its own. */
	if (o->track_cwd)
		cJSON_AddTrueToObject(j, "cwd");
	/* Its background processes may stay as a service (engine.h). */
	if (o->keep_services)
		cJSON_AddTrueToObject(j, "services");
	return j;
}

/* A whole number in [0, max] from a key; -1 if missing or not one. */
static int
spec_number(const cJSON *j, const char *key, double max, double *out)
{
	const cJSON	*e = cJSON_GetObjectItemCaseSensitive(j, key);

	if (!cJSON_IsNumber(e) || e->valuedouble < 0 ||
	    e->valuedouble > max || e->valuedouble != (double)(long long)
	    e->valuedouble)
		return -1;
	*out = e->valuedouble;
	return 0;
}

/* Read a spec, strictly: every key known, every value typed. */
int
engine_spec_parse(const cJSON *j, struct engine_opts *o, char **shown,
    char **cause)
{
	const cJSON	*e;
	double		 v, t, g, l, m, pi, cpu;
	size_t		 i;

	if (!cJSON_IsObject(j)) {
		*cause = xstrdup("spec: not a JSON object");
		return -1;
	}
	cJSON_ArrayForEach(e, j) {
		for (i = 0; spec_keys[i] != NULL; i++)
			if (e->string != NULL &&
			    strcmp(e->string, spec_keys[i]) == 0)
				break;
		if (spec_keys[i] == NULL) {
			*cause = xasprintf("spec: unknown key '%s'",
			    e->string != NULL ? e->string : "");
			return -1;
		}
	}
	if (spec_number(j, "version", 1e9, &v) != 0 ||
	    v != ENGINE_SPEC_VERSION) {
		*cause = xstrdup("spec: not version 1");
		return -1;
	}
	if (spec_number(j, "timeout_ms", 1e10, &t) != 0 ||
	    spec_number(j, "grace_ms", 1e9, &g) != 0 ||
	    spec_number(j, "output_limit", 1e12, &l) != 0) {
		*cause = xstrdup("spec: timeout_ms, grace_ms and output_limit "
		    "must be whole numbers");
		return -1;
	}
	sandbox_policy_release(&o->policy);
	sandbox_policy_init(&o->policy);
	if (sandbox_policy_from_json(cJSON_GetObjectItemCaseSensitive(j,
	    "policy"), &o->policy, cause) != 0)
		return -1;
	strv_release(&o->argv);
	e = cJSON_GetObjectItemCaseSensitive(j, "argv");
	if (!cJSON_IsArray(e) || json_get_strv(e, &o->argv) != 0 ||
	    o->argv.n == 0) {
		*cause = xstrdup("spec: argv must be a non-empty list of "
		    "strings");
		return -1;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "command");
	free(o->command);
	o->command = cJSON_IsString(e) ? xstrdup(e->valuestring) : NULL;
	strv_release(&o->exclude);
	e = cJSON_GetObjectItemCaseSensitive(j, "exclude");
	if (!cJSON_IsArray(e) || json_get_strv(e, &o->exclude) != 0) {
		*cause = xstrdup("spec: exclude must be a list of strings");
		return -1;
	}
	strv_release(&o->attention);
	e = cJSON_GetObjectItemCaseSensitive(j, "attention");
	if (!cJSON_IsArray(e) || json_get_strv(e, &o->attention) != 0) {
		*cause = xstrdup("spec: attention must be a list of strings");
		return -1;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "limits");
	if (!cJSON_IsObject(e) || spec_number(e, "memory", 1e15, &m) != 0 ||
	    spec_number(e, "pids", 1e7, &pi) != 0 ||
	    spec_number(e, "cpu", 1e7, &cpu) != 0) {
		*cause = xstrdup("spec: limits must hold whole numbers "
		    "memory, pids and cpu");
		return -1;
	}
	o->limits.memory = (uint64_t)m;
	o->limits.pids = (int)pi;
	o->limits.cpu_s = (int)cpu;
	o->timeout_ms = (int)(t > 2e9 ? 2e9 : t);
	o->grace_ms = (int)g;
	o->output_limit = (size_t)l;
	e = cJSON_GetObjectItemCaseSensitive(j, "stdin");
	if (e != NULL) {
		if (!cJSON_IsString(e) || strcmp(e->valuestring, "null") != 0) {
			*cause = xstrdup("spec: stdin must be \"null\" or absent");
			return -1;
		}
		o->stdin_fd = SPAWN_DEVNULL;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "merge");
	if (e != NULL) {
		if (!cJSON_IsTrue(e)) {
			*cause = xstrdup("spec: merge must be true or absent");
			return -1;
		}
		o->merge_output = true;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "cwd");
	if (e != NULL) {
		if (!cJSON_IsTrue(e)) {
			*cause = xstrdup("spec: cwd must be true or absent");
			return -1;
		}
		o->track_cwd = true;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "services");
	if (e != NULL) {
		if (!cJSON_IsTrue(e)) {
			*cause = xstrdup("spec: services must be true or "
			    "absent");
			return -1;
		}
		o->keep_services = true;
	}
	e = cJSON_GetObjectItemCaseSensitive(j, "shown_argv_sha256");
	if (shown != NULL)
		*shown = cJSON_IsString(e) ? xstrdup(e->valuestring) : NULL;
	return 0;
}

char *
engine_spec_sandbox_key(const cJSON *spec)
{
	static const char *const keys[] = { "policy", "limits", "stdin",
		"merge", "cwd" };
	cJSON	*k = cJSON_CreateObject();
	char	*s;

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(spec,
		    keys[i]);

		if (v != NULL)
			cJSON_AddItemToObject(k, keys[i],
			    cJSON_Duplicate(v, true));
	}
	s = cJSON_PrintUnformatted(k);
	cJSON_Delete(k);
	return s;
}

/* Read a spec from a descriptor. */
int
engine_spec_read_fd(int fd, struct engine_opts *o, char **shown,
    char **cause)
{
	struct buf	 b = BUF_INIT;
	cJSON		*j;
	int		 rc;

	if (buf_read_fd(&b, fd, ENGINE_SPEC_MAX) != 0) {
		*cause = xasprintf("cannot read the policy: %s",
		    strerror(errno));
		buf_release(&b);
		return -1;
	}
	j = json_parse_text(b.data != NULL ? b.data : "", "the policy",
	    cause);
	buf_release(&b);
	if (j == NULL)
		return -1;
	rc = engine_spec_parse(j, o, shown, cause);
	cJSON_Delete(j);
	return rc;
}
