/*
 * hook-path: the hook's Write/Edit check decides on the file Claude Code
 * would really write. Claude Code expands "~" with the home directory and
 * resolves a relative file_path against the session's working directory
 * (path.resolve: "." and ".." by name); the kernel then follows links. A
 * check of the string alone lets "link/x" (a link out of the project) and
 * "~/.bashrc" through, so the path is resolved here the same way.
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "hook-path.h"
#include "strv.h"
#include "xalloc.h"

/* Split an absolute path into components, "." dropped, ".." taken back
   (above "/" it stays at "/", as path.resolve does). */
static void
hook_path_split(const char *abs, struct strv *out)
{
	const char	*p = abs, *e;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		if (e == NULL)
			e = p + strlen(p);
		if (e - p == 1 && p[0] == '.')
			;
		else if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			if (out->n > 0) {	/* "/.." is "/" */
				free(out->v[--out->n]);
				out->v[out->n] = NULL;
			}
		} else {
			char *c = xstrndup(p, (size_t)(e - p));

			strv_push(out, c);
			free(c);
		}
		p = e;
	}
}

/* "/" followed by the first n components. */
static char *
hook_path_prefix(const struct strv *c, size_t n)
{
	struct buf	b = BUF_INIT;

	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "/%s", c->v[i]);
	if (b.len == 0)
		buf_puts(&b, "/");
	return buf_detach(&b);
}

char *
hook_path_resolve(const char *fp, const char *cwd, const char *home,
    char **cause)
{
	struct strv	 c = STRV_INIT;
	struct buf	 b = BUF_INIT;
	char		*abs, *pre, *real = NULL, link[PATH_MAX];
	size_t		 k;
	ssize_t		 n;

	if (fp[0] == '~' && (fp[1] == '\0' || fp[1] == '/')) {
		if (home == NULL || home[0] != '/') {
			*cause = xasprintf("'%s' starts with '~' and HOME is "
			    "not an absolute path", fp);
			return NULL;
		}
		abs = xasprintf("%s/%s", home, fp + 1);
	} else if (fp[0] == '/')
		abs = xstrdup(fp);
	else if (cwd == NULL || cwd[0] != '/') {
		*cause = xasprintf("'%s' is relative and the call has no "
		    "absolute 'cwd' to resolve it against", fp);
		return NULL;
	} else
		abs = xasprintf("%s/%s", cwd, fp);
	hook_path_split(abs, &c);
	free(abs);
	/* The longest prefix that exists, with its links followed. Not the
	   door (beneath.h), which follows no link: this resolver must
	   reach the file Claude Code's own write will reach, as the
	   kernel resolves it, to judge it (tests/build/resolve.sh lets
	   this file call realpath). */
	for (k = c.n + 1; k-- > 0;) {
		pre = hook_path_prefix(&c, k);
		real = realpath(pre, NULL);
		if (real == NULL && errno != ENOENT) {
			*cause = xasprintf("cannot resolve '%s': %s", pre,
			    strerror(errno));
			free(pre);
			strv_release(&c);
			return NULL;
		}
		free(pre);
		if (real != NULL)
			break;
	}
	if (real == NULL) {	/* not even "/": cannot happen */
		*cause = xstrdup("cannot resolve '/'");
		strv_release(&c);
		return NULL;
	}
	/* The first missing name must not be a link to nothing: writing
	   through it would create the link's target, wherever it is. */
	if (k < c.n) {
		pre = hook_path_prefix(&c, k + 1);
		if ((n = readlink(pre, link, sizeof link - 1)) >= 0) {
			link[n] = '\0';
			*cause = xasprintf("'%s' is a symbolic link to '%s', "
			    "which does not exist", pre, link);
			free(pre);
			free(real);
			strv_release(&c);
			return NULL;
		}
		free(pre);
	}
	buf_puts(&b, strcmp(real, "/") == 0 ? "" : real);
	for (size_t i = k; i < c.n; i++)
		buf_printf(&b, "/%s", c.v[i]);
	if (b.len == 0)
		buf_puts(&b, "/");
	free(real);
	strv_release(&c);
	return buf_detach(&b);
}
