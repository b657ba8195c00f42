/*
 * engine-cwd: where a shell command ended, for an agent that keeps its
 * working directory between calls (Claude Code runs `cd` in one Bash call
 * and expects the next to start there). The command's shell gets a pipe
 * of its own and, after the command string, prints its directory there
 * when the string succeeded, as Claude Code's own wrapper does (`eval CMD
 * && pwd -P >| FILE`); the exit status is the string's. The result says
 * cwd_after only for a directory inside the project, reached from the
 * project's root through the door (beneath.h) without a symbolic link on
 * the way: the host's next call starts there, so nothing outside is
 * offered; cwd_refused says why a directory was not.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "engine-int.h"
#include "log.h"
#include "sandbox.h"
#include "xalloc.h"

int
engine_cwd_open(struct engine *e, struct sandbox *sb, char **cause)
{
	int	p[2];

	e->cwd_rd = -1;
	e->cwd_num = -1;
	if (!e->opts->track_cwd)
		return 0;
	if (pipe2(p, O_CLOEXEC) != 0) {
		*cause = xasprintf("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	e->cwd_rd = p[0];
	e->cwd_num = sandbox_add_fd(sb, p[1]);	/* now owned by sb */
	return 0;
}

/* The string after -c in SHELL [OPT...] -c STRING [ARG...], or -1. */
static ssize_t
cwd_string_at(const struct strv *argv)
{
	for (size_t i = 1; i + 1 < argv->n; i++)
		if (strcmp(argv->v[i], "-c") == 0)
			return (ssize_t)i + 1;
	return -1;
}

void
engine_cwd_wrap(const struct engine *e, struct strv *argv)
{
	ssize_t	 i;
	char	*s;
	size_t	 n;

	if (e->cwd_num < 0 || (i = cwd_string_at(argv)) < 0)
		return;
	n = strlen(argv->v[i]);
	/* A last backslash would join our line to the command's. */
	if (n > 0 && argv->v[i][n - 1] == '\\')
		return;
	/* On a line of its own, so a trailing comment or here-document
	   ends first; silent under -x; the status is the command's. */
	s = xasprintf("%s\n{ __bwgate_st=$?; set +x; } 2>/dev/null; "
	    "[ \"$__bwgate_st\" -ne 0 ] || pwd -P >&%d; exit \"$__bwgate_st\"",
	    argv->v[i], e->cwd_num);
	free(argv->v[i]);
	argv->v[i] = s;
}

void
engine_cwd_read(struct engine *e, const char *project)
{
	char		 buf[PATH_MAX + 2];
	struct stat	 st;
	char		*rel = NULL, *cause = NULL;
	ssize_t		 n;
	int		 root = -1, fd = -1;

	if (e->cwd_rd < 0)
		return;
	/* Written before the shell exited; a process it left behind may
	   hold the pipe open, so never wait for its end. */
	n = read(e->cwd_rd, buf, sizeof buf - 1);
	close(e->cwd_rd);
	e->cwd_rd = -1;
	if (n <= 1 || buf[n - 1] != '\n')
		return;
	buf[n - 1] = '\0';
	/* Through the door, from the project's root: a symbolic link
	   anywhere on the way (planted by the command, or swapped in by a
	   racing sandbox of the same project) is refused, never followed;
	   `pwd -P` names none. */
	if (buf[0] != '/' || memchr(buf, '\n', (size_t)n - 1) != NULL)
		cause = xasprintf("'%s' is not an absolute path", buf);
	else if ((rel = beneath_relative(project, buf, &cause)) == NULL)
		;
	else if ((root = beneath_root(project, &st, &cause)) < 0)
		;
	else if ((fd = beneath_open(root, rel, O_PATH | O_DIRECTORY, 0,
	    &cause)) < 0)
		;
	else if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
		cause = xasprintf("'%s' is not a directory", buf);
	if (cause != NULL) {
		LOG("final directory not offered: %s", cause);
		e->r->cwd_refused = cause;
		cause = NULL;
	} else
		e->r->cwd_after = strcmp(rel, ".") == 0 ? xstrdup(project) :
		    xasprintf("%s%s%s", project,
		    strcmp(project, "/") == 0 ? "" : "/", rel);
	if (fd >= 0)
		close(fd);
	if (root >= 0)
		close(root);
	free(rel);
	free(cause);
}
