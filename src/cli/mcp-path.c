/*
 * mcp-path: the paths an agent names in the MCP file tools, kept inside the
 * project (beneath.h opens them) and checked against the file-write rules
 * (filewrite.h) and the hidden paths of the configuration.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "beneath.h"
#include "filewrite.h"
#include "mcp.h"
#include "pathglob.h"
#include "protect.h"
#include "report.h"
#include "strv.h"
#include "xalloc.h"

/* The path relative to the project; NULL with cause. */
char *
mcp_path_relative(const struct mcp *m, const char *path, char **cause)
{
	char	*rel = beneath_relative(m->project, path, cause);
	char	*why;

	if (rel == NULL) {
		why = xasprintf("%s (paths stay inside the project '%s')",
		    *cause, m->project);
		free(*cause);
		*cause = why;
	}
	return rel;
}

/* Open rel beneath the project. */
int
mcp_path_open(const struct mcp *m, const char *rel, int flags, mode_t mode,
    char **cause)
{
	return beneath_open(m->project_fd, rel, flags, mode, cause);
}

/* The directory that holds rel. */
int
mcp_path_parent(const struct mcp *m, const char *rel, bool mkdirs,
    const char **name, char **cause)
{
	return beneath_parent(m->project_fd, rel, mkdirs, name, cause);
}

/* Why rel may not be written because the repository's own config runs it
   (core.hooksPath, an included config: protect.h), or NULL. Read at each
   write: the sandbox's policy reads it at each request too. */
static char *
mcp_path_hooks(const struct mcp *m, const char *rel)
{
	struct strv	 hooks = STRV_INIT;
	char		*cause = NULL, *why = NULL;

	if (m->project == NULL)
		return NULL;
	if (protect_git_read(m->project, &hooks, &cause) != 0) {
		why = xasprintf("'%s': the repository's git config cannot be "
		    "read (%s)", rel, cause);
		free(cause);
		return why;
	}
	for (size_t i = 0; i < hooks.n && why == NULL; i++) {
		char	*e = xstrdup(hooks.v[i]);
		size_t	 n = strlen(e);

		if (n > 0 && e[n - 1] == '/')
			e[n - 1] = '\0';
		if (pathglob_match(e, false, rel) == PATHGLOB_WITHIN)
			why = xasprintf("'%s' is %s (%s: the repository's git "
			    "config runs it, core.hooksPath or an include): "
			    "leave it alone or ask the operator for the "
			    "agent-config profile", rel,
			    violation_reason_name(VIOLATION_PROTECTED),
			    hooks.v[i]);
		free(e);
	}
	strv_release(&hooks);
	return why;
}

/* Why rel may not be written (the sandbox's reason and hint), or NULL. */
char *
mcp_path_protected(const struct mcp *m, const char *rel)
{
	struct filewrite_match	fm;

	filewrite_classify(rel, &m->protected, &fm);
	if (fm.kind != FILEWRITE_PROTECTED)
		return mcp_path_hooks(m, rel);
	return xasprintf("'%s' is %s (%s: %s): %s", rel,
	    violation_reason_name(VIOLATION_PROTECTED), fm.entry, fm.why,
	    violation_protected_hint(rel));
}

/* rel is entry or lies below it. */
static bool
path_within(const char *rel, const char *entry)
{
	size_t	 n = strlen(entry);

	while (n > 0 && entry[n - 1] == '/')
		n--;
	return strncmp(rel, entry, n) == 0 && (rel[n] == '\0' ||
	    rel[n] == '/');
}

/* Why rel may not be read. */
char *
mcp_path_hidden(const struct mcp *m, const char *rel)
{
	for (size_t i = 0; i < m->hidden.n; i++)
		if (path_within(rel, m->hidden.v[i]))
			return xasprintf("'%s' is %s (hidden by the "
			    "configuration): %s", rel,
			    violation_reason_name(VIOLATION_NOT_VISIBLE),
			    violation_hint(VIOLATION_NOT_VISIBLE));
	return NULL;
}
