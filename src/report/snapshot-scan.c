/* snapshot-scan: take a snapshot of a project tree (see snapshot.h). */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "report.h"
#include "snapshot-int.h"
#include "snapshot.h"
#include "xalloc.h"

/*
 * How the scan works.
 *
 * Each directory is read whole with getdents64 into a per-thread buffer,
 * every name is statx'd relative to the directory's descriptor (never
 * following symlinks, so no loop and no escape is possible), and the
 * subdirectories found are then opened with openat(O_NOFOLLOW) and scanned
 * in turn. Entry paths are copied into a chunked arena (chunks never move,
 * so entries point into them); entries themselves live in a vector.
 *
 * Two threads: the calling thread first lists the root and then the
 * shallowest directories breadth first until there are SCAN_JOBS pending
 * subtrees; the subtrees are then taken one by one by the calling thread
 * and one worker through an atomic counter, each scanning depth first with
 * its own vector, arena and buffers. Nothing is shared while scanning but
 * the read-only options and the counter. A subtree is reopened from the
 * root one component at a time (O_NOFOLLOW each), so a path swapped for a
 * symlink cannot lead outside. Depth first recursion holds one descriptor
 * per level; below SCAN_FD_DEPTH levels a directory is deferred and later
 * reopened the same way, so any depth works within a bounded number of
 * descriptors.
 *
 * Order does not matter for the diff: each snapshot gets a hash index by
 * path, so the diff is one probe per entry (O(n)); only the (short) lists
 * of changes are sorted.
 */

#define SCAN_DENTS_SIZE	(64 * 1024)
#define SCAN_JOBS	64	/* pending subtrees before the threads start */
#define SCAN_EXPAND_MAX	512	/* directories listed breadth first at most */
#define SCAN_FD_DEPTH	32	/* descriptors held by one depth first walk */
#define ARENA_CHUNK	(256 * 1024)

/* One thread's scan state. */
struct scan {
	struct scan_shared	*sh;
	struct snapshot_entry	*v;
	size_t			 n;
	size_t			 cap;
	struct arena_chunk	*arena;
	struct scan_dir		*stack;		/* subdirectories to visit */
	size_t			 nstack;
	size_t			 capstack;
	char			*pathbuf;
	size_t			 pathcap;
	char			*dents;
	struct scan_dir		*deferred;	/* too deep: reopen from root */
	size_t			 ndeferred;
	size_t			 capdeferred;
	uint32_t		*unreadable;	/* job roots that failed */
	size_t			 nunreadable;
	size_t			 capunreadable;
	struct strv		 warnings;
};

static void	 scan_init(struct scan *, struct scan_shared *);
static void	 scan_release(struct scan *);
static int	 scan_list(struct scan *, int, size_t);
static int	 scan_tree(struct scan *, int, size_t, int);
static void	 scan_job(struct scan *, const struct scan_dir *);
static void	*scan_worker(void *);

