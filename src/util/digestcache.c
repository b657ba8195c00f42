/* digestcache: file digests kept while the file is unchanged. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "digestcache.h"
#include "xalloc.h"

struct digest_entry {
	char			*path;
	struct stat		 st;
	char			 hex[SHA256_HEX_LEN + 1];
	struct digest_entry	*next;
};

struct digestcache {
	struct digest_entry	*head;
};

struct digestcache *
digestcache_new(void)
{
	return xcalloc(1, sizeof(struct digestcache));
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Changed long enough ago that another change would show in its times. */
static bool
settled(const struct stat *st)
{
	struct timespec	now;
	long long	age_ms;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return false;
	age_ms = (long long)(now.tv_sec - st->st_ctim.tv_sec) * 1000 +
	    (now.tv_nsec - st->st_ctim.tv_nsec) / 1000000;
	return age_ms >= DIGESTCACHE_SETTLE_MS;
}

/* The digest of the regular file at path, read non-blocking (a FIFO
   swapped in after the stat never blocks the console) and bounded. */
static int
digest_read(const char *path, char out[SHA256_HEX_LEN + 1])
{
	struct buf	b = BUF_INIT;
	struct stat	st;
	int		fd, rc = -1;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size <= DIGESTCACHE_MAX &&
	    buf_read_fd(&b, fd, DIGESTCACHE_MAX) >= 0) {
		sha256_hex(b.data != NULL ? b.data : "", b.len, out);
		rc = 0;
	}
	buf_release(&b);
	close(fd);
	return rc;
}

int
digestcache_file(struct digestcache *dc, const char *path,
    char out[SHA256_HEX_LEN + 1])
{
	struct digest_entry	*e;
	struct stat		 st, after;

	for (e = dc->head; e != NULL; e = e->next)
		if (strcmp(e->path, path) == 0)
			break;
	if (stat(path, &st) != 0)
		return -1;
	if (e != NULL && same_file(&e->st, &st)) {
		memcpy(out, e->hex, sizeof e->hex);
		return 0;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > DIGESTCACHE_MAX ||
	    digest_read(path, out) != 0)
		return -1;
	/* Unchanged while it was read, and not just changed: remember. */
	if (stat(path, &after) != 0 || !same_file(&st, &after) ||
	    !settled(&after))
		return 0;
	if (e == NULL) {
		e = xcalloc(1, sizeof *e);
		e->path = xstrdup(path);
		e->next = dc->head;
		dc->head = e;
	}
	e->st = after;
	memcpy(e->hex, out, sizeof e->hex);
	return 0;
}

void
digestcache_free(struct digestcache *dc)
{
	struct digest_entry	*e, *next;

	if (dc == NULL)
		return;
	for (e = dc->head; e != NULL; e = next) {
		next = e->next;
		free(e->path);
		free(e);
	}
	free(dc);
}
