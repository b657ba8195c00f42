/*
 * undo-save: keep what a run is about to change (undo.h).
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
 * less) to the run's pack, one append-only file (a buffer written out in
 * large pieces; a content met twice in the run is kept once), a larger
 * one as an object named by its sha256 (a reflink where the file system
 * can, shared by every run). Nothing is synced while the run runs: at its
 * end the pack, the new objects and their directories are, once, and then
 * the manifest that refers to them is written (undo-int.h).
 */
#include "autoconf.h"

#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/fs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "cleanup.h"
#include "file.h"
#include "log.h"
#include "sha256.h"
#include "undo-int.h"
#include "undo.h"
#include "xalloc.h"

/* One content of the run's pack. */
struct undo_packed {
	char		 sha[SHA256_HEX_LEN + 1];
	uint64_t	 off, len;
};

#define UNDO_PACK_BUF	(1 << 20)

/* One inode seen by the recorder. */
struct undo_kept {
	dev_t		 dev;
	ino_t		 ino;
	char		*sha;		/* content kept, or NULL */
	char		*target;	/* a symbolic link's target */
	char		*why;		/* why its content was not kept */
	char		*path;		/* the name it was kept under */
	bool		 multi;		/* it had other names */
	bool		 packed;	/* its content is in the run's pack */
	uint64_t	 poff, plen;	/* where, and how long */
	/* The inode at first sight, before any call changed it (another
	   name of it may be recorded later, after a change). */
	uint32_t	 mode;
	uint64_t	 size;
	int64_t		 mtime;
	int64_t		 btime;		/* -1: unknown */
};

struct undo_rec {
	char			*project;
	char			*command;
	char			*store;
	struct undo_limits	 lim;
	unsigned long		 id;		/* 0: none yet */
	int			 blobs_fd;
	uint64_t		 run_bytes;	/* new objects' bytes */
	uint64_t		 ref_bytes;	/* every object it refers to */
	uint64_t		 store_bytes;	/* the store's, at the start */
	unsigned		 tmp_seq;
	struct undo_kept	*k;
	size_t			 nk;
	size_t			 ck;
	uint32_t		*index;		/* ino hash -> k index + 1 */
	size_t			 mask;
	char			*broken;	/* the store failed: why */
	int			 lock_fd;	/* the store's lock (undo_lock) */
	struct timespec		 start;		/* the run's (before it ran) */
	bool			 multi;		/* a kept file had other names */
	/* The run's pack: its descriptor, what is written of it, what
	   waits in the buffer, and the contents it holds by sha256. */
	int			 pack_fd;
	uint64_t		 pack_size;	/* written and buffered */
	char			*pbuf;
	size_t			 plen;
	struct undo_packed	*pk;
	size_t			 npk, cpk;
	uint32_t		*pindex;	/* sha hash -> pk index + 1 */
	size_t			 pmask;
	struct strv		 newobjs;	/* objects made by this run */
};

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
static int
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
static struct undo_kept *
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

/* Copy (or clone) src to a new temporary file of the store, hashing it;
   the temporary's path, or NULL with *why. */
