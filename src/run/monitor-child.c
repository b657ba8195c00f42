/*
 * monitor-child: the watcher process behind the live monitor.
 *
 * monitor_start() forks this process; it only watches and writes records
 * (monitor-int.h) to a pipe the parent polls. It owns the inotify instance,
 * which libinotifytools creates and reads (inotifytools_initialize,
 * inotifytools_next_events). The library's name bookkeeping is not used:
 * it keys watches by the name given at watch time, never follows renames,
 * and its rename and remove helpers edit keys inside its name tree (a
 * directory deleted and recreated under the same name, or renamed, leaves
 * it pointing at the wrong watch). So this process keeps its own table
 * from watch descriptor to the directory's current project-relative path
 * and adds watches on the library's descriptor, which it finds once at
 * start (the library does not expose it, and only this process has one).
 *
 * Rules, in the order events are read:
 * - A directory that appears (created, or moved in from outside) is watched
 *   first, then listed; what is already inside is reported as created,
 *   recursively. Entries reported from a listing may also have an
 *   IN_CREATE queued (made after the watch, before the listing): that one
 *   is swallowed (expect_dup).
 * - IN_MOVED_FROM waits for its IN_MOVED_TO (same cookie). Any other event
 *   read in between, or a few milliseconds without one, makes it a move out
 *   of the project: deleted. An IN_MOVED_TO without its pair is a move in:
 *   created (and a directory is watched and listed).
 * - Created, deleted and moved are written at once, in kernel order. A
 *   modification (IN_MODIFY, IN_ATTRIB) is held to coalesce repeats:
 *   written with its count after COALESCE_QUIET_MS without a repeat or
 *   COALESCE_MAX_MS after the first, and always before a later event on
 *   the same path. Modifications within COALESCE_QUIET_MS of our created
 *   report fold into it.
 * - Excluded trees are not watched; the excluded entry itself is reported
 *   (as the snapshot does: "created node_modules" and nothing inside).
 * - IN_Q_OVERFLOW: a lossy warning, then every directory is walked again so
 *   directories made during the loss are watched from now on.
 * - ENOSPC from inotify_add_watch: a lossy warning naming the limit; no
 *   more watches are tried, the ones in place keep reporting.
 * - On MCTL_STOP: read everything already queued, write it all, MREC_DONE,
 *   exit. End of file on the control socket: exit at once.
 */
#include "autoconf.h"

#include <sys/inotify.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inotifytools/inotifytools.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "monitor-int.h"
#include "xalloc.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
	IN_MODIFY | IN_ATTRIB | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

#define COALESCE_QUIET_MS	150
#define COALESCE_MAX_MS		1000
#define MOVE_GRACE_MS		5
#define DUP_KEEP_MS		10000
#define SWEEP_EVERY_MS		1000
#define STOP_DRAIN_MAX_MS	3000
#define BATCH_EVENTS		4096
#define READ_INTERVAL_MS	10
#define OUT_FLUSH_BYTES		(64 * 1024)
#define MAX_PENDING_MOVES	64

/*
 * What we know about one path we reported recently: when we said created
 * (monotonic ms, 0: not recently), until when one IN_CREATE is swallowed
 * (reported from a listing), and a modification being coalesced (count,
 * first and latest monotonic ms, wall ms of the first).
 */
struct entry {
	struct entry		*next;
	TAILQ_ENTRY(entry)	 pentry;
	uint32_t		 hash;
	int64_t			 created;
	int64_t			 dup_until;
	bool			 pending;
	bool			 is_dir;
	unsigned		 count;
	int64_t			 first;
	int64_t			 last;
	int64_t			 wall;
	char			 path[];
};
TAILQ_HEAD(entries, entry);

/* An IN_MOVED_FROM waiting for its IN_MOVED_TO. */
struct pmove {
	uint32_t	 cookie;
	char		*path;
	bool		 is_dir;
	int64_t		 mono;
	int64_t		 wall;
};

