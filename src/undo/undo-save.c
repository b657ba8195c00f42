/*
 * undo-save: the supervisor's decisions, while the run runs (undo.h):
 * which file to keep, when, and within which limits.
 *
 * Called by the recorder for every path a file-changing call names, while
 * the caller is stopped. The path is the supervisor's own resolution,
 * opened beneath the project's descriptor without following any link, so
 * a racing thread cannot make it keep one file and change another: what
 * is kept is the inode the call will reach (or, when a link was swapped in
 * meanwhile, the call does not reach the project's file at all). An inode
 * is kept once, the first time any name of it is named, which is before
 * the first change to it (every way to change a file's content starts with
 * a call the recorder sees: open for writing, truncate, rename over,
 * unlink). Content goes to the store: a small file (UNDO_PACK_FILE or
 * less) to the run's pack (undo-pack.c), a larger one as an object named
 * by its sha256 (undo-object.c). Nothing is synced while the run runs:
 * at its end the pack, the new objects and their directories are, once,
 * and then the manifest that refers to them is written (undo-commit.c).
 *
 * A larger file opened to append (O_WRONLY | O_APPEND, not O_TRUNC)
 * keeps only its length, its identity and a descriptor open for reading:
 * appending cannot change what was there, and a descriptor that cannot
 * read cannot be mapped. Every other way to change its start is a call
 * the recorder is told of first: another open for writing, truncate,
 * rename or unlink by name; ftruncate, fallocate (or its ioctls),
 * O_APPEND cleared, pwritev2's RWF_NOAPPEND, asynchronous writes by
 * descriptor (observe-filter.c, snapshot_paths_content). At the first of
 * them, while its caller is stopped, the start is kept after all (the
 * file's first old-length bytes, read through that descriptor), so what
 * is kept is always what was there. Undo truncates back only a file that
 * still is as the run left it, size and change time (undo-apply.c), and
 * whose start still has its digest where that is cheap to take.
 */
#include "autoconf.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "file.h"
#include "sha256.h"
#include "undo-int.h"
#include "undo-rec.h"
#include "xalloc.h"

/* Files kept by length at once (each holds a descriptor). */
#define UNDO_APPEND_MAX		256
/* A kept start this long or shorter is hashed, so undo proves it. */
#define UNDO_PREFIX_HASH	(16U << 20)

struct undo_rec *
undo_rec_new(const char *project, const char *command)
{
	struct undo_rec	*u;

	if (!undo_enabled())
		return NULL;
	u = xcalloc(1, sizeof *u);
	u->project = xstrdup(project);
	u->command = command != NULL ? xstrdup(command) : NULL;
	u->store = undo_store_dir(project);
	u->blobs_fd = -1;
	u->lock_fd = -1;
	u->pack_fd = -1;
	u->newobjs = (struct strv)STRV_INIT;
	undo_limits_get(&u->lim);
	clock_gettime(CLOCK_REALTIME, &u->start);
	return u;
}

