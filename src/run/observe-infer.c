/*
 * observe-infer: the fallback without seccomp notification: find the
 * refusals named in the command's error output.
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "log.h"
#include "observe-int.h"
#include "observe.h"
#include "pathwalk.h"
#include "xalloc.h"

/*
 * The fallback: error output. Each table row is a phrase that names a
 * refusal; the path is found around it.
 */
enum observe_cause {
	CAUSE_EROFS,
	CAUSE_EACCES,
	CAUSE_ENOENT,
	CAUSE_EBUSY,
	CAUSE_NET,
};

static const struct {
	const char		*text;
	enum observe_cause	 cause;
} observe_causes[] = {
	{ "Read-only file system", CAUSE_EROFS },
	{ "Permission denied", CAUSE_EACCES },
	{ "Device or resource busy", CAUSE_EBUSY },
	{ "No such file or directory", CAUSE_ENOENT },
	{ "Network is unreachable", CAUSE_NET },
	{ "Temporary failure in name resolution", CAUSE_NET },
	{ "Could not resolve host", CAUSE_NET },
	{ "Could not resolve hostname", CAUSE_NET },
	{ "Name or service not known", CAUSE_NET },
	{ "No address associated with hostname", CAUSE_NET },
	{ "unable to resolve host", CAUSE_NET },
	{ "Failed to resolve", CAUSE_NET },
	{ "getaddrinfo failed", CAUSE_NET },
	{ "Connection refused", CAUSE_NET },
};

/* Phrases before the path that name the operation (first match wins). */
static const struct {
	const char	*text;
	const char	*op;
	bool		 creates;	/* ENOENT then means "not visible" */
} observe_verbs[] = {
	{ "cannot create directory", "mkdir", true },
	{ "cannot create regular file", "create", true },
	{ "cannot create symbolic link", "symlink", true },
	{ "failed to create symbolic link", "symlink", true },
	{ "failed to create hard link", "link", true },
	{ "cannot create hard link", "link", true },
	{ "cannot touch", "create", true },
	{ "cannot remove", "delete", false },
	{ "cannot move", "rename", false },
	{ "cannot rename", "rename", false },
	{ "changing permissions", "chmod", false },
	{ "changing ownership", "chown", false },
	{ "cannot create", "create", true },
	{ "unable to create", "create", true },
	{ "could not create", "create", true },
	{ "couldn't create", "create", true },
	{ "could not lock", "write", false },
	{ "cannot open", "write", false },
	{ "couldn't open", "write", false },
	{ "could not open", "write", false },
	{ "truncat", "truncate", false },
};

/* Case-insensitive strstr over [s, s + n). */
static const char *
observe_find(const char *s, size_t n, const char *what)
{
	size_t	len = strlen(what);

	for (size_t i = 0; i + len <= n; i++)
		if (strncasecmp(s + i, what, len) == 0)
			return s + i;
	return NULL;
}

/* The quoted string that ends at end (exclusive), if any. */
static char *
observe_quoted_before(const char *start, const char *end)
{
	const char	*q;

	if (end - start >= 2 && end[-1] == '\'' ) {
		for (q = end - 2; q >= start; q--)
			if (*q == '\'')
				return xstrndup(q + 1, (size_t)(end - 2 - q));
	}
	if (end - start >= 2 && end[-1] == '"') {
		for (q = end - 2; q >= start; q--)
			if (*q == '"')
				return xstrndup(q + 1, (size_t)(end - 2 - q));
	}
	/* ‘...’ (UTF-8 quotes of coreutils) */
	if (end - start >= 6 && memcmp(end - 3, "\xe2\x80\x99", 3) == 0) {
		for (q = end - 6; q >= start; q--)
			if (memcmp(q, "\xe2\x80\x98", 3) == 0)
				return xstrndup(q + 3, (size_t)(end - 3 -
				    (q + 3)));
	}
	return NULL;
}

/* Find the path named before the cause: "...'PATH': cause", "PATH: ...". */
static char *
observe_path_before(const char *line, const char *cause)
{
	const char	*end = cause, *f, *w;
	char		*q;

	/* "PATH: cause" or "PATH (cause" */
	while (end > line && (end[-1] == ' ' || end[-1] == ':' ||
	    end[-1] == '('))
		end--;
	if (end == line)
		return NULL;
	if ((q = observe_quoted_before(line, end)) != NULL)
		return q;
	/* the last ": "-separated field, then its last word */
	for (f = end; f > line && !(f[-1] == ' ' && f - 1 > line &&
	    f[-2] == ':'); f--)
		;
	for (w = end; w > f && w[-1] != ' '; w--)
		;
	if (w == end)
		return NULL;
	return xstrndup(w, (size_t)(end - w));
}

