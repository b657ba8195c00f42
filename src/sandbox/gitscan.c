/* gitscan: find every .git of a project, reading only what changed
   since an earlier scan (gitscan.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "gitscan.h"
#include "sandbox.h"
#include "xalloc.h"

/*
 * Every directory is walked, node_modules and the like included: a .git
 * anywhere is a .git git may be sent into (a gitlink recorded by `git add
 * -A` makes the operator's `git status` enter it). A directory deeper than
 * GITSCAN_MAX_DEPTH, or whose path would be longer than GITSCAN_REL_MAX,
 * is not read: its parent is marked deep, which makes it read-only whole
 * inside (nothing can be made below it) and has the post-run check search
 * it whole when it is new (sandbox-git.c).
 */

/* What a refresh knows of the earlier scan while reading a directory. */
struct earlier {
	const struct gitscan	*old;
	bool			*confirmed;	/* same inode, by old index */
};

static void	read_dir(struct gitscan *, int, char *, size_t, int,
		    const struct earlier *);

static struct gitscan *
gitscan_new(void)
{
	struct gitscan	*gs = xcalloc(1, sizeof *gs);

	clock_gettime(CLOCK_REALTIME, &gs->when);
	return gs;
}

void
sandbox_gitscan_free(struct gitscan *gs)
{
	if (gs == NULL)
		return;
	strv_release(&gs->gits);
	free(gs->git_ino);
	for (size_t i = 0; i < gs->ndirs; i++)
		free(gs->dirs[i].rel);
	free(gs->dirs);
	free(gs->error);
	free(gs);
}

void
gitscan_push_git(struct gitscan *gs, char *rel, ino_t ino)
{
	strv_push_owned(&gs->gits, rel);
	gs->git_ino = xreallocarray(gs->git_ino, gs->ngit + 1,
	    sizeof *gs->git_ino);
	gs->git_ino[gs->ngit++] = ino;
}

void
gitscan_push_dir(struct gitscan *gs, struct git_dir d)
{
	if (gs->ndirs == gs->dirs_cap) {
		gs->dirs_cap = gs->dirs_cap == 0 ? 64 : 2 * gs->dirs_cap;
		gs->dirs = xreallocarray(gs->dirs, gs->dirs_cap,
		    sizeof *gs->dirs);
	}
	gs->dirs[gs->ndirs++] = d;
}

/* Note a .git seen at rel. */
static void
git_found(struct gitscan *gs, const char *rel, ino_t ino)
{
	gitscan_push_git(gs, xstrdup(rel), ino);
}

static size_t
dir_add(struct gitscan *gs, const char *rel, const struct stat *st,
    bool opaque)
{
	gitscan_push_dir(gs, (struct git_dir){ xstrdup(rel),
	    opaque ? 0 : st->st_dev, opaque ? 0 : st->st_ino,
	    opaque ? (struct timespec){ 0, 0 } : st->st_ctim, opaque, false });
	return gs->ndirs - 1;
}

/* The directory recorded at index i holds one too deep to read. */
static void
dir_deep(struct gitscan *gs, size_t i)
{
	if (!gs->dirs[i].deep) {
		gs->dirs[i].deep = true;
		gs->ndeep++;
	}
}

/* A directory that could not be opened: when it refuses us, noted as
   opaque (read-only inside, read again next time); when the reason is not
   the directory's own (no descriptors left, an I/O error), the scan is
   incomplete and says so. */
static void
dir_unreadable(struct gitscan *gs, const char *rel, int err)
{
	if (err == ENOENT || err == ENOTDIR || err == ELOOP)
		return;		/* gone, or not a directory (a symlink) */
	if (err == EACCES || err == EPERM) {
		dir_add(gs, rel, NULL, true);
		return;
	}
	if (gs->error == NULL)
		gs->error = xasprintf("cannot read '%s' to look for .git: %s",
		    rel[0] == '\0' ? "." : rel, strerror(err));
}

/* Append name to the path buffer (len bytes used); false when too long. */
static bool
push_name(char *path, size_t len, const char *name, size_t *newlen)
{
	size_t	n = strlen(name);

	if (len + n + 2 > GITSCAN_REL_MAX)
		return false;
	if (len > 0)
		path[len++] = '/';
	memcpy(path + len, name, n + 1);
	*newlen = len + n;
	return true;
}

static int
dir_cmp(const void *a, const void *b)
{
	return strcmp(((const struct git_dir *)a)->rel,
	    ((const struct git_dir *)b)->rel);
}

/* Compare a recorded rel with len bytes of key (no NUL in them), in
   strcmp's order. */
static int
rel_cmp(const char *rel, const char *key, size_t len)
{
	int	c = strncmp(rel, key, len);

	if (c != 0)
		return c;
	return rel[len] != '\0';
}