/* Claim a run id: the next free directory under runs/. */
int
undo_rec_claim(struct undo_rec *u)
{
	struct strv	 ids = STRV_INIT;
	unsigned long	 id;
	char		*cause = NULL, *dir, *p, *last, *text, buf[32];
	int		 n, lock;

	if (u->id != 0)
		return 0;
	if (u->broken != NULL)
		return -1;
	p = xasprintf("%s/runs", u->store);
	if (mkdir_p(p, 0700, &cause) != 0 ||
	    (free(p), p = xasprintf("%s/objects", u->store),
	    mkdir_p(p, 0700, &cause)) != 0 ||
	    (free(p), p = xasprintf("%s/tmp", u->store),
	    mkdir_p(p, 0700, &cause)) != 0) {
		free(p);
		u->broken = cause;
		return -1;
	}
	free(p);
	/* Room for this run, before it saves anything. */
	u->store_bytes = undo_prune(u->store, &u->lim, 0, NULL);
	/* Ids are never reused, even after their runs are pruned: the
	   last one given out is kept beside the runs (under the lock). */
	lock = undo_lock(u->store, LOCK_EX);
	last = xasprintf("%s/last-id", u->store);
	text = undo_read_small(last, 64, NULL);
	undo_run_dirs(u->store, &ids);
	id = ids.n > 0 ? strtoul(ids.v[0], NULL, 10) + 1 : 1;
	if (text != NULL && strtoul(text, NULL, 10) >= id)
		id = strtoul(text, NULL, 10) + 1;
	free(text);
	strv_release(&ids);
	for (;; id++) {
		dir = undo_run_dir(u->store, id);
		if (mkdir(dir, 0700) == 0)
			break;
		if (errno != EEXIST) {
			u->broken = xasprintf("cannot create '%s': %s", dir,
			    strerror(errno));
			free(dir);
			free(last);
			if (lock >= 0)
				close(lock);
			return -1;
		}
		free(dir);
	}
	u->id = id;
	n = snprintf(buf, sizeof buf, "%lu\n", id);
	(void)file_write_replace(last, buf, (size_t)n, 0600, &cause);
	free(cause);
	cause = NULL;
	free(last);
	/* Kept open: each object is saved under it, shared. */
	if (lock >= 0)
		(void)flock(lock, LOCK_UN);
	u->lock_fd = lock;
	p = xasprintf("%s/pid", dir);
	n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	(void)file_write_replace(p, buf, (size_t)n, 0600, &cause);
	free(cause);
	free(p);
	p = xasprintf("%s/blobs", dir);
	u->blobs_fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	free(p);
	free(dir);
	if (u->blobs_fd < 0) {
		u->broken = xstrdup("cannot write the run's object list");
		return -1;
	}
	return 0;
}

/* The kept entry of an inode, or NULL. */
struct undo_kept *
undo_rec_find(struct undo_rec *u, dev_t dev, ino_t ino)
{
	size_t	i;

	if (u->index == NULL)
		return NULL;
	for (i = (size_t)(ino * 0x9e3779b97f4a7c15ULL) & u->mask;
	    u->index[i] != 0; i = (i + 1) & u->mask) {
		struct undo_kept *k = &u->k[u->index[i] - 1];

		if (k->ino == ino && k->dev == dev)
			return k;
	}
	return NULL;
}

/* Index entry n (grow the table at half full). */
static void
undo_rec_index(struct undo_rec *u, size_t n)
{
	size_t	i;

	if (u->index == NULL || (u->nk + 1) * 2 > u->mask + 1) {
		size_t size = u->index == NULL ? 256 : (u->mask + 1) * 2;

		free(u->index);
		u->index = xcalloc(size, sizeof *u->index);
		u->mask = size - 1;
		for (size_t j = 0; j < u->nk; j++)
			if (j != n)
				undo_rec_index(u, j);
	}
	for (i = (size_t)(u->k[n].ino * 0x9e3779b97f4a7c15ULL) & u->mask;
	    u->index[i] != 0; i = (i + 1) & u->mask)
		;
	u->index[i] = (uint32_t)n + 1;
}

static struct undo_kept *
undo_rec_add(struct undo_rec *u, const struct stat *st, const char *rel)
{
	struct undo_kept	*k;

	if (u->nk == u->ck) {
		u->ck = u->ck ? u->ck * 2 : 64;
		u->k = xreallocarray(u->k, u->ck, sizeof *u->k);
	}
	k = &u->k[u->nk++];
	memset(k, 0, sizeof *k);
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->path = xstrdup(rel);
	undo_rec_index(u, u->nk - 1);
	return k;
}

/* Keep the content of the regular file open at fd (st; its first limit
   bytes, UINT64_MAX: all), within the limits: in the pack if it is
   small, as an object otherwise. */
