/*
 * protect-git: what the repository's own config makes git run from the
 * project (protect.h, protect_git_read), read without running git.
 *
 * git runs the hooks of core.hooksPath when set (relative to the work
 * tree, where hooks run), so that directory is protected like .git/hooks.
 * The config may include other files ([include] and [includeIf] path):
 * one inside the project is protected too (the command could set any key
 * there, core.fsmonitor included) and read, whatever its condition (that
 * it may apply is enough); one outside is read too (the command cannot
 * change it). A missing file is nothing, as for git. What cannot be known
 * -- a file that cannot be read (a link, a FIFO, a directory, too large)
 * or parsed, includes nested deeper than git allows -- makes the usual
 * hook directories protected instead: a guess, said so in bwgate(1).
 *
 * Every file is read through the door (beneath.h): the project's below its
 * descriptor, any other (the git directory of a linked worktree, an
 * include from elsewhere) below its own directory opened as a root;
 * non-blocking, no link followed, regular files only, at most
 * PROTECT_GIT_MAX bytes. The repository read is the one git finds from
 * the project's root: its own, or the nearest one above it (a relative
 * core.hooksPath is relative to that work tree). Repositories nested
 * deeper and the global and system configs are not read (the latter are
 * the operator's own).
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "path.h"
#include "protect.h"
#include "strv.h"
#include "xalloc.h"

#define PROTECT_GIT_MAX		(1024 * 1024)
#define PROTECT_GIT_DEPTH	10	/* git's own include limit */

/* Where hooks usually live when core.hooksPath cannot be known. */
static const char *const git_hook_guesses[] = {
	".githooks/", ".git-hooks/", "githooks/", "git-hooks/", ".hooks/",
	"scripts/githooks/", "scripts/git-hooks/", NULL
};

struct gitread {
	const char	*project;
	int		 root;		/* the project's descriptor */
	const char	*worktree;	/* the work tree holding the project:
					   it, or a directory above it */
	struct strv	*out;
	bool		 unknown;
};

static void	gitread_file(struct gitread *, const char *abs, int depth);

/* Push "rel" (a directory when dir) once. */
static void
gitread_push(struct gitread *g, const char *rel, bool dir)
{
	char	*s = xasprintf("%s%s", rel, dir ? "/" : "");

	if (!strv_contains(g->out, s))
		strv_push(g->out, s);
	free(s);
}

/* Normalise an absolute path lexically ("." and ".." and repeated '/'
   gone); the caller frees. */
static char *
gitread_normal(const char *abs)
{
	char	*out = xmalloc(strlen(abs) + 2), *o = out;

	for (const char *p = abs; *p != '\0';) {
		size_t	 n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.')
			;
		else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

/* Read a whole regular file through the door: the project's descriptor
   for one inside, its directory opened as a root otherwise. NULL with
   errno (ENOENT when absent). */
static char *
gitread_load(struct gitread *g, const char *abs)
{
	char		*rel = NULL, *dir = NULL, *buf = NULL;
	char		*cause = NULL;
	const char	*name;
	struct stat	 st;
	int		 dfd = -1, fd = -1, e = 0;
	size_t		 len = 0;
	ssize_t		 r;

	if (path_is_under(abs, g->project) && strcmp(abs, g->project) != 0) {
		rel = path_relative(abs, g->project);
		fd = beneath_open(g->root, rel, O_RDONLY | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC, 0, &cause);
	} else {
		name = strrchr(abs, '/') + 1;
		dir = xstrndup(abs, (size_t)(name - abs));
		if ((dfd = beneath_root(dir, &st, &cause)) >= 0)
			fd = beneath_open(dfd, name, O_RDONLY | O_NONBLOCK |
			    O_NOCTTY | O_CLOEXEC, 0, &cause);
	}
	e = errno;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > PROTECT_GIT_MAX))
		e = EINVAL;
	else if (fd >= 0) {
		buf = xmalloc((size_t)st.st_size + 1);
		while (len < (size_t)st.st_size && (r = read(fd, buf + len,
		    (size_t)st.st_size - len)) > 0)
			len += (size_t)r;
		buf[len] = '\0';
	}
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(rel);
	free(dir);
	free(cause);
	errno = buf != NULL ? 0 : (e != 0 ? e : EIO);
	return buf;
}

/* One value of a config line from p on: quotes, escapes, comments and
   continued lines as git reads them; *end after it. NULL when malformed. */
static char *
gitread_value(const char *p, const char **end)
{
	char	*v = xmalloc(strlen(p) + 1), *o = v, *trim = v;
	bool	 quoted = false;

	while (*p == ' ' || *p == '\t')
		p++;
	for (;; p++) {
		if (*p == '\0' || (*p == '\n' && !quoted))
			break;
		if (*p == '\n' || (!quoted && (*p == '#' || *p == ';'))) {
			if (quoted)
				goto bad;
			while (*p != '\0' && *p != '\n')
				p++;
			break;
		}
		if (*p == '"') {
			quoted = !quoted;
			trim = o;
			continue;
		}
		if (*p == '\\') {
			p++;
			switch (*p) {
			case '\n':
				continue;
			case 'n': *o++ = '\n'; break;
			case 't': *o++ = '\t'; break;
			case 'b': *o++ = '\b'; break;
			case '"': case '\\': *o++ = *p; break;
			default: goto bad;
			}
			trim = o;
			continue;
		}
		*o++ = *p;
		if (quoted || (*p != ' ' && *p != '\t'))
			trim = o;
	}
	if (quoted)
		goto bad;
	*trim = '\0';
	*end = p;
	return v;
bad:
	free(v);
	return NULL;
}

