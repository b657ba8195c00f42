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
 *  - a .git the command would create, at any depth, is refused at the
 *    call by the observer (protect.h, observe-act.c), also from a nested
 *    sandbox's own mount namespace (judged by identity there): nothing is
 *    swept after the run, nothing races the command;
 *  - the git-write profile makes git's data writable (objects, refs, index,
 *    logs, HEAD, ...) but never the entries of git_meta[] below, in the
 *    top-level git directory and in every directory of its worktrees/
 *    and modules/ (at any depth). Those that exist are mounted read-only;
 *    creating an absent one is refused at the call by the observer
 *    (protect.h, observe-act.c).
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

		/* An absent one: the observer refuses to make it. */
		if (beneath_lstat(b->root, rel, &st) != 0 && !m->placeholder)
			continue;
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
	sandbox_gitscan_free(gs);
	return rc;
}