static void
undo_rec_keep(struct undo_rec *u, struct undo_kept *k, int fd,
    const struct stat *st, uint64_t limit)
{
	if ((uint64_t)st->st_size > u->lim.file_max) {
		k->why = xasprintf("over the size limit (%llu bytes > %llu)",
		    (unsigned long long)st->st_size,
		    (unsigned long long)u->lim.file_max);
		return;
	}
	if (undo_rec_claim(u) != 0) {
		k->why = xstrdup(u->broken);
		return;
	}
	if (u->run_bytes + (uint64_t)st->st_size > u->lim.run_max) {
		k->why = xasprintf("over the run's limit of %llu bytes",
		    (unsigned long long)u->lim.run_max);
		return;
	}
	if (u->store_bytes + u->run_bytes + (uint64_t)st->st_size >
	    u->lim.total_max && u->id != 0) {
		/* Make room: the oldest other runs go first. */
		char	 keep[32];
		uint64_t held;

		snprintf(keep, sizeof keep, "%lu", u->id);
		held = undo_prune(u->store, &u->lim, (uint64_t)st->st_size,
		    keep);
		u->store_bytes = held > u->run_bytes ? held - u->run_bytes : 0;
	}
	if (u->store_bytes + u->run_bytes + (uint64_t)st->st_size >
	    u->lim.total_max) {
		k->why = xasprintf("the undo store is full (%llu bytes)",
		    (unsigned long long)u->lim.total_max);
		return;
	}
	if ((uint64_t)st->st_size <= UNDO_PACK_FILE && limit == UINT64_MAX) {
		int rc = undo_rec_pack(u, k, fd);

		if (rc <= 0) {
			if (rc < 0 && k->why == NULL)
				k->why = xasprintf("cannot read it: %s",
				    strerror(errno));
			return;
		}
	}
	undo_object_keep(u, k, fd, limit);
}

/* The sha256 of fd's first len bytes (from its start); -1 on a short
   read. */
static int
undo_rec_digest(int fd, uint64_t len, char hex[SHA256_HEX_LEN + 1])
{
	_cleanup_free_ char	*buf = xmalloc(1 << 20);
	uint8_t			 d[SHA256_LEN];
	struct sha256		 h;
	ssize_t			 r;

	sha256_init(&h);
	for (uint64_t off = 0; off < len; off += (uint64_t)r) {
		r = pread(fd, buf, len - off < (1 << 20) ? (size_t)(len - off) :
		    (1 << 20), (off_t)off);
		if (r <= 0)
			return -1;
		sha256_update(&h, buf, (size_t)r);
	}
	sha256_final(&h, d);
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return 0;
}

/* A file kept by length (k->append) may now change anywhere: keep its
   first k->size bytes after all (still what they were: every call that
   could change them comes here first, while its caller is stopped). */
static void
undo_rec_unappend(struct undo_rec *u, struct undo_kept *k)
{
	struct stat	st;

	if (!k->append)
		return;
	k->append = false;
	u->nappend--;
	free(k->prefix_sha);
	k->prefix_sha = NULL;
	if (fstat(k->afd, &st) != 0 || (uint64_t)st.st_size < k->size ||
	    lseek(k->afd, 0, SEEK_SET) != 0)
		k->why = xstrdup("it was cut short while it was kept");
	else {
		st.st_size = (off_t)k->size;
		undo_rec_keep(u, k, k->afd, &st, k->size);
	}
	close(k->afd);
	k->afd = -1;
}

/* Keep k (open at rfd, st) by its length, if it is large and only
   appended to; false: keep its content. */
static bool
undo_rec_append(struct undo_rec *u, struct undo_kept *k, int rfd,
    const struct stat *st)
{
	char	hex[SHA256_HEX_LEN + 1];

	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size <= UNDO_PACK_FILE ||
	    u->nappend >= UNDO_APPEND_MAX || undo_rec_claim(u) != 0)
		return false;
	if ((uint64_t)st->st_size <= UNDO_PREFIX_HASH) {
		if (undo_rec_digest(rfd, (uint64_t)st->st_size, hex) != 0)
			return false;
		k->prefix_sha = xstrdup(hex);
	}
	k->append = true;
	k->afd = rfd;
	k->ctime = (uint64_t)st->st_ctim.tv_sec * 1000000000ULL +
	    (uint64_t)st->st_ctim.tv_nsec;
	u->nappend++;
	return true;
}

