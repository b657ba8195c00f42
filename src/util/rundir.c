/* rundir: bwgate's per-user runtime directory (sockets, caches). */
#include "autoconf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "rundir.h"
#include "xalloc.h"

/* Check that a directory is ours and private. */
int
rundir_check(const char *dir, char **cause)
{
	struct stat	st;

	if (lstat(dir, &st) != 0) {
		*cause = xasprintf("cannot use '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*cause = xasprintf("'%s' is not a directory", dir);
		return -1;
	}
	if (st.st_uid != getuid()) {
		*cause = xasprintf("'%s' belongs to uid %u, not to us", dir,
		    (unsigned)st.st_uid);
		return -1;
	}
	if ((st.st_mode & 077) != 0) {
		*cause = xasprintf("'%s' is accessible to others (mode %03o; "
		    "it must be 0700)", dir, (unsigned)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

/* The per-user runtime directory. */
char *
rundir_get(bool create, char **cause)
{
	const char	*xdg = getenv("XDG_RUNTIME_DIR");
	struct stat	 st;
	char		*dir;

	if (xdg != NULL && xdg[0] == '/')
		dir = path_join(xdg, "bwgate");
	else
		dir = xasprintf("/tmp/bwgate-%u", (unsigned)getuid());
	/* Not there: nothing listens; the connect will say so. */
	if (!create && lstat(dir, &st) != 0 && errno == ENOENT)
		return dir;
	if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		*cause = xasprintf("cannot create '%s': %s", dir,
		    strerror(errno));
		free(dir);
		return NULL;
	}
	if (rundir_check(dir, cause) != 0) {
		free(dir);
		return NULL;
	}
	return dir;
}
