/*
 * guard: refuse projects and socket paths that would put bwgate's own
 * files inside a sandbox.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "guard.h"
#include "path.h"
#include "rundir.h"
#include "xalloc.h"

int
guard_project(const char *project, char **cause)
{
	const char	*home = getenv("HOME");
	char		*dirs[3], *why = NULL, *home_real = NULL;
	const char	*names[3] = { "configuration", "state (audit log, "
			    "trust records)", "runtime directory (sockets)" };
	int		 rc = 0;

	if (home != NULL && home[0] == '/' &&
	    (home_real = path_canonical_prefix(home)) != NULL &&
	    strcmp(home_real, project) == 0) {
		*cause = xasprintf("'%s' is your home directory and cannot be "
		    "the project (a command could rewrite your shell start-up "
		    "files and bwgate's rules): run bwgate in the project's "
		    "directory or pass --project DIR", project);
		free(home_real);
		return -1;
	}
	free(home_real);
	dirs[0] = config_user_dir();
	dirs[1] = config_state_dir();
	dirs[2] = rundir_get(false, &why);
	free(why);
	for (size_t i = 0; i < 3 && rc == 0; i++) {
		char *real;

		if (dirs[i] == NULL)
			continue;
		real = path_canonical_prefix(dirs[i]);
		if (path_is_under(real, project)) {
			*cause = xasprintf("'%s' cannot be the project: it "
			    "holds bwgate's %s '%s', which a command could "
			    "then rewrite: run bwgate in the project's "
			    "directory or pass --project DIR", project,
			    names[i], real);
			rc = -1;
		}
		free(real);
	}
	for (size_t i = 0; i < 3; i++)
		free(dirs[i]);
	return rc;
}

int
guard_socket(const char *path, const char *project, const struct strv *extra,
    char **cause)
{
	char	*real = path_canonical_prefix(path);
	int	 rc = 0;

	if (path_is_under(real, project)) {
		*cause = xasprintf("socket '%s' is inside the project '%s', "
		    "where a sandboxed command could reach it: choose a path "
		    "outside (--socket, BWGATE_SOCKET)", path, project);
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && extra != NULL && i < extra->n; i++) {
		char *e = path_canonical_prefix(extra->v[i]);

		if (path_is_under(real, e)) {
			*cause = xasprintf("socket '%s' is inside '%s', which "
			    "sandboxes can see (configured path): choose a "
			    "path outside (--socket, BWGATE_SOCKET)", path, e);
			rc = -1;
		}
		free(e);
	}
	free(real);
	return rc;
}
