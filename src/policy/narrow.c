/* narrow: a project rule file may narrow, never widen (see narrow.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "narrow.h"
#include "path.h"
#include "xalloc.h"

/*
 * A key added to struct profile must be judged here (may a project file
 * set it?): nested sandboxes, for one, may not. This breaks the build on
 * 64-bit hosts until narrow_widens() and the size below are updated.
 */
_Static_assert(sizeof(void *) != 8 || sizeof(struct profile) == 72,
    "struct profile changed: decide in narrow.c whether it widens");

/* Inside the project once "~/" and symbolic links are resolved. */
bool
narrow_path_inside(const char *path, const char *project)
{
	char	*p, *canon, *proj, *cause = NULL;
	bool	 inside;

	if ((p = path_expand_home(path)) == NULL || p[0] != '/' ||
	    strstr(p, "/../") != NULL || (strlen(p) >= 3 &&
	    strcmp(p + strlen(p) - 3, "/..") == 0)) {
		free(p);
		return false;
	}
	canon = path_canonical_maybe(p, &cause);
	free(cause);
	cause = NULL;
	proj = path_canonical(project, &cause);
	free(cause);
	inside = canon != NULL && proj != NULL && path_is_under(canon, proj);
	free(canon);
	free(proj);
	free(p);
	return inside;
}

/* What a profile grants beyond the project's own files. */
const char *
narrow_widens(const struct profile *p, const char *project)
{
	if (p->network)
		return "the network";
	if (p->domains.n > 0)
		return "the network (named hosts: domains)";
	if (p->git_writable)
		return "a writable .git (git_writable)";
	if (p->agent_config_writable)
		return "writable agent and editor configuration "
		    "(agent_config_writable)";
	for (size_t i = 0; i < p->writable.n; i++)
		if (!narrow_path_inside(p->writable.v[i], project))
			return "writable paths outside the project";
	return NULL;
}

/* A profile of the lower layers by name, the highest layer first. */
static const struct profile *
narrow_lower_profile(const struct rulefile *const *lower, size_t nlower,
    const char *name)
{
	const struct profile	*p;

	for (size_t i = nlower; i > 0; i--)
		if ((p = rulefile_profile(lower[i - 1], name)) != NULL)
			return p;
	return NULL;
}

/* Check the project file's profiles, then the profiles its rules use. */
int
narrow_check(const struct rulefile *proj, const struct rulefile *const *lower,
    size_t nlower, const char *project, char **cause)
{
	const struct profile	*p;
	const struct rule	*r;
	const char		*why;
	char			*copy, *n, *last;

	if (proj->domains.n > 0) {
		*cause = xasprintf("'%s': domains: grants the network (named "
		    "hosts); a project file may narrow the sandbox, never "
		    "widen it (the operator's per-project rules may)",
		    proj->path);
		return -1;
	}
	for (size_t i = 0; i < proj->nprofiles; i++) {
		const char	*at[2] = { "profiles", proj->profiles[i].name };
		int		 line = rulefile_line(proj->text, at, 2);

		p = &proj->profiles[i];
		if (narrow_lower_profile(lower, nlower, p->name) != NULL) {
			*cause = xasprintf("'%s':%d: profiles.%s: replaces the "
			    "profile of the same name in the shipped or user "
			    "rules; a project file may only add profiles",
			    proj->path, line, p->name);
			return -1;
		}
		if ((why = narrow_widens(p, project)) != NULL) {
			*cause = xasprintf("'%s':%d: profiles.%s: grants %s; "
			    "a project file may narrow the sandbox, never "
			    "widen it (only your own configuration can)",
			    proj->path, line, p->name, why);
			return -1;
		}
	}
	for (size_t i = 0; i < proj->nrules; i++) {
		r = &proj->rules[i];
		if (r->verdict == VERDICT_DENY || r->profile == NULL)
			continue;
		copy = xstrdup(r->profile);
		for (n = strtok_r(copy, "+", &last); n != NULL;
		    n = strtok_r(NULL, "+", &last)) {
			if (rulefile_profile(proj, n) != NULL ||
			    (p = narrow_lower_profile(lower, nlower, n)) ==
			    NULL || (why = narrow_widens(p, project)) == NULL)
				continue;
			*cause = rulefile_error(proj, i, "profile",
			    "the profile \"%s\" grants %s; a project rule may "
			    "narrow the sandbox, never widen it (only your "
			    "own configuration can)", n, why);
			free(copy);
			return -1;
		}
		free(copy);
	}
	return 0;
}
