/* beneath: open paths beneath a directory, never following a symbolic
   link and never leaving it (beneath.h). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "strv.h"
#include "xalloc.h"

#define PATH_RESOLVE	(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
			 RESOLVE_NO_MAGICLINKS)

/* The path relative to root, normalised; NULL with cause. */
char *
beneath_relative(const char *root, const char *path, char **cause)
{
	size_t		 plen = strlen(root);
	const char	*p = path, *e;
	struct buf	 b = BUF_INIT;

	if (*path == '\0') {
		*cause = xstrdup("the path is empty");
		return NULL;
	}
	if (*path == '/') {
		if (strcmp(root, "/") != 0 &&
		    (strncmp(path, root, plen) != 0 ||
		    (path[plen] != '/' && path[plen] != '\0'))) {
			*cause = xasprintf("'%s' is outside '%s'",
			    path, root);
			return NULL;
		}
		p = strcmp(root, "/") == 0 ? path : path + plen;
	}
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		if (e == NULL)
			e = p + strlen(p);
		if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			*cause = xasprintf("'%s': '..' is not allowed", path);
			buf_release(&b);
			return NULL;
		}
		if (!(e - p == 1 && p[0] == '.')) {
			if (b.len > 0)
				buf_putc(&b, '/');
			buf_add(&b, p, (size_t)(e - p));
		}
		p = e;
	}
	if (b.len == 0)
		buf_puts(&b, ".");
	return buf_detach(&b);
}

/* The message for a failed open of rel (errno stays err). */
static char *
path_open_error(const char *rel, int err)
{
	char	*s;

	if (err == ELOOP)
		s = xasprintf("'%s' is or goes through a symbolic link "
		    "(links are not followed)", rel);
	else if (err == EXDEV)
		s = xasprintf("'%s' leads outside", rel);
	else
		s = xasprintf("cannot open '%s': %s", rel, strerror(err));
	errno = err;
	return s;
}

/* openat2 beneath dirfd; -1 with errno (ENOSYS when missing). */
static int
path_openat2(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how	how;

	memset(&how, 0, sizeof how);
	how.flags = (unsigned)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) != 0 ? mode : 0;
	how.resolve = PATH_RESOLVE;
	return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
}

/* Is openat2 unusable here (so the walk must be used)? */
static bool
path_no_openat2(int err)
{
	return err == ENOSYS || err == EPERM || err == E2BIG;
}

/* Walk the directories of rel up to (not including) its last component,
   one O_NOFOLLOW open each. */
static int
path_walk(int dirfd, const char *rel, bool mkdirs, char **cause)
{
	struct strv	 parts = STRV_INIT;
	struct stat	 st;
	int		 dfd, nfd;
	char		*copy = xstrdup(rel), *p, *save = NULL;

	for (p = strtok_r(copy, "/", &save); p != NULL;
	    p = strtok_r(NULL, "/", &save))
		strv_push(&parts, p);
	free(copy);
	dfd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; dfd >= 0 && i + 1 < parts.n; i++) {
		nfd = openat(dfd, parts.v[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && mkdirs &&
		    mkdirat(dfd, parts.v[i], 0777) == 0)
			nfd = openat(dfd, parts.v[i], O_PATH | O_NOFOLLOW |
			    O_CLOEXEC);
		if (nfd < 0) {
			*cause = path_open_error(rel, errno);
			close(dfd);
			dfd = -1;
			break;
		}
		close(dfd);
		dfd = nfd;
		if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode)) {
			*cause = S_ISLNK(st.st_mode) ?
			    path_open_error(rel, ELOOP) :
			    path_open_error(rel, ENOTDIR);
			close(dfd);
			dfd = -1;
		}
	}
	if (dfd < 0 && *cause == NULL)
		*cause = path_open_error(rel, errno);
	strv_release(&parts);
	return dfd;
}

/* Open rel beneath dirfd. */
int
beneath_open(int dirfd, const char *rel, int flags, mode_t mode,
    char **cause)
{
	const char	*name;
	int		 fd, dfd, err;

	*cause = NULL;
	fd = path_openat2(dirfd, rel, flags, mode);
	if (fd >= 0)
		return fd;
	if (!path_no_openat2(errno)) {
		*cause = path_open_error(rel, errno);
		return -1;
	}
	if ((dfd = beneath_parent(dirfd, rel, false, &name, cause)) < 0)
		return -1;
	fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	err = errno;
	if (fd < 0)
		*cause = path_open_error(rel, err);
	close(dfd);
	errno = err;
	return fd;
}

/* The directory that holds rel. */
int
beneath_parent(int dirfd, const char *rel, bool mkdirs,
    const char **name, char **cause)
{
	const char	*slash = strrchr(rel, '/');
	char		*dir;
	int		 fd;

	*cause = NULL;
	*name = slash != NULL ? slash + 1 : rel;
	if (slash == NULL)
		return openat(dirfd, ".", O_PATH | O_DIRECTORY |
		    O_CLOEXEC);
	dir = xstrndup(rel, (size_t)(slash - rel));
	fd = path_openat2(dirfd, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	if (fd >= 0)
		return fd;
	if (!path_no_openat2(errno) && !(errno == ENOENT && mkdirs)) {
		*cause = path_open_error(rel, errno);
		return -1;
	}
	return path_walk(dirfd, rel, mkdirs, cause);
}
