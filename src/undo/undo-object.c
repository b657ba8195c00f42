/*
 * undo-object: a larger file's content kept as an object of the store
 * (objects/<sha256>, shared by every run: a content kept before costs
 * nothing). Copied to an unnamed temporary file of the store while it is
 * hashed, then named by its hash. Where the file system clones (FICLONE:
 * XFS, btrfs) the object is a clone, named by 32 random bytes instead
 * (the manifest says "clone"): it costs what the file's extents do, not
 * its bytes, so it is neither read nor hashed (sharing blocks already,
 * it has nothing to gain from sharing a name); undo checks its size.
 * The object is listed in the run's blobs file before it is named,
 * under the store's shared lock, so a pruning neighbour keeps it.
 * Nothing is synced here (undo-commit.c does, once, at the end, for
 * clones: an object named by its digest is checked by undo instead).
 */
#include "autoconf.h"

#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/fs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "sha256.h"
#include "undo-rec.h"
#include "xalloc.h"

#define UNDO_COPY_BUF	(1 << 20)

/* A clone made (dst): its size, within the limit, and a random name;
   -1 with *why. */
static int
undo_rec_cloned(struct undo_rec *u, int dst, char hex[SHA256_HEX_LEN + 1],
    uint64_t *size, char **why)
{
	uint8_t		r[SHA256_LEN];
	struct stat	st;

	if (fstat(dst, &st) != 0 || getrandom(r, sizeof r, 0) !=
	    (ssize_t)sizeof r) {
		*why = NULL;
		return -1;	/* read and hashed after all */
	}
	*size = (uint64_t)st.st_size;
	if (*size > u->lim.file_max) {
		*why = xasprintf("over the size limit of %llu bytes",
		    (unsigned long long)u->lim.file_max);
		return -1;
	}
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* Copy (or clone) src's first limit bytes (UINT64_MAX: all of it) to a
   new temporary file of the store, hashing them; the temporary's path, or
   NULL with *why. */
static char *
undo_rec_copy(struct undo_rec *u, int src, uint64_t limit,
    char hex[SHA256_HEX_LEN + 1], uint64_t *size, int *tmpfd, bool *clone,
    char **why)
{
	_cleanup_free_ char *buf = xmalloc(UNDO_COPY_BUF);
	char		*tmp;
	uint8_t		 d[SHA256_LEN];
	struct sha256	 h;
	ssize_t		 r;
	bool		 cloned;
	int		 dst;

	/* An unnamed file, named only once it is whole (no temporary name
	   to make and remove); a named temporary where that is missing. */
	tmp = xasprintf("%s/tmp", u->store);
	dst = open(tmp, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (dst >= 0) {
		free(tmp);
		tmp = xasprintf("/proc/self/fd/%d", dst);
		*tmpfd = dst;
	} else {
		free(tmp);
		*tmpfd = -1;
		tmp = xasprintf("%s/tmp/%ld.%u", u->store, (long)getpid(),
		    u->tmp_seq++);
		dst = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	}
	if (dst < 0) {
		*why = xasprintf("cannot write the store: %s",
		    strerror(errno));
		free(tmp);
		return NULL;
	}
	if (limit == UINT64_MAX)
		cloned = ioctl(dst, FICLONE, src) == 0;
	else {
		/* The start of a file: cloned to its end, then cut. */
		cloned = ioctl(dst, FICLONE, src) == 0 &&
		    ftruncate(dst, (off_t)limit) == 0;
	}
	*clone = false;
	if (cloned && undo_rec_cloned(u, dst, hex, size, why) == 0) {
		*clone = true;
		if (*tmpfd < 0)
			close(dst);
		return tmp;
	}
	if (cloned && *why != NULL)
		goto fail;
	sha256_init(&h);
	*size = 0;
	while ((r = read(src, buf, limit - *size < UNDO_COPY_BUF ?
	    (size_t)(limit - *size) : UNDO_COPY_BUF)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*why = xasprintf("cannot read it: %s",
			    strerror(errno));
			goto fail;
		}
		sha256_update(&h, buf, (size_t)r);
		*size += (uint64_t)r;
		if (*size > u->lim.file_max) {
			*why = xasprintf("over the size limit of %llu bytes",
			    (unsigned long long)u->lim.file_max);
			goto fail;
		}
		if (!cloned) {
			for (ssize_t off = 0, w; off < r; off += w) {
				if ((w = write(dst, buf + off,
				    (size_t)(r - off))) < 0) {
					*why = xasprintf("cannot write the "
					    "store: %s", strerror(errno));
					goto fail;
				}
			}
		}
	}
	if (*tmpfd < 0)
		close(dst);
	sha256_final(&h, d);
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return tmp;
fail:
	close(dst);
	if (*tmpfd < 0)
		(void)unlink(tmp);
	*tmpfd = -1;
	free(tmp);
	return NULL;
}

void
undo_object_keep(struct undo_rec *u, struct undo_kept *k, int fd,
    uint64_t limit)
{
	char		 hex[SHA256_HEX_LEN + 1], *tmp, *obj, *why = NULL;
	int		 tfd = -1;
	bool		 clone;
	uint64_t	 size;
	struct stat	 ost;

	if ((tmp = undo_rec_copy(u, fd, limit, hex, &size, &tfd, &clone,
	    &why)) == NULL) {
		k->why = why;
		return;
	}
	obj = xasprintf("%s/objects/%s", u->store, hex);
	if (u->lock_fd >= 0)
		(void)flock(u->lock_fd, LOCK_SH);
	/* Listed first, so a pruning neighbour keeps it. */
	hex[SHA256_HEX_LEN] = '\n';
	(void)!write(u->blobs_fd, hex, SHA256_HEX_LEN + 1);
	hex[SHA256_HEX_LEN] = '\0';
	if (!clone && stat(obj, &ost) == 0 && (uint64_t)ost.st_size == size) {
		if (tfd < 0)
			(void)unlink(tmp);	/* kept already */
	} else if (tfd >= 0 ? linkat(AT_FDCWD, tmp, AT_FDCWD, obj,
	    AT_SYMLINK_FOLLOW) != 0 && errno != EEXIST :
	    rename(tmp, obj) != 0) {
		k->why = xasprintf("cannot write the store: %s",
		    strerror(errno));
		if (tfd < 0)
			(void)unlink(tmp);
	} else {
		u->run_bytes += size;
		/* A clone is synced at the end; an object named by its
		   digest is not waited for (undo checks the digest before
		   it uses it: one a crash lost is refused, never used). */
		if (clone)
			strv_push(&u->newobjs, hex);
	}
	if (tfd >= 0)
		close(tfd);
	if (u->lock_fd >= 0)
		(void)flock(u->lock_fd, LOCK_UN);
	if (k->why == NULL) {
		k->clone = clone;
		k->sha = xstrdup(hex);
		u->ref_bytes += size;
	}
	free(obj);
	free(tmp);
}
