/* beneath: the door to the project: open, make, remove and rename beneath
   a directory, never following a symbolic link and never leaving it
   (beneath.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
path_openat2(int dirfd, const char *rel, int flags, mode_t mode, int how_f)
{
	struct open_how	how;

	memset(&how, 0, sizeof how);
	how.flags = (unsigned)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) != 0 ? mode : 0;
	how.resolve = PATH_RESOLVE;
	if (how_f & BENEATH_NO_XDEV)
		how.resolve |= RESOLVE_NO_XDEV;
	return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
}

/* Is openat2 unusable here (so the walk must be used)? */
static bool
path_no_openat2(int err)
{
	return err == ENOSYS || err == EPERM || err == E2BIG;
}

/* Walk the directories of rel up to (not including) its last component,
   one O_NOFOLLOW open each (without openat2). */
static int
path_walk(int dirfd, const char *rel, bool mkdirs, int how, char **cause)
{
	struct strv	 parts = STRV_INIT;
	struct stat	 st, top;
	int		 dfd, nfd;
	char		*copy = xstrdup(rel), *p, *save = NULL;

	for (p = strtok_r(copy, "/", &save); p != NULL;
	    p = strtok_r(NULL, "/", &save))
		strv_push(&parts, p);
	free(copy);
	dfd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && fstat(dfd, &top) != 0) {
		close(dfd);
		dfd = -1;
	}
	for (size_t i = 0; dfd >= 0 && i + 1 < parts.n; i++) {
		if (strcmp(parts.v[i], "..") == 0) {
			errno = EXDEV;
			nfd = -1;
		} else
			nfd = openat(dfd, parts.v[i], O_PATH | O_NOFOLLOW |
			    O_CLOEXEC);
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
		if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    ((how & BENEATH_NO_XDEV) && st.st_dev != top.st_dev)) {
			*cause = S_ISLNK(st.st_mode) ?
			    path_open_error(rel, ELOOP) :
			    path_open_error(rel, S_ISDIR(st.st_mode) ? EXDEV :
			    ENOTDIR);
			close(dfd);
			dfd = -1;
		}
	}
	if (dfd < 0 && *cause == NULL)
		*cause = path_open_error(rel, errno);
	strv_release(&parts);
	return dfd;
}

/* The directory that holds rel (how: BENEATH_NO_XDEV or 0). */
static int
parent_how(int dirfd, const char *rel, bool mkdirs, int how,
    const char **name, char **cause)
{
	const char	*slash = strrchr(rel, '/');
	char		*dir;
	int		 fd;

	*cause = NULL;
	*name = slash != NULL ? slash + 1 : rel;
	if (**name == '\0' || strcmp(*name, "..") == 0 ||
	    strcmp(*name, ".") == 0) {
		*cause = path_open_error(rel, EINVAL);
		return -1;
	}
	if (slash == NULL)
		return openat(dirfd, ".", O_PATH | O_DIRECTORY |
		    O_CLOEXEC);
	dir = xstrndup(rel, (size_t)(slash - rel));
	fd = path_openat2(dirfd, dir, O_PATH | O_DIRECTORY, 0, how);
	free(dir);
	if (fd >= 0)
		return fd;
	if (!path_no_openat2(errno) && !(errno == ENOENT && mkdirs)) {
		*cause = path_open_error(rel, errno);
		return -1;
	}
	return path_walk(dirfd, rel, mkdirs, how, cause);
}

int
beneath_open_how(int dirfd, const char *rel, int flags, mode_t mode,
    int how, char **cause)
{
	const char	*name;
	struct stat	 st, top;
	int		 fd, dfd, err;

	*cause = NULL;
	fd = path_openat2(dirfd, rel, flags, mode, how);
	if (fd >= 0)
		return fd;
	if (!path_no_openat2(errno)) {
		*cause = path_open_error(rel, errno);
		return -1;
	}
	if (strcmp(rel, ".") == 0)
		return openat(dirfd, ".", flags | O_CLOEXEC, mode);
	if ((dfd = parent_how(dirfd, rel, false, how, &name, cause)) < 0)
		return -1;
	fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	err = errno;
	if (fd >= 0 && (how & BENEATH_NO_XDEV) && (fstat(fd, &st) != 0 ||
	    fstat(dirfd, &top) != 0 || st.st_dev != top.st_dev)) {
		close(fd);
		fd = -1;
		err = EXDEV;
	}
	if (fd < 0)
		*cause = path_open_error(rel, err);
	close(dfd);
	errno = err;
	return fd;
}

/* Open rel beneath dirfd. */
int
beneath_open(int dirfd, const char *rel, int flags, mode_t mode,
    char **cause)
{
	return beneath_open_how(dirfd, rel, flags, mode, 0, cause);
}

