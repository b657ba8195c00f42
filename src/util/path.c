/* path: joining, canonicalising and comparing absolute paths. */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "xalloc.h"

char *
path_join(const char *a, const char *b)
{
	size_t	la = strlen(a);

	while (la > 0 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	if (*b == '\0')
		return la == 0 ? xstrdup("/") : xstrndup(a, la);
	return xasprintf("%.*s/%s", (int)la, a, b);
}

bool
path_is_under(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

char *
path_relative(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		n = 0;
	if (!path_is_under(path, dir))
		return xstrdup(path);
	if (path[n] == '\0')
		return xstrdup(".");
	return xstrdup(path + n + 1);
}

char *
path_canonical(const char *p, char **cause)
{
	char	*r = realpath(p, NULL);

	if (r == NULL)
		*cause = xasprintf("cannot resolve '%s': %s", p,
		    strerror(errno));
	return r;
}

char *
path_real(const char *p)
{
	return realpath(p, NULL);
}

char *
path_canonical_prefix(const char *path)
{
	char	*copy = xstrdup(path), *slash, *real, *res;
	size_t	 cut;

	for (;;) {
		if ((real = realpath(copy, NULL)) != NULL)
			break;
		if ((slash = strrchr(copy, '/')) == NULL || slash == copy) {
			free(copy);
			return xstrdup(path);
		}
		*slash = '\0';
	}
	cut = strlen(copy);
	res = xasprintf("%s%s", real, path + cut);
	free(real);
	free(copy);
	return res;
}

char *
path_canonical_maybe(const char *p, char **cause)
{
	char	*dir, *base, *slash, *r, *out;

	if ((r = realpath(p, NULL)) != NULL)
		return r;
	if (errno != ENOENT) {
		*cause = xasprintf("cannot resolve '%s': %s", p,
		    strerror(errno));
		return NULL;
	}
	dir = xstrdup(p);
	while ((slash = strrchr(dir, '/')) != NULL && slash[1] == '\0' &&
	    slash != dir)
		*slash = '\0';
	slash = strrchr(dir, '/');
	if (slash == NULL) {
		base = xstrdup(dir);
		free(dir);
		dir = xstrdup(".");
	} else {
		base = xstrdup(slash + 1);
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	r = path_canonical(dir, cause);
	out = r == NULL ? NULL : path_join(r, base);
	free(r);
	free(dir);
	free(base);
	return out;
}

/*
 * An ancestor's .git makes it the project only when it is the caller's:
 * the .git is owned by the caller and the directory holding it is not
 * writable by others (a .git someone drops in /tmp, or another user's,
 * never captures a project below it), and it is on the same file system
 * as where the search started (as git stops there). The directory itself
 * is its own project whatever its .git, and a home directory is never
 * the project of what lies below it.
 */
static bool
path_git_ours(const char *dir, const struct stat *git, dev_t dev)
{
	const char	*home = getenv("HOME");
	char		*h;
	struct stat	 st;
	bool		 is_home = false;

	/* A home directory kept in git (dotfiles) is no project of what
	   lies below it. */
	if (home != NULL && *home == '/' && (h = path_real(home)) !=
	    NULL) {
		is_home = strcmp(h, dir) == 0;
		free(h);
	}
	return !is_home && stat(dir, &st) == 0 && st.st_dev == dev &&
	    (st.st_mode & S_IWOTH) == 0 && git->st_uid == geteuid();
}

/* The top level is looked for along dir as given (the hook's cwd may
   pass through a link: its project is where the name lies, not where
   the link leads), then made canonical. */
char *
path_project_of(const char *dir, char **cause)
{
	char	*top, *c;

	top = path_git_toplevel(dir);
	c = path_canonical(top != NULL ? top : dir, cause);
	free(top);
	return c;
}

char *
path_git_toplevel(const char *dir)
{
	char		*cur = xstrdup(dir), *git, *slash;
	struct stat	 st, start;
	bool		 first = true;

	if (stat(dir, &start) != 0) {
		free(cur);
		return NULL;
	}
	for (;; first = false) {
		git = path_join(cur, ".git");
		if (lstat(git, &st) == 0 && (first ||
		    path_git_ours(cur, &st, start.st_dev))) {
			free(git);
			return cur;
		}
		free(git);
		slash = strrchr(cur, '/');
		if (slash == NULL || (slash == cur && cur[1] == '\0'))
			break;
		if (slash == cur)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(cur);
	return NULL;
}

char *
path_expand_home(const char *p)
{
	const char	*home = getenv("HOME");

	if (strncmp(p, "~/", 2) == 0 && home != NULL)
		return path_join(home, p + 2);
	if (strcmp(p, "~") == 0 && home != NULL)
		return xstrdup(home);
	return xstrdup(p);
}

/* Does a component of p climb up ("..")? */
bool
path_has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")) != NULL; s += 2) {
		if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return true;
	}
	return false;
}

/* A PATH value for a sandbox: absolute entries only, none inside skip1 or
   skip2 (the project, the hidden home; either may be NULL). */
char *
path_env_clean(const char *value, const char *skip1, const char *skip2)
{
	char	*copy = xstrdup(value), *e, *last, *out = xstrdup("");

	for (e = strtok_r(copy, ":", &last); e != NULL;
	    e = strtok_r(NULL, ":", &last)) {
		char	*real, *next;

		if (e[0] != '/')
			continue;
		real = path_real(e);
		if ((skip1 != NULL && (path_is_under(e, skip1) ||
		    (real != NULL && path_is_under(real, skip1)))) ||
		    (skip2 != NULL && (path_is_under(e, skip2) ||
		    (real != NULL && path_is_under(real, skip2))))) {
			free(real);
			continue;
		}
		free(real);
		next = xasprintf("%s%s%s", out, out[0] != '\0' ? ":" : "", e);
		free(out);
		out = next;
	}
	free(copy);
	return out;
}

/* The first executable name in a PATH value, or NULL (caller frees). */
char *
path_search(const char *name, const char *value)
{
	char	*copy = xstrdup(value), *e, *last, *p;

	for (e = strtok_r(copy, ":", &last); e != NULL;
	    e = strtok_r(NULL, ":", &last)) {
		struct stat st;

		p = path_join(e, name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}
