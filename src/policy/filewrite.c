/* filewrite: which project paths a direct file write may touch freely,
   which need an operator and which are protected (filewrite.h). */
#include "autoconf.h"

#include <stdbool.h>
#include <string.h>

#include "filewrite.h"

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
	{ ".envrc", true, FILEWRITE_ATTENTION,
	  "direnv runs it when a shell enters the directory" },
	{ ".vscode", false, FILEWRITE_ATTENTION,
	  "editor tasks and settings can run programs" },
	{ ".idea", false, FILEWRITE_ATTENTION,
	  "IDE run configurations can run programs" },
	{ ".devcontainer", false, FILEWRITE_ATTENTION,
	  "container setup runs when the project is opened" },
	{ ".github/workflows", false, FILEWRITE_ATTENTION,
	  "CI runs it with the repository's secrets" },
	{ ".husky", false, FILEWRITE_ATTENTION,
	  "git hooks installed by npm projects" },
	{ ".pre-commit-config.yaml", false, FILEWRITE_ATTENTION,
	  "pre-commit runs the hooks it names" },
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

/* Classify a project-relative path. */
void
filewrite_classify(const char *rel, const struct strv *extra,
    struct filewrite_match *fm)
{
	const struct filewrite_rule	*e;

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
