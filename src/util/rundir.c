/* rundir: bwgate's per-user runtime directory (sockets, caches). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
		*cause = xasprintf("'%s' belongs to uid %u, not to us: remove "
		    "it or set XDG_RUNTIME_DIR to a private directory of yours",
		    dir, (unsigned)st.st_uid);
		return -1;
	}
	if ((st.st_mode & 077) != 0) {
		*cause = xasprintf("'%s' is accessible to others (mode %03o; "
		    "it must be 0700)", dir, (unsigned)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

/*
 * /tmp/bwgate-UID exists but is not ours: someone else made it first (to
 * catch our sockets). Use a private directory under our own cache
 * instead, the same for every bwgate of ours, so clients still find the
 * console; NULL when there is none either.
 */
static char *
rundir_alternative(bool create)
{
	const char	*cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char		*base, *dir;

	if (cache != NULL && cache[0] == '/')
		base = path_join(cache, "bwgate");
	else if (home != NULL && home[0] == '/' && strcmp(home, "/") != 0)
		base = xasprintf("%s/.cache/bwgate", home);
	else
		return NULL;
	dir = path_join(base, "run");
	if (create) {
		char *parent = xstrdup(base), *slash = strrchr(parent, '/');

		if (slash != NULL && slash != parent) {
			*slash = '\0';
			(void)mkdir(parent, 0700);
		}
		free(parent);
		(void)mkdir(base, 0700);
		(void)mkdir(dir, 0700);
	}
	free(base);
	return dir;
}

/* Make or check dir: ours and private; NULL with cause if not. */
static char *
rundir_settle(char *dir, bool create, char **cause)
{
	struct stat	st;

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

/*
 * Open dir for a connect through it: the directory itself, not a
 * symbolic link (O_NOFOLLOW), owned by us or by root, and not writable by
 * others unless sticky (/tmp: others cannot rename our socket away).
 * Checked on the descriptor (fstat), so the directory checked is the one
 * used: a directory renamed in after the check is not reached.
 */
int
rundir_open_trusted(const char *dir, char **cause)
{
	struct stat	st;
	uid_t		me = getuid();
	int		fd;

	fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP || e == ENOTDIR)
			*cause = xasprintf("refusing the console in '%s': "
			    "it is not a directory (a symbolic link?)", dir);
		else
			*cause = xasprintf("cannot use '%s': %s", dir,
			    strerror(e));
		errno = e;	/* ENOENT: no console there */
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("refusing the console in '%s': it is not "
		    "a directory", dir);
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	if (st.st_uid != me && st.st_uid != 0) {
		*cause = xasprintf("refusing the console in '%s': the "
		    "directory belongs to uid %u, not to you (uid %u); "
		    "another user may have put it there", dir,
		    (unsigned)st.st_uid, (unsigned)me);
		close(fd);
		errno = EPERM;
		return -1;
	}
	if ((st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0) {
		*cause = xasprintf("refusing the console in '%s': others may "
		    "write to the directory (mode %03o)", dir,
		    (unsigned)(st.st_mode & 0777));
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* The runtime directory from the user id alone: /tmp/bwgate-UID, or the
   private one under our cache when someone else made that first. */
char *
rundir_default(bool create, char **cause)
{
	struct stat	 st;
	char		*dir, *alt;

	dir = xasprintf("/tmp/bwgate-%u", (unsigned)getuid());
	if (lstat(dir, &st) == 0 && st.st_uid != getuid() &&
	    (alt = rundir_alternative(create)) != NULL) {
		char *why = NULL;

		if (rundir_check(alt, &why) == 0 ||
		    (!create && lstat(alt, &st) != 0)) {
			free(why);
			free(dir);
			return alt;
		}
		*cause = xasprintf("'%s' belongs to uid %u (someone "
		    "else created it) and '%s' cannot be used "
		    "instead: %s; set XDG_RUNTIME_DIR to a private "
		    "directory of yours", dir, (unsigned)st.st_uid,
		    alt, why);
		free(why);
		free(alt);
		free(dir);
		return NULL;
	}
	return rundir_settle(dir, create, cause);
}

/* The per-user runtime directory. */
char *
rundir_get(bool create, char **cause)
{
	const char	*xdg = getenv("XDG_RUNTIME_DIR");

	if (xdg == NULL || xdg[0] != '/')
		return rundir_default(create, cause);
	return rundir_settle(path_join(xdg, "bwgate"), create, cause);
}

int
rundir_connect_own(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	int		 fd;

	if (strlen(sock) >= sizeof sa.sun_path ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	strcpy(sa.sun_path, sock);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    cred.uid != geteuid()) {
		close(fd);
		return -1;
	}
	return fd;
}
