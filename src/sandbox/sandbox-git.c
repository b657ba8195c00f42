/*
 * sandbox-git: git metadata at any depth.
 *
 * Git runs code and reads configuration from its metadata: hooks, config
 * (core.fsmonitor, core.hooksPath, aliases), commondir and gitdir files
 * that send it to another directory, and so on. A command that can write
 * any .git in the project can make the operator's next `git status` run
 * its code. So:
 *
 *  - every .git in the project, at any depth, file or directory, is
 *    read-only inside (found by one getdents walk of the project when the
 *    project is writable; .git directories themselves are not entered);
 *  - a .git that appears during the run is removed afterwards and
 *    reported, except under git-write: a second walk after the command
 *    (the mounts cannot stop a new name in a writable directory, nor a
 *    parent directory being renamed and a fresh one with a fresh .git put
 *    in its place). Entries are told apart by inode, so a known .git
 *    moved along with its directory is kept, never deleted;
 *  - the git-write profile makes git's data writable (objects, refs, index,
 *    logs, HEAD, ...) but never the entries of git_meta[] below, in the
 *    top-level git directory and in every directory of its worktrees/
 *    and modules/ (at any depth). Those that exist are mounted read-only; absent
 *    ones get a placeholder where an empty one means the same to git, and
 *    are removed after the run otherwise (an empty commondir would stop
 *    git: "failed to read").
 *
 * doc/bwgate.1 (SECURITY) shows git_meta[]; keep them in step.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "path.h"
#include "sandbox-int.h"
#include "xalloc.h"

/* Never writable, not even under git-write: makes git run code or look
   elsewhere. Relative to a git directory. */
static const struct git_meta {
	const char	*path;
	bool		 dir;
	bool		 placeholder;	/* an empty one is harmless to git */
} git_meta[] = {
	{ "hooks", true, true },
	{ "config", false, true },
	{ "config.worktree", false, true },
	{ "commondir", false, false },
	{ "gitdir", false, false },
	{ "info/attributes", false, true },
	{ "objects/info/alternates", false, true },
	{ "objects/info/http-alternates", false, true },
	{ NULL, false, false }
};

/* Directories inside a git directory that hold more git directories. */
static const char *const git_nested_dirs[] = { "worktrees", "modules", NULL };

#define GIT_MAX_DEPTH	64

/* Collect every entry named .git below dirfd (rel), not entering them. */
static void
git_walk(int dirfd, const char *rel, int depth, struct strv *out)
{
	DIR		*d;
	struct dirent	*de;

	if (depth > GIT_MAX_DEPTH || (d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		_cleanup_free_ char *p = NULL;
		int		 fd;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		p = rel[0] == '\0' ? xstrdup(de->d_name) :
		    path_join(rel, de->d_name);
		if (strcmp(de->d_name, ".git") == 0) {
			strv_push(out, p);
			continue;
		}
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			git_walk(fd, p, depth + 1, out);
	}
	closedir(d);
}

/* "INODE PATH" for a project-relative .git, or NULL when gone. */
static char *
git_id(const char *project, const char *rel)
{
	_cleanup_free_ char	*abs = path_join(project, rel);
	struct stat		 st;

	if (lstat(abs, &st) != 0)
		return NULL;
	return xasprintf("%llu %s", (unsigned long long)st.st_ino, rel);
}

/* Is this inode among the known ones? */
static bool
git_ino_known(const struct strv *known, const char *id)
{
	size_t	len = strcspn(id, " ");

	for (size_t i = 0; i < known->n; i++)
		if (strncmp(known->v[i], id, len + 1) == 0)
			return true;
	return false;
}

/* Every .git in the project (project-relative), the top-level one too. */
void
sandbox_git_scan(const char *project, struct strv *out)
{
	int	fd = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0)
		git_walk(fd, "", 0, out);
}

