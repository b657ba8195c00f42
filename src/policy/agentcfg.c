/* agentcfg: the agents' and editors' configuration table (agentcfg.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "agentcfg.h"
#include "config.h"
#include "jsonutil.h"
#include "path.h"
#include "pathglob.h"
#include "xalloc.h"

void
agentcfg_free(struct agentcfg *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].why);
	}
	free(t->v);
	free(t->file);
	free(t);
}

/* One entry of "paths"; -1 with cause naming it. */
static int
agentcfg_entry(struct agentcfg *t, const cJSON *e, const char *path,
    char **cause)
{
	const char	*p, *depth, *why;
	size_t		 len;

	p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
	depth = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e,
	    "depth"));
	why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "why"));
	if (p == NULL || depth == NULL || why == NULL) {
		*cause = xasprintf("%s: paths[%zu] needs the strings 'path', "
		    "'depth' and 'why'", path, t->n);
		return -1;
	}
	len = strlen(p);
	while (len > 0 && p[len - 1] == '/')
		len--;
	if (len == 0 || p[0] == '/' || path_has_dotdot(p) ||
	    strstr(p, "//") != NULL ||
	    (strcmp(depth, "any") != 0 && strcmp(depth, "root") != 0)) {
		*cause = xasprintf("%s: paths[%zu]: '%s' must be a path inside "
		    "the project, depth \"any\" or \"root\"", path, t->n, p);
		return -1;
	}
	t->v = xreallocarray(t->v, t->n + 1, sizeof *t->v);
	t->v[t->n].path = xstrndup(p, len);
	t->v[t->n].dir = p[len] == '/';
	t->v[t->n].any_depth = strcmp(depth, "any") == 0;
	t->v[t->n].why = xstrdup(why);
	t->n++;
	return 0;
}

struct agentcfg *
agentcfg_load(const char *path, char **cause)
{
	struct agentcfg	*t = xcalloc(1, sizeof *t);
	cJSON		*j, *paths, *e;

	if ((j = json_load_file(path, cause)) == NULL) {
		agentcfg_free(t);
		return NULL;
	}
	paths = cJSON_GetObjectItemCaseSensitive(j, "paths");
	if (!cJSON_IsArray(paths)) {
		*cause = xasprintf("%s: 'paths' must be an array", path);
		goto fail;
	}
	cJSON_ArrayForEach(e, paths)
		if (agentcfg_entry(t, e, path, cause) != 0)
			goto fail;
	t->file = xstrdup(path);
	cJSON_Delete(j);
	return t;
fail:
	cJSON_Delete(j);
	agentcfg_free(t);
	return NULL;
}

const struct agentcfg *
agentcfg_get(char **cause)
{
	static struct agentcfg	*table;
	char			*path;

	if (table != NULL)
		return table;
	path = path_join(config_datadir(), "agent-config.json");
	table = agentcfg_load(path, cause);
	free(path);
	return table;
}

const struct agentcfg_entry *
agentcfg_match(const struct agentcfg *t, const char *rel)
{
	for (size_t i = 0; t != NULL && i < t->n; i++) {
		const struct agentcfg_entry *e = &t->v[i];

		/* A component may be a glob ("*.code-workspace"). */
		if (pathglob_match(e->path, e->any_depth, rel) ==
		    PATHGLOB_WITHIN)
			return e;
	}
	return NULL;
}

void
agentcfg_strv(const struct agentcfg *t, struct strv *out)
{
	for (size_t i = 0; i < t->n; i++)
		strv_pushf(out, "%s%s%s", t->v[i].any_depth ?
		    AGENTCFG_ANY_DEPTH : "", t->v[i].path, t->v[i].dir ? "/" :
		    "");
}
