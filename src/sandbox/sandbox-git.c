/*
 * sandbox-git: git metadata at any depth.
 *
 * Git runs code and reads configuration from its metadata: hooks, config
 * (core.fsmonitor, core.hooksPath, aliases), commondir and gitdir files
 * that send it to another directory, and so on. A command that can write
 * any .git in the project can make the operator's next `git status` run
 * its code. So:
 *
 *  - every .git in the project, at any depth and in every tree
 *    (node_modules included), file or directory, is read-only inside
 *    (found by a scan of the project when the project is writable, which
 *    reads only the directories that changed since the last scan:
 *    gitscan.h; .git directories themselves are not entered), and so is
 *    every directory the scan may not read or that holds one too deep to
 *    read (the scan's "deep" ones);
 *  - a .git that appears during the run is dealt with afterwards and
 *    reported, except under git-write: a second scan after the command
 *    (the mounts cannot stop a new name in a writable directory, nor a
 *    parent directory being renamed and a fresh one with a fresh .git put
 *    in its place), and a search of every deep directory that is new.
 *    Entries are told apart by inode, so a known .git moved along with
 *    its directory is kept. An unknown one is removed only when all of it
 *    was born during the run (statx birth time after the command was let
 *    go: beneath_dispose), so the command made it; anything else (a
 *    directory the command renamed to .git, a repository moved in from a
 *    writable path) is moved aside into SANDBOX_QUARANTINE at the
 *    project's root, never deleted;
 *  - every look, removal and move goes through the project's descriptor
 *    (beneath.h), so a racing sandbox that swaps a directory for a
 *    symbolic link cannot lead any of it outside the project;
 *  - the git-write profile makes git's data writable (objects, refs, index,
 *    logs, HEAD, ...) but never the entries of git_meta[] below, in the
 *    top-level git directory and in every directory of its worktrees/
 *    and modules/ (at any depth). Those that exist are mounted read-only;
 *    creating an absent one is refused at the call by the observer
 *    (protect.h, observe-act.c); the sweep after the run stays as the
 *    backstop for what the observer does not judge (a nested sandbox's
 *    own mount namespace).
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

#include "beneath.h"
#include "buf.h"
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

		if (beneath_lstat(b->root, rel, &st) != 0 && !m->placeholder) {
			/* Must still be absent after the run. */
			strv_push(&b->sb->sweep, rel);
			continue;
		}
		if (build_protect(b, rel, m->dir, cause) != 0)
			return -1;
	}
	if (depth >= 8)
		return 0;
	for (const char *const *n = git_nested_dirs; *n != NULL; n++) {
		_cleanup_free_ char *rel = path_join(gitdir, *n);
		char		*err = NULL;
		DIR		*d;
		struct dirent	*de;
		int		 fd;

		fd = beneath_open(b->root, rel, O_RDONLY | O_DIRECTORY, 0,
		    &err);
		free(err);
		if (fd < 0 || (d = fdopendir(fd)) == NULL) {
			if (fd >= 0)
				close(fd);
			continue;
		}
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
	struct stat		 st;

	if (!b->pol->git_writable)
		return build_protect(b, rel, true, cause);
	if (beneath_lstat(b->root, rel, &st) != 0)
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
	if ((gs = gitscan_project(b->pol->project, b->root, cause)) == NULL)
		return -1;
	for (size_t i = 0; i < gs->gits.n && rc == 0; i++) {
		if (strcmp(gs->gits.v[i], ".git") == 0)
			continue;
		rc = git_protect(b, gs->gits.v[i], cause);
		b->sb->git_nested++;
	}
	/* A directory we may not read may hold a .git we cannot see; the
	   command could open it up (chmod) and write there. One that holds a
	   directory too deep to read likewise. Read-only whole. */
	for (size_t i = 0; i < gs->ndirs && rc == 0; i++)
		if (gs->dirs[i].opaque || gs->dirs[i].deep)
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

void
sandbox_started(struct sandbox *sb)
{
	clock_gettime(CLOCK_REALTIME, &sb->run_start);
}

/* What the sweep works with. */
struct sweep {
	struct sandbox	*sb;
	int		 root;
	int		 qfd;		/* SANDBOX_QUARANTINE, or -1 */
	size_t		 nmoved;
	const char	*what;
	struct strv	*warnings;
	struct strv	*removed;
};

/* SANDBOX_QUARANTINE, made when missing (with a .gitignore: git leaves
   it alone); -1 when it cannot be used. */
static int
sweep_quarantine(struct sweep *w)
{
	char	*cause = NULL;
	int	 fd;

	if (w->qfd >= 0)
		return w->qfd;
	fd = beneath_open_how(w->root, SANDBOX_QUARANTINE, O_RDONLY |
	    O_DIRECTORY, 0, BENEATH_NO_XDEV, &cause);
	free(cause);
	cause = NULL;
	if (fd < 0 && errno == ENOENT &&
	    beneath_mkdir(w->root, SANDBOX_QUARANTINE, 0700, &cause) == 0) {
		fd = beneath_open(w->root, SANDBOX_QUARANTINE "/.gitignore",
		    O_WRONLY | O_CREAT | O_EXCL, 0644, &cause);
		if (fd >= 0) {
			(void)!write(fd, "*\n", 2);
			close(fd);
		}
		free(cause);
		cause = NULL;
		fd = beneath_open_how(w->root, SANDBOX_QUARANTINE, O_RDONLY |
		    O_DIRECTORY, 0, BENEATH_NO_XDEV, &cause);
	}
	free(cause);
	return w->qfd = fd;
}

/* Deal with the entry name (a .git, or git metadata git-write never
   allows) of the directory open at pfd; rel names it for people. */
static void
sweep_one(int pfd, const char *name, const char *rel, void *arg)
{
	struct sweep	*w = arg;
	char		 to[NAME_MAX + 1], flat[160];
	struct stat	 st;
	int		 r, qfd;
	size_t		 i;

	if (beneath_child_stat(pfd, name, &st) != 0)
		return;		/* gone (dealt with already) */
	r = beneath_dispose(pfd, name, &w->sb->run_start);
	if (r == 0) {
		strv_pushf(w->warnings, "removed '%s': the command created %s",
		    rel, w->what);
		strv_push(w->removed, rel);
		return;
	}
	/* Not proven the command's: moved aside, never deleted. */
	for (i = 0; rel[i] != '\0' && i < sizeof flat - 1; i++)
		flat[i] = rel[i] == '/' ? '%' : rel[i];
	flat[i] = '\0';
	snprintf(to, sizeof to, "%ld-%zu-%s", (long)getpid(), w->nmoved++,
	    flat);
	if ((qfd = sweep_quarantine(w)) >= 0 &&
	    beneath_move(pfd, name, qfd, to) == 0) {
		strv_pushf(w->warnings, "moved '%s' aside to '%s/%s': %s that "
		    "bwgate cannot prove the command made (look, then remove "
		    "it or move it back)", rel, SANDBOX_QUARANTINE, to,
		    w->what);
		strv_push(w->removed, rel);
		return;
	}
	/* Another file system, or the quarantine is not a directory of
	   ours: aside in place, where git no longer takes it for one. */
	snprintf(to, sizeof to, "%s.bwgate-aside-%ld-%zu", name,
	    (long)getpid(), w->nmoved++);
	if (beneath_move(pfd, name, pfd, to) == 0) {
		strv_pushf(w->warnings, "renamed '%s' to '%s' beside it: %s "
		    "that bwgate cannot prove the command made", rel, to,
		    w->what);
		strv_push(w->removed, rel);
	} else
		strv_pushf(w->warnings, "cannot remove or move aside '%s' (%s "
		    "the command created): remove it before running git "
		    "there", rel, w->what);
}

/* The same for a project-relative rel, its directory opened through the
   door (never across a mount). */
static void
sweep_rel(struct sweep *w, const char *rel)
{
	const char	*slash = strrchr(rel, '/');
	char		*dir, *cause = NULL;
	struct stat	 st;
	int		 pfd;

	if (beneath_lstat(w->root, rel, &st) != 0 && errno == ENOENT)
		return;
	dir = slash == NULL ? xstrdup(".") : xstrndup(rel,
	    (size_t)(slash - rel));
	pfd = beneath_open_how(w->root, dir, O_RDONLY | O_DIRECTORY, 0,
	    BENEATH_NO_XDEV, &cause);
	free(dir);
	if (pfd < 0) {
		strv_pushf(w->warnings, "cannot remove '%s' (%s created by the "
		    "command): %s", rel, w->what, cause);
		free(cause);
		return;
	}
	sweep_one(pfd, slash == NULL ? rel : slash + 1, rel, w);
	close(pfd);
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

/* Was the deep directory d already deep before (so read-only whole
   inside during the run)? */
static bool
deep_before(const struct gitscan *before, const struct git_dir *d)
{
	ssize_t	k = gitscan_find(before, d->rel, strlen(d->rel));

	return k >= 0 && before->dirs[k].deep && before->dirs[k].dev ==
	    d->dev && before->dirs[k].ino == d->ino;
}

/* Every .git below a deep directory that is new: searched whole. */
static void
sweep_deep(struct sweep *w, const struct git_dir *d)
{
	const char	*slash = strrchr(d->rel, '/');
	char		*dir, *cause = NULL;
	int		 pfd;

	dir = slash == NULL ? xstrdup(".") : xstrndup(d->rel,
	    (size_t)(slash - d->rel));
	pfd = beneath_open_how(w->root, dir, O_RDONLY | O_DIRECTORY, 0,
	    BENEATH_NO_XDEV, &cause);
	free(dir);
	if (pfd < 0 || beneath_find_git(pfd, slash == NULL ? d->rel :
	    slash + 1, sweep_one, w) != 0)
		strv_pushf(w->warnings, "cannot look for a new .git below "
		    "'%s': %s", d->rel, strerror(errno));
	free(cause);
	if (pfd >= 0)
		close(pfd);
}

int
sandbox_sweep(struct sandbox *sb, const char *project, struct strv *warnings,
    struct strv *removed)
{
	const struct gitscan	*before = sb->gitscan;
	struct gitscan		*now;
	struct sweep		 w = { sb, -1, -1, 0, NULL, warnings, removed };
	struct stat		 st;
	size_t			 n = warnings->n;
	char			*cause = NULL;

	if (sb->sweep.n == 0 && before == NULL)
		return 0;
	if (sb->root_open)
		w.root = sb->root_fd;
	else if ((w.root = beneath_root(project, &st, &cause)) < 0) {
		strv_pushf(warnings, "cannot look for a new .git in the "
		    "project: %s", cause);
		free(cause);
		return (int)(warnings->n - n);
	}
	w.what = "git metadata that git-write never allows";
	for (size_t i = 0; i < sb->sweep.n; i++)
		sweep_rel(&w, sb->sweep.v[i]);
	if (before == NULL)
		goto out;
	now = sandbox_git_now(before, w.root);
	if (now->error != NULL)
		strv_pushf(warnings, "%s: a .git the command made there "
		    "was not looked for", now->error);
	w.what = "a new .git (only the git-write profile may)";
	for (size_t i = 0; i < now->ngit; i++) {
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
			sweep_rel(&w, now->gits.v[i]);
	}
	for (size_t i = 0; i < now->ndirs; i++)
		if (now->dirs[i].deep && !deep_before(before, &now->dirs[i]))
			sweep_deep(&w, &now->dirs[i]);
	sandbox_gitscan_free(now);
out:
	if (w.qfd >= 0)
		close(w.qfd);
	if (!sb->root_open)
		close(w.root);
	return (int)(warnings->n - n);
}