/* Open rel to read it when it is a regular file of at most max bytes. */
int
beneath_open_regular(int dirfd, const char *rel, off_t max, struct stat *st,
    char **cause)
{
	int	fd, err;

	fd = beneath_open(dirfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0,
	    cause);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		err = errno;
		*cause = path_open_error(rel, err);
	} else if (!S_ISREG(st->st_mode)) {
		err = EINVAL;
		*cause = xasprintf("'%s' is not a regular file (%s)", rel,
		    S_ISDIR(st->st_mode) ? "a directory" :
		    S_ISFIFO(st->st_mode) ? "a FIFO" :
		    S_ISSOCK(st->st_mode) ? "a socket" : "a device");
	} else if (st->st_size > max) {
		err = EFBIG;
		*cause = xasprintf("'%s' is larger than %lld bytes", rel,
		    (long long)max);
	} else
		return fd;
	close(fd);
	errno = err;
	return -1;
}

/* The directory that holds rel. */
int
beneath_parent(int dirfd, const char *rel, bool mkdirs,
    const char **name, char **cause)
{
	return parent_how(dirfd, rel, mkdirs, 0, name, cause);
}

int
beneath_root(const char *path, struct stat *st, char **cause)
{
	int	fd, err;

	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) != 0) {
		err = errno;
		*cause = xasprintf("cannot open the project '%s': %s", path,
		    strerror(err));
		if (fd >= 0)
			close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int
beneath_lstat(int dirfd, const char *rel, struct stat *st)
{
	char	*cause = NULL;
	int	 fd, rc, err;

	fd = beneath_open(dirfd, rel, O_PATH | O_NOFOLLOW, 0, &cause);
	free(cause);
	if (fd < 0)
		return -1;
	rc = fstat(fd, st);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

ssize_t
beneath_readlink(int dirfd, const char *rel, char *buf, size_t size)
{
	char	*cause = NULL;
	ssize_t	 n;
	int	 fd, err;

	fd = beneath_open(dirfd, rel, O_PATH | O_NOFOLLOW, 0, &cause);
	free(cause);
	if (fd < 0)
		return -1;
	n = readlinkat(fd, "", buf, size);
	err = errno;
	close(fd);
	errno = err;
	return n;
}

int
beneath_mkdir(int dirfd, const char *rel, mode_t mode, char **cause)
{
	const char	*name;
	int		 pfd, err;

	if ((pfd = beneath_parent(dirfd, rel, false, &name, cause)) < 0)
		return -1;
	if (mkdirat(pfd, name, mode) != 0) {
		err = errno;
		*cause = xasprintf("cannot create '%s': %s", rel,
		    strerror(err));
		close(pfd);
		errno = err;
		return -1;
	}
	close(pfd);
	return 0;
}

/* Remove rel when it is still the file id (undo's removals). */
int
beneath_remove(int dirfd, const char *rel, const struct stat *id)
{
	const char	*name;
	char		*cause = NULL;
	struct stat	 st;
	int		 pfd, rc = -1, err;

	pfd = parent_how(dirfd, rel, false, BENEATH_NO_XDEV, &name, &cause);
	free(cause);
	if (pfd < 0)
		return -1;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		rc = -1;
	else if (st.st_dev != id->st_dev || st.st_ino != id->st_ino) {
		errno = ESTALE;
		rc = -1;
	} else
		rc = unlinkat(pfd, name, S_ISDIR(st.st_mode) ?
		    AT_REMOVEDIR : 0);
	err = errno;
	close(pfd);
	errno = err;
	return rc;
}

/* A new symbolic link rel -> target. */
int
beneath_symlink(int dirfd, const char *rel, const char *target)
{
	const char	*name;
	char		*cause = NULL;
	int		 pfd, rc, err;

	pfd = parent_how(dirfd, rel, false, BENEATH_NO_XDEV, &name, &cause);
	free(cause);
	if (pfd < 0)
		return -1;
	rc = symlinkat(target, pfd, name);
	err = errno;
	close(pfd);
	errno = err;
	return rc;
}

/* chmod of the inode at rel, opened without following anything. */
int
beneath_chmod(int dirfd, const char *rel, mode_t mode)
{
	struct stat	 st;
	char		*cause = NULL, proc[64];
	int		 fd, rc = -1, err;

	fd = beneath_open(dirfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0,
	    &cause);
	free(cause);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		err = errno;
	else if (S_ISLNK(st.st_mode))
		err = ELOOP;
	else {
		/* O_PATH cannot fchmod: the descriptor's own name. */
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		rc = chmod(proc, mode);
		err = errno;
	}
	close(fd);
	errno = err;
	return rc;
}

/* chown of rel itself (a link is not followed). */
int
beneath_lchown(int dirfd, const char *rel, uid_t uid, gid_t gid)
{
	const char	*name;
	char		*cause = NULL;
	int		 pfd, rc, err;

	pfd = parent_how(dirfd, rel, false, BENEATH_NO_XDEV, &name, &cause);
	free(cause);
	if (pfd < 0)
		return -1;
	rc = fchownat(pfd, name, uid, gid, AT_SYMLINK_NOFOLLOW);
	err = errno;
	close(pfd);
	errno = err;
	return rc;
}

/* A new name rel for the file open at fd (AT_EMPTY_PATH needs no
   capability when fd was opened normally; else through /proc). */
int
beneath_link(int dirfd, const char *rel, int fd)
{
	const char	*name;
	char		*cause = NULL, proc[64];
	int		 pfd, rc, err;

	pfd = parent_how(dirfd, rel, false, BENEATH_NO_XDEV, &name, &cause);
	free(cause);
	if (pfd < 0)
		return -1;
	rc = linkat(fd, "", pfd, name, AT_EMPTY_PATH);
	if (rc != 0 && (errno == ENOENT || errno == EPERM)) {
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		rc = linkat(AT_FDCWD, proc, pfd, name, AT_SYMLINK_FOLLOW);
	}
	err = errno;
	close(pfd);
	errno = err;
	return rc;
}

int
beneath_rename(int dirfd, const char *rel, const char *to, char **cause)
{
	const char	*n1, *n2;
	int		 p1, p2 = -1, rc = -1, err;

	if ((p1 = parent_how(dirfd, rel, false, BENEATH_NO_XDEV, &n1,
	    cause)) < 0)
		return -1;
	if ((p2 = parent_how(dirfd, to, false, BENEATH_NO_XDEV, &n2,
	    cause)) >= 0) {
		rc = renameat2(p1, n1, p2, n2, RENAME_NOREPLACE);
		err = errno;
		if (rc != 0)
			*cause = xasprintf("cannot move '%s' to '%s': %s",
			    rel, to, strerror(err));
		close(p2);
		errno = err;
	}
	err = errno;
	close(p1);
	errno = err;
	return rc;
}

/* Is name one component (no '/', not "." or "..")? */
static bool
one_name(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int
beneath_child(int dfd, const char *name, int flags)
{
	if (!one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	return openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
}

int
beneath_child_stat(int dfd, const char *name, struct stat *st)
{
	if (!one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW);
}

int
beneath_child_statx(int dfd, const char *name, int flags, unsigned int mask,
    struct statx *stx)
{
	if (!one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	return statx(dfd, name, flags | AT_SYMLINK_NOFOLLOW, mask, stx);
}

int
beneath_up(int fd, const struct stat *parent)
{
	struct stat	st;
	int		pfd;

	pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) != 0 || st.st_dev != parent->st_dev ||
	    st.st_ino != parent->st_ino) {
		close(pfd);
		errno = ESTALE;
		return -1;
	}
	return pfd;
}

/* Was the entry (statx'd) born after since? */
static bool
born_after(const struct statx *sx, const struct timespec *since)
{
	if (!(sx->stx_mask & STATX_BTIME))
		return false;	/* cannot be told: not proven */
	return sx->stx_btime.tv_sec > since->tv_sec ||
	    (sx->stx_btime.tv_sec == since->tv_sec &&
	    (long)sx->stx_btime.tv_nsec > since->tv_nsec);
}

int
beneath_dispose(int dfd, const char *name, const struct timespec *since)
{
	struct statx	 sx;
	struct stat	 top, st;
	struct strv	 names = STRV_INIT;
	struct dirent	*de;
	DIR		*d;
	int		 fd, r, left = 0;

	if (!one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	if (fstat(dfd, &top) != 0)
		return -1;
	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT,
	    STATX_TYPE | STATX_INO | STATX_BTIME, &sx) != 0)
		return errno == ENOENT ? 0 : -1;
	if (makedev(sx.stx_dev_major, sx.stx_dev_minor) != top.st_dev ||
	    !born_after(&sx, since))
		return 1;
	if (!S_ISDIR(sx.stx_mode))
		return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_ino != sx.stx_ino ||
	    (d = fdopendir(fd)) == NULL) {
		close(fd);
		return 1;	/* not the one looked at */
	}
	while ((de = readdir(d)) != NULL)
		if (one_name(de->d_name))
			strv_push(&names, de->d_name);
	for (size_t i = 0; i < names.n; i++) {
		r = beneath_dispose(dirfd(d), names.v[i], since);
		if (r != 0)
			left = 1;
	}
	strv_release(&names);
	closedir(d);
	if (left)
		return 1;
	if (unlinkat(dfd, name, AT_REMOVEDIR) != 0)
		return errno == ENOTEMPTY || errno == EEXIST ? 1 :
		    errno == ENOENT ? 0 : -1;
	return 0;
}

int
beneath_move(int from, const char *name, int dir, const char *to)
{
	if (!one_name(name) || !one_name(to)) {
		errno = EINVAL;
		return -1;
	}
	return renameat2(from, name, dir, to, RENAME_NOREPLACE);
}

/* Rename the entry name of the directory open at dir over to, in the
   same directory (an existing to is replaced: a file write's last step,
   helper-write.c). */
int
beneath_replace(int dir, const char *name, const char *to)
{
	if (!one_name(name) || !one_name(to)) {
		errno = EINVAL;
		return -1;
	}
	return renameat(dir, name, dir, to);
}

/* Remove the file name of the directory open at dir (never a directory:
   a file write's own temporary file). */
int
beneath_drop(int dir, const char *name)
{
	if (!one_name(name)) {
		errno = EINVAL;
		return -1;
	}
	return unlinkat(dir, name, 0);
}