/* A section header at p ('[' ... ']'): *sect gets "core", "include",
   "includeif" (lower case; the subsection is not needed). -1 if bad. */
static int
gitread_section(const char *p, char *sect, size_t size, const char **end)
{
	size_t	 n = 0;

	for (p++; isalnum((unsigned char)*p) || *p == '-' || *p == '.';
	    p++) {
		if (*p == '.' || n + 1 >= size)
			break;
		sect[n++] = (char)tolower((unsigned char)*p);
	}
	/* A subsection marks the name ("core." for [core "x"]): core.x.
	   hookspath is not core.hooksPath; any include is read. */
	if ((*p == '.' || *p == ' ' || *p == '\t') && n + 1 < size)
		sect[n++] = '.';
	sect[n] = '\0';
	if (*p == '.') {
		/* [section.subsection], the old form. */
		while (*p != '\0' && *p != ']' && *p != '\n')
			p++;
	} else if (*p == ' ' || *p == '\t') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p++ != '"')
			return -1;
		for (; *p != '"'; p++) {
			if (*p == '\\' && p[1] != '\0' && p[1] != '\n')
				p++;
			else if (*p == '\0' || *p == '\n')
				return -1;
		}
		p++;
	}
	if (*p != ']' || n == 0 || sect[0] == '.')
		return -1;
	*end = p + 1;
	return 0;
}

/* A path value of git's config as git reads it (~/ is the home, a
   relative one is from base), normalised. */
static char *
gitread_path(const char *base, const char *v)
{
	char	*abs, *norm;

	if (strncmp(v, "~/", 2) == 0)
		abs = path_expand_home(v);
	else if (*v == '/')
		abs = xstrdup(v);
	else
		abs = path_join(base, v);
	norm = gitread_normal(abs);
	free(abs);
	return norm;
}

/* A hooksPath value: the directory it names inside the project. */
static void
gitread_hooks(struct gitread *g, const char *v)
{
	char	*norm;

	if (*v == '\0')
		return;
	norm = gitread_path(g->worktree, v);
	if (strcmp(norm, g->project) == 0) {
		/* Hooks in the root itself: the names git runs. */
		static const char *const names[] = { "applypatch-msg",
		    "pre-applypatch", "post-applypatch", "pre-commit",
		    "pre-merge-commit", "prepare-commit-msg", "commit-msg",
		    "post-commit", "pre-rebase", "post-checkout",
		    "post-merge", "pre-push", "pre-receive", "update",
		    "proc-receive", "post-receive", "post-update",
		    "reference-transaction", "push-to-checkout",
		    "pre-auto-gc", "post-rewrite", "sendemail-validate",
		    "fsmonitor-watchman", "p4-changelist",
		    "p4-prepare-changelist", "p4-post-changelist",
		    "p4-pre-submit", "post-index-change", NULL };

		for (const char *const *n = names; *n != NULL; n++)
			gitread_push(g, *n, false);
	} else if (path_is_under(norm, g->project)) {
		char *rel = path_relative(norm, g->project);

		gitread_push(g, rel, true);
		free(rel);
	}
	free(norm);
}

/* An include's path (from the file in dir): protected when inside the
   project, then read. */
static void
gitread_include(struct gitread *g, const char *dir, const char *v,
    int depth)
{
	char	*norm;

	if (*v == '\0')
		return;
	norm = gitread_path(dir, v);
	if (path_is_under(norm, g->project) && strcmp(norm, g->project) != 0) {
		char *rel = path_relative(norm, g->project);

		gitread_push(g, rel, false);
		free(rel);
	}
	gitread_file(g, norm, depth + 1);
	free(norm);
}

/* Parse one config file's text (dir: where it lies, for includes). */
static void
gitread_parse(struct gitread *g, const char *text, const char *dir,
    int depth)
{
	char		 sect[32] = "", key[64];
	const char	*p = text, *end;

	while (*p != '\0') {
		size_t	 n = 0;
		char	*v;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		if (*p == '#' || *p == ';') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '[') {
			if (gitread_section(p, sect, sizeof sect, &end) != 0)
				goto bad;
			p = end;
			continue;
		}
		while (isalnum((unsigned char)*p) || *p == '-') {
			if (n + 1 < sizeof key)
				key[n++] = (char)tolower((unsigned char)*p);
			p++;
		}
		key[n] = '\0';
		if (n == 0 || !isalpha((unsigned char)key[0]))
			goto bad;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '=') {
			/* A key without a value (true), or a comment after. */
			if (*p != '\n' && *p != '\0' && *p != '#' && *p != ';')
				goto bad;
			p += strcspn(p, "\n");
			continue;
		}
		if ((v = gitread_value(p + 1, &end)) == NULL)
			goto bad;
		p = end;
		if (strcmp(sect, "core") == 0 && strcmp(key, "hookspath") == 0)
			gitread_hooks(g, v);
		else if ((strcmp(sect, "include") == 0 ||
		    strcmp(sect, "include.") == 0 ||
		    strcmp(sect, "includeif.") == 0) &&
		    strcmp(key, "path") == 0)
			gitread_include(g, dir, v, depth);
		free(v);
	}
	return;
