/*
 * pathwalk: normalise a path against a base directory and resolve its
 * symlinks one component at a time through a caller's readlink (so the
 * walk can happen inside another process's root).
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cleanup.h"
#include "pathwalk.h"
#include "xalloc.h"

/* The next name of a path at p (slashes skipped), *end just past it;
   NULL at the end of the path. */
static const char *
path_component(const char *p, const char **end)
{
	while (*p == '/')
		p++;
	if (*p == '\0')
		return NULL;
	if ((*end = strchr(p, '/')) == NULL)
		*end = p + strlen(p);
	return p;
}

/* "." and ".." applied to an absolute path being built in b; false for
   any other name (which the caller appends). */
static bool
path_dots(struct buf *b, const char *p, size_t len)
{
	char	*slash;

	if (len == 1 && p[0] == '.')
		return true;
	if (len != 2 || p[0] != '.' || p[1] != '.')
		return false;
	if ((slash = strrchr(b->data, '/')) != NULL) {
		b->len = (size_t)(slash - b->data);
		b->data[b->len] = '\0';
	}
	return true;
}

char *
pathwalk_normalise(const char *base, const char *path)
{
	struct buf	 out = BUF_INIT;
	_cleanup_free_ char *joined = NULL;
	const char	*p, *e;
	size_t		 len;

	if (path[0] == '/' || base == NULL)
		joined = xasprintf("/%s", path);
	else
		joined = xasprintf("%s/%s", base, path);
	buf_puts(&out, "");
	for (p = joined; (p = path_component(p, &e)) != NULL; p = e) {
		len = (size_t)(e - p);
		if (path_dots(&out, p, len))
			continue;
		buf_putc(&out, '/');
		buf_add(&out, p, len);
	}
	if (out.len == 0)
		buf_putc(&out, '/');
	return buf_detach(&out);
}

char *
pathwalk_join(const char *base, const char *path)
{
	struct buf	 out = BUF_INIT;
	_cleanup_free_ char *joined = NULL;
	const char	*p, *e;
	size_t		 len;

	if (path[0] == '/' || base == NULL)
		joined = xasprintf("/%s", path);
	else
		joined = xasprintf("%s/%s", base, path);
	buf_puts(&out, "");
	for (p = joined; (p = path_component(p, &e)) != NULL; p = e) {
		len = (size_t)(e - p);
		if (len == 1 && p[0] == '.')
			continue;
		buf_putc(&out, '/');
		buf_add(&out, p, len);
	}
	if (out.len == 0)
		buf_putc(&out, '/');
	return buf_detach(&out);
}

char *
pathwalk_resolve(const char *path, bool follow, pathwalk_readlink_cb rl,
    void *arg, bool *missing)
{
	struct buf	 done = BUF_INIT;
	char		*todo, *next, target[PATH_MAX];
	const char	*p, *e;
	size_t		 len, saved;
	int		 links = 0;
	ssize_t		 n;
	bool		 last;

	*missing = false;
	todo = xstrdup(path);
	buf_puts(&done, "");
	for (p = todo; (p = path_component(p, &e)) != NULL; p = e) {
		len = (size_t)(e - p);
		/* done never holds a symlink, so ".." is lexical. */
		if (path_dots(&done, p, len))
			continue;
		saved = done.len;
		buf_putc(&done, '/');
		buf_add(&done, p, len);
		if (*missing)
			continue;	/* nothing below a missing name */
		last = e[strspn(e, "/")] == '\0';
		if (last && !follow)
			break;
		n = rl(arg, done.data, target, sizeof target - 1);
		if (n < 0) {
			/* A missing last name is fine (it may be created). */
			if (errno != EINVAL && !last)
				*missing = true;
			continue;
		}
		if (++links > 40) {
			/* ELOOP: the call fails anyway. */
			*missing = true;
			continue;
		}
		target[n] = '\0';
		if (target[0] == '/')
			done.len = 0;
		else
			done.len = saved;
		done.data[done.len] = '\0';
		next = xasprintf("%s/%s", target, e);
		free(todo);
		todo = next;
		e = todo;
	}
	free(todo);
	if (done.len == 0)
		buf_putc(&done, '/');
	return buf_detach(&done);
}
