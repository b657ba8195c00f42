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
 *    read-only inside (found by a scan of the project when the project is
 *    writable, which reads only the directories that changed since the
 *    last scan: gitscan.h; .git directories themselves are not entered),
 *    and so is every directory the scan may not read;
 *  - a .git that appears during the run is removed afterwards and
 *    reported, except under git-write: a second scan after the command
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
#include "gitscan.h"
#include "gitwatch.h"
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
	struct gitscan	*gs;
	int		 rc = 0;

	if (git_protect(b, ".git", cause) != 0)
		return -1;
	if ((gs = gitscan_project(b->pol->project, cause)) == NULL)
		return -1;
	for (size_t i = 0; i < gs->gits.n && rc == 0; i++) {
		if (strcmp(gs->gits.v[i], ".git") == 0)
			continue;
		rc = git_protect(b, gs->gits.v[i], cause);
		b->sb->git_nested++;
	}
	/* A directory we may not read may hold a .git we cannot see; the
	   command could open it up (chmod) and write there. Read-only whole. */
	for (size_t i = 0; i < gs->ndirs && rc == 0; i++)
		if (gs->dirs[i].opaque)
			rc = build_protect(b, gs->dirs[i].rel, true, cause);
	/* The agents' configuration where it exists deeper. */
	if (rc == 0)
		rc = build_agent_nested(b, gs, cause);
	/* Kept when the result is checked after the run. */
	if (rc == 0 && !b->pol->git_writable && !b->dry)
		b->sb->gitscan = gs;
	else
		sandbox_gitscan_free(gs);
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
    struct strv *warnings, struct strv *removed)
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
	if (fd >= 0 && git_remove(fd, slash + 1) == 0) {
		strv_pushf(warnings, "removed '%s': the command created %s",
		    rel, what);
		strv_push(removed, rel);
	} else
		strv_pushf(warnings, "cannot remove '%s' (%s created by the "
		    "command): remove it before running git there", rel, what);
	if (fd >= 0)
		close(fd);
}

/* The project's .git entries now: from the watcher that answered before
   the run, else (or when it no longer answers) by a scan. */
static struct gitscan *
sandbox_git_now(const struct gitscan *before, int root)
{
	struct gitscan	*now = NULL;
	struct stat	 st;

	if (!before->watched)
		return gitscan_refresh(before, root);
	if (fstat(root, &st) == 0)
		now = gitwatch_ask(&st);
	return now != NULL ? now : gitscan_walk(root);
}

int
sandbox_sweep(struct sandbox *sb, const char *project, struct strv *warnings,
    struct strv *removed)
{
	const struct gitscan	*before = sb->gitscan;
	struct gitscan		*now;
	size_t			 n = warnings->n;
	int			 root;

	for (size_t i = 0; i < sb->sweep.n; i++)
		git_sweep_one(project, sb->sweep.v[i], "git metadata that "
		    "git-write never allows", warnings, removed);
	if (before == NULL)
		return (int)(warnings->n - n);
	if ((root = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		strv_pushf(warnings, "cannot look for a new .git in the "
		    "project: %s", strerror(errno));
		return (int)(warnings->n - n);
	}
	now = sandbox_git_now(before, root);
	close(root);
	if (now->error != NULL)
		strv_pushf(warnings, "%s: a .git the command made there "
		    "was not looked for", now->error);
	for (size_t i = 0; i < now->ngit; i++) {
		_cleanup_free_ char *abs = path_join(project, now->gits.v[i]);
		bool		 known = false, same = false;

		for (size_t k = 0; k < before->ngit; k++) {
			if (before->git_ino[k] != now->git_ino[i])
				continue;
			known = true;
			same |= strcmp(before->gits.v[k], now->gits.v[i]) == 0;
		}
		if (same)
			continue;
		if (known)
			strv_pushf(warnings, "'%s' is a .git the command moved "
			    "there", now->gits.v[i]);
		else
			git_sweep_one(project, abs, "a new .git (only the "
			    "git-write profile may)", warnings, removed);
	}
	sandbox_gitscan_free(now);
	return (int)(warnings->n - n);
}
