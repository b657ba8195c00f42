/* allowlist-cd: `cd DIR` and `git -C DIR` into a directory of the project
   where git finds the project's own repository keep the verdict of what
   follows (issue 41). */
#include "autoconf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allowlist-int.h"
#include "beneath.h"
#include "path.h"
#include "xalloc.h"

/* Does the .git file in the directory open at fd name one of the
   project's own worktrees (gitdir: PROJECT/.git/worktrees/NAME)? */
static bool
cd_own_worktree(int fd, const char *project)
{
	char		 buf[4096], *want, *nl;
	ssize_t		 n;
	int		 f;
	bool		 ok = false;

	if ((f = beneath_child(fd, ".git", O_RDONLY)) < 0)
		return false;
	n = read(f, buf, sizeof buf - 1);
	close(f);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	want = xasprintf("gitdir: %s/.git/worktrees/", project);
	if (strncmp(buf, want, strlen(want)) == 0) {
		const char *name = buf + strlen(want);

		ok = *name != '\0' && strchr(name, '/') == NULL &&
		    strcmp(name, "..") != 0 && strcmp(name, ".") != 0;
	}
	free(want);
	return ok;
}

/* Could git take the directory open at fd for a repository other than
   the project's (a .git of its own, or the shape of a bare one)? */
static bool
cd_other_repo(int fd, const char *project)
{
	struct stat	st;

	if (beneath_child_stat(fd, ".git", &st) == 0)
		return !S_ISREG(st.st_mode) || !cd_own_worktree(fd, project);
	return beneath_child_stat(fd, "HEAD", &st) == 0 ||
	    (beneath_child_stat(fd, "objects", &st) == 0 &&
	    beneath_child_stat(fd, "refs", &st) == 0);
}

/*
 * Is dir (literal; relative to the project's top directory, or absolute)
 * a directory of the project, reached without a symbolic link, where git
 * finds the project's own repository: no directory from the top down to
 * it has a .git of its own (but a worktree of the project's) or looks
 * like a bare repository? Decided now, through the project door.
 */
bool
allowlist_dir_own_repo(const struct allowlist *al, const char *dir)
{
	char		*path, *rel, *cause = NULL, *cur, *p, *slash;
	struct stat	 st;
	int		 root, fd;
	bool		 ok = false;

	if (al->project == NULL || *dir == '\0')
		return false;
	path = dir[0] == '/' ? xstrdup(dir) : path_join(al->project, dir);
	rel = beneath_relative(al->project, path, &cause);
	free(path);
	if (rel == NULL) {
		free(cause);
		return false;
	}
	if (strcmp(rel, ".") == 0) {
		free(rel);
		return true;
	}
	if ((root = beneath_root(al->project, &st, &cause)) < 0) {
		free(cause);
		free(rel);
		return false;
	}
	cur = xstrdup(rel);
	for (p = cur;; p = slash + 1) {
		slash = strchr(p, '/');
		if (slash != NULL)
			*slash = '\0';
		fd = beneath_open(root, cur, O_RDONLY | O_DIRECTORY, 0, &cause);
		if (fd < 0) {
			free(cause);
			ok = false;
			break;
		}
		ok = !cd_other_repo(fd, al->project);
		close(fd);
		if (!ok || slash == NULL)
			break;
		*slash = '/';
	}
	free(cur);
	free(rel);
	close(root);
	return ok;
}

/* git -C DIR ... into such a directory: judged as git ... (the two words
   dropped from the view; the command string keeps them). moved: an earlier
   command changed the directory, so a relative DIR is not known. */
void
allowlist_git_c(const struct allowlist *al, struct cmdview *cv, bool moved)
{
	const struct sh_cmd	*cmd = cv->cmd;

	if (strcmp(cv->name, "git") != 0 || cv->argc < 4 ||
	    strcmp(cv->argv[1], "-C") != 0 ||
	    !SH_WORD_LITERAL(&cmd->words[2]) ||
	    (cmd->words[2].flags & SH_W_GLOB) != 0 || cv->home[2] != NULL ||
	    (moved && cv->argv[2][0] != '/') ||
	    !allowlist_dir_own_repo(al, cv->argv[2]))
		return;
	memmove(&cv->argv[1], &cv->argv[3], (cv->argc - 2) * sizeof *cv->argv);
	memmove(&cv->globs[1], &cv->globs[3], (cv->argc - 3) *
	    sizeof *cv->globs);
	memmove(&cv->home[1], &cv->home[3], (cv->argc - 3) * sizeof *cv->home);
	cv->home[cv->argc - 2] = cv->home[cv->argc - 1] = NULL;
	cv->argc -= 2;
}