static char *
undo_rec_copy(struct undo_rec *u, int src, char hex[SHA256_HEX_LEN + 1],
    uint64_t *size, int *tmpfd, char **why)
{
	char		*tmp, buf[1 << 16];
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
	cloned = ioctl(dst, FICLONE, src) == 0;
	sha256_init(&h);
	*size = 0;
	while ((r = read(src, buf, sizeof buf)) != 0) {
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

/* Write out the pack's buffer; -1 with errno. */
static int
undo_pack_flush(struct undo_rec *u)
{
	size_t	off = 0;
	ssize_t	w;

	while (off < u->plen) {
		if ((w = write(u->pack_fd, u->pbuf + off, u->plen - off)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	u->plen = 0;
	return 0;
}

static uint64_t
undo_pack_hash(const char *sha)
{
	uint64_t	h = 0;

	for (int i = 0; i < 16; i++)
		h = h * 16 + (uint64_t)(sha[i] <= '9' ? sha[i] - '0' :
		    sha[i] - 'a' + 10);
	return h;
}

static struct undo_packed *
undo_pack_find(struct undo_rec *u, const char *sha)
{
	if (u->pindex == NULL)
		return NULL;
	for (size_t i = undo_pack_hash(sha) & u->pmask; u->pindex[i] != 0;
	    i = (i + 1) & u->pmask)
		if (strcmp(u->pk[u->pindex[i] - 1].sha, sha) == 0)
			return &u->pk[u->pindex[i] - 1];
	return NULL;
}

static void
undo_pack_index(struct undo_rec *u, size_t n)
{
	size_t	i;

	if (u->pindex == NULL || (u->npk + 1) * 2 > u->pmask + 1) {
		size_t size = u->pindex == NULL ? 256 : (u->pmask + 1) * 2;

		free(u->pindex);
		u->pindex = xcalloc(size, sizeof *u->pindex);
		u->pmask = size - 1;
		for (size_t j = 0; j < u->npk; j++)
			if (j != n)
				undo_pack_index(u, j);
	}
	for (i = undo_pack_hash(u->pk[n].sha) & u->pmask; u->pindex[i] != 0;
	    i = (i + 1) & u->pmask)
		;
	u->pindex[i] = (uint32_t)n + 1;
}

/* Keep len bytes of data (sha) in the run's pack: where they are, or
   NULL with *why. */
static struct undo_packed *
undo_pack_add(struct undo_rec *u, const char *data, size_t len,
    const char *sha, bool *added, char **why)
{
	struct undo_packed	*e;

	*added = false;
	if ((e = undo_pack_find(u, sha)) != NULL)
		return e;
	if (u->pack_fd < 0) {
		char *dir = undo_run_dir(u->store, u->id);
		char *p = xasprintf("%s/pack", dir);

		u->pack_fd = open(p, O_WRONLY | O_CREAT | O_APPEND |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		free(p);
		free(dir);
		if (u->pack_fd < 0) {
			*why = xasprintf("cannot write the store: %s",
			    strerror(errno));
			return NULL;
		}
		u->pbuf = xmalloc(UNDO_PACK_BUF);
	}
	if (u->plen + len > UNDO_PACK_BUF && undo_pack_flush(u) != 0) {
		*why = xasprintf("cannot write the store: %s",
		    strerror(errno));
		return NULL;
	}
	if (len > UNDO_PACK_BUF) {
		for (size_t off = 0; off < len; ) {
			ssize_t w = write(u->pack_fd, data + off, len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				*why = xasprintf("cannot write the store: %s",
				    strerror(errno));
				return NULL;
			}
			off += (size_t)w;
		}
	} else {
		memcpy(u->pbuf + u->plen, data, len);
		u->plen += len;
	}
	if (u->npk == u->cpk) {
		u->cpk = u->cpk ? u->cpk * 2 : 64;
		u->pk = xreallocarray(u->pk, u->cpk, sizeof *u->pk);
	}
	e = &u->pk[u->npk++];
	memcpy(e->sha, sha, SHA256_HEX_LEN + 1);
	e->off = u->pack_size;
	e->len = len;
	u->pack_size += len;
	undo_pack_index(u, u->npk - 1);
	*added = true;
	return e;
}

/* A small file's content into the pack: 0 kept, 1 it is not small after
   all (read it again as an object), -1 with k->why. */
static int
undo_rec_pack(struct undo_rec *u, struct undo_kept *k, int fd)
{
	char			*buf = xmalloc(UNDO_PACK_FILE + 1);
	char			 hex[SHA256_HEX_LEN + 1];
	struct undo_packed	*e;
	size_t			 n = 0;
	ssize_t			 r;
	bool			 added;

	while (n <= UNDO_PACK_FILE && (r = read(fd, buf + n,
	    UNDO_PACK_FILE + 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			k->why = xasprintf("cannot read it: %s",
			    strerror(errno));
			free(buf);
			return -1;
		}
		n += (size_t)r;
	}
	if (n > UNDO_PACK_FILE) {
		free(buf);
		return lseek(fd, 0, SEEK_SET) == 0 ? 1 : -1;
	}
	sha256_hex(buf, n, hex);
	if ((e = undo_pack_add(u, buf, n, hex, &added, &k->why)) == NULL) {
		free(buf);
		return -1;
	}
	free(buf);
	if (added)
		u->run_bytes += n;
	u->ref_bytes += n;
	k->sha = xstrdup(hex);
	k->packed = true;
	k->poff = e->off;
	k->plen = e->len;
	return 0;
}

/* Keep the content of the regular file open at fd (st) as an object. */
static void
undo_rec_keep(struct undo_rec *u, struct undo_kept *k, int fd,
    const struct stat *st)
{
	char			 hex[SHA256_HEX_LEN + 1], *tmp, *obj, *why = NULL;
	int			 tfd = -1;
	uint64_t		 size;
	struct stat		 ost;

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
	if ((uint64_t)st->st_size <= UNDO_PACK_FILE) {
		int rc = undo_rec_pack(u, k, fd);

		if (rc <= 0) {
			if (rc < 0 && k->why == NULL)
				k->why = xasprintf("cannot read it: %s",
				    strerror(errno));
			return;
		}
	}
	if ((tmp = undo_rec_copy(u, fd, hex, &size, &tfd, &why)) == NULL) {
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
	if (stat(obj, &ost) == 0 && (uint64_t)ost.st_size == size) {
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
		strv_push(&u->newobjs, hex);
	}
	if (tfd >= 0)
		close(tfd);
	if (u->lock_fd >= 0)
		(void)flock(u->lock_fd, LOCK_UN);
	if (k->why == NULL) {
		k->sha = xstrdup(hex);
		u->ref_bytes += size;
	}
	free(obj);
	free(tmp);
}

void
undo_rec_save_hook(void *arg, int rootfd, const char *rel)
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
	fd = beneath_open(rootfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0,
	    &cause);
	free(cause);
	if (fd < 0)
		return;		/* absent (created) or not ours to keep */
	if (fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) || undo_rec_find(u, st.st_dev,
	    st.st_ino) != NULL) {
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
	else
		undo_rec_keep(u, k, rfd, &st2);
	close(rfd);
}

/* "file", "dir", "link" or "other". */
static const char *
undo_type(uint32_t mode)
{
	return S_ISREG(mode) ? "file" : S_ISDIR(mode) ? "dir" :
	    S_ISLNK(mode) ? "link" : "other";
}

/* One entry of a snapshot as manifest JSON. */
static cJSON *
undo_entry_json(struct undo_rec *u, const struct snapshot_entry *e,
    bool before, cJSON *unsaved)
{
	cJSON			*j = cJSON_CreateObject(), *w;
	struct undo_kept	*k = NULL;
	struct snapshot_entry	 first;

	/* A name recorded after its inode was changed through another:
	   the inode as it was first seen. */
	if (before && (k = undo_rec_find(u, (dev_t)e->dev,
	    (ino_t)e->ino)) != NULL && (k->btime < 0 ||
	    !(e->flags & SNAPSHOT_BTIME) || k->btime == e->btime) &&
	    (k->mode & S_IFMT) == (e->mode & S_IFMT)) {
		first = *e;
		first.mode = k->mode;
		first.size = k->size;
		first.mtime = k->mtime;
		e = &first;
	}
	cJSON_AddStringToObject(j, "path", e->path);
	cJSON_AddStringToObject(j, "type", undo_type(e->mode));
	cJSON_AddNumberToObject(j, "mode", e->mode & 07777);
	cJSON_AddNumberToObject(j, "size", (double)e->size);
	/* Nanoseconds since the epoch do not fit a double exactly. */
	cJSON_AddNumberToObject(j, "mtime_s", (double)(e->mtime / 1000000000));
	cJSON_AddNumberToObject(j, "mtime_ns", (double)(e->mtime % 1000000000));
	cJSON_AddNumberToObject(j, "dev", (double)e->dev);
	cJSON_AddNumberToObject(j, "ino", (double)e->ino);
	cJSON_AddNumberToObject(j, "nlink", e->nlink);
	cJSON_AddNumberToObject(j, "uid", e->uid);
	cJSON_AddNumberToObject(j, "gid", e->gid);
	if (e->flags & SNAPSHOT_OPAQUE)
		cJSON_AddTrueToObject(j, "opaque");
	/* Inode numbers are reused: the birth time tells two apart. */
	if (e->flags & SNAPSHOT_BTIME) {
		cJSON_AddNumberToObject(j, "btime_s",
		    (double)(e->btime / 1000000000));
		cJSON_AddNumberToObject(j, "btime_ns",
		    (double)(e->btime % 1000000000));
	}
	if (!before || k == NULL)
		return j;
	if (k->sha != NULL)
		cJSON_AddStringToObject(j, "blob", k->sha);
	if (k->sha != NULL && k->packed) {
		cJSON_AddNumberToObject(j, "pack_off", (double)k->poff);
		cJSON_AddNumberToObject(j, "pack_len", (double)k->plen);
	}
	if (k->target != NULL)
		cJSON_AddStringToObject(j, "target", k->target);
	if (k->why != NULL) {
		w = cJSON_CreateObject();
		cJSON_AddStringToObject(w, "path", e->path);
		cJSON_AddStringToObject(w, "why", k->why);
		cJSON_AddItemToArray(unsaved, w);
	}
	return j;
}

/* Add {path, why} to unsaved once per path. */
static void
undo_unsaved_add(cJSON *unsaved, const char *path, const char *why)
{
	const cJSON	*e;
	cJSON		*w;

	cJSON_ArrayForEach(e, unsaved)
		if (strcmp(cJSON_GetObjectItem(e, "path")->valuestring,
		    path) == 0)
			return;
	w = cJSON_CreateObject();
	cJSON_AddStringToObject(w, "path", path);
	cJSON_AddStringToObject(w, "why", why);
	cJSON_AddItemToArray(unsaved, w);
}

/*
 * A kept file had other names (hard links) that no call named: a change
 * through one name changed them too, so they are part of the run. Find
 * them (one scan of the project, only in this case) and add each to both
 * lists: before as the inode was, after as it is.
 */
static void
undo_other_names(struct undo_rec *u, const struct snapshot *before,
    const struct snapshot *after, const struct snapshot_opts *opts,
    cJSON *barr, cJSON *aarr, cJSON *unsaved)
{
	struct snapshot			*all;
	const struct snapshot_entry	*e, *b;
	struct undo_kept		*k;
	struct snapshot_entry		 copy;
	char				*cause = NULL;

	if ((all = snapshot_take(u->project, opts, &cause)) == NULL) {
		for (size_t i = 0; i < u->nk; i++)
			if (u->k[i].multi)
				undo_unsaved_add(unsaved, u->k[i].path, "its "
				    "other hard links could not be found");
		free(cause);
		return;
	}
	for (size_t i = 0; i < snapshot_count(all); i++) {
		e = snapshot_entry(all, i);
		if (!S_ISREG(e->mode) || (e->flags & SNAPSHOT_DUPLICATE) ||
		    (k = undo_rec_find(u, (dev_t)e->dev,
		    (ino_t)e->ino)) == NULL || !k->multi ||
		    snapshot_find(before, e->path) != NULL ||
		    snapshot_find(after, e->path) != NULL)
			continue;
		/* The inode as the run found it, under this name. */
		b = NULL;
		for (size_t j = 0; j < snapshot_count(before) && b == NULL;
		    j++) {
			const struct snapshot_entry *c = snapshot_entry(before,
			    j);

			if (c->ino == e->ino && c->dev == e->dev &&
			    (!(c->flags & SNAPSHOT_BTIME) ||
			    !(e->flags & SNAPSHOT_BTIME) ||
			    c->btime == e->btime))
				b = c;
		}
		if (b == NULL)
			continue;
		copy = *b;
		copy.path = e->path;
		copy.len = e->len;
		cJSON_AddItemToArray(barr, undo_entry_json(u, &copy, true,
		    unsaved));
		cJSON_AddItemToArray(aarr, undo_entry_json(u, e, false, NULL));
	}
	snapshot_free(all);
}

/* A JSON string (as cJSON writes it: ", \\ and control characters
   escaped, other bytes as they are). */
static void
undo_json_string(const char *s, struct buf *b)
{
	static const char hex[] = "0123456789abcdef";
	const char	*run = s;

	buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		char e[7];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(b, run, (size_t)(s - run));
		run = s + 1;
		e[0] = '\\';
		switch (c) {
		case '"': case '\\': e[1] = (char)c; buf_add(b, e, 2); break;
		case '\b': e[1] = 'b'; buf_add(b, e, 2); break;
		case '\f': e[1] = 'f'; buf_add(b, e, 2); break;
		case '\n': e[1] = 'n'; buf_add(b, e, 2); break;
		case '\r': e[1] = 'r'; buf_add(b, e, 2); break;
		case '\t': e[1] = 't'; buf_add(b, e, 2); break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			buf_add(b, e, 6);
		}
	}
	buf_add(b, run, (size_t)(s - run));
	buf_putc(b, '"');
}

/* A number: an integer (every number of a manifest) without printf. */
static void
undo_json_number(double d, struct buf *b)
{
	char		 t[32], *p = t + sizeof t;
	uint64_t	 v;
	bool		 neg = d < 0;

	if (d != d || d - d != 0) {	/* NaN, infinite */
		buf_puts(b, "null");
		return;
	}
	if (d != (double)(int64_t)d || d > 9007199254740992.0 ||
	    d < -9007199254740992.0) {
		int n = snprintf(t, sizeof t, "%1.17g", d);

		buf_add(b, t, (size_t)n);
		return;
	}
	v = neg ? (uint64_t)-(int64_t)d : (uint64_t)d;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	if (neg)
		*--p = '-';
	buf_add(b, p, (size_t)(t + sizeof t - p));
}

/* A manifest as JSON text: what cJSON_PrintUnformatted() writes, in a
   fraction of its time (it formats each of the many numbers with
   printf and reads it back). */
static void
undo_json_print(const cJSON *j, struct buf *b)
{
	const cJSON	*e;
	bool		 first = true;

	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		buf_putc(b, cJSON_IsObject(j) ? '{' : '[');
		cJSON_ArrayForEach(e, j) {
			if (!first)
				buf_putc(b, ',');
			first = false;
			if (cJSON_IsObject(j)) {
				undo_json_string(e->string, b);
				buf_putc(b, ':');
			}
			undo_json_print(e, b);
		}
		buf_putc(b, cJSON_IsObject(j) ? '}' : ']');
	} else if (cJSON_IsString(j))
		undo_json_string(j->valuestring, b);
	else if (cJSON_IsNumber(j))
		undo_json_number(j->valuedouble, b);
	else if (cJSON_IsTrue(j))
		buf_puts(b, "true");
	else if (cJSON_IsFalse(j))
		buf_puts(b, "false");
	else
		buf_puts(b, "null");
}

/* fsync of path (a file or a directory); -1 with errno. */
static int
undo_fsync_path(const char *path)
{
	int	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Everything the manifest will refer to, on disk: the pack, the objects
   this run made and the directories that name them. -1 with cause. */
static int
undo_rec_sync(struct undo_rec *u, const char *dir, char **cause)
{
	char	*p;
	int	 rc = 0;

	if (u->pack_fd >= 0 && (undo_pack_flush(u) != 0 ||
	    fdatasync(u->pack_fd) != 0)) {
		*cause = xasprintf("cannot write the run's pack: %s",
		    strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < u->newobjs.n && rc == 0; i++) {
		p = xasprintf("%s/objects/%s", u->store, u->newobjs.v[i]);
		rc = undo_fsync_path(p);
		free(p);
	}
	if (rc == 0 && u->newobjs.n > 0) {
		p = xasprintf("%s/objects", u->store);
		rc = undo_fsync_path(p);
		free(p);
	}
	if (rc == 0)
		rc = undo_fsync_path(dir);
	if (rc != 0)
		*cause = xasprintf("cannot sync the undo store: %s",
		    strerror(errno));
	return rc;
}

void
undo_rec_commit(struct undo_rec *u, const struct snapshot *before,
    const struct snapshot *after, const struct snapshot_opts *opts,
    struct result *r)
{
	cJSON		*barr;
	cJSON		*m, *arr, *unsaved, *rep;
	char		*text, *path, *cause = NULL, *dir;
	struct buf	 mb = BUF_INIT;
	const struct snapshot_entry *e;

	if (u == NULL)
		return;
	rep = cJSON_CreateObject();
	if (changes_count(&r->changes) == 0) {
		cJSON_AddBoolToObject(rep, "possible", false);
		cJSON_AddStringToObject(rep, "why", "nothing changed");
		if (u->id != 0) {
			static const char *const f[] = { "blobs", "pid",
			    "pack" };

			dir = undo_run_dir(u->store, u->id);
			for (size_t i = 0; i < 3; i++) {
				path = xasprintf("%s/%s", dir, f[i]);
				(void)unlink(path);
				free(path);
			}
			(void)rmdir(dir);
			free(dir);
		}
		goto out;
	}
	if (undo_rec_claim(u) != 0) {
		cJSON_AddBoolToObject(rep, "possible", false);
		cJSON_AddStringToObject(rep, "why", u->broken);
		goto out;
	}
	m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "version", UNDO_MANIFEST_VERSION);
	cJSON_AddNumberToObject(m, "id", (double)u->id);
	cJSON_AddStringToObject(m, "project", u->project);
	if (r->command != NULL)
		cJSON_AddStringToObject(m, "command", r->command);
	else {
		char *c = strv_join(&r->argv, " ", true);

		cJSON_AddStringToObject(m, "command", c);
		free(c);
	}
	cJSON_AddNumberToObject(m, "time", (double)time(NULL));
	cJSON_AddNumberToObject(m, "start_s", (double)u->start.tv_sec);
	cJSON_AddNumberToObject(m, "start_ns", (double)u->start.tv_nsec);
	unsaved = cJSON_CreateArray();
	arr = barr = cJSON_AddArrayToObject(m, "before");
	for (size_t i = 0; i < snapshot_count(before); i++) {
		e = snapshot_entry(before, i);
		if (e->flags & SNAPSHOT_DUPLICATE)
			continue;
		/* First named after the run made it (under a name a renamed
		   parent gave it): not something the project had. */
		if ((e->flags & SNAPSHOT_BTIME) && e->btime >=
		    u->start.tv_sec * 1000000000LL + u->start.tv_nsec)
			continue;
		cJSON_AddItemToArray(arr, undo_entry_json(u, e, true,
		    unsaved));
	}
	arr = cJSON_AddArrayToObject(m, "after");
	for (size_t i = 0; i < snapshot_count(after); i++) {
		e = snapshot_entry(after, i);
		if (e->flags & SNAPSHOT_DUPLICATE)
			continue;
		cJSON_AddItemToArray(arr, undo_entry_json(u, e, false, NULL));
		if (e->flags & SNAPSHOT_OPAQUE)
			undo_unsaved_add(unsaved, e->path, "an excluded tree: "
			    "its contents are not recorded");
	}
	for (size_t i = 0; i < snapshot_count(before); i++) {
		e = snapshot_entry(before, i);
		if ((e->flags & SNAPSHOT_OPAQUE) &&
		    snapshot_find(after, e->path) == NULL)
			undo_unsaved_add(unsaved, e->path, "an excluded tree: "
			    "its contents are not recorded");
	}
	if (u->multi)
		undo_other_names(u, before, after, opts, barr, arr, unsaved);
	cJSON_AddItemToObject(m, "unsaved", cJSON_Duplicate(unsaved, true));
	cJSON_AddNumberToObject(m, "bytes", (double)u->ref_bytes);
	undo_json_print(m, &mb);
	buf_putc(&mb, '\0');
	text = buf_detach(&mb);
	cJSON_Delete(m);
	LOG("manifest: %zu bytes", strlen(text));
	/* The pack and the objects first, then the manifest that trusts
	   them. */
	dir = undo_run_dir(u->store, u->id);
	path = xasprintf("%s/manifest.json", dir);
	if (undo_rec_sync(u, dir, &cause) != 0 ||
	    file_write_atomic(path, text, strlen(text), 0600, &cause) != 0) {
		cJSON_AddBoolToObject(rep, "possible", false);
		cJSON_AddStringToObject(rep, "why", cause);
		free(cause);
		cJSON_Delete(unsaved);
	} else {
		cJSON_AddNumberToObject(rep, "id", (double)u->id);
		cJSON_AddBoolToObject(rep, "possible", true);
		cJSON_AddBoolToObject(rep, "complete",
		    cJSON_GetArraySize(unsaved) == 0);
		cJSON_AddNumberToObject(rep, "bytes", (double)u->ref_bytes);
		cJSON_AddNumberToObject(rep, "new_bytes",
		    (double)u->run_bytes);
		cJSON_AddItemToObject(rep, "unsaved", unsaved);
		free(path);
		path = xasprintf("%s/pid", dir);
		(void)unlink(path);
	}
	free(path);
	free(dir);
	free(text);
out:
	cJSON_Delete(r->undo);
	r->undo = rep;
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
