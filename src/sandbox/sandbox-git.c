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
#include <limits.h>
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

/*
 * Not walked: package managers' trees, the bulk of a large project, that
 * never hold a repository git would find from the project (npm packs git
 * dependencies without their .git). A .git planted inside one is reached
 * only by running git inside that tree (bwgate(1), SECURITY).
 */
static const char *const git_skip_dirs[] = { "node_modules", NULL };

/* Is name a directory the walk leaves out? */
static bool
git_skipped(const char *name)
{
	for (const char *const *p = git_skip_dirs; *p != NULL; p++)
		if (strcmp(name, *p) == 0)
			return true;
	return false;
}

/*
 * What the walk before the command saw: every .git (by inode) and every
 * directory with its inode and change time. After the command only the
 * directories whose ctime changed are read again (a new name, a rename in
 * or out, all change the parent's ctime, and ctime cannot be set back),
 * and directories that were not there before are walked whole. So the
 * second pass costs one fstatat per directory, not a full walk.
 */
struct git_dir {
	char		*rel;		/* "" for the project root */
	ino_t		 ino;
	struct timespec	 ctime;
};
struct gitscan {
	struct strv	 gits;		/* project-relative .git paths */
	ino_t		*git_ino;
	size_t		 ngit;
	struct git_dir	*dirs;		/* sorted by rel after the walk */
	size_t		 ndirs;
	bool		 record;	/* record directories (pre-run) */
};

static void	git_walk(struct gitscan *, int, char *, size_t, int);

/* Note a .git seen at rel. */
static void
git_found(struct gitscan *gs, const char *rel, ino_t ino)
{
	strv_push(&gs->gits, rel);
	gs->git_ino = xreallocarray(gs->git_ino, gs->ngit + 1,
	    sizeof *gs->git_ino);
	gs->git_ino[gs->ngit++] = ino;
}

/* Append name to the path buffer (len bytes used); false when too long. */
static bool
git_push_name(char *path, size_t len, const char *name, size_t *newlen)
{
	size_t	n = strlen(name);

	if (len + n + 2 > PATH_MAX)
		return false;
	if (len > 0)
		path[len++] = '/';
	memcpy(path + len, name, n + 1);
	*newlen = len + n;
	return true;
}

/* Look at one entry of a directory being walked (path holds its rel). */
static void
git_entry(struct gitscan *gs, int dirfd, struct dirent *de, char *path,
    size_t len, int depth)
{
	struct stat	st;
	size_t		nl;
	int		fd;

	if (!git_push_name(path, len, de->d_name, &nl))
		return;
	if (strcmp(de->d_name, ".git") == 0) {
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			git_found(gs, path, st.st_ino);
	} else if ((de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) &&
	    !git_skipped(de->d_name)) {
		fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			git_walk(gs, fd, path, nl, depth + 1);
	}
	path[len] = '\0';
}

