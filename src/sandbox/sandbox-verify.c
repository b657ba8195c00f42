/*
 * sandbox-verify: before the command runs, check that every mount made
 * from a descriptor is at its place (sandbox.h, struct sandbox_mount).
 *
 * bwrap 0.8 resolves a --bind-fd source back to a path and mounts by that
 * path later, following the links it meets then, and resolves each
 * destination the same way: a second sandbox that exchanges a directory
 * of the project for a link to elsewhere at the right moment makes bwrap
 * mount another tree (outside the project, readable) or put a protected
 * path's mount somewhere else (leaving the real one writable). The
 * observer calls this on the sandbox's first notification, the command
 * still stopped before its execve: each destination is looked up in the
 * sandbox's own root without following any link, and must be the device
 * and inode bwgate opened. Anything else refuses the run.
 */
#include "autoconf.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "beneath.h"
#include "sandbox.h"
#include "xalloc.h"

int
sandbox_verify(const struct sandbox *sb, int rootfd, char **cause)
{
	struct stat	st;

	for (size_t i = 0; i < sb->nmounts; i++) {
		const struct sandbox_mount *m = &sb->mounts[i];
		const char *rel = m->path;

		if (!m->has_id)
			continue;
		while (*rel == '/')
			rel++;
		if (*rel == '\0')
			rel = ".";
		if (beneath_lstat(rootfd, rel, &st) != 0) {
			*cause = xasprintf("the sandbox's mount of '%s' is "
			    "not where it was put (%s): the project changed "
			    "while the sandbox was built (another sandbox "
			    "swapped a directory for a link?); refusing to "
			    "run", m->path, strerror(errno));
			return -1;
		}
		if (st.st_dev != m->dev || st.st_ino != m->ino) {
			*cause = xasprintf("the sandbox's mount of '%s' is "
			    "not what bwgate opened: the project changed while "
			    "the sandbox was built (another sandbox swapped a "
			    "directory for a link?); refusing to run",
			    m->path);
			return -1;
		}
	}
	return 0;
}
