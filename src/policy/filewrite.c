/* filewrite: which project paths a direct file write may touch freely,
   which need an operator and which are protected (filewrite.h). */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "agentcfg.h"
#include "filewrite.h"
#include "xalloc.h"

struct filewrite_rule {
	const char		*path;
	bool			 any_depth;	/* a component anywhere */
	enum filewrite_kind	 kind;
	const char		*why;
};

/* Checked in order; the first match wins. */
static const struct filewrite_rule filewrite_rules[] = {
	{ ".git", true, FILEWRITE_PROTECTED,
	  "git metadata (hooks and config run on the host)" },
	{ ".bwgate.json", false, FILEWRITE_PROTECTED,
	  "the project's bwgate rules" },
	{ ".github/workflows", false, FILEWRITE_ATTENTION,
	  "CI runs it with the repository's secrets" },
	{ NULL, false, FILEWRITE_PLAIN, NULL }
};

/* rel is entry or lies below it. */
static bool
filewrite_within(const char *rel, const char *entry)
{
	size_t	 n = strlen(entry);

	while (n > 0 && entry[n - 1] == '/')
		n--;
	return n > 0 && strncmp(rel, entry, n) == 0 && (rel[n] == '\0' ||
	    rel[n] == '/');
}

/* Some component of rel is name. */
static bool
filewrite_component(const char *rel, const char *name)
{
	size_t	 len = strlen(name), n;

	for (const char *p = rel;; p += n + 1) {
		n = strcspn(p, "/");
		if (n == len && strncmp(p, name, n) == 0)
			return true;
		if (p[n] == '\0')
			return false;
	}
}

/* Does a "!path" entry of the list lift path? */
static bool
filewrite_lifted(const struct strv *list, const char *path)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->v[i][0] == '!' && strcmp(list->v[i] + 1, path) == 0)
			return true;
	return false;
}

/* Does the configuration lift an agent entry ("!.vscode/", as the
   sandbox takes it)? */
static bool
filewrite_agent_lifted(const struct strv *extra, const struct agentcfg_entry *a)
{
	char	*s;
	bool	 yes;

	if (extra == NULL)
		return false;
	s = xasprintf("%s%s", a->path, a->dir ? "/" : "");
	yes = filewrite_lifted(extra, s);
	free(s);
	return yes;
}

/* Classify a project-relative path. */
void
filewrite_classify(const char *rel, const struct strv *extra,
    struct filewrite_match *fm)
{
	const struct filewrite_rule	*e;
	const struct agentcfg		*t;
	const struct agentcfg_entry	*a;
	char				*cause = NULL;

	/* The configured protected paths first (what the sandbox mounts
	   read-only), less those a "!path" entry lifts. */
	for (size_t i = 0; extra != NULL && i < extra->n; i++) {
		if (extra->v[i][0] == '!' ||
		    !filewrite_within(rel, extra->v[i]) ||
		    filewrite_lifted(extra, extra->v[i]))
			continue;
		fm->kind = FILEWRITE_PROTECTED;
		fm->entry = extra->v[i];
		fm->why = "protected by the configuration";
		return;
	}
	for (e = filewrite_rules; e->path != NULL; e++) {
		if (e->kind != FILEWRITE_PROTECTED)
			break;	/* the agents' configuration first */
		if (e->any_depth ? filewrite_component(rel, e->path) :
		    filewrite_within(rel, e->path)) {
			fm->kind = e->kind;
			fm->entry = e->path;
			fm->why = e->why;
			return;
		}
	}
	/* What agents and editors run (agentcfg.h); without the table,
	   every write is refused. */
	if ((t = agentcfg_get(&cause)) == NULL) {
		free(cause);
		fm->kind = FILEWRITE_PROTECTED;
		fm->entry = rel;
		fm->why = "the table of agent configuration "
		    "(agent-config.json) cannot be read";
		return;
	}
	if ((a = agentcfg_match(t, rel)) != NULL && !filewrite_agent_lifted(
	    extra, a)) {
		fm->kind = FILEWRITE_PROTECTED;
		fm->entry = a->path;
		fm->why = a->why;
		return;
	}
	for (; e->path != NULL; e++) {
		if (e->any_depth ? filewrite_component(rel, e->path) :
		    filewrite_within(rel, e->path)) {
			fm->kind = e->kind;
			fm->entry = e->path;
			fm->why = e->why;
			return;
		}
	}
	fm->kind = FILEWRITE_PLAIN;
	fm->entry = NULL;
	fm->why = "a file inside the project";
}

/* A word for the kind. */
const char *
filewrite_kind_name(enum filewrite_kind k)
{
	switch (k) {
	case FILEWRITE_PROTECTED:
		return "protected";
	case FILEWRITE_ATTENTION:
		return "attention";
	case FILEWRITE_PLAIN:
		break;
	}
	return "plain";
}
