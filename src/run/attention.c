/* attention: the changes that need the operator's look (attention.h). */
#include "autoconf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attention.h"
#include "beneath.h"
#include "buf.h"
#include "path.h"
#include "pathglob.h"
#include "xalloc.h"

#define ANY_X	(S_IXUSR | S_IXGRP | S_IXOTH)

/* Does a path have a component named name? */
static bool
attention_has_component(const char *path, const char *name)
{
	size_t		 n = strlen(name);
	const char	*p = path;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == path || p[-1] == '/') &&
		    (p[n] == '\0' || p[n] == '/'))
			return true;
		p += n;
	}
	return false;
}

/* A pattern: "dir/" is the directory and everything below; else exact;
   a leading "**" "/" at any depth. */
bool
attention_match(const char *path, const char *pattern)
{
	size_t	n = strlen(pattern);

	if (strncmp(pattern, "**/", 3) == 0) {
		for (const char *p = path; p != NULL; p = strchr(p, '/')) {
			if (*p == '/')
				p++;
			if (attention_match(p, pattern + 3))
				return true;
		}
		return false;
	}

	while (strncmp(pattern, "./", 2) == 0) {
		pattern += 2;
		n -= 2;
	}
	if (n == 0)
		return false;
	if (strcspn(pattern, "*?[") < n) {
		/* A glob entry of the protected table ("*.code-workspace"). */
		char	*e = xstrndup(pattern, pattern[n - 1] == '/' ?
		    n - 1 : n);
		bool	 yes = pathglob_match(e, false, path) ==
		    PATHGLOB_WITHIN;

		free(e);
		return yes;
	}
	if (pattern[n - 1] == '/')
		return strncmp(path, pattern, n - 1) == 0 &&
		    (path[n - 1] == '\0' || path[n - 1] == '/');
	return strcmp(path, pattern) == 0;
}

/* Resolve "." and ".." in an absolute path, lexically (in place). */
static void
attention_normalize(char *p)
{
	char	*out = p, *s = p, *e;
	size_t	 n;

	while (*s != '\0') {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		e = strchr(s, '/');
		n = e != NULL ? (size_t)(e - s) : strlen(s);
		if (n == 1 && s[0] == '.')
			;
		else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Where the symbolic link rel (at abs) points, if that is outside the
   project (read through the door: root is the project's). */
static char *
attention_link_outside(int root, const char *rel, const char *abs,
    const char *project)
{
	char	 target[PATH_MAX], *dir, *full;
	ssize_t	 n = beneath_readlink(root, rel, target, sizeof target - 1);

	if (n < 0)
		return NULL;
	target[n] = '\0';
	if (target[0] == '/')
		full = xstrdup(target);
	else {
		dir = xstrdup(abs);
		*strrchr(dir, '/') = '\0';
		full = xasprintf("%s/%s", dir, target);
		free(dir);
	}
	attention_normalize(full);
	if (path_is_under(full, project)) {
		free(full);
		return NULL;
	}
	free(full);
	return xstrdup(target);
}

/* The kinds that depend only on the name. */
static void
attention_by_name(struct result *r, const char *rel,
    const struct strv *patterns, const char *what)
{
	char	*why;

	if (attention_has_component(rel, ".git")) {
		why = xasprintf("%s under .git: git runs hooks and "
		    "configuration from there outside the sandbox", what);
		attentions_add(&r->attention, rel, "git", why);
		free(why);
	}
	if (attention_has_component(rel, ".bwgate.json") &&
	    strcmp(strrchr(rel, '/') != NULL ? strrchr(rel, '/') + 1 : rel,
	    ".bwgate.json") == 0) {
		why = xasprintf("%s: bwgate's own rules", what);
		attentions_add(&r->attention, rel, "rules", why);
		free(why);
		return;
	}
	for (size_t i = 0; patterns != NULL && i < patterns->n; i++) {
		if (!attention_match(rel, patterns->v[i]))
			continue;
		why = xasprintf("%s: an auto-run path (%s): editors, shells, "
		    "CI or git run what is there", what, patterns->v[i]);
		attentions_add(&r->attention, rel, "auto-run", why);
		free(why);
		break;
	}
}

/* The kinds that depend on the file as it is now, looked at through the
   door (root: the project's, or -1 when it cannot be opened). from: its
   path before (a rename), or NULL for a new file. */
static void
attention_by_state(struct result *r, const char *rel, int root,
    const char *project, const struct snapshot *before, const char *from,
    bool created)
{
	const struct snapshot_entry	*old;
	struct stat			 st;
	char				*abs, *t, *why;

	if (root < 0 || beneath_lstat(root, rel, &st) != 0)
		return;
	abs = path_join(project, rel);
	if (S_ISLNK(st.st_mode)) {
		if ((t = attention_link_outside(root, rel, abs, project)) !=
		    NULL) {
			why = xasprintf("a symbolic link pointing outside the "
			    "project, to %s", t);
			attentions_add(&r->attention, rel, "symlink", why);
			free(why);
			free(t);
		}
	} else if (S_ISREG(st.st_mode)) {
		if ((st.st_mode & ANY_X) != 0) {
			old = before != NULL ? snapshot_find(before,
			    from != NULL ? from : rel) : NULL;
			if (created && from == NULL)
				attentions_add(&r->attention, rel,
				    "executable", "a new executable file");
			else if (old != NULL && S_ISREG(old->mode) &&
			    (old->mode & ANY_X) == 0)
				attentions_add(&r->attention, rel,
				    "executable", "became executable");
		}
		if (st.st_nlink > 1) {
			why = xasprintf("has %lu hard links: its content is "
			    "shared with another name, maybe outside the "
			    "project", (unsigned long)st.st_nlink);
			attentions_add(&r->attention, rel, "hardlink", why);
			free(why);
		}
	}
	free(abs);
}

/* Look at every change once. */
void
attention_collect(struct result *r, const char *project,
    const struct strv *patterns, const struct snapshot *before)
{
	const struct changes	*c = &r->changes;
	struct stat		 rst;
	char			*cause = NULL;
	int			 root = -1;

	if (c->created.n > 0 || c->modified.n > 0 || c->nrenamed > 0) {
		root = beneath_root(project, &rst, &cause);
		free(cause);
	}
	for (size_t i = 0; i < c->created.n; i++) {
		attention_by_name(r, c->created.v[i], patterns, "created");
		attention_by_state(r, c->created.v[i], root, project, before,
		    NULL, true);
	}
	for (size_t i = 0; i < c->modified.n; i++) {
		attention_by_name(r, c->modified.v[i], patterns, "modified");
		attention_by_state(r, c->modified.v[i], root, project, before,
		    c->modified.v[i], false);
	}
	for (size_t i = 0; i < c->deleted.n; i++)
		attention_by_name(r, c->deleted.v[i], patterns, "deleted");
	for (size_t i = 0; i < c->nrenamed; i++) {
		attention_by_name(r, c->renamed[i].from, patterns,
		    "renamed away");
		attention_by_name(r, c->renamed[i].to, patterns,
		    "renamed here");
		attention_by_state(r, c->renamed[i].to, root, project,
		    before, c->renamed[i].from, false);
	}
	if (root >= 0)
		close(root);
}