ssize_t
gitscan_find(const struct gitscan *gs, const char *rel, size_t len)
{
	size_t	lo = 0, hi = gs->ndirs;

	while (lo < hi) {
		size_t	mid = lo + (hi - lo) / 2;
		int	c = rel_cmp(gs->dirs[mid].rel, rel, len);

		if (c == 0)
			return (ssize_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

ssize_t
gitscan_parent(const struct gitscan *gs, const char *rel)
{
	const char	*slash = strrchr(rel, '/');

	return gitscan_find(gs, rel, slash == NULL ? 0 :
	    (size_t)(slash - rel));
}

/* Did the earlier scan know the directory rel with inode ino? Then it is
   marked seen by its parent, and its own turn in the refresh checks it. */
static bool
earlier_confirms(const struct earlier *e, const char *rel, ino_t ino)
{
	ssize_t	k;

	if (e == NULL || (k = gitscan_find(e->old, rel, strlen(rel))) < 0 ||
	    e->old->dirs[k].ino != ino || e->old->dirs[k].opaque ||
	    e->old->dirs[k].deep)
		return false;
	e->confirmed[k] = true;
	return true;
}

/* One entry of a directory being read (path holds its rel; self is its
   index). A .git is noted; a directory is walked whole, unless the
   earlier scan knew it under that name and inode (its own turn in the
   refresh checks it), or it is too deep (self is marked deep). */
static void
read_entry(struct gitscan *gs, int dirfd, const struct dirent *de,
    char *path, size_t len, int depth, size_t self, const struct earlier *e)
{
	struct stat	st;
	size_t		nl;
	bool		git = strcmp(de->d_name, ".git") == 0;
	bool		dir = de->d_type == DT_DIR || de->d_type == DT_UNKNOWN;
	int		fd;

	if (!git && !dir)
		return;
	if (!push_name(path, len, de->d_name, &nl)) {
		/* A .git whose path is too long is below a deep one. */
		dir_deep(gs, self);
		return;
	}
	if (git) {
		if (beneath_child_stat(dirfd, de->d_name, &st) == 0)
			git_found(gs, path, st.st_ino);
	} else if (depth + 1 > GITSCAN_MAX_DEPTH) {
		if (beneath_child_stat(dirfd, de->d_name, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			dir_deep(gs, self);
	} else if (!earlier_confirms(e, path, de->d_ino)) {
		fd = beneath_child(dirfd, de->d_name, O_RDONLY | O_DIRECTORY);
		if (fd >= 0)
			read_dir(gs, fd, path, nl, depth + 1, NULL);
		else
			dir_unreadable(gs, path, errno);
	}
	path[len] = '\0';
}

/* Record dirfd (path, len bytes) and read its entries; closes dirfd. The
   time is taken before the entries: a change while reading shows next
   time. */
static void
read_dir(struct gitscan *gs, int dirfd, char *path, size_t len, int depth,
    const struct earlier *e)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	size_t		 self;

	if (fstat(dirfd, &st) != 0 || (d = fdopendir(dirfd)) == NULL) {
		dir_unreadable(gs, path, errno);
		close(dirfd);
		return;
	}
	self = dir_add(gs, path, &st, false);
	gs->read++;
	if (st.st_ctim.tv_sec < gs->when.tv_sec - GITSCAN_SETTLE_SEC)
		gs->read_settled++;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			read_entry(gs, dirfd, de, path, len, depth, self, e);
		errno = 0;
	}
	if (errno != 0)
		dir_unreadable(gs, path, errno);
	closedir(d);
}

/* Sorted by rel; a refresh keeps most in order already. */
void
gitscan_sort(struct gitscan *gs)
{
	for (size_t i = 1; i < gs->ndirs; i++)
		if (strcmp(gs->dirs[i - 1].rel, gs->dirs[i].rel) > 0) {
			qsort(gs->dirs, gs->ndirs, sizeof *gs->dirs, dir_cmp);
			return;
		}
}

/* The root again, with an offset of its own (a dup would share the end
   that an earlier read of rootfd left). */
static int
root_open(int rootfd)
{
	char	*cause = NULL;
	int	 fd = beneath_open(rootfd, ".", O_RDONLY | O_DIRECTORY, 0,
		    &cause);

	free(cause);
	return fd;
}

struct gitscan *
gitscan_walk(int rootfd)
{
	struct gitscan	*gs = gitscan_new();
	char		 path[PATH_MAX] = "";
	int		 fd = root_open(rootfd);

	if (fd >= 0)
		read_dir(gs, fd, path, 0, 0, NULL);
	else
		dir_unreadable(gs, "", errno);
	gitscan_sort(gs);
	return gs;
}

static int
rel_depth(const char *rel)
{
	int	n = rel[0] != '\0';

	for (; *rel != '\0'; rel++)
		n += *rel == '/';
	return n;
}

static bool
ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec &&
	    a->tv_nsec < b->tv_nsec);
}

/* Is the directory as the earlier scan recorded it, and settled then? */
static bool
dir_unchanged(const struct git_dir *d, const struct stat *st,
    const struct timespec *settled, dev_t root_dev)
{
	return !d->opaque && !d->deep && S_ISDIR(st->st_mode) && st->st_dev == d->dev &&
	    st->st_ino == d->ino && st->st_ctim.tv_sec == d->ctime.tv_sec &&
	    st->st_ctim.tv_nsec == d->ctime.tv_nsec &&
	    ts_before(&d->ctime, settled) &&
	    d->dev == root_dev;	/* a mount inside: its times unknown */
}

enum dir_state { DIR_LOST, DIR_KEPT, DIR_READ };

/*
 * The stat of every directory of the earlier scan, taken before any is
 * judged, half of them by a second thread on a large project (a stat is
 * the whole cost of a refresh). A stat taken early says no more than one
 * taken in turn: a scan is never one instant, and a change after it
 * shows in the next.
 */
#define STAT_THREAD_MIN	512

struct stat_job {
	const struct gitscan	*old;
	int			 rootfd;
	size_t			 from, to;
	struct stat		*st;
	bool			*ok;
};

static void *
stat_range(void *arg)
{
	const struct stat_job	*j = arg;

	for (size_t i = j->from; i < j->to; i++)
		j->ok[i] = (i == 0 ? fstat(j->rootfd, &j->st[i]) :
		    beneath_lstat(j->rootfd, j->old->dirs[i].rel,
		    &j->st[i])) == 0;
	return NULL;
}

static void
stat_all(const struct gitscan *old, int rootfd, struct stat *st, bool *ok)
{
	struct stat_job	 first = { old, rootfd, 0, old->ndirs, st, ok };
	struct stat_job	 second = first;
	pthread_t	 t;
	bool		 two = false;

	if (old->ndirs >= STAT_THREAD_MIN) {
		first.to = second.from = old->ndirs / 2;
		two = pthread_create(&t, NULL, stat_range, &second) == 0;
		if (!two)
			first.to = old->ndirs;
	}
	stat_range(&first);
	if (two)
		pthread_join(t, NULL);
}

/*
 * The earlier scan's directories in order (a parent sorts before its
 * children). One whose parent was kept, or read and seen there with the
 * same inode, is looked at: kept when unchanged, else read again. The
 * others are gone, or were walked whole under their parent's new entry.
 */
struct gitscan *
gitscan_refresh(const struct gitscan *old, int rootfd)
{
	struct gitscan	*now = gitscan_new();
	enum dir_state	*state = xcalloc(old->ndirs + 1, sizeof *state);
	struct earlier	 e = { old, xcalloc(old->ndirs + 1, 1) };
	struct timespec	 settled = old->when;
	struct stat	 rst, *st;
	bool		*ok;
	char		 path[PATH_MAX];

	now->ctime_ok = old->ctime_ok;
	settled.tv_sec -= GITSCAN_SETTLE_SEC;
	if (!old->ctime_ok || old->ndirs == 0 || old->dirs[0].rel[0] != '\0' ||
	    fstat(rootfd, &rst) != 0) {
		free(state);
		free(e.confirmed);
		sandbox_gitscan_free(now);
		return gitscan_walk(rootfd);
	}
	st = xreallocarray(NULL, old->ndirs, sizeof *st);
	ok = xcalloc(old->ndirs, sizeof *ok);
	stat_all(old, rootfd, st, ok);
	for (size_t i = 0; i < old->ndirs; i++) {
		const struct git_dir *d = &old->dirs[i];
		ssize_t		 p = i == 0 ? -1 : gitscan_parent(old, d->rel);
		char		*cause = NULL;
		int		 fd;

		if (i > 0 && (p < 0 || !(state[p] == DIR_KEPT ||
		    (state[p] == DIR_READ && e.confirmed[i]))))
			continue;	/* DIR_LOST */
		if (ok[i] && dir_unchanged(d, &st[i], &settled, rst.st_dev)) {
			state[i] = DIR_KEPT;
			dir_add(now, d->rel, &st[i], false);
			continue;
		}
		state[i] = DIR_READ;
		fd = i == 0 ? root_open(rootfd) : beneath_open(rootfd, d->rel,
		    O_RDONLY | O_DIRECTORY, 0, &cause);
		free(cause);
		if (fd < 0) {
			state[i] = DIR_LOST;
			dir_unreadable(now, d->rel, errno);
			continue;
		}
		memcpy(path, d->rel, strlen(d->rel) + 1);
		read_dir(now, fd, path, strlen(path), rel_depth(path), &e);
	}
	for (size_t i = 0; i < old->ngit; i++) {
		ssize_t	p = gitscan_parent(old, old->gits.v[i]);

		if (p >= 0 && state[p] == DIR_KEPT)
			git_found(now, old->gits.v[i], old->git_ino[i]);
	}
	free(st);
	free(ok);
	free(state);
	free(e.confirmed);
	gitscan_sort(now);
	return now;
}
