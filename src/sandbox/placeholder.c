/*
 * placeholder: a per-project registry of placeholders and their users.
 *
 * The registry is a small text file, one "pid N" or "path P" per line,
 * locked with flock() for every read-modify-write. A placeholder is only
 * ever removed when it is still empty (a directory rmdir can remove, a
 * zero-length regular file), so nothing a person put there is lost.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "placeholder.h"
#include "rundir.h"
#include "sha256.h"
#include "strv.h"
#include "xalloc.h"

struct placeholders {
	int		 fd;
	char		*path;	/* the registry file */
	struct strv	 pids;	/* decimal pids, live ones only */
	struct strv	 paths;
};

/* The registry file of a project. */
static char *
registry_path(const char *project, char **cause)
{
	char	 hex[SHA256_HEX_LEN + 1];
	char	*dir, *path;

	if ((dir = rundir_get(true, cause)) == NULL)
		return NULL;
	sha256_hex(project, strlen(project), hex);
	hex[16] = '\0';
	path = xasprintf("%s/placeholders-%s", dir, hex);
	free(dir);
	return path;
}

static void
registry_read(struct placeholders *ph)
{
	struct buf	 b = BUF_INIT;
	char		*line, *save = NULL;

	lseek(ph->fd, 0, SEEK_SET);
	if (buf_read_fd(&b, ph->fd, 1 << 20) != 0 || b.data == NULL) {
		buf_release(&b);
		return;
	}
	for (line = strtok_r(b.data, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "pid ", 4) == 0) {
			long pid = strtol(line + 4, NULL, 10);

			/* Keep only processes that still exist. */
			if (pid > 0 && (kill((pid_t)pid, 0) == 0 ||
			    errno == EPERM))
				strv_push(&ph->pids, line + 4);
		} else if (strncmp(line, "path /", 6) == 0 &&
		    !strv_contains(&ph->paths, line + 5))
			strv_push(&ph->paths, line + 5);
	}
	buf_release(&b);
}

/* Write the registry back; an empty one is removed (under the lock:
   whoever waits for it sees it unlinked and opens a new one). */
static void
registry_write(struct placeholders *ph)
{
	struct buf	b = BUF_INIT;

	if (ph->pids.n == 0 && ph->paths.n == 0) {
		(void)unlink(ph->path);
		return;
	}
	for (size_t i = 0; i < ph->pids.n; i++)
		buf_printf(&b, "pid %s\n", ph->pids.v[i]);
	for (size_t i = 0; i < ph->paths.n; i++)
		buf_printf(&b, "path %s\n", ph->paths.v[i]);
	if (ftruncate(ph->fd, 0) == 0 && b.len > 0)
		(void)!pwrite(ph->fd, b.data, b.len, 0);
	buf_release(&b);
}

static void
registry_free(struct placeholders *ph)
{
	flock(ph->fd, LOCK_UN);
	close(ph->fd);
	free(ph->path);
	strv_release(&ph->pids);
	strv_release(&ph->paths);
	free(ph);
}

/* Lock the registry at path (taken), made if absent. */
static struct placeholders *
registry_open(char *path, char **cause)
{
	struct placeholders	*ph;
	int			 fd;

	for (;;) {
		struct stat	 held, named;

		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		    0600);
		if (fd < 0 || flock(fd, LOCK_EX) != 0) {
			*cause = xasprintf("cannot lock '%s': %s", path,
			    strerror(errno));
			if (fd >= 0)
				close(fd);
			free(path);
			return NULL;
		}
		/* Removed (emptied) by its last user while we waited? */
		if (fstat(fd, &held) == 0 && lstat(path, &named) == 0 &&
		    held.st_dev == named.st_dev && held.st_ino == named.st_ino)
			break;
		close(fd);
	}
	ph = xcalloc(1, sizeof *ph);
	ph->fd = fd;
	ph->path = path;
	registry_read(ph);
	return ph;
}

struct placeholders *
placeholders_open(const char *project, char **cause)
{
	char	*path = registry_path(project, cause);

	return path != NULL ? registry_open(path, cause) : NULL;
}

bool
placeholders_known(const struct placeholders *ph, const char *path)
{
	return strv_contains(&ph->paths, path);
}

int
placeholders_make(struct placeholders *ph, const char *path, bool dir,
    char **cause)
{
	struct stat	st;
	int		fd;

	if (lstat(path, &st) == 0 && placeholders_known(ph, path))
		return 0;	/* another sandbox's: shared */
	if (dir)
		fd = mkdir(path, 0755);
	else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	if (fd < 0) {
		*cause = xasprintf("cannot create placeholder '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	strv_push(&ph->paths, path);
	return 0;
}

void
placeholders_close(struct placeholders *ph)
{
	char	pid[32];

	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (!strv_contains(&ph->pids, pid))
		strv_push(&ph->pids, pid);
	registry_write(ph);
	registry_free(ph);
}

/* Remove one placeholder if it is still empty. */
static void
remove_if_empty(const char *path)
{
	struct stat	st;

	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode))
		rmdir(path);
	else if (S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
}

void
placeholders_release(const char *project)
{
	struct placeholders	*ph;
	struct strv		 left = STRV_INIT;
	char			*cause = NULL, pid[32], *path;
	struct stat		 st;

	/* No registry: no placeholder in use or left behind (the usual
	   case, and without creating one only to remove it). */
	if ((path = registry_path(project, &cause)) == NULL) {
		free(cause);
		return;
	}
	if (lstat(path, &st) != 0 && errno == ENOENT) {
		free(path);
		return;
	}
	if ((ph = registry_open(path, &cause)) == NULL) {
		free(cause);
		return;
	}
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	for (size_t i = 0; i < ph->pids.n; i++)
		if (strcmp(ph->pids.v[i], pid) != 0)
			strv_push(&left, ph->pids.v[i]);
	strv_release(&ph->pids);
	ph->pids = left;
	if (ph->pids.n == 0) {
		/* Deepest first: a path may sit inside another. */
		for (size_t i = ph->paths.n; i-- > 0;)
			remove_if_empty(ph->paths.v[i]);
		strv_release(&ph->paths);
	}
	registry_write(ph);
	registry_free(ph);
}