/* Walk dirfd (path, len bytes), recording .git and maybe directories. */
static void
git_walk(struct gitscan *gs, int dirfd, char *path, size_t len, int depth)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;

	if (depth > GIT_MAX_DEPTH || (d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return;
	}
	if (gs->record && fstat(dirfd, &st) == 0) {
		gs->dirs = xreallocarray(gs->dirs, gs->ndirs + 1,
		    sizeof *gs->dirs);
		gs->dirs[gs->ndirs++] = (struct git_dir){ xstrdup(path),
		    st.st_ino, st.st_ctim };
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			git_entry(gs, dirfd, de, path, len, depth);
	closedir(d);
}

static int
git_dir_cmp(const void *a, const void *b)
{
	return strcmp(((const struct git_dir *)a)->rel,
	    ((const struct git_dir *)b)->rel);
}

/* The directory recorded at rel, or NULL. */
static const struct git_dir *
git_dir_find(const struct gitscan *gs, const char *rel)
{
	struct git_dir	key = { (char *)rel, 0, { 0, 0 } };

	if (gs->ndirs == 0)
		return NULL;
	return bsearch(&key, gs->dirs, gs->ndirs, sizeof *gs->dirs,
	    git_dir_cmp);
}

/* Walk the whole project; record directories when asked. */
static struct gitscan *
git_scan(const char *project, bool record)
{
	struct gitscan	*gs = xcalloc(1, sizeof *gs);
	char		 path[PATH_MAX] = "";
	int		 fd = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	gs->record = record;
	if (fd >= 0)
		git_walk(gs, fd, path, 0, 0);
	if (gs->ndirs > 0)	/* qsort's base may not be NULL */
		qsort(gs->dirs, gs->ndirs, sizeof *gs->dirs, git_dir_cmp);
	return gs;
}

void
sandbox_gitscan_free(struct gitscan *gs)
{
	if (gs == NULL)
		return;
	strv_release(&gs->gits);
	free(gs->git_ino);
	for (size_t i = 0; i < gs->ndirs; i++)
		free(gs->dirs[i].rel);
	free(gs->dirs);
	free(gs);
}

/* Every .git in the project, project-relative (one getdents walk). */
void
sandbox_git_scan(const char *project, struct strv *out)
{
	struct gitscan	*gs = git_scan(project, false);

	strv_append_all(out, &gs->gits);
	sandbox_gitscan_free(gs);
}

/*
 * After the command: the .git entries in directories that changed, and in
 * every directory that is new there; found into now.
 */
static void
git_rescan(const struct gitscan *before, const char *project,
    struct gitscan *now)
{
	int		 root = open(project, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC);
	char		 path[PATH_MAX];

	if (root < 0)
		return;
	for (size_t i = 0; i < before->ndirs; i++) {
		const struct git_dir *gd = &before->dirs[i];
		struct stat	 st;
		struct dirent	*de;
		DIR		*d;
		int		 fd;
		size_t		 len = strlen(gd->rel);

		fd = len == 0 ? dup(root) : openat(root, gd->rel, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;	/* gone: its parent changed */
		if (fstat(fd, &st) != 0 || st.st_ino != gd->ino ||
		    (st.st_ctim.tv_sec == gd->ctime.tv_sec &&
		    st.st_ctim.tv_nsec == gd->ctime.tv_nsec) ||
		    (d = fdopendir(fd)) == NULL) {
			close(fd);
			continue;	/* unchanged, or replaced (parent) */
		}
		memcpy(path, gd->rel, len + 1);
		while ((de = readdir(d)) != NULL) {
			const struct git_dir *known;
			size_t		 nl;
			struct stat	 cst;

			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (strcmp(de->d_name, ".git") == 0) {
				git_entry(now, dirfd(d), de, path, len, 0);
				continue;
			}
			if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
				continue;
			if (!git_push_name(path, len, de->d_name, &nl))
				continue;
			known = git_dir_find(before, path);
			path[len] = '\0';
			if (known != NULL && fstatat(dirfd(d), de->d_name, &cst,
			    AT_SYMLINK_NOFOLLOW) == 0 && cst.st_ino ==
			    known->ino)
				continue;	/* its own entry covers it */
			git_entry(now, dirfd(d), de, path, len, 0);
		}
		closedir(d);
	}
	close(root);
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
	struct gitscan	*gs;
	int		 rc = 0;

	if (git_protect(b, ".git", cause) != 0)
		return -1;
	/* Directories are recorded only when the result is checked after. */
	gs = git_scan(b->pol->project, !b->pol->git_writable && !b->dry);
	for (size_t i = 0; i < gs->gits.n && rc == 0; i++) {
		if (strcmp(gs->gits.v[i], ".git") == 0)
			continue;
		rc = git_protect(b, gs->gits.v[i], cause);
		b->sb->git_nested++;
	}
	if (rc == 0 && gs->record)
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

int
sandbox_sweep(struct sandbox *sb, const char *project, struct strv *warnings,
    struct strv *removed)
{
	const struct gitscan	*before = sb->gitscan;
	struct gitscan		*now;
	size_t			 n = warnings->n;

	for (size_t i = 0; i < sb->sweep.n; i++)
		git_sweep_one(project, sb->sweep.v[i], "git metadata that "
		    "git-write never allows", warnings, removed);
	if (before == NULL)
		return (int)(warnings->n - n);
	now = xcalloc(1, sizeof *now);
	git_rescan(before, project, now);
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