/* The path after the cause: Python's "cause: 'PATH'". */
static char *
observe_path_after(const char *after)
{
	const char	*e;
	char		 quote;

	if (after[0] != ':' || after[1] != ' ')
		return NULL;
	after += 2;
	quote = *after;
	if (quote != '\'' && quote != '"')
		return NULL;
	if ((e = strchr(after + 1, quote)) == NULL)
		return NULL;
	return xstrndup(after + 1, (size_t)(e - after - 1));
}

/* A host name named in a resolver error, if one can be found. */
static char *
observe_host_in(const char *line, const char *cause)
{
	const char	*p, *e;

	if ((p = strstr(line, "resolve host: ")) != NULL) {
		p += strlen("resolve host: ");
	} else if ((p = strstr(line, "resolve hostname ")) != NULL) {
		p += strlen("resolve hostname ");
	} else if ((p = strstr(line, "Failed to resolve '")) != NULL) {
		p += strlen("Failed to resolve '");
	} else
		return xstrdup("network");
	for (e = p; *e != '\0' && *e != ' ' && *e != ':' && *e != '\'' &&
	    *e != '"' && *e != '\n'; e++)
		;
	if (e == p)
		return xstrdup("network");
	return xstrndup(p, (size_t)(e - p));
}

int
observe_parse_line(const char *line, bool network, char **path,
    const char **operation, const char **cause)
{
	const char	*at = NULL, *verb;
	size_t		 i, len = strlen(line);
	int		 c = -1;
	bool		 creates = false;

	*path = NULL;
	*operation = NULL;
	*cause = NULL;
	for (i = 0; i < sizeof observe_causes / sizeof *observe_causes; i++) {
		if ((at = strstr(line, observe_causes[i].text)) != NULL) {
			c = (int)observe_causes[i].cause;
			*cause = observe_causes[i].text;
			break;
		}
	}
	if (c < 0)
		return 0;
	if (c == CAUSE_NET) {
		if (network)
			return 0;
		*path = observe_host_in(line, at);
		*operation = "connect";
		return 1;
	}
	*operation = "write";
	for (i = 0; i < sizeof observe_verbs / sizeof *observe_verbs; i++) {
		verb = observe_find(line, (size_t)(at - line),
		    observe_verbs[i].text);
		if (verb != NULL) {
			*operation = observe_verbs[i].op;
			creates = observe_verbs[i].creates;
			break;
		}
	}
	if (c == CAUSE_ENOENT && !creates)
		return 0;	/* reading something missing: not a refusal */
	*path = observe_path_after(at + strlen(*cause));
	if (*path == NULL)
		*path = observe_path_before(line, at);
	if (*path == NULL || (*path)[0] == '\0' || len == 0) {
		free(*path);
		*path = NULL;
		return 0;
	}
	return 1;
}

void
observe_infer(const char *text, size_t len, const struct sandbox *sb,
    const char *cwd, bool network, struct violations *vs)
{
	const char	*p = text, *end = text + len, *nl, *op, *cause;
	char		*line, *path;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		line = xstrndup(p, (size_t)(nl - p));
		p = nl + 1;
		if (!observe_parse_line(line, network, &path, &op, &cause)) {
			free(line);
			continue;
		}
		free(line);
		if (strcmp(op, "connect") == 0) {
			observe_add(vs, path, op, VIOLATION_NETWORK, false);
			free(path);
			continue;
		}
		{
			_cleanup_free_ char *abs = pathwalk_normalise(cwd, path);
			const struct sandbox_mount *m =
			    sandbox_mount_for(sb, abs);
			enum mount_kind k = m != NULL ? m->kind : MOUNT_HIDDEN;
			bool ok = false;
			enum violation_reason r = VIOLATION_READ_ONLY;

			if (k == MOUNT_PROTECTED) {
				r = VIOLATION_PROTECTED;
				ok = strcmp(cause, "No such file or directory")
				    != 0;
			} else if (k == MOUNT_HIDDEN) {
				/* Never the host's view (observe-judge.c):
				   a failed write there is the sandbox's. */
				r = VIOLATION_NOT_VISIBLE;
				ok = true;
			} else if (k == MOUNT_RO || k == MOUNT_SYMLINK) {
				ok = strcmp(cause, "Read-only file system") == 0
				    || strcmp(cause, "Permission denied") == 0;
			} else if (strcmp(cause, "Read-only file system") == 0)
				ok = true;	/* the kernel said so */
			if (ok)
				observe_add(vs, abs, op, r, false);
		}
		free(path);
	}
}
