/* file: atomic, durable file replacement and mkdir -p. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "xalloc.h"

/* Create dir and every missing parent. */
int
mkdir_p(const char *dir, mode_t mode, char **cause)
{
	char	*copy = xstrdup(dir), *p, c;

	for (p = copy + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(copy, mode) != 0 && errno != EEXIST) {
			*cause = xasprintf("cannot create '%s': %s", copy,
			    strerror(errno));
			free(copy);
			return -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(copy);
	return 0;
}

/* fsync the directory holding path, so a rename in it is durable. */
static int
file_sync_dir(const char *path)
{
	const char	*slash = strrchr(path, '/');
	char		*dir;
	int		 fd, rc;

	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Write aside (synced when durable), rename over path, and sync the
   directory when durable. */
static int
write_aside(const char *path, const void *data, size_t len, mode_t mode,
    bool durable, char **cause)
{
	char	*tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int	 fd;

	(void)unlink(tmp);	/* ours from a crashed run with this pid */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd < 0)
		goto fail;
	if (write_full(fd, data, len) != 0 || (durable && fsync(fd) != 0))
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	if (durable && file_sync_dir(path) != 0) {
		*cause = xasprintf("cannot sync the directory of '%s': %s",
		    path, strerror(errno));
		return -1;
	}
	return 0;

fail:
	*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

int
file_write_atomic(const char *path, const void *data, size_t len,
    mode_t mode, char **cause)
{
	return write_aside(path, data, len, mode, true, cause);
}

int
file_write_replace(const char *path, const void *data, size_t len,
    mode_t mode, char **cause)
{
	return write_aside(path, data, len, mode, false, cause);
}

bool
file_is_still(const char *path, const struct stat *st)
{
	struct stat	now;

	return path != NULL && lstat(path, &now) == 0 &&
	    now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}
