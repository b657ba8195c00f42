/* netgroups: named groups of hosts (netgroups.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "domains.h"
#include "jsonutil.h"
#include "netgroups.h"
#include "path.h"
#include "xalloc.h"

/* Add the groups of one file to all (a name again replaces it). */
static int
netgroups_add_file(cJSON *all, const char *path, char **cause)
{
	cJSON		*j, *groups, *g, *d;
	const cJSON	*s;
	int		 rc = -1;

	if ((j = json_load_file(path, cause)) == NULL)
		return -1;
	groups = cJSON_GetObjectItemCaseSensitive(j, "groups");
	if (!cJSON_IsObject(groups)) {
		*cause = xasprintf("'%s': no \"groups\" object", path);
		goto out;
	}
	cJSON_ArrayForEach(g, groups) {
		d = cJSON_GetObjectItemCaseSensitive(g, "domains");
		if (!cJSON_IsObject(g) || !cJSON_IsArray(d)) {
			*cause = xasprintf("'%s': group \"%s\" needs a "
			    "\"domains\" array", path, g->string);
			goto out;
		}
		cJSON_ArrayForEach(s, d) {
			struct domain_pattern	p;
			char			*why = NULL;

			if (!cJSON_IsString(s) || domain_pattern_parse(
			    s->valuestring, &p, &why) != 0) {
				*cause = xasprintf("'%s': group \"%s\": %s",
				    path, g->string, why != NULL ? why :
				    "a pattern must be a string");
				free(why);
				goto out;
			}
			domain_pattern_release(&p);
		}
	}
	cJSON_ArrayForEach(g, groups) {
		cJSON_DeleteItemFromObjectCaseSensitive(all, g->string);
		cJSON_AddItemToObject(all, g->string, cJSON_Duplicate(g, 1));
	}
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

cJSON *
netgroups_load(char **cause)
{
	cJSON		*all = cJSON_CreateObject();
	char		*shipped, *dir, *user = NULL;
	struct stat	 st;
	int		 rc;

	shipped = path_join(config_datadir(), "domain-groups.json");
	rc = netgroups_add_file(all, shipped, cause);
	free(shipped);
	if (rc == 0 && (dir = config_user_dir()) != NULL) {
		user = path_join(dir, "domain-groups.json");
		free(dir);
		if (stat(user, &st) == 0)
			rc = netgroups_add_file(all, user, cause);
	}
	free(user);
	if (rc != 0) {
		cJSON_Delete(all);
		return NULL;
	}
	return all;
}

int
netgroups_expand(const struct strv *in, struct strv *out, char **cause)
{
	cJSON	*groups = NULL;
	int	 rc = -1;

	for (size_t i = 0; i < in->n; i++) {
		const char	*p = in->v[i];
		const cJSON	*g, *s;

		if (p[0] != '@') {
			struct domain_pattern dp;

			if (domain_pattern_parse(p, &dp, cause) != 0)
				goto out;
			domain_pattern_release(&dp);
			if (!strv_contains(out, p))
				strv_push(out, p);
			continue;
		}
		if (groups == NULL && (groups = netgroups_load(cause)) == NULL)
			goto out;
		g = cJSON_GetObjectItemCaseSensitive(groups, p + 1);
		if (g == NULL) {
			*cause = xasprintf("unknown group of hosts '%s' (see "
			    "domain-groups.json)", p);
			goto out;
		}
		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(g,
		    "domains"))
			if (!strv_contains(out, s->valuestring))
				strv_push(out, s->valuestring);
	}
	rc = 0;
out:
	cJSON_Delete(groups);
	return rc;
}
