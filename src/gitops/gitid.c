/* gitid: user.name/user.email of the host's git as GIT_AUTHOR_* (gitid.h). */
#include "autoconf.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "gitid.h"
#include "spawn.h"
#include "xalloc.h"

#define GITID_MAX	1024	/* bytes of a name or address */

/* `git -C project config --get key`, its first line, or NULL (git's
   complaints go to /dev/null). safe.directory: root running the console
   for a user's project still reads its identity (reading config runs
   nothing of the repository). */
static char *
gitid_get(const char *project, const char *key)
{
	struct buf	 b = BUF_INIT;
	struct spawn	 sp = SPAWN_INIT;
	char *const	 argv[] = { (char *)"git", (char *)"-c",
			    (char *)"safe.directory=*", (char *)"-C",
			    (char *)project, (char *)"config", (char *)"--get",
			    (char *)key, NULL };
	int		 p[2], fds[3], status;
	char		*nl, *cause = NULL;

	if (pipe2(p, O_CLOEXEC) != 0)
		return NULL;
	fds[0] = SPAWN_DEVNULL;
	fds[1] = p[1];
	fds[2] = SPAWN_DEVNULL;
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 3;
	sp.flags = SPAWN_SEARCH;
	if (spawn_start(&sp, &cause) != 0) {
		free(cause);
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	close(p[1]);
	(void)buf_read_fd(&b, p[0], GITID_MAX);
	close(p[0]);
	status = spawn_wait(&sp);
	spawn_release(&sp);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || b.len == 0) {
		buf_release(&b);
		return NULL;
	}
	buf_putc(&b, '\0');
	if ((nl = strchr(b.data, '\n')) != NULL)
		*nl = '\0';
	if (b.data[0] == '\0') {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Is name set in have (or, have NULL, in our environment)? */
static bool
gitid_has(const struct strv *have, const char *name)
{
	size_t	n = strlen(name);

	if (have == NULL)
		return getenv(name) != NULL;
	for (size_t i = 0; i < have->n; i++)
		if (strncmp(have->v[i], name, n) == 0 &&
		    have->v[i][n] == '=')
			return true;
	return false;
}

void
gitid_env(const char *project, const struct strv *have, struct strv *out)
{
	static const struct {
		const char	*key;
		const char	*vars[2];
	} map[] = {
		{ "user.name", { "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME" } },
		{ "user.email", { "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL" } },
	};

	for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
		char	*v = NULL;

		for (size_t k = 0; k < 2; k++) {
			const char *var = map[i].vars[k];

			if (gitid_has(have, var)) {
				/* Given by the environment: pass it. */
				if (have == NULL)
					strv_pushf(out, "%s=%s", var,
					    getenv(var));
				continue;
			}
			if (v == NULL && (v = gitid_get(project,
			    map[i].key)) == NULL)
				break;
			strv_pushf(out, "%s=%s", var, v);
		}
		free(v);
	}
}
