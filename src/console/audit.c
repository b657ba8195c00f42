/* audit: append-only, fsync'd JSON-lines audit log. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "cleanup.h"
#include "config.h"
#include "file.h"
#include "jsonutil.h"
#include "path.h"
#include "xalloc.h"

struct audit {
	char		*path;
	int		 fd;
	uint64_t	 seq;
	bool		 unsynced;	/* appended since the last fsync */
};

/* The default log path. */
char *
audit_default_path(void)
{
	_cleanup_free_ char	*dir = config_state_dir();

	return path_join(dir, "audit.jsonl");
}

/* End a torn last line so the next record starts cleanly. */
static int
audit_repair(int fd)
{
	struct stat	st;
	char		c;

	if (fstat(fd, &st) != 0 || st.st_size == 0)
		return 0;
	if (pread(fd, &c, 1, st.st_size - 1) != 1)
		return -1;
	if (c == '\n')
		return 0;
	if (write(fd, "\n", 1) != 1)
		return -1;
	return fsync(fd);
}

/* Open the log for appending. */
struct audit *
audit_open(const char *path, char **cause)
{
	_cleanup_free_ char	*def = NULL, *dir = NULL;
	struct audit		*a;
	struct stat		 st;
	char			*slash;
	int			 fd;

	if (path == NULL)
		path = def = audit_default_path();
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir_p(dir, 0700, cause) != 0)
			return NULL;
	}
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd < 0) {
		*cause = xasprintf("cannot open '%s': %s", path,
		    strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*cause = xasprintf("'%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if (audit_repair(fd) != 0) {
		*cause = xasprintf("cannot repair '%s': %s", path,
		    strerror(errno));
		close(fd);
		return NULL;
	}
	a = xcalloc(1, sizeof *a);
	a->path = xstrdup(path);
	a->fd = fd;
	return a;
}

/* The file's path. */
const char *
audit_path(const struct audit *a)
{
	return a->path;
}

/* Write one whole record and fsync it. */
int
audit_write(struct audit *a, cJSON *rec, char **cause)
{
	if (audit_append(a, rec, cause) != 0)
		return -1;
	return audit_sync(a, cause);
}

/* Make what was appended durable. */
int
audit_sync(struct audit *a, char **cause)
{
	if (!a->unsynced)
		return 0;
	if (fsync(a->fd) != 0) {
		*cause = xasprintf("cannot sync '%s': %s", a->path,
		    strerror(errno));
		return -1;
	}
	a->unsynced = false;
	return 0;
}

/* Write one whole record (no fsync). */
int
audit_append(struct audit *a, cJSON *rec, char **cause)
{
	struct timespec	 ts;
	struct tm	 tm;
	char		 iso[64], *s, *line;
	size_t		 len, off = 0;
	ssize_t		 n;
	int		 rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	/* Put time and seq first, for people reading the file. */
	cJSON_AddItemToObject(rec, "seq", cJSON_CreateNumber(
	    (double)++a->seq));
	cJSON_AddItemToObject(rec, "time_ms", cJSON_CreateNumber(
	    (double)ts.tv_sec * 1000 + (double)(ts.tv_nsec / 1000000)));
	cJSON_AddItemToObject(rec, "time", cJSON_CreateString(iso));
	s = json_line(rec);
	cJSON_Delete(rec);
	line = xasprintf("%s\n", s);
	free(s);
	len = strlen(line);

	/* One write; loop only if the kernel wrote less (then repair). */
	while (off < len) {
		n = write(a->fd, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*cause = xasprintf("cannot write '%s': %s", a->path,
			    n < 0 ? strerror(errno) : "short write");
			rc = -1;
			if (off > 0)
				(void)!write(a->fd, "\n", 1);
			break;
		}
		off += (size_t)n;
	}
	free(line);
	a->unsynced = true;
	return rc;
}

/* Sync and close. */
void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	fsync(a->fd);
	close(a->fd);
	free(a->path);
	free(a);
}