/* Protect git_meta[] inside one git directory (project-relative). */
static int
git_protect_meta(struct build *b, const char *gitdir, int depth,
    char **cause)
{
	struct stat	st;

	for (const struct git_meta *m = git_meta; m->path != NULL; m++) {
		_cleanup_free_ char *rel = path_join(gitdir, m->path);
		_cleanup_free_ char *abs = path_join(b->pol->project, rel);

		if (lstat(abs, &st) != 0 && !m->placeholder) {
			/* Must still be absent after the run. */
			strv_push(&b->sb->sweep, abs);
			continue;
		}
		if (build_protect(b, rel, m->dir, cause) != 0)
			return -1;
	}
	if (depth >= 8)
		return 0;
	for (const char *const *n = git_nested_dirs; *n != NULL; n++) {
		_cleanup_free_ char *rel = path_join(gitdir, *n);
		_cleanup_free_ char *abs = path_join(b->pol->project, rel);
		DIR		*d = opendir(abs);
		struct dirent	*de;

		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			_cleanup_free_ char *sub = NULL;

			if (de->d_name[0] == '.' || de->d_type != DT_DIR)
				continue;
			sub = path_join(rel, de->d_name);
			if (git_protect_meta(b, sub, depth + 1, cause) != 0) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
	}
	return 0;
}

/* One .git (project-relative): read-only, or its metadata under git-write. */
static int
git_protect(struct build *b, const char *rel, char **cause)
{
	_cleanup_free_ char	*abs = path_join(b->pol->project, rel);
	struct stat		 st;

	if (!b->pol->git_writable)
		return build_protect(b, rel, true, cause);
	if (lstat(abs, &st) != 0)
		return 0;	/* git-write may create a repository */
	if (!S_ISDIR(st.st_mode))	/* a gitdir file */
		return build_protect(b, rel, false, cause);
	return git_protect_meta(b, rel, 0, cause);
}

/* Top-level .git (present or not) and every nested one. */
int
build_git(struct build *b, char **cause)
{
	struct strv	found = STRV_INIT;
	int		rc = 0;

	if (git_protect(b, ".git", cause) != 0)
		return -1;
	sandbox_git_scan(b->pol->project, &found);
	for (size_t i = 0; i < found.n && rc == 0; i++) {
		if (strcmp(found.v[i], ".git") == 0)
			continue;
		rc = git_protect(b, found.v[i], cause);
		b->sb->git_nested++;
	}
	for (size_t i = 0; i < found.n && !b->pol->git_writable; i++) {
		char *id = git_id(b->pol->project, found.v[i]);

		if (id != NULL)
			strv_push(&b->sb->git_known, id);
		free(id);
	}
	b->sb->git_checked = !b->pol->git_writable;
	strv_release(&found);
	return rc;
}

/* Remove path (a file or a whole tree) without following symlinks. */
static int
git_remove(int at, const char *name)
{
	struct stat	 st;
	DIR		*d;
	struct dirent	*de;
	int		 fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0);
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..")
		    != 0)
			git_remove(dirfd(d), de->d_name);
	closedir(d);
	return unlinkat(at, name, AT_REMOVEDIR);
}

/* Remove an absolute path below project (parent opened without links). */
static void
git_sweep_one(const char *project, const char *abs, const char *what,
    struct strv *warnings)
{
	_cleanup_free_ char	*rel = path_relative(abs, project);
	_cleanup_free_ char	*dir = xstrdup(abs);
	char			*slash = strrchr(dir, '/');
	struct stat		 st;
	int			 fd;

	if (lstat(abs, &st) != 0 || slash == NULL)
		return;
	*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && git_remove(fd, slash + 1) == 0)
		strv_pushf(warnings, "removed '%s': the command created %s",
		    rel, what);
	else
		strv_pushf(warnings, "cannot remove '%s' (%s created by the "
		    "command): remove it before running git there", rel, what);
	if (fd >= 0)
		close(fd);
}

int
sandbox_sweep(struct sandbox *sb, const char *project, struct strv *warnings)
{
	struct strv	now = STRV_INIT;
	size_t		before = warnings->n;

	for (size_t i = 0; i < sb->sweep.n; i++)
		git_sweep_one(project, sb->sweep.v[i], "git metadata that "
		    "git-write never allows", warnings);
	if (sb->git_checked) {
		sandbox_git_scan(project, &now);
		for (size_t i = 0; i < now.n; i++) {
			_cleanup_free_ char *abs = NULL, *id = NULL;

			id = git_id(project, now.v[i]);
			if (id == NULL || strv_contains(&sb->git_known, id))
				continue;
			abs = path_join(project, now.v[i]);
			if (git_ino_known(&sb->git_known, id))
				strv_pushf(warnings, "'%s' is a .git the "
				    "command moved there", now.v[i]);
			else
				git_sweep_one(project, abs, "a new .git (only "
				    "the git-write profile may)", warnings);
		}
		strv_release(&now);
	}
	return (int)(warnings->n - before);
}