void
undo_rec_save_hook(void *arg, int rootfd, const char *rel, unsigned how)
{
	struct undo_rec		*u = arg;
	struct undo_kept	*k;
	struct stat		 st, st2;
	struct statx		 sx;
	char			*cause = NULL, target[4096];
	int64_t			 btime = -1;
	ssize_t			 n;
	int			 fd, rfd;

	if (u == NULL)
		return;
	if (rel == NULL) {
		/* Any file open may change: none is kept by length now. */
		for (size_t i = 0; u->nappend > 0 && i < u->nk; i++)
			undo_rec_unappend(u, &u->k[i]);
		return;
	}
	if ((how & SNAPSHOT_HOOK_SEEN) && u->nappend == 0)
		return;		/* nothing new, nothing kept by length */
	fd = beneath_open(rootfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0,
	    &cause);
	free(cause);
	if (fd < 0)
		return;		/* absent (created) or not ours to keep */
	if (fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode))) {
		close(fd);
		return;
	}
	if ((k = undo_rec_find(u, st.st_dev, st.st_ino)) != NULL ||
	    (how & SNAPSHOT_HOOK_SEEN)) {
		/* Kept already; by its length, unless this call appends. */
		if (k != NULL && k->append && !(how & SNAPSHOT_HOOK_APPEND))
			undo_rec_unappend(u, k);
		close(fd);
		return;
	}
	/* Born during the run: undo removes it, nothing to keep. */
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BTIME,
	    &sx) == 0 && (sx.stx_mask & STATX_BTIME)) {
		btime = sx.stx_btime.tv_sec * 1000000000LL +
		    sx.stx_btime.tv_nsec;
		if (btime >= u->start.tv_sec * 1000000000LL +
		    u->start.tv_nsec) {
			close(fd);
			return;
		}
	}
	k = undo_rec_add(u, &st, rel);
	k->afd = -1;
	k->mode = st.st_mode;
	k->size = (uint64_t)st.st_size;
	k->mtime = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	k->btime = btime;
	if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		k->multi = u->multi = true;
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(fd, "", target, sizeof target - 1);
		if (n >= 0) {
			target[n] = '\0';
			k->target = xstrdup(target);
		} else
			k->why = xasprintf("cannot read the link: %s",
			    strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	rfd = beneath_open(rootfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC, 0, &cause);
	if (rfd < 0) {
		k->why = xasprintf("cannot read it: %s", cause);
		free(cause);
		return;
	}
	if (fstat(rfd, &st2) != 0 || st2.st_ino != st.st_ino ||
	    st2.st_dev != st.st_dev)
		k->why = xstrdup("it was replaced while it was kept");
	else if ((how & SNAPSHOT_HOOK_APPEND) &&
	    undo_rec_append(u, k, rfd, &st2))
		return;		/* rfd kept open */
	else
		undo_rec_keep(u, k, rfd, &st2, UINT64_MAX);
	close(rfd);
}

void
undo_rec_free(struct undo_rec *u)
{
	if (u == NULL)
		return;
	for (size_t i = 0; i < u->nk; i++) {
		free(u->k[i].sha);
		free(u->k[i].target);
		free(u->k[i].why);
		free(u->k[i].path);
		free(u->k[i].prefix_sha);
		if (u->k[i].afd >= 0)
			close(u->k[i].afd);
	}
	free(u->k);
	free(u->index);
	if (u->pack_fd >= 0)
		close(u->pack_fd);
	free(u->pbuf);
	free(u->pk);
	free(u->pindex);
	strv_release(&u->newobjs);
	if (u->blobs_fd >= 0)
		close(u->blobs_fd);
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	free(u->project);
	free(u->command);
	free(u->store);
	free(u->broken);
	free(u);
}