struct watcher {
	const struct monitor_child_opts *o;
	int		 inofd;
	int		 outfd;
	int		 ctlfd;
	size_t		 rootlen;
	struct buf	 abs;		/* scratch: absolute path */
	struct buf	 out;		/* records not yet written */

	struct strv	 ex_names;	/* excluded component names */
	struct strv	 ex_paths;	/* excluded relative paths */

	char		**wdpath;	/* wd -> relative path or NULL */
	size_t		 nwdpath;
	int		 nwatches;
	bool		 watch_full;	/* limit reached: add no more */
	bool		 warned_watch;

	struct entry	**buckets;
	size_t		 nbuckets;
	size_t		 nentries;
	struct entries	 pending;

	struct pmove	 moves[MAX_PENDING_MOVES];
	size_t		 nmoves;

	bool		 paused;
	int64_t		 next_read;	/* mono ms of the next read */
	int64_t		 next_sweep;
};

static int64_t	 now_mono(void);
static int64_t	 now_wall(void);
static void	 out_flush(struct watcher *);
static void	 out_record(struct watcher *, enum mrec_type, int, unsigned,
		     int64_t, const char *, const char *);
static void	 warn(struct watcher *, bool, const char *, ...)
		     __attribute__((format(printf, 3, 4)));
static void	 exclude_init(struct watcher *);
static bool	 excluded(struct watcher *, const char *);
static char	*rel_join(const char *, const char *);
static const char *abs_path(struct watcher *, const char *);
static bool	 has_prefix_dir(const char *, const char *, size_t);
static int	 read_int(const char *);
static int	 watch_add(struct watcher *, const char *);
static void	 watch_tree(struct watcher *, const char *, bool);
static void	 watch_remove_under(struct watcher *, const char *);
static void	 watch_rename_under(struct watcher *, const char *,
		     const char *);
static uint32_t	 hash_str(const char *);
static struct entry *ent_find(struct watcher *, const char *, uint32_t);
static struct entry *ent_get(struct watcher *, const char *);
static void	 ent_del(struct watcher *, struct entry *);
static void	 ent_forget(struct watcher *, const char *);
static void	 ent_forget_under(struct watcher *, const char *);
static void	 pending_flush(struct watcher *, struct entry *);
static void	 pending_flush_due(struct watcher *, int64_t, bool);
static void	 moves_expire(struct watcher *, int64_t, bool);
static void	 report_created(struct watcher *, const char *, bool);
static void	 report_deleted(struct watcher *, const char *, bool);
static void	 report_moved(struct watcher *, struct pmove *, const char *,
		     bool);
static void	 handle_event(struct watcher *, struct inotify_event *);
static int	 drain(struct watcher *, int);
static void	 sweep(struct watcher *, int64_t);
static int	 find_inotify_fd(int);
static void	 serve(struct watcher *) __attribute__((noreturn));

