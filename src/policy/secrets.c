/* secrets: the table of secret file names and the bounded walk that
   finds them in a project (secrets.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "config.h"
#include "jsonutil.h"
#include "path.h"
#include "secrets.h"
#include "strv.h"
#include "xalloc.h"

/* The walk stops (and answers "may hold one") past these. */
#define SECRETS_MAX_DEPTH	12
#define SECRETS_MAX_ENTRIES	100000

struct secrets {
	struct strv	 names;		/* glob(7) patterns */
	struct strv	 not;		/* ... that do not count */
};

struct secrets_walk {
	const struct secrets	*s;
	const char		*pattern;
	size_t			 seen;
	char			*found;
	bool			 incomplete;
};

/* Add one file's patterns. */
static int
secrets_add_file(struct secrets *s, const char *path, char **cause)
{
	cJSON		*j;
	const cJSON	*a, *b;
	int		 rc = -1;

	if ((j = json_load_file(path, cause)) == NULL)
		return -1;
	a = cJSON_GetObjectItemCaseSensitive(j, "secrets");
	b = cJSON_GetObjectItemCaseSensitive(j, "not");
	if (!cJSON_IsArray(a) || json_get_strv(a, &s->names) != 0 ||
	    (b != NULL && (!cJSON_IsArray(b) ||
	    json_get_strv(b, &s->not) != 0))) {
		*cause = xasprintf("'%s': \"secrets\" (and \"not\") must be "
		    "arrays of strings", path);
		goto out;
	}
	for (size_t i = 0; i < s->names.n; i++)
		if (s->names.v[i][0] == '\0' ||
		    strchr(s->names.v[i], '/') != NULL) {
			*cause = xasprintf("'%s': '%s' is not a file name "
			    "pattern", path, s->names.v[i]);
			goto out;
		}
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

struct secrets *
secrets_load_file(const char *path, char **cause)
{
	struct secrets	*s = xcalloc(1, sizeof *s);

	if (secrets_add_file(s, path, cause) != 0) {
		secrets_free(s);
		return NULL;
	}
	return s;
}

struct secrets *
secrets_load(char **cause)
{
	struct secrets	*s;
	char		*shipped, *dir, *user;
	struct stat	 st;

	shipped = path_join(config_datadir(), "secrets.json");
	s = secrets_load_file(shipped, cause);
	free(shipped);
	if (s == NULL || (dir = config_user_dir()) == NULL)
		return s;
	user = path_join(dir, "secrets.json");
	free(dir);
	if (stat(user, &st) == 0 && secrets_add_file(s, user, cause) != 0) {
		secrets_free(s);
		s = NULL;
	}
	free(user);
	return s;
}

void
secrets_free(struct secrets *s)
{
	if (s == NULL)
		return;
	strv_release(&s->names);
	strv_release(&s->not);
	free(s);
}

/* Does any pattern match name? */
static bool
secrets_any(const struct strv *pats, const char *name)
{
	for (size_t i = 0; i < pats->n; i++)
		if (fnmatch(pats->v[i], name, 0) == 0)
			return true;
	return false;
}

bool
secrets_name(const struct secrets *s, const char *name)
{
	const char	*b = strrchr(name, '/');

	b = b != NULL ? b + 1 : name;
	return s != NULL && *b != '\0' && secrets_any(&s->names, b) &&
	    !secrets_any(&s->not, b);
}

/* Walk the directory open at dfd (rel: its path); stops at the first
   secret. Takes dfd. */
static void
secrets_walk_dir(struct secrets_walk *w, int dfd, const char *rel,
    int depth)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		*sub;
	int		 fd;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		w->incomplete = true;
		return;
	}
	while (w->found == NULL && !w->incomplete && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->seen > SECRETS_MAX_ENTRIES) {
			w->incomplete = true;
			break;
		}
		sub = *rel != '\0' ? xasprintf("%s/%s", rel, de->d_name) :
		    xstrdup(de->d_name);
		if (secrets_name(w->s, de->d_name) && (w->pattern == NULL ||
		    fnmatch(w->pattern, de->d_name, FNM_PERIOD) == 0)) {
			w->found = sub;
			break;
		}
		if (strcmp(de->d_name, ".git") != 0 &&
		    strcmp(de->d_name, "node_modules") != 0 &&
		    beneath_child_stat(dirfd(d), de->d_name, &st) == 0 &&
		    S_ISDIR(st.st_mode)) {
			if (depth >= SECRETS_MAX_DEPTH)
				w->incomplete = true;
			else if ((fd = beneath_child(dirfd(d), de->d_name,
			    O_RDONLY | O_DIRECTORY)) < 0)
				w->incomplete = errno != EACCES;
			else
				secrets_walk_dir(w, fd, sub, depth + 1);
		}
		free(sub);
	}
	closedir(d);
}

char *
secrets_find(const struct secrets *s, const char *project,
    const char *pattern, char **cause)
{
	struct secrets_walk	 w = { s, pattern, 0, NULL, false };
	struct stat		 st;
	int			 root, fd;

	*cause = NULL;
	if (s == NULL || s->names.n == 0 || project == NULL)
		return NULL;
	if ((root = beneath_root(project, &st, cause)) < 0)
		return NULL;
	fd = beneath_open(root, ".", O_RDONLY | O_DIRECTORY, 0, cause);
	close(root);
	if (fd < 0)
		return NULL;
	secrets_walk_dir(&w, fd, "", 0);
	if (w.found == NULL && w.incomplete)
		*cause = xasprintf("the project is too large or deep to check "
		    "for secrets (more than %d entries or %d levels)",
		    SECRETS_MAX_ENTRIES, SECRETS_MAX_DEPTH);
	return w.found;
}
