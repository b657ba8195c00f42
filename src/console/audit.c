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
#include "buf.h"
#include "cleanup.h"
#include "config.h"
#include "file.h"
#include "jsonutil.h"
#include "log.h"
#include "path.h"
#include "xalloc.h"

/* Records kept in memory while the file cannot be written. */
#define AUDIT_MAX_PENDING	(32 * 1024 * 1024)

struct audit {
	char		*path;
	int		 fd;
	uint64_t	 seq;
	bool		 unsynced;	/* appended since the last fsync */
	off_t		 size;		/* of the current file */
	struct buf	 pending;	/* records not written yet, in order */
	uint64_t	 lost;		/* records dropped: pending was full */
	size_t		 max_bytes;	/* rotate past this; 0: never */
	int		 keep;		/* rotated files kept */
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
	a->size = lseek(fd, 0, SEEK_END);
	if (a->size < 0)
		a->size = 0;
	return a;
}

/* The file's path. */
const char *
audit_path(const struct audit *a)
{
	return a->path;
}

/* Add "seq", "time_ms" and "time" (ISO 8601, UTC), first for people. */
static void
audit_stamp(struct audit *a, cJSON *rec)
{
	struct timespec	 ts;
	struct tm	 tm;
	char		 iso[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	cJSON_AddItemToObject(rec, "seq", cJSON_CreateNumber(
	    (double)++a->seq));
	cJSON_AddItemToObject(rec, "time_ms", cJSON_CreateNumber(
	    (double)ts.tv_sec * 1000 + (double)(ts.tv_nsec / 1000000)));
	cJSON_AddItemToObject(rec, "time", cJSON_CreateString(iso));
}

/* Make a rename or link in path's directory durable. */
static void
audit_sync_dir(const char *path)
{
	_cleanup_free_ char	*dir = xstrdup(path);
	char			*slash = strrchr(dir, '/');
	int			 fd;

	if (slash == NULL)
		return;
	*slash = '\0';
	if ((fd = open(*dir != '\0' ? dir : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Rotate past max_bytes, keeping keep older files (0: no rotation). */
void
audit_set_rotation(struct audit *a, size_t max_bytes, int keep)
{
	a->max_bytes = max_bytes;
	a->keep = keep < 1 ? 1 : keep;
}

/* "audit.jsonl" -> "audit.jsonl.N" (caller frees). */
static char *
audit_rotated_name(const char *path, int n)
{
	return xasprintf("%s.%d", path, n);
}

/*
 * Start a new file. At every moment the log's name holds a whole file:
 * the older files shift up one number (the oldest is dropped), the current
 * file gets a second name, path.1, with link(2), and a new file, whose
 * first record names the one before it, replaces path with rename(2).
 * Every step is synced before the next, so a crash leaves at worst a
 * second name of the current file, which the next rotation replaces.
 */
static int
audit_rotate(struct audit *a, char **cause)
{
	_cleanup_free_ char	*tmp = xasprintf("%s.new", a->path);
	_cleanup_free_ char	*first = audit_rotated_name(a->path, 1);
	cJSON			*rec;
	char			*s, *line, *from, *to, *base;
	struct stat		 st;
	int			 fd, i, rc = -1;

	if (fsync(a->fd) != 0 || fstat(a->fd, &st) != 0)
		goto fail;
	for (i = a->keep; i >= 1; i--) {
		from = audit_rotated_name(a->path, i);
		to = audit_rotated_name(a->path, i + 1);
		if (i == a->keep)
			(void)unlink(from);
		else if (rename(from, to) != 0 && errno != ENOENT) {
			free(from);
			free(to);
			goto fail;
		}
		free(from);
		free(to);
	}
	if (link(a->path, first) != 0)
		goto fail;

	(void)unlink(tmp);
	fd = open(tmp, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd < 0)
		goto fail;
	base = strrchr(first, '/');
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "record", "audit-rotated");
	cJSON_AddStringToObject(rec, "previous", base != NULL ? base + 1 :
	    first);
	cJSON_AddNumberToObject(rec, "previous_last_seq", (double)a->seq);
	cJSON_AddNumberToObject(rec, "previous_bytes", (double)st.st_size);
	audit_stamp(a, rec);
	s = json_line(rec);
	cJSON_Delete(rec);
	line = xasprintf("%s\n", s);
	free(s);
	if (write_full(fd, line, strlen(line)) != 0 || fsync(fd) != 0 ||
	    rename(tmp, a->path) != 0) {
		free(line);
		close(fd);
		(void)unlink(tmp);
		goto fail;
	}
	a->size = (off_t)strlen(line);
	free(line);
	close(a->fd);
	a->fd = fd;
	audit_sync_dir(a->path);
	rc = 0;
fail:
	if (rc != 0)
		*cause = xasprintf("cannot rotate '%s': %s", a->path,
		    strerror(errno));
	return rc;
}

/* Write one whole record and fsync it. */
int
audit_write(struct audit *a, cJSON *rec, char **cause)
{
	if (audit_append(a, rec, cause) != 0)
		return -1;
	return audit_sync(a, cause);
}

/* Write what is kept, in order; what the kernel does not take stays kept
   (a short write leaves the rest of the record for the next try, so the
   record is completed, not torn). */
static int
audit_flush(struct audit *a, char **cause)
{
	ssize_t	n;

	while (a->pending.len > 0) {
		n = write(a->fd, a->pending.data, a->pending.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*cause = xasprintf("cannot write '%s': %s", a->path,
			    n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		buf_consume(&a->pending, (size_t)n);
		a->size += n;
		a->unsynced = true;
	}
	return 0;
}

/* Keep a line to write after the ones already kept, or count it lost. */
static int
audit_keep(struct audit *a, const char *line, size_t len, char **cause)
{
	if (a->pending.len + len > AUDIT_MAX_PENDING) {
		a->lost++;
		*cause = xasprintf("'%s' cannot be written and %zu bytes of "
		    "records wait: a record is lost", a->path, a->pending.len);
		return -1;
	}
	buf_add(&a->pending, line, len);
	return 0;
}

/* Say in the log how many records were lost while it could not be
   written (once it can). */
static void
audit_note_lost(struct audit *a)
{
	cJSON	*rec;
	char	*s, *line;

	if (a->lost == 0)
		return;
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "record", "audit-lost");
	cJSON_AddNumberToObject(rec, "count", (double)a->lost);
	audit_stamp(a, rec);
	s = json_line(rec);
	cJSON_Delete(rec);
	line = xasprintf("%s\n", s);
	free(s);
	buf_add(&a->pending, line, strlen(line));
	free(line);
	a->lost = 0;
}

/* Make what was appended durable: write what is kept, then fsync. */
int
audit_sync(struct audit *a, char **cause)
{
	if (audit_flush(a, cause) != 0)
		return -1;
	if (a->lost > 0) {
		audit_note_lost(a);
		if (audit_flush(a, cause) != 0)
			return -1;
	}
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

/*
 * Append one whole record with one write(2), no fsync. While the file
 * cannot be written (a full disk, an I/O error), records are kept in
 * memory in order and written by the next audit_sync() that succeeds, so
 * nothing is lost unless more than AUDIT_MAX_PENDING bytes wait: then -1.
 * audit_sync() says whether everything is on disk.
 */
int
audit_append(struct audit *a, cJSON *rec, char **cause)
{
	char	*s, *line;
	size_t	 len;
	int	 rc;

	audit_stamp(a, rec);
	s = json_line(rec);
	if (a->max_bytes > 0 && a->size > 0 && a->pending.len == 0 &&
	    (size_t)a->size + strlen(s) + 1 > a->max_bytes) {
		free(s);
		a->seq--;	/* the rotation record comes first */
		if (audit_rotate(a, cause) != 0) {
			/* Keep writing to the current file. */
			LOG("%s", *cause);
			free(*cause);
			*cause = NULL;
		}
		/* After the rotation record, in sequence. */
		cJSON_ReplaceItemInObject(rec, "seq",
		    cJSON_CreateNumber((double)++a->seq));
		s = json_line(rec);
	}
	cJSON_Delete(rec);
	line = xasprintf("%s\n", s);
	free(s);
	len = strlen(line);
	rc = audit_keep(a, line, len, cause);
	free(line);
	if (rc == 0 && audit_flush(a, cause) != 0) {
		/* Kept for later: not an error for this record. */
		free(*cause);
		*cause = NULL;
	}
	return rc;
}

/* Is everything appended written (not necessarily synced)? */
bool
audit_behind(const struct audit *a)
{
	return a->pending.len > 0 || a->lost > 0;
}

/* Sync and close. */
void
audit_close(struct audit *a)
{
	char	*cause = NULL;

	if (a == NULL)
		return;
	(void)audit_flush(a, &cause);
	free(cause);
	fsync(a->fd);
	close(a->fd);
	buf_release(&a->pending);
	free(a->path);
	free(a);
}