/* Carve n bytes out of the arena, adding a chunk when the last is full. */
void *
snapshot_arena_alloc(struct arena_chunk **ap, size_t n)
{
	struct arena_chunk	*c = *ap;
	size_t			 size;

	if (c == NULL || c->size - c->used < n) {
		size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		c = xmalloc(sizeof *c + size);
		c->next = *ap;
		c->used = 0;
		c->size = size;
		*ap = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

/* Free every chunk of an arena. */
void
snapshot_arena_free(struct arena_chunk *c)
{
	struct arena_chunk	*next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
}

/* A fast 32-bit hash of a path, eight bytes at a time. */
uint32_t
snapshot_hash(const char *p, size_t len)
{
	uint64_t	h = 0x9e3779b97f4a7c15ULL ^ len, w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		p += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	return (uint32_t)(h >> 32);
}

/* Start an empty per-thread scan. */
static void
scan_init(struct scan *s, struct scan_shared *sh)
{
	memset(s, 0, sizeof *s);
	s->sh = sh;
	s->pathcap = 4096;
	s->pathbuf = xmalloc(s->pathcap);
	s->pathbuf[0] = '\0';
	s->dents = xmalloc(SCAN_DENTS_SIZE);
}

/* Free what a scan owns (entries and arena unless handed over). */
static void
scan_release(struct scan *s)
{
	free(s->v);
	snapshot_arena_free(s->arena);
	free(s->stack);
	free(s->pathbuf);
	free(s->dents);
	free(s->deferred);
	free(s->unreadable);
	strv_release(&s->warnings);
}

/* Append a directory to a growable array of them. */
static void
scan_dir_push(struct scan_dir **v, size_t *n, size_t *cap,
    const struct scan_dir *d)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[(*n)++] = *d;
}

/* Make room for a path of n bytes plus a NUL in the path buffer. */
static void
scan_path_reserve(struct scan *s, size_t n)
{
	if (n + 1 > s->pathcap) {
		while (n + 1 > s->pathcap)
			s->pathcap *= 2;
		s->pathbuf = xrealloc(s->pathbuf, s->pathcap);
	}
}

/* True when an entry's path or name makes it opaque. */
int
scan_is_opaque(const struct scan_shared *sh, const char *path, size_t len,
    const char *name, size_t namelen)
{
	size_t	i;

	for (i = 0; i < sh->names.n; i++) {
		if (strlen(sh->names.v[i]) == namelen &&
		    memcmp(sh->names.v[i], name, namelen) == 0)
			return 1;
	}
	for (i = 0; i < sh->paths.n; i++) {
		if (strlen(sh->paths.v[i]) == len &&
		    memcmp(sh->paths.v[i], path, len) == 0)
			return 1;
	}
	return 0;
}

/* True when a path is on the skip list. */
int
scan_is_skipped(const struct scan_shared *sh, const char *path, size_t len)
{
	for (size_t i = 0; i < sh->skip.n; i++) {
		if (strlen(sh->skip.v[i]) == len &&
		    memcmp(sh->skip.v[i], path, len) == 0)
			return 1;
	}
	return 0;
}

/* stat one name in a directory into e; -1 with errno on failure. */
int
snapshot_stat(struct scan_shared *sh, int dfd, const char *name,
    struct snapshot_entry *e)
{
	struct statx	stx;
	struct stat	st;
	int		flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT;

	if (atomic_load_explicit(&sh->use_statx, memory_order_relaxed)) {
		if (beneath_child_statx(dfd, name, flags, STATX_BASIC_STATS |
		    STATX_BTIME, &stx) == 0) {
			e->mode = stx.stx_mode;
			e->uid = stx.stx_uid;
			e->gid = stx.stx_gid;
			e->nlink = stx.stx_nlink;
			e->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
			e->ino = stx.stx_ino;
			e->size = stx.stx_size;
			e->mtime = stx.stx_mtime.tv_sec * 1000000000LL +
			    stx.stx_mtime.tv_nsec;
			e->ctime = stx.stx_ctime.tv_sec * 1000000000LL +
			    stx.stx_ctime.tv_nsec;
			if (stx.stx_mask & STATX_BTIME) {
				e->btime = stx.stx_btime.tv_sec * 1000000000LL +
				    stx.stx_btime.tv_nsec;
				e->flags |= SNAPSHOT_BTIME;
			}
			return 0;
		}
		/* Old kernels, or a container's seccomp policy. */
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		if (beneath_child_stat(dfd, name, &st) != 0)
			return -1;
		atomic_store(&sh->use_statx, 0);
	} else if (beneath_child_stat(dfd, name, &st) != 0)
		return -1;
	e->mode = st.st_mode;
	e->uid = st.st_uid;
	e->gid = st.st_gid;
	e->nlink = st.st_nlink;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->size = st.st_size;
	e->mtime = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	e->ctime = st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
	return 0;
}

/* Note a problem with a path (quoted, like every cause). */
static void
scan_warn(struct scan *s, const char *path, int error)
{
	strv_pushf(&s->warnings, "cannot read '%s': %s", path,
	    strerror(error));
}

/*
 * Record every entry of the directory open on dfd, whose path (plen bytes)
 * is in the path buffer, and push its subdirectories on the stack. -1 with
 * errno when the directory cannot be read at all.
 */
static int
scan_list(struct scan *s, int dfd, size_t plen)
{
	struct snapshot_entry	 e;
	struct scan_dir		 d;
	char			*path;
	const char		*name;
	size_t			 namelen, len;
	long			 nread, off;
	unsigned short		 reclen;
	int			 opaque;

	for (;;) {
		nread = syscall(SYS_getdents64, dfd, s->dents, SCAN_DENTS_SIZE);
		if (nread == 0)
			return 0;
		if (nread < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (off = 0; off < nread; off += reclen) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			memcpy(&reclen, s->dents + off + 16, sizeof reclen);
			name = s->dents + off + 19;
			if (name[0] == '.' && (name[1] == '\0' ||
			    (name[1] == '.' && name[2] == '\0')))
				continue;
			namelen = strlen(name);
			len = plen + (plen != 0) + namelen;
			scan_path_reserve(s, len);
			if (plen != 0)
				s->pathbuf[plen] = '/';
			memcpy(s->pathbuf + plen + (plen != 0), name, namelen);
			s->pathbuf[len] = '\0';
			if (s->sh->skip.n != 0 &&
			    scan_is_skipped(s->sh, s->pathbuf, len))
				continue;

			memset(&e, 0, sizeof e);
			if (snapshot_stat(s->sh, dfd, name, &e) != 0) {
				/* Vanished since it was listed: not there. */
				if (errno != ENOENT)
					scan_warn(s, s->pathbuf, errno);
				continue;
			}
			if (len > UINT32_MAX - 1 || s->n >= UINT32_MAX - 1)
				continue;
			opaque = scan_is_opaque(s->sh, s->pathbuf, len, name,
			    namelen);
			if (opaque)
				e.flags |= SNAPSHOT_OPAQUE;
			path = snapshot_arena_alloc(&s->arena, len + 1);
			memcpy(path, s->pathbuf, len + 1);
			e.path = path;
			e.len = len;
			e.hash = snapshot_hash(path, len);

			if (s->n == s->cap) {
				s->cap = s->cap ? s->cap * 2 : 1024;
				s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
			}
			s->v[s->n++] = e;

			if (S_ISDIR(e.mode) && !opaque) {
				d.path = path;
				d.len = len;
				d.entry = s->n - 1;
				scan_dir_push(&s->stack, &s->nstack,
				    &s->capstack, &d);
			}
		}
	}
}

/* Open a directory inside a parent, never following a symlink. */
static int
scan_openat(int dfd, const char *name)
{
	return beneath_child(dfd, name, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
}

/* The project's root, to read (the door's beneath_root, then "."). */
int
scan_open_root(const char *root, char **cause)
{
	struct stat	 rst;
	int		 r = beneath_root(root, &rst, cause), fd;

	fd = r < 0 ? -1 : beneath_open(r, ".", O_RDONLY | O_DIRECTORY, 0,
	    cause);
	if (r >= 0)
		close(r);
	return fd;
}

/* Open a relative path from the root one component at a time. */
static int
scan_open_path(int rootfd, const char *path)
{
	char		 name[NAME_MAX + 1];
	const char	*p = path, *slash;
	size_t		 n;
	int		 fd = rootfd, nfd;

	while (*p != '\0') {
		slash = strchr(p, '/');
		n = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (n > NAME_MAX) {
			errno = ENAMETOOLONG;
			nfd = -1;
		} else {
			memcpy(name, p, n);
			name[n] = '\0';
			nfd = scan_openat(fd, name);
		}
		if (fd != rootfd)
			close(fd);
		if (nfd < 0)
			return -1;
		fd = nfd;
		p += n;
		if (*p == '/')
			p++;
	}
	return fd == rootfd ? dup(rootfd) : fd;
}


/* Fail quietly for what vanished or was replaced while we looked. */
static int
scan_gone(int error)
{
	return error == ENOENT || error == ENOTDIR || error == ELOOP;
}

/* Mark one of our own directory entries unreadable, with a warning. */
static void
scan_unreadable(struct scan *s, const struct scan_dir *d, int error)
{
	s->v[d->entry].flags |= SNAPSHOT_UNREADABLE;
	scan_warn(s, d->path, error);
}

/*
 * Scan the directory open on dfd (its path, plen bytes, in the path buffer)
 * and everything below it, depth first. -1 with errno when the directory
 * itself cannot be listed; problems below it become warnings.
 */
static int
scan_tree(struct scan *s, int dfd, size_t plen, int depth)
{
	struct scan_dir	 d;
	size_t		 base = s->nstack;
	int		 fd, error;

	if (scan_list(s, dfd, plen) != 0) {
		s->nstack = base;
		return -1;
	}
	while (s->nstack > base) {
		d = s->stack[--s->nstack];
		if (depth + 1 >= SCAN_FD_DEPTH) {
			scan_dir_push(&s->deferred, &s->ndeferred,
			    &s->capdeferred, &d);
			continue;
		}
		fd = scan_openat(dfd, d.path + plen + (plen != 0));
		if (fd < 0) {
			if (!scan_gone(errno))
				scan_unreadable(s, &d, errno);
			continue;
		}
		scan_path_reserve(s, d.len);
		memcpy(s->pathbuf, d.path, d.len + 1);
		if (scan_tree(s, fd, d.len, depth + 1) != 0) {
			error = errno;
			if (!scan_gone(error))
				scan_unreadable(s, &d, error);
		}
		close(fd);
	}
	return 0;
}

/* Scan the directories deferred for depth, each reopened from the root. */
static void
scan_deferred(struct scan *s)
{
	struct scan_dir	d;
	int		fd, error;

	while (s->ndeferred > 0) {
		d = s->deferred[--s->ndeferred];
		fd = scan_open_path(s->sh->rootfd, d.path);
		if (fd < 0) {
			if (!scan_gone(errno))
				scan_unreadable(s, &d, errno);
			continue;
		}
		scan_path_reserve(s, d.len);
		memcpy(s->pathbuf, d.path, d.len + 1);
		if (scan_tree(s, fd, d.len, 0) != 0) {
			error = errno;
			if (!scan_gone(error))
				scan_unreadable(s, &d, error);
		}
		close(fd);
	}
}

/*
 * Scan one pending subtree. Its entry belongs to the calling thread's
 * vector, so a failure is only noted here and applied after the join.
 */
static void
scan_job(struct scan *s, const struct scan_dir *job)
{
	int	fd, error = 0;

	fd = scan_open_path(s->sh->rootfd, job->path);
	if (fd < 0)
		error = errno;
	else {
		scan_path_reserve(s, job->len);
		memcpy(s->pathbuf, job->path, job->len + 1);
		if (scan_tree(s, fd, job->len, 0) != 0)
			error = errno;
		close(fd);
	}
	if (error != 0 && !scan_gone(error)) {
		if (s->nunreadable == s->capunreadable) {
			s->capunreadable = s->capunreadable ?
			    s->capunreadable * 2 : 16;
			s->unreadable = xreallocarray(s->unreadable,
			    s->capunreadable, sizeof *s->unreadable);
		}
		s->unreadable[s->nunreadable++] = job->entry;
		scan_warn(s, job->path, error);
	}
	scan_deferred(s);
}

/* Take pending subtrees until none is left (both threads run this). */
static void *
scan_worker(void *arg)
{
	struct scan		*s = arg;
	struct scan_shared	*sh = s->sh;
	size_t			 i;

	for (;;) {
		i = atomic_fetch_add(&sh->next, 1);
		if (i >= sh->njobs)
			break;
		scan_job(s, &sh->jobs[i]);
	}
	return NULL;
}

/* How many threads to scan with: two when there are two CPUs to use. */
static int
scan_threads(const struct snapshot_opts *o)
{
	cpu_set_t	set;

	if (o->threads == 1 || o->threads == 2)
		return o->threads;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set) >= 2 ? 2 : 1;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

/* A pattern without "./" in front and '/' at the end; NULL when empty. */
static char *
scan_pattern(const char *p)
{
	size_t	len;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	while (*p == '/')
		p++;
	len = strlen(p);
	while (len > 0 && p[len - 1] == '/')
		len--;
	if (len == 0 || (len == 1 && p[0] == '.'))
		return NULL;
	return xstrndup(p, len);
}

/* Sort the options into component names, relative paths and skips. */
void
scan_shared_init(struct scan_shared *sh, const struct snapshot_opts *o)
{
	char	*p;
	size_t	 i;

	memset(sh, 0, sizeof *sh);
	sh->rootfd = -1;
	atomic_init(&sh->next, 0);
	atomic_init(&sh->use_statx, 1);
	strv_push(&sh->names, ".git");
	for (i = 0; o->exclude != NULL && i < o->exclude->n; i++) {
		if ((p = scan_pattern(o->exclude->v[i])) == NULL)
			continue;
		if (strchr(p, '/') != NULL)
			strv_push_owned(&sh->paths, p);
		else if (!strv_contains(&sh->names, p))
			strv_push_owned(&sh->names, p);
		else
			free(p);
	}
	for (i = 0; o->skip != NULL && i < o->skip->n; i++) {
		if ((p = scan_pattern(o->skip->v[i])) != NULL)
			strv_push_owned(&sh->skip, p);
	}
}

/* Free the shared scan state. */
void
scan_shared_release(struct scan_shared *sh)
{
	if (sh->rootfd >= 0)
		close(sh->rootfd);
	strv_release(&sh->names);
	strv_release(&sh->paths);
	strv_release(&sh->skip);
	free(sh->jobs);
}

/* Find the slot of a path in a snapshot's index (empty slot if absent). */
size_t
snapshot_slot(const struct snapshot *sn, const char *path, size_t len,
    uint32_t hash)
{
	const struct snapshot_entry	*e;
	size_t				 i = hash & sn->mask;

	while (sn->index[i] != 0) {
		e = &sn->v[sn->index[i] - 1];
		if (e->hash == hash && e->len == len &&
		    memcmp(e->path, path, len) == 0)
			break;
		i = (i + 1) & sn->mask;
	}
	return i;
}

/* Index the entries by path (open addressing, load at most one half). */
void
snapshot_build_index(struct snapshot *sn)
{
	const struct snapshot_entry	*e;
	size_t				 size = 16, i, j;

	while (size < sn->n * 2)
		size *= 2;
	sn->index = xcalloc(size, sizeof *sn->index);
	sn->mask = size - 1;
	for (i = 0; i < sn->n; i++) {
		e = &sn->v[i];
		j = snapshot_slot(sn, e->path, e->len, e->hash);
		if (sn->index[j] == 0)
			sn->index[j] = i + 1;
		else
			sn->v[i].flags |= SNAPSHOT_DUPLICATE;
	}
}

/* Move a thread's entries, arena and warnings into the snapshot. */
static void
snapshot_adopt(struct snapshot *sn, struct scan *s)
{
	struct arena_chunk	*c;

	if (sn->v == NULL) {
		sn->v = steal_pointer(&s->v);
		sn->n = s->n;
	} else if (s->n != 0) {
		sn->v = xreallocarray(sn->v, sn->n + s->n, sizeof *sn->v);
		memcpy(sn->v + sn->n, s->v, s->n * sizeof *s->v);
		sn->n += s->n;
	}
	s->n = s->cap = 0;
	if (s->arena != NULL) {
		for (c = s->arena; c->next != NULL; c = c->next)
			;
		c->next = sn->arena;
		sn->arena = steal_pointer(&s->arena);
	}
	strv_append_all(&sn->warnings, &s->warnings);
}

/* Compare warnings for a stable order. */
static int
snapshot_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct snapshot *
snapshot_take(const char *root, const struct snapshot_opts *opts,
    char **cause)
{
	static const struct snapshot_opts	 defaults = SNAPSHOT_OPTS_INIT;
	struct scan_shared			 sh;
	struct scan				 s0, s1;
	struct snapshot				*sn;
	struct scan_dir				*jobs = NULL, d;
	size_t					 njobs = 0, capjobs = 0;
	size_t					 head = 0, i;
	pthread_t				 tid;
	int					 nthreads, fd, error;
	int					 started = 0;

	if (opts == NULL)
		opts = &defaults;
	scan_shared_init(&sh, opts);
	sh.rootfd = scan_open_root(root, cause);
	if (sh.rootfd < 0) {
		scan_shared_release(&sh);
		return NULL;
	}
	nthreads = scan_threads(opts);
	scan_init(&s0, &sh);

	if (nthreads == 1) {
		if (scan_tree(&s0, sh.rootfd, 0, 0) != 0)
			goto fail;
		scan_deferred(&s0);
		goto done;
	}

	/*
	 * List the root, then the shallowest directories breadth first,
	 * until there are enough subtrees to share between two threads.
	 */
	if (scan_list(&s0, sh.rootfd, 0) != 0)
		goto fail;
	for (i = 0; i < s0.nstack; i++)
		scan_dir_push(&jobs, &njobs, &capjobs, &s0.stack[i]);
	s0.nstack = 0;
	while (head < njobs && njobs - head < SCAN_JOBS &&
	    head < SCAN_EXPAND_MAX) {
		d = jobs[head++];
		fd = scan_open_path(sh.rootfd, d.path);
		scan_path_reserve(&s0, d.len);
		memcpy(s0.pathbuf, d.path, d.len + 1);
		if (fd < 0 || scan_list(&s0, fd, d.len) != 0) {
			error = errno;
			if (!scan_gone(error)) {
				s0.v[d.entry].flags |= SNAPSHOT_UNREADABLE;
				scan_warn(&s0, d.path, error);
			}
		}
		if (fd >= 0)
			close(fd);
		for (i = 0; i < s0.nstack; i++)
			scan_dir_push(&jobs, &njobs, &capjobs, &s0.stack[i]);
		s0.nstack = 0;
	}
	sh.jobs = jobs != NULL ? jobs + head : NULL;
	sh.njobs = njobs - head;

	scan_init(&s1, &sh);
	if (sh.njobs >= 2 && pthread_create(&tid, NULL, scan_worker, &s1) == 0)
		started = 1;
	scan_worker(&s0);
	if (started)
		pthread_join(tid, NULL);
	sh.jobs = jobs;
	for (i = 0; i < s1.nunreadable; i++)
		s0.v[s1.unreadable[i]].flags |= SNAPSHOT_UNREADABLE;
	for (i = 0; i < s0.nunreadable; i++)
		s0.v[s0.unreadable[i]].flags |= SNAPSHOT_UNREADABLE;

done:
	sn = xcalloc(1, sizeof *sn);
	snapshot_adopt(sn, &s0);
	if (nthreads != 1) {
		snapshot_adopt(sn, &s1);
		scan_release(&s1);
	}
	scan_release(&s0);
	scan_shared_release(&sh);
	if (sn->warnings.n > 1)
		qsort(sn->warnings.v, sn->warnings.n, sizeof *sn->warnings.v,
		    snapshot_cmp_str);
	snapshot_build_index(sn);
	return sn;

fail:
	*cause = xasprintf("cannot read '%s': %s", root, strerror(errno));
	scan_release(&s0);
	scan_shared_release(&sh);
	return NULL;
}

size_t
snapshot_count(const struct snapshot *sn)
{
	return sn->n;
}

const struct snapshot_entry *
snapshot_entry(const struct snapshot *sn, size_t i)
{
	return i < sn->n ? &sn->v[i] : NULL;
}

const struct snapshot_entry *
snapshot_find(const struct snapshot *sn, const char *path)
{
	size_t		len = strlen(path), i;
	uint32_t	hash = snapshot_hash(path, len);

	i = snapshot_slot(sn, path, len, hash);
	return sn->index[i] != 0 ? &sn->v[sn->index[i] - 1] : NULL;
}

const struct strv *
snapshot_warnings(const struct snapshot *sn)
{
	return &sn->warnings;
}

void
snapshot_free(struct snapshot *sn)
{
	if (sn == NULL)
		return;
	free(sn->v);
	free(sn->index);
	snapshot_arena_free(sn->arena);
	strv_release(&sn->warnings);
	free(sn);
}
