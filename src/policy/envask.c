/*
 * envask: the table of variables that make a program run other code
 * (envask.h), read from share/bwgate/env-ask.json and the user's own.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "envask.h"
#include "jsonutil.h"
#include "path.h"
#include "pathglob.h"
#include "xalloc.h"

#define ENVASK_MAX	4096	/* entries, all files together */

struct envask_entry {
	char		*name;		/* glob(7) pattern */
	char		*reason;
	struct strv	 harmless;	/* values that count for nothing */
};

struct envask {
	struct envask_entry	*v;
	size_t			 n;
};

/* Add one file's entries; -1 with cause naming the file. */
static int
envask_add_file(struct envask *e, const char *path, char **cause)
{
	cJSON		*j;
	const cJSON	*list, *o, *n, *r, *ver, *h;
	size_t		 i = 0;
	int		 rc = -1;

	if ((j = json_load_file(path, cause)) == NULL)
		return -1;
	ver = cJSON_GetObjectItem(j, "version");
	if (!cJSON_IsObject(j) || !cJSON_IsNumber(ver) ||
	    ver->valuedouble != 1) {
		*cause = xasprintf("'%s': not an env-ask table of version 1",
		    path);
		goto out;
	}
	list = cJSON_GetObjectItem(j, "env");
	if (!cJSON_IsArray(list)) {
		*cause = xasprintf("'%s': \"env\" must be an array", path);
		goto out;
	}
	cJSON_ArrayForEach(o, list) {
		n = cJSON_GetObjectItem(o, "name");
		r = cJSON_GetObjectItem(o, "reason");
		if (!cJSON_IsString(n) || n->valuestring[0] == '\0' ||
		    strchr(n->valuestring, '=') != NULL ||
		    !cJSON_IsString(r) || r->valuestring[0] == '\0') {
			*cause = xasprintf("'%s': env[%zu] needs a \"name\" "
			    "(a glob without '=') and a \"reason\"", path, i);
			goto out;
		}
		if (e->n == ENVASK_MAX) {
			*cause = xasprintf("'%s': more than %d entries", path,
			    ENVASK_MAX);
			goto out;
		}
		h = cJSON_GetObjectItem(o, "harmless");
		e->v = xreallocarray(e->v, e->n + 1, sizeof *e->v);
		memset(&e->v[e->n], 0, sizeof e->v[e->n]);
		e->v[e->n].name = xstrdup(n->valuestring);
		e->v[e->n].reason = xstrdup(r->valuestring);
		e->n++;
		if (h != NULL && (!cJSON_IsArray(h) ||
		    json_get_strv(h, &e->v[e->n - 1].harmless) != 0)) {
			*cause = xasprintf("'%s': env[%zu]: \"harmless\" must "
			    "be an array of strings", path, i);
			goto out;
		}
		i++;
	}
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

struct envask *
envask_load_file(const char *path, char **cause)
{
	struct envask	*e = xcalloc(1, sizeof *e);

	if (envask_add_file(e, path, cause) != 0) {
		envask_free(e);
		return NULL;
	}
	return e;
}

struct envask *
envask_load(char **cause)
{
	char		*shipped, *dir, *user = NULL;
	struct envask	*e;
	struct stat	 st;

	shipped = path_join(config_datadir(), "env-ask.json");
	e = envask_load_file(shipped, cause);
	free(shipped);
	if (e != NULL && (dir = config_user_dir()) != NULL) {
		user = path_join(dir, "env-ask.json");
		free(dir);
		if (stat(user, &st) == 0 && envask_add_file(e, user,
		    cause) != 0) {
			envask_free(e);
			e = NULL;
		}
	}
	free(user);
	return e;
}

const char *
envask_match(const struct envask *e, const char *name, const char *value)
{
	for (size_t i = 0; i < e->n; i++)
		if (pathglob_fnmatch(e->v[i].name, name) &&
		    !strv_contains(&e->v[i].harmless, value))
			return e->v[i].reason;
	return NULL;
}

void
envask_free(struct envask *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].name);
		free(e->v[i].reason);
		strv_release(&e->v[i].harmless);
	}
	free(e->v);
	free(e);
}