bad:
	g->unknown = true;
}

/* Read and parse one config file (absolute, normalised). */
static void
gitread_file(struct gitread *g, const char *abs, int depth)
{
	char	*text, *dir;

	if (depth > PROTECT_GIT_DEPTH) {
		g->unknown = true;
		return;
	}
	if ((text = gitread_load(g, abs)) == NULL) {
		if (errno != ENOENT)
			g->unknown = true;
		return;
	}
	dir = xstrndup(abs, (size_t)(strrchr(abs, '/') - abs));
	gitread_parse(g, text, dir[0] == '\0' ? "/" : dir, depth);
	free(dir);
	free(text);
}

/* The first line of a small file below dir (a .git file, commondir):
   trimmed, or NULL. */
static char *
gitread_line(struct gitread *g, const char *abs)
{
	char	*text = gitread_load(g, abs);
	size_t	 n;

	if (text == NULL)
		return NULL;
	n = strcspn(text, "\r\n");
	text[n] = '\0';
	return text;
}

/* The git directory of a .git file ("gitdir: PATH", relative to the
   project), and the common directory of a linked worktree's; NULL when
   it cannot be read. */
static char *
gitread_gitdir(struct gitread *g, char **common)
{
	char	*abs = path_join(g->worktree, ".git"), *line, *dir, *c;

	line = gitread_line(g, abs);
	free(abs);
	if (line == NULL || strncmp(line, "gitdir: ", 8) != 0) {
		free(line);
		return NULL;
	}
	abs = line[8] == '/' ? xstrdup(line + 8) : path_join(g->worktree,
	    line + 8);
	dir = gitread_normal(abs);
	free(abs);
	free(line);
	abs = path_join(dir, "commondir");
	line = gitread_line(g, abs);
	free(abs);
	if (line == NULL && errno == ENOENT) {
		*common = xstrdup(dir);
		return dir;
	}
	if (line == NULL) {
		free(dir);
		return NULL;
	}
	c = line[0] == '/' ? xstrdup(line) : path_join(dir, line);
	*common = gitread_normal(c);
	free(c);
	free(line);
	return dir;
}

/* The work tree holding the project: the project when it has a .git, else
   the nearest directory above with one (a project in a subdirectory of a
   repository: git finds that one, and a relative core.hooksPath there may
   name a directory of the project); NULL when there is none. *st gets
   the .git's lstat. Each directory above is opened through the door. */
static char *
gitread_worktree(struct gitread *g, struct stat *st)
{
	char	*dir = xstrdup(g->project), *slash, *cause = NULL;
	int	 fd;

	if (beneath_lstat(g->root, ".git", st) == 0)
		return dir;
	if (errno != ENOENT)
		g->unknown = true;
	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if ((fd = beneath_root(dir, st, &cause)) < 0) {
			free(cause);
			break;
		}
		if (beneath_lstat(fd, ".git", st) == 0) {
			close(fd);
			return dir;
		}
		close(fd);
	}
	free(dir);
	return NULL;
}

int
protect_git_read(const char *project, struct strv *out, char **cause)
{
	struct gitread	 g = { project, -1, NULL, out, false };
	struct stat	 st;
	char		*wt, *dir = NULL, *common = NULL, *f;

	if ((g.root = beneath_root(project, &st, cause)) < 0)
		return -1;
	if ((wt = gitread_worktree(&g, &st)) == NULL)
		;	/* no repository */
	else if (S_ISDIR(st.st_mode)) {
		g.worktree = wt;
		f = path_join(wt, ".git/config");
		gitread_file(&g, f, 0);
		free(f);
	} else if (S_ISREG(st.st_mode) && (g.worktree = wt) != NULL &&
	    (dir = gitread_gitdir(&g, &common)) != NULL) {
		/* A linked worktree or a submodule: the common config and
		   the worktree's own (extensions.worktreeConfig). */
		f = path_join(common, "config");
		gitread_file(&g, f, 0);
		free(f);
		f = path_join(dir, "config.worktree");
		gitread_file(&g, f, 0);
		free(f);
	} else
		g.unknown = true;
	if (g.unknown)
		for (const char *const *s = git_hook_guesses; *s != NULL; s++)
			gitread_push(&g, *s, false);
	free(wt);
	free(dir);
	free(common);
	close(g.root);
	return 0;
}