/* Monotonic milliseconds. */
static int64_t
now_mono(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wall clock milliseconds since the epoch. */
static int64_t
now_wall(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write out everything buffered; the parent gone means we are done. */
static void
out_flush(struct watcher *w)
{
	size_t	off = 0;
	ssize_t	n;

	while (off < w->out.len) {
		n = write(w->outfd, w->out.data + off, w->out.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		off += (size_t)n;
	}
	buf_reset(&w->out);
}

/* Queue one record. */
static void
out_record(struct watcher *w, enum mrec_type type, int flags, unsigned count,
    int64_t wall, const char *path, const char *to)
{
	struct mrec	r;
	size_t		len, len2;

	len = strlen(path) + 1;
	len2 = to != NULL ? strlen(to) + 1 : 0;
	if (len + len2 > MREC_MAX_PAYLOAD)
		return;		/* longer than any real path */
	memset(&r, 0, sizeof r);
	r.type = type;
	r.flags = flags;
	r.count = count;
	r.time_ms = wall;
	r.len = len;
	r.len2 = len2;
	buf_add(&w->out, &r, sizeof r);
	buf_add(&w->out, path, len);
	if (to != NULL)
		buf_add(&w->out, to, len2);
	if (w->out.len >= OUT_FLUSH_BYTES)
		out_flush(w);
}

/* Queue a warning for the parent. */
static void
warn(struct watcher *w, bool lossy, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		_exit(1);
	va_end(ap);
	out_record(w, MREC_WARNING, lossy ? MREC_LOSSY : 0, 1, now_wall(), s,
	    NULL);
	free(s);
}

/*
 * Split the exclude list as the snapshot reads it: without '/' a component
 * name matched at any depth, with '/' a path relative to the root (a
 * leading "./" and trailing '/' ignored). ".git" is always excluded.
 */
static void
exclude_init(struct watcher *w)
{
	const struct strv	*ex = w->o->exclude;
	size_t			 i, len;
	const char		*p;
	char			*s;

	strv_push(&w->ex_names, ".git");
	for (i = 0; ex != NULL && i < ex->n; i++) {
		p = ex->v[i];
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		while (*p == '/')
			p++;
		s = xstrdup(p);
		len = strlen(s);
		while (len > 0 && s[len - 1] == '/')
			s[--len] = '\0';
		if (len == 0 || strcmp(s, ".") == 0)
			free(s);
		else if (strchr(s, '/') != NULL)
			strv_push_owned(&w->ex_paths, s);
		else
			strv_push_owned(&w->ex_names, s);
	}
}

/*
 * Is this entry excluded (not to be watched or looked into)? Its parent was
 * watched, so only its own name and its whole path need checking.
 */
static bool
excluded(struct watcher *w, const char *rel)
{
	const char	*name = strrchr(rel, '/');
	size_t		 i;

	name = name != NULL ? name + 1 : rel;
	for (i = 0; i < w->ex_names.n; i++) {
		if (strcmp(name, w->ex_names.v[i]) == 0)
			return (true);
	}
	for (i = 0; i < w->ex_paths.n; i++) {
		if (strcmp(rel, w->ex_paths.v[i]) == 0)
			return (true);
	}
	return (false);
}

/* dir/name, or name when dir is the root (""). */
static char *
rel_join(const char *dir, const char *name)
{
	size_t	 dlen = strlen(dir), nlen = strlen(name);
	char	*s;

	if (dlen == 0)
		return (xstrndup(name, nlen));
	s = xmalloc(dlen + nlen + 2);
	memcpy(s, dir, dlen);
	s[dlen] = '/';
	memcpy(s + dlen + 1, name, nlen + 1);
	return (s);
}

/* The absolute path of rel, in scratch storage valid until the next call. */
static const char *
abs_path(struct watcher *w, const char *rel)
{
	w->abs.len = w->rootlen;
	w->abs.data[w->abs.len] = '\0';
	if (*rel != '\0') {
		buf_putc(&w->abs, '/');
		buf_puts(&w->abs, rel);
	}
	return (w->abs.data);
}

/* Is path equal to dir (of length len) or below it? dir "" is the root. */
static bool
has_prefix_dir(const char *path, const char *dir, size_t len)
{
	if (len == 0)
		return (true);
	return (strncmp(path, dir, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/'));
}

/* An integer from a /proc file, or -1. */
static int
read_int(const char *path)
{
	char	buf[32];
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	return (atoi(buf));
}

/*
 * Watch one directory and remember its path. Returns 0, or -1 when it is
 * not watched (gone, unreadable, or the watch limit is reached).
 */
static int
watch_add(struct watcher *w, const char *rel)
{
	int	wd, max, ns;
	size_t	n;

	if (w->watch_full)
		return (-1);
	if (w->o->max_watches > 0 && w->nwatches >= w->o->max_watches) {
		wd = -1;
		errno = ENOSPC;
	} else
		wd = inotify_add_watch(w->inofd, abs_path(w, rel), WATCH_MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return (-1);	/* gone already: its delete follows */
		if (errno == ENOSPC) {
			w->watch_full = true;
			if (w->o->max_watches > 0 && w->o->budget > 0) {
				warn(w, true, "live events incomplete: this "
				    "run's inotify watch cap reached (%d, a "
				    "quarter of the user's %d, so other runs "
				    "and tools keep theirs); the change report "
				    "is still exact", w->o->max_watches,
				    w->o->budget);
				return (-1);
			}
			if (w->o->max_watches > 0) {
				warn(w, true, "live events incomplete: inotify "
				    "watch limit reached (test limit "
				    "BWGATE_MONITOR_MAX_WATCHES=%d); the change "
				    "report is still exact", w->o->max_watches);
				return (-1);
			}
			/* In a user namespace its own limit may be lower. */
			max = inotifytools_get_max_user_watches();
			if ((ns = read_int("/proc/sys/user/max_inotify_watches"))
			    > 0 && (max <= 0 || ns < max)) {
				warn(w, true, "live events incomplete: inotify "
				    "watch limit reached "
				    "(user.max_inotify_watches=%d); the change "
				    "report is still exact", ns);
				return (-1);
			}
			warn(w, true, "live events incomplete: inotify watch "
			    "limit reached (fs.inotify.max_user_watches=%d); "
			    "the change report is still exact", max);
			return (-1);
		}
		if (!w->warned_watch) {
			w->warned_watch = true;
			warn(w, true, "live events incomplete: cannot watch "
			    "'%s': %s", *rel != '\0' ? rel : ".",
			    strerror(errno));
		}
		return (-1);
	}
	if ((size_t)wd >= w->nwdpath) {
		n = w->nwdpath == 0 ? 1024 : w->nwdpath;
		while (n <= (size_t)wd)
			n *= 2;
		w->wdpath = xreallocarray(w->wdpath, n, sizeof *w->wdpath);
		memset(w->wdpath + w->nwdpath, 0,
		    (n - w->nwdpath) * sizeof *w->wdpath);
		w->nwdpath = n;
	}
	if (w->wdpath[wd] == NULL)
		w->nwatches++;
	else if (strcmp(w->wdpath[wd], rel) == 0)
		return (0);
	free(w->wdpath[wd]);
	w->wdpath[wd] = xstrdup(rel);
	return (0);
}

/*
 * Watch a directory and everything below it, each directory watched before
 * it is listed. With emit, every entry found is reported as created (the
 * directory itself was reported by the caller).
 */
static void
watch_tree(struct watcher *w, const char *top, bool emit)
{
	struct strv	 stack = STRV_INIT;
	struct entry	*e;
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*rel, *child;
	bool		 is_dir, watched;

	strv_push(&stack, top);
	while (stack.n > 0) {
		rel = stack.v[--stack.n];
		stack.v[stack.n] = NULL;
		watched = watch_add(w, rel) == 0;
		if (!watched && !emit) {
			free(rel);
			continue;
		}
		if ((d = opendir(abs_path(w, rel))) == NULL) {
			free(rel);
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (de->d_type == DT_UNKNOWN) {
				if (fstatat(dirfd(d), de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) != 0)
					continue;
				is_dir = S_ISDIR(st.st_mode);
			} else
				is_dir = de->d_type == DT_DIR;
			child = rel_join(rel, de->d_name);
			if (emit) {
				out_record(w, MREC_CREATED,
				    is_dir ? MREC_DIR : 0, 1, now_wall(),
				    child, NULL);
				e = ent_get(w, child);
				e->created = now_mono();
				e->dup_until = e->created + DUP_KEEP_MS;
				e->is_dir = is_dir;
			}
			if (is_dir && !excluded(w, child))
				strv_push_owned(&stack, child);
			else
				free(child);
		}
		closedir(d);
		free(rel);
	}
	strv_release(&stack);
}

/* Stop watching a directory that left the project, and all below it. */
static void
watch_remove_under(struct watcher *w, const char *prefix)
{
	size_t	i, len = strlen(prefix);

	for (i = 0; i < w->nwdpath; i++) {
		if (w->wdpath[i] == NULL ||
		    !has_prefix_dir(w->wdpath[i], prefix, len))
			continue;
		inotify_rm_watch(w->inofd, (int)i);
		free(w->wdpath[i]);
		w->wdpath[i] = NULL;
		w->nwatches--;
	}
}

/* A watched directory was renamed: rename it and everything below. */
static void
watch_rename_under(struct watcher *w, const char *from, const char *to)
{
	size_t	 i, len = strlen(from);
	char	*s;

	for (i = 0; i < w->nwdpath; i++) {
		if (w->wdpath[i] == NULL ||
		    !has_prefix_dir(w->wdpath[i], from, len))
			continue;
		s = xasprintf("%s%s", to, w->wdpath[i] + len);
		free(w->wdpath[i]);
		w->wdpath[i] = s;
	}
}

/* FNV-1a. */
static uint32_t
hash_str(const char *s)
{
	uint32_t	h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h);
}

/* The entry for path, or NULL. */
static struct entry *
ent_find(struct watcher *w, const char *path, uint32_t h)
{
	struct entry	*e;

	if (w->nbuckets == 0)
		return (NULL);
	for (e = w->buckets[h & (w->nbuckets - 1)]; e != NULL; e = e->next) {
		if (e->hash == h && strcmp(e->path, path) == 0)
			return (e);
	}
	return (NULL);
}

/* The entry for path, made when missing. */
static struct entry *
ent_get(struct watcher *w, const char *path)
{
	struct entry	*e, *next, **nb;
	uint32_t	 h = hash_str(path);
	size_t		 i, n, len;

	if ((e = ent_find(w, path, h)) != NULL)
		return (e);
	if (w->nentries >= w->nbuckets * 2) {
		n = w->nbuckets == 0 ? 1024 : w->nbuckets * 2;
		nb = xcalloc(n, sizeof *nb);
		for (i = 0; i < w->nbuckets; i++) {
			for (e = w->buckets[i]; e != NULL; e = next) {
				next = e->next;
				e->next = nb[e->hash & (n - 1)];
				nb[e->hash & (n - 1)] = e;
			}
		}
		free(w->buckets);
		w->buckets = nb;
		w->nbuckets = n;
	}
	len = strlen(path);
	e = xcalloc(1, sizeof *e + len + 1);
	memcpy(e->path, path, len + 1);
	e->hash = h;
	e->next = w->buckets[h & (w->nbuckets - 1)];
	w->buckets[h & (w->nbuckets - 1)] = e;
	w->nentries++;
	return (e);
}

/* Drop an entry (its pending modification must have been written). */
static void
ent_del(struct watcher *w, struct entry *e)
{
	struct entry	**pp;

	if (e->pending)
		TAILQ_REMOVE(&w->pending, e, pentry);
	pp = &w->buckets[e->hash & (w->nbuckets - 1)];
	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	w->nentries--;
	free(e);
}

/* Write a path's held modification, then forget the path. */
static void
ent_forget(struct watcher *w, const char *path)
{
	struct entry	*e;

	if ((e = ent_find(w, path, hash_str(path))) == NULL)
		return;
	pending_flush(w, e);
	ent_del(w, e);
}

/* The same for a directory and everything below it. */
static void
ent_forget_under(struct watcher *w, const char *prefix)
{
	struct entry	*e, *next;
	size_t		 i, len = strlen(prefix);

	pending_flush_due(w, 0, true);
	for (i = 0; i < w->nbuckets; i++) {
		for (e = w->buckets[i]; e != NULL; e = next) {
			next = e->next;
			if (has_prefix_dir(e->path, prefix, len))
				ent_del(w, e);
		}
	}
}

/* Write a held modification now. */
static void
pending_flush(struct watcher *w, struct entry *e)
{
	if (!e->pending)
		return;
	out_record(w, MREC_MODIFIED, e->is_dir ? MREC_DIR : 0, e->count,
	    e->wall, e->path, NULL);
	TAILQ_REMOVE(&w->pending, e, pentry);
	e->pending = false;
	e->count = 0;
}

/* Write held modifications that are due (all of them with all). */
static void
pending_flush_due(struct watcher *w, int64_t now, bool all)
{
	struct entry	*e, *next;

	for (e = TAILQ_FIRST(&w->pending); e != NULL; e = next) {
		next = TAILQ_NEXT(e, pentry);
		if (all || now - e->last >= COALESCE_QUIET_MS ||
		    now - e->first >= COALESCE_MAX_MS)
			pending_flush(w, e);
	}
}

/*
 * Moves whose other half did not come: out of the project, so deleted.
 * With all, every waiting one; else those older than MOVE_GRACE_MS.
 */
static void
moves_expire(struct watcher *w, int64_t now, bool all)
{
	struct pmove	*m;
	size_t		 i, kept = 0;

	for (i = 0; i < w->nmoves; i++) {
		m = &w->moves[i];
		if (!all && now - m->mono < MOVE_GRACE_MS) {
			w->moves[kept++] = *m;
			continue;
		}
		ent_forget(w, m->path);
		out_record(w, MREC_DELETED, m->is_dir ? MREC_DIR : 0, 1,
		    m->wall, m->path, NULL);
		if (m->is_dir) {
			ent_forget_under(w, m->path);
			watch_remove_under(w, m->path);
		}
		free(m->path);
	}
	w->nmoves = kept;
}

/* Something appeared at path (made, or moved in). */
static void
report_created(struct watcher *w, const char *path, bool is_dir)
{
	struct entry	*e;

	e = ent_get(w, path);
	if (e->dup_until != 0 && now_mono() < e->dup_until) {
		/* Already reported from a listing. */
		e->dup_until = 0;
		return;
	}
	pending_flush(w, e);
	out_record(w, MREC_CREATED, is_dir ? MREC_DIR : 0, 1, now_wall(), path,
	    NULL);
	e->created = now_mono();
	e->is_dir = is_dir;
	if (is_dir && !excluded(w, path))
		watch_tree(w, path, true);
}

/* Something at path was removed. */
static void
report_deleted(struct watcher *w, const char *path, bool is_dir)
{
	ent_forget(w, path);
	if (is_dir)
		ent_forget_under(w, path);
	out_record(w, MREC_DELETED, is_dir ? MREC_DIR : 0, 1, now_wall(), path,
	    NULL);
	/* A deleted directory's watch goes with IN_IGNORED. */
}

/* The two halves of a rename inside the project met. */
static void
report_moved(struct watcher *w, struct pmove *m, const char *to, bool is_dir)
{
	bool	was_watched = !excluded(w, m->path);

	ent_forget(w, m->path);
	ent_forget(w, to);
	if (is_dir)
		ent_forget_under(w, m->path);
	out_record(w, MREC_MOVED, is_dir ? MREC_DIR : 0, 1, now_wall(), m->path,
	    to);
	if (!is_dir)
		return;
	watch_rename_under(w, m->path, to);
	if (excluded(w, to))
		watch_remove_under(w, to);
	else if (!was_watched)
		watch_tree(w, to, false);
}

/* One event from the kernel. */
static void
handle_event(struct watcher *w, struct inotify_event *ev)
{
	struct entry	*e;
	struct pmove	*m;
	const char	*dir;
	char		*path;
	bool		 is_dir = (ev->mask & IN_ISDIR) != 0;
	int64_t		 now;
	size_t		 i;

	if (ev->mask & IN_Q_OVERFLOW) {
		moves_expire(w, 0, true);
		warn(w, true, "live events incomplete: the inotify queue "
		    "overflowed (fs.inotify.max_queued_events=%d); the change "
		    "report is still exact",
		    inotifytools_get_max_queued_events());
		watch_tree(w, "", false);
		return;
	}
	/* Anything but the second half of a rename ends waiting moves. */
	if (w->nmoves > 0 && !(ev->mask & IN_MOVED_TO))
		moves_expire(w, 0, true);
	if (ev->wd < 0 || (size_t)ev->wd >= w->nwdpath ||
	    (dir = w->wdpath[ev->wd]) == NULL)
		return;		/* a watch we dropped */
	if (ev->mask & IN_IGNORED) {
		free(w->wdpath[ev->wd]);
		w->wdpath[ev->wd] = NULL;
		w->nwatches--;
		return;
	}
	if (ev->len == 0 || ev->name[0] == '\0')
		return;		/* the directory itself: seen in parent */

	path = rel_join(dir, ev->name);
	if (ev->mask & IN_MOVED_FROM) {
		if (w->nmoves == MAX_PENDING_MOVES)
			moves_expire(w, 0, true);
		m = &w->moves[w->nmoves++];
		m->cookie = ev->cookie;
		m->path = path;
		m->is_dir = is_dir;
		m->mono = now_mono();
		m->wall = now_wall();
		return;
	}
	if (ev->mask & IN_MOVED_TO) {
		for (i = 0; i < w->nmoves; i++) {
			if (w->moves[i].cookie == ev->cookie)
				break;
		}
		if (i == w->nmoves) {
			moves_expire(w, 0, true);
			report_created(w, path, is_dir);
		} else {
			m = &w->moves[i];
			report_moved(w, m, path, is_dir);
			free(m->path);
			w->moves[i] = w->moves[--w->nmoves];
			moves_expire(w, 0, true);
		}
	} else if (ev->mask & IN_CREATE)
		report_created(w, path, is_dir);
	else if (ev->mask & IN_DELETE)
		report_deleted(w, path, is_dir);
	else if (ev->mask & (IN_MODIFY | IN_ATTRIB)) {
		now = now_mono();
		e = ent_get(w, path);
		if (e->created != 0 && now - e->created < COALESCE_QUIET_MS)
			;	/* folds into the created report */
		else if (e->pending) {
			e->count++;
			e->last = now;
		} else {
			e->pending = true;
			e->is_dir = is_dir;
			e->count = 1;
			e->first = e->last = now;
			e->wall = now_wall();
			TAILQ_INSERT_TAIL(&w->pending, e, pentry);
		}
	}
	free(path);
}

/* Handle what is queued, at most max events; returns how many. */
static int
drain(struct watcher *w, int max)
{
	struct inotify_event	*ev;
	int			 n = 0;

	while (n < max && (ev = inotifytools_next_events(0, 1)) != NULL) {
		handle_event(w, ev);
		n++;
	}
	return (n);
}

/* Forget entries that can no longer matter. */
static void
sweep(struct watcher *w, int64_t now)
{
	struct entry	*e, *next;
	size_t		 i;

	for (i = 0; i < w->nbuckets; i++) {
		for (e = w->buckets[i]; e != NULL; e = next) {
			next = e->next;
			if (e->pending)
				continue;
			if (e->dup_until != 0 && now < e->dup_until)
				continue;
			if (e->created != 0 &&
			    now - e->created < COALESCE_QUIET_MS)
				continue;
			ent_del(w, e);
		}
	}
}

/*
 * The library's descriptor: inotify_init() returned the lowest free
 * number, which was lowest before the call. Check it is an inotify one.
 */
static int
find_inotify_fd(int lowest)
{
	char	 link[64], target[64];
	ssize_t	 n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", lowest);
	n = readlink(link, target, sizeof target - 1);
	if (n < 0)
		return (fcntl(lowest, F_GETFD) == -1 ? -1 : lowest);
	target[n] = '\0';
	if (strcmp(target, "anon_inode:inotify") != 0)
		return (-1);
	return (lowest);
}

/* The main loop: read, coalesce, write; until told to stop. */
static void
serve(struct watcher *w)
{
	struct pollfd	 pfd[2];
	int64_t		 now, deadline, next;
	int		 timeout, n;
	char		 c;
	struct entry	*e;
	bool		 readable;

	for (;;) {
		now = now_mono();
		timeout = -1;
		if ((e = TAILQ_FIRST(&w->pending)) != NULL) {
			next = e->last + COALESCE_QUIET_MS;
			TAILQ_FOREACH(e, &w->pending, pentry) {
				if (e->last + COALESCE_QUIET_MS < next)
					next = e->last + COALESCE_QUIET_MS;
				if (e->first + COALESCE_MAX_MS < next)
					next = e->first + COALESCE_MAX_MS;
			}
			timeout = next > now ? (int)(next - now) : 0;
		}
		/*
		 * Read at most every READ_INTERVAL_MS: each wake-up costs the
		 * writer (the kernel wakes us on every event while we poll),
		 * and the kernel queue holds far more than arrives meanwhile.
		 * A rename waiting for its second half is read at once.
		 */
		readable = !w->paused && (now >= w->next_read || w->nmoves > 0);
		if (w->nmoves > 0 && (timeout < 0 || timeout > MOVE_GRACE_MS))
			timeout = MOVE_GRACE_MS;
		if (!w->paused && !readable &&
		    (timeout < 0 || timeout > w->next_read - now))
			timeout = (int)(w->next_read - now);
		pfd[0].fd = w->ctlfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = readable ? w->inofd : -1;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			_exit(1);

		if (pfd[1].revents & POLLIN) {
			n = drain(w, BATCH_EVENTS);
			if (n > 0 && n < BATCH_EVENTS)
				w->next_read = now_mono() + READ_INTERVAL_MS;
		}
		now = now_mono();
		if (readable)
			moves_expire(w, now, false);
		pending_flush_due(w, now, false);
		if (now >= w->next_sweep) {
			sweep(w, now);
			w->next_sweep = now + SWEEP_EVERY_MS;
		}
		out_flush(w);

		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(w->ctlfd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || c != MCTL_STOP)
			_exit(0);	/* the parent is gone */

		/* Stop: everything that already happened is queued. */
		deadline = now_mono() + STOP_DRAIN_MAX_MS;
		while (drain(w, BATCH_EVENTS) > 0) {
			out_flush(w);
			if (now_mono() > deadline) {
				warn(w, true, "live events incomplete: events "
				    "kept coming after the command ended");
				break;
			}
		}
		moves_expire(w, 0, true);
		pending_flush_due(w, 0, true);
		out_record(w, MREC_DONE, 0, w->nwatches, now_wall(), "", NULL);
		out_flush(w);
		_exit(0);
	}
}

/* Entry point in the forked child (descriptors already arranged). */
void
monitor_child_main(int outfd, int ctlfd, const struct monitor_child_opts *o)
{
	struct watcher	 w;
	int		 lowest;

	memset(&w, 0, sizeof w);
	w.o = o;
	w.outfd = outfd;
	w.ctlfd = ctlfd;
	w.paused = o->pause;
	TAILQ_INIT(&w.pending);
	exclude_init(&w);
	buf_puts(&w.abs, o->project);
	w.rootlen = w.abs.len;
	while (w.rootlen > 1 && w.abs.data[w.rootlen - 1] == '/')
		w.rootlen--;
	if (w.rootlen == 1)
		w.rootlen = 0;	/* the root directory: "" + "/" + rel */

	if ((lowest = open("/dev/null", O_RDONLY)) < 0) {
		out_record(&w, MREC_FATAL, 0, 0, now_wall(),
		    "cannot open '/dev/null'", NULL);
		out_flush(&w);
		_exit(1);
	}
	close(lowest);
	if (!inotifytools_initialize()) {
		warn(&w, true, "live events unavailable: cannot start inotify: "
		    "%s", strerror(inotifytools_error()));
		out_record(&w, MREC_FATAL, 0, 0, now_wall(),
		    "cannot start inotify", NULL);
		out_flush(&w);
		_exit(1);
	}
	if ((w.inofd = find_inotify_fd(lowest)) < 0) {
		out_record(&w, MREC_FATAL, 0, 0, now_wall(),
		    "cannot find the inotify descriptor", NULL);
		out_flush(&w);
		_exit(1);
	}
	fcntl(w.inofd, F_SETFD, FD_CLOEXEC);

	if (watch_add(&w, "") != 0) {
		out_record(&w, MREC_FATAL, 0, 0, now_wall(),
		    "cannot watch the project", NULL);
		out_flush(&w);
		_exit(1);
	}
	/* The root is watched already; walk below it. */
	watch_tree(&w, "", false);
	out_record(&w, MREC_READY, 0, w.nwatches, now_wall(), "", NULL);
	out_flush(&w);
	w.next_sweep = now_mono() + SWEEP_EVERY_MS;
	serve(&w);
}
