/* bpfcache: cache compiled seccomp programs in the runtime directory. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcache.h"
#include "file.h"
#include "log.h"
#include "rundir.h"
#include "xalloc.h"

/* The cache file of a program (keyed by the libseccomp version too). */
static char *
cache_path(const char *name)
{
	const struct scmp_version *v = seccomp_version();
	char	*dir, *cause = NULL, *p;

	if ((dir = rundir_get(true, &cause)) == NULL) {
		free(cause);
		return NULL;
	}
	p = xasprintf("%s/bpf-%s-%u.%u.%u", dir, name, v->major, v->minor,
	    v->micro);
	free(dir);
	return p;
}

/* Read a cached program; false when there is none worth trusting. */
static bool
cache_read(const char *path, struct buf *out)
{
	struct stat	st;
	size_t		start = out->len;
	int		fd;
	bool		ok;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	ok = fstat(fd, &st) == 0 && st.st_uid == getuid() &&
	    S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size % 8 == 0 &&
	    st.st_size <= (1 << 20) && buf_read_fd(out, fd, 0) == 0 &&
	    out->len - start == (size_t)st.st_size;
	close(fd);
	if (!ok)
		out->len = start;
	return ok;
}

/* Write aside, sync and rename: readers never see half a program. */
static void
cache_write(const char *path, const char *data, size_t len)
{
	char	*cause = NULL;

	if (file_write_atomic(path, data, len, 0600, &cause) != 0) {
		LOG("%s", cause);	/* only a cache: built again next time */
		free(cause);
	}
}

int
bpf_cache_get(const char *name, bpf_build_fn build, void *arg,
    struct buf *out, char **cause)
{
	char	*path = cache_path(name);
	size_t	 start = out->len;

	if (path != NULL && cache_read(path, out)) {
		free(path);
		return 0;
	}
	if (build(arg, out, cause) != 0) {
		free(path);
		return -1;
	}
	if (path != NULL)
		cache_write(path, out->data + start, out->len - start);
	free(path);
	return 0;
}

int
bpf_export(void *ctx, struct buf *out, char **cause)
{
	int	fd = memfd_create("bwgate-bpf", MFD_CLOEXEC);
	int	rc = -1;

	if (fd >= 0 && seccomp_export_bpf(ctx, fd) == 0 &&
	    lseek(fd, 0, SEEK_SET) == 0 && buf_read_fd(out, fd, 1 << 20) == 0)
		rc = 0;
	else
		*cause = xasprintf("cannot export a seccomp program: %s",
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}
