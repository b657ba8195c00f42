/*
 * gitwatch-daemon: the watcher of one project (gitwatch.h).
 *
 * A tree of the project's directories, one inotify watch each, kept by
 * names: an event about name N in directory P is settled by looking at
 * P/N now (its inode, whether it is a directory) and bringing the tree in
 * line, so events read late or twice settle the same way. A directory
 * moved out (IN_MOVED_FROM) waits for its IN_MOVED_TO in the same batch
 * and is put back whole (its watches follow it); unmatched, it is
 * dropped. A directory new to the tree is watched, then read. A directory
 * whose events could not be settled by its path (it moved in the same
 * batch) is read again once the batch is over.
 *
 * Nothing of this process is visible inside a sandbox (the runtime
 * directory is not mounted there and sandboxes have pid namespaces of
 * their own); it is not dumpable, so no process of ours can read or
 * change its memory either.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "file.h"
#include "gitwatch.h"
#include "path.h"
#include "xalloc.h"

#define DIR_MASK	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
			 IN_ONLYDIR)
#define ROOT_MASK	(DIR_MASK | IN_DELETE_SELF | IN_MOVE_SELF)
#define MAX_WD		(1 << 24)	/* then start again with fresh ones */
#define CLIENT_MS	1000

struct wnode {
	struct wnode	*parent;
	char		*name;		/* "" for the root */
	ino_t		 ino;
	int		 wd;		/* -1: could not be read (opaque) */
	int		 depth;
	bool		 has_git;
	bool		 dirty;		/* read it again after this batch */
	ino_t		 git_ino;
	struct wnode	**kids;
	size_t		 nkids, kcap;
};

struct moved {
	uint32_t	 cookie;
	struct wnode	*n;
};

struct watcher {
	const char	*project;
	int		 rootfd;
	dev_t		 dev;
	int		 ifd;		/* inotify */
	struct wnode	*root;
	struct wnode	**bywd;
	size_t		 nbywd;
	struct moved	*moved;		/* out, waiting for their way in */
	size_t		 nmoved, mcap;
	size_t		 ndirs;
	size_t		 budget;	/* watches it may hold */
	size_t		 ndirty;
	bool		 rebuild;	/* lost events: read it all again */
	const char	*quit;		/* why it gives up, or NULL */
	bool		 gone;		/* ... because the project went */
	char		 why[256];
};

static bool	walk(struct watcher *, struct wnode *, int);

/* The project was removed or moved: nothing to say, nothing to keep. */
static void
gone(struct watcher *w)
{
	if (w->quit == NULL) {
		w->quit = "the project was removed or moved";
		w->gone = true;
	}
}

/* Why it stops: what, and the system's reason when there is one. */
static void
give_up(struct watcher *w, const char *what, const char *err)
{
	if (w->quit != NULL)
		return;
	snprintf(w->why, sizeof w->why, "%s%s%s", what, err ? ": " : "",
	    err ? err : "");
	w->quit = w->why;
}

/* The project-relative path of n into buf (PATH_MAX); false if too long. */
static bool
node_rel(const struct wnode *n, char *buf)
{
	size_t		 len = 0, k;
	const struct wnode *p;

	for (p = n; p->parent != NULL; p = p->parent)
		len += strlen(p->name) + (len > 0);
	if (len >= PATH_MAX)
		return false;
	buf[len] = '\0';
	for (p = n; p->parent != NULL; p = p->parent) {
		k = strlen(p->name);
		if (p != n)
			buf[--len] = '/';
		len -= k;
		memcpy(buf + len, p->name, k);
	}
	return true;
}

static struct wnode *
node_new(struct wnode *parent, const char *name)
{
	struct wnode	*n = xcalloc(1, sizeof *n);

	n->name = xstrdup(name);
	n->wd = -1;
	n->depth = parent == NULL ? 0 : parent->depth + 1;
	return n;
}

/* n and what is below it (moved back in whole). */
static void
depth_set(struct wnode *n, int depth)
{
	n->depth = depth;
	for (size_t i = 0; i < n->nkids; i++)
		depth_set(n->kids[i], depth + 1);
}

static void
kid_add(struct wnode *p, struct wnode *n)
{
	if (p->nkids == p->kcap) {
		p->kcap = p->kcap == 0 ? 4 : 2 * p->kcap;
		p->kids = xreallocarray(p->kids, p->kcap, sizeof *p->kids);
	}
	p->kids[p->nkids++] = n;
	n->parent = p;
	depth_set(n, p->depth + 1);
}

static struct wnode *
kid_find(const struct wnode *p, const char *name)
{
	for (size_t i = 0; i < p->nkids; i++)
		if (strcmp(p->kids[i]->name, name) == 0)
			return p->kids[i];
	return NULL;
}

static void
kid_remove(struct wnode *n)
{
	struct wnode	*p = n->parent;

	for (size_t i = 0; p != NULL && i < p->nkids; i++)
		if (p->kids[i] == n) {
			p->kids[i] = p->kids[--p->nkids];
			break;
		}
	n->parent = NULL;
}

/* Free n and what is below it; rm: remove their watches too. */
static void
node_free(struct watcher *w, struct wnode *n, bool rm)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(w, n->kids[i], rm);
	if (n->wd >= 0 && (size_t)n->wd < w->nbywd && w->bywd[n->wd] == n) {
		w->bywd[n->wd] = NULL;
		if (rm)
			inotify_rm_watch(w->ifd, n->wd);
	}
	if (n->dirty)
		w->ndirty--;
	w->ndirs--;
	free(n->kids);
	free(n->name);
	free(n);
}

static void
set_dirty(struct watcher *w, struct wnode *n)
{
	if (!n->dirty) {
		n->dirty = true;
		w->ndirty++;
	}
}

/* A moved-out directory is claimed by a directory walked anew: it was
   not moved out after all, and its watch now belongs to the new node. */
static bool
moved_claim(struct watcher *w, struct wnode *old)
{
	for (size_t i = 0; i < w->nmoved; i++)
		if (w->moved[i].n == old) {
			w->moved[i] = w->moved[--w->nmoved];
			node_free(w, old, false);
			return true;
		}
	return false;
}

static int	node_open(struct watcher *, const struct wnode *);

/* The directory n reached is in the tree as other already. Still there
   too: one directory under two names (a bind mount), which one watch
   cannot follow. Else it moved since other was read: other goes, the new
   place wins (unless other holds n: then read everything again). */
static bool
stale_drop(struct watcher *w, struct wnode *other, const struct wnode *n)
{
	int	fd = node_open(w, other);

	if (fd >= 0) {
		close(fd);
		give_up(w, "a directory of the project is seen under two "
		    "names", NULL);
		return false;
	}
	for (const struct wnode *p = n; p != NULL; p = p->parent)
		if (p == other) {
			w->rebuild = true;
			return false;
		}
	kid_remove(other);
	node_free(w, other, false);
	return true;
}

/* Watch the directory open at fd for n. */
static bool
watch(struct watcher *w, struct wnode *n, int fd)
{
	char		 proc[64];
	struct stat	 st;
	struct wnode	*other;
	int		 wd;

	if (fstat(fd, &st) != 0) {
		give_up(w, "cannot look at a directory", strerror(errno));
		return false;
	}
	if (st.st_dev != w->dev) {
		give_up(w, "a file system is mounted inside the project", NULL);
		return false;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(w->ifd, proc, n->parent == NULL ? ROOT_MASK :
	    DIR_MASK);
	if (wd < 0) {
		give_up(w, "cannot watch a directory", strerror(errno));
		return false;
	}
	if (wd >= MAX_WD) {
		w->rebuild = true;
		return false;
	}
	if ((size_t)wd >= w->nbywd) {
		size_t	nn = (size_t)wd * 2 + 64;

		w->bywd = xreallocarray(w->bywd, nn, sizeof *w->bywd);
		memset(w->bywd + w->nbywd, 0, (nn - w->nbywd) *
		    sizeof *w->bywd);
		w->nbywd = nn;
	}
	if ((other = w->bywd[wd]) != NULL && other != n &&
	    !moved_claim(w, other) && !stale_drop(w, other, n))
		return false;
	n->ino = st.st_ino;
	n->wd = wd;
	w->bywd[wd] = n;
	return true;
}

/* Is P/name a .git? Noted on P (an unreadable one with inode 0: it is
   protected, and the build refuses what it cannot open). */
static void
git_look(struct wnode *p, int pfd)
{
	struct stat	st;

	if (beneath_child_stat(pfd, ".git", &st) == 0) {
		p->has_git = true;
		p->git_ino = st.st_ino;
	} else {
		p->has_git = errno != ENOENT && errno != ENOTDIR;
		p->git_ino = 0;
	}
}

/* A new directory name below p (open at pfd): watched and walked, or
   opaque when it refuses us. NULL when it is gone or not one to walk. */
static struct wnode *
kid_walk(struct watcher *w, struct wnode *p, int pfd, const char *name)
{
	struct wnode	*n;
	int		 fd;

	if (p->depth >= GITSCAN_MAX_DEPTH) {
		/* The scan marks it deep (read-only whole, searched after
		   a run): that is for runs to do. */
		give_up(w, "a directory is too deep to watch", NULL);
		return NULL;
	}
	if (w->ndirs >= w->budget) {
		give_up(w, "the project needs more than a quarter of the "
		    "user's inotify watches", NULL);
		return NULL;
	}
	fd = beneath_child(pfd, name, O_RDONLY | O_DIRECTORY);
	if (fd < 0 && errno != EACCES && errno != EPERM) {
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			give_up(w, "cannot read a directory",
			    strerror(errno));
		return NULL;
	}
	n = node_new(p, name);
	kid_add(p, n);
	w->ndirs++;
	if (fd >= 0 && !walk(w, n, fd)) {
		kid_remove(n);
		node_free(w, n, true);
		return NULL;
	}
	return n;
}

/* Watch n (open at fd), then read it: every directory below is walked.
   Closes fd. */
static bool
walk(struct watcher *w, struct wnode *n, int fd)
{
	DIR		*d;
	struct dirent	*de;
	bool		 ok;

	if (!watch(w, n, fd) || (d = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	git_look(n, fd);
	errno = 0;
	while (w->quit == NULL && !w->rebuild && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, ".git") != 0 &&
		    (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN))
			(void)kid_walk(w, n, fd, de->d_name);
		errno = 0;
	}
	if (errno != 0)
		give_up(w, "cannot read a directory", strerror(errno));
	ok = w->quit == NULL && !w->rebuild;
	closedir(d);
	return ok;
}

/* Open the directory of n (checked to be n, by inode); -1 otherwise. */
static int
node_open(struct watcher *w, const struct wnode *n)
{
	char		 rel[PATH_MAX];
	char		*cause = NULL;
	struct stat	 st;
	int		 fd;

	if (!node_rel(n, rel))
		return -1;
	fd = beneath_open(w->rootfd, rel[0] == '\0' ? "." : rel, O_RDONLY |
	    O_DIRECTORY, 0, &cause);
	free(cause);
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_ino != n->ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Bring the entry name of p (open at pfd) in line with what is there. */
static void
settle(struct watcher *w, struct wnode *p, int pfd, const char *name,
    uint32_t mask, uint32_t cookie)
{
	struct wnode	*kid = kid_find(p, name);
	struct stat	 st;
	bool		 dir;

	dir = beneath_child_stat(pfd, name, &st) == 0 &&
	    S_ISDIR(st.st_mode);
	if (kid != NULL && (!dir || st.st_ino != kid->ino)) {
		kid_remove(kid);
		if (mask & IN_MOVED_FROM) {
			if (w->nmoved == w->mcap) {
				w->mcap = w->mcap == 0 ? 8 : 2 * w->mcap;
				w->moved = xreallocarray(w->moved, w->mcap,
				    sizeof *w->moved);
			}
			w->moved[w->nmoved++] = (struct moved){ cookie, kid };
		} else
			node_free(w, kid, true);
		kid = NULL;
	}
	if (kid != NULL || !dir || p->wd < 0)
		return;
	for (size_t i = 0; (mask & IN_MOVED_TO) && i < w->nmoved; i++)
		if (w->moved[i].cookie == cookie &&
		    w->moved[i].n->ino == st.st_ino) {
			kid = w->moved[i].n;
			w->moved[i] = w->moved[--w->nmoved];
			free(kid->name);
			kid->name = xstrdup(name);
			kid_add(p, kid);
			return;
		}
	(void)kid_walk(w, p, pfd, name);
}

static void
event(struct watcher *w, const struct inotify_event *ev)
{
	struct wnode	*p;
	int		 pfd;

	if (ev->mask & IN_Q_OVERFLOW) {
		w->rebuild = true;
		return;
	}
	if (ev->wd < 0 || (size_t)ev->wd >= w->nbywd ||
	    (p = w->bywd[ev->wd]) == NULL)
		return;		/* a directory no longer in the tree */
	if (ev->mask & IN_IGNORED) {
		/* Its watch is gone while it is in the tree: removed (its
		   parent's event may come later), or its file system went
		   away. */
		w->bywd[ev->wd] = NULL;
		p->wd = -2;
		if (p == w->root)
			gone(w);
		else if ((pfd = node_open(w, p)) < 0) {
			kid_remove(p);
			node_free(w, p, true);
		} else {
			close(pfd);
			w->rebuild = true;
		}
		return;
	}
	if (p == w->root && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF))) {
		gone(w);
		return;
	}
	if (ev->len == 0 || w->rebuild)
		return;
	if (strcmp(ev->name, ".git") != 0 && !(ev->mask & IN_ISDIR) &&
	    !(ev->mask & (IN_MOVED_FROM | IN_MOVED_TO)))
		return;		/* a file made or removed: nothing to us */
	if (p->dirty || (pfd = node_open(w, p)) < 0) {
		set_dirty(w, p);	/* moved in this batch: read it later */
		return;
	}
	if (strcmp(ev->name, ".git") == 0)
		git_look(p, pfd);
	else
		settle(w, p, pfd, ev->name, ev->mask, ev->cookie);
	close(pfd);
}

/* Read n again: every name in it settled. */
static void
reread(struct watcher *w, struct wnode *n)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd = node_open(w, n);
	struct strv	 seen = STRV_INIT;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		w->rebuild = true;	/* not where the tree says */
		return;
	}
	git_look(n, fd);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, ".git") != 0 &&
		    (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)) {
			strv_push(&seen, de->d_name);
			settle(w, n, fd, de->d_name, 0, 0);
		}
	/* Kids no longer listed are gone. */
	for (size_t i = 0; i < n->nkids; ) {
		if (!strv_contains(&seen, n->kids[i]->name)) {
			struct wnode *k = n->kids[i];

			kid_remove(k);
			node_free(w, k, true);
		} else
			i++;
	}
	strv_release(&seen);
	closedir(d);
}

static struct wnode *
dirty_find(struct wnode *n)
{
	struct wnode	*d;

	if (n->dirty)
		return n;
	for (size_t i = 0; i < n->nkids; i++)
		if ((d = dirty_find(n->kids[i])) != NULL)
			return d;
	return NULL;
}

/* Each directory marked, read again. One at a time, looked for from the
   root each time: a reading may drop nodes anywhere in the tree. */
static void
reread_dirty(struct watcher *w)
{
	struct wnode	*n;

	while (w->ndirty > 0 && !w->rebuild && w->quit == NULL) {
		if ((n = dirty_find(w->root)) == NULL) {
			w->rebuild = true;	/* cannot be: start again */
			return;
		}
		n->dirty = false;
		w->ndirty--;
		reread(w, n);
	}
}

/* Read the whole project again, with a fresh inotify instance. */
static void
rebuild(struct watcher *w)
{
	char	*cause = NULL;
	int	 fd;

	if (w->root != NULL)
		node_free(w, w->root, false);
	for (size_t i = 0; i < w->nmoved; i++)
		node_free(w, w->moved[i].n, false);
	w->nmoved = 0;
	w->root = NULL;
	w->ndirs = w->ndirty = 0;
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->nbywd > 0)
		memset(w->bywd, 0, w->nbywd * sizeof *w->bywd);
	w->rebuild = false;
	if ((w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		give_up(w, "cannot start inotify", strerror(errno));
		return;
	}
	w->root = node_new(NULL, "");
	w->ndirs = 1;
	fd = beneath_open(w->rootfd, ".", O_RDONLY | O_DIRECTORY, 0, &cause);
	free(cause);
	if (fd < 0)
		give_up(w, "cannot read the project", strerror(errno));
	else if (!walk(w, w->root, fd) && w->quit == NULL)
		w->rebuild = true;
}

/* Everything the kernel has queued, then what it left to settle. */
static void
drain(struct watcher *w)
{
	char		 buf[64 * 1024]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t		 n;

	for (;;) {
		while (w->quit == NULL &&
		    (n = read(w->ifd, buf, sizeof buf)) > 0)
			for (char *p = buf; p < buf + n; ) {
				const struct inotify_event *ev = (void *)p;

				event(w, ev);
				p += sizeof *ev + ev->len;
			}
		for (size_t i = 0; i < w->nmoved; i++)
			node_free(w, w->moved[i].n, true);
		w->nmoved = 0;
		reread_dirty(w);
		if (!w->rebuild || w->quit != NULL)
			return;
		rebuild(w);
	}
}

/* Opaque directories: readable now? */
static void
opaque_retry(struct watcher *w, struct wnode *n)
{
	for (size_t i = 0; i < n->nkids && w->quit == NULL && !w->rebuild;
	    i++) {
		struct wnode	*k = n->kids[i];
		char		 rel[PATH_MAX];
		char		*cause = NULL;
		int		 fd;

		if (k->wd == -1 && node_rel(k, rel) &&
		    (fd = beneath_open(w->rootfd, rel, O_RDONLY |
		    O_DIRECTORY, 0, &cause)) >= 0 && !walk(w, k, fd) &&
		    w->quit == NULL)
			w->rebuild = true;
		free(cause);
		opaque_retry(w, k);
	}
}

static void
answer_node(const struct wnode *n, struct buf *b)
{
	char	rel[PATH_MAX];

	if ((n->wd == -1 || n->has_git) && node_rel(n, rel)) {
		if (n->wd == -1)
			buf_printf(b, "o %zu\n%s\n", strlen(rel), rel);
		if (n->has_git) {
			size_t	 len = strlen(rel);

			buf_printf(b, "g %llu %zu\n%s%s.git\n",
			    (unsigned long long)n->git_ino,
			    len + (len > 0) + 4, rel, len > 0 ? "/" : "");
		}
	}
	for (size_t i = 0; i < n->nkids; i++)
		answer_node(n->kids[i], b);
}

static bool	mounted_inside(const char *, int);

/* One question from a run of ours: "scan\n". A mount made before it is
   seen even when the main loop has yet to: the mount table's event is
   taken here first. */
static void
serve(struct watcher *w, int lfd, int mfd)
{
	struct pollfd	 mp = { mfd, POLLPRI, 0 };
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	struct pollfd	 pfd;
	struct timeval	 tv = { CLIENT_MS / 1000, 0 };
	struct buf	 b = BUF_INIT;
	char		 req[8];
	int		 c;

	if ((c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
		return;
	pfd = (struct pollfd){ c, POLLIN, 0 };
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    cred.uid != geteuid() || poll(&pfd, 1, CLIENT_MS) != 1 ||
	    read(c, req, sizeof req) != 5 || memcmp(req, "scan\n", 5) != 0) {
		close(c);
		return;
	}
	if (poll(&mp, 1, 0) == 1 && mounted_inside(w->project, mfd))
		give_up(w, "a file system was mounted inside the project",
		    NULL);
	drain(w);
	opaque_retry(w, w->root);
	drain(w);
	if (w->quit == NULL) {
		buf_printf(&b, "bwgate-gitwatch 1\nn %zu\n", w->ndirs);
		answer_node(w->root, &b);
		buf_puts(&b, "end\n");
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
		(void)write_full(c, b.data, b.len);
	}
	buf_release(&b);
	close(c);
}

/* Is a file system mounted strictly inside the project? */
static bool
mounted_inside(const char *project, int mfd)
{
	struct buf	 b = BUF_INIT;
	bool		 found = false;
	char		*line, *save = NULL;

	if (lseek(mfd, 0, SEEK_SET) != 0 || buf_read_fd(&b, mfd, 0) != 0) {
		buf_release(&b);
		return true;
	}
	for (line = strtok_r(b.data, "\n", &save); line != NULL && !found;
	    line = strtok_r(NULL, "\n", &save)) {
		char	mp[PATH_MAX], *o = mp;
		char	*f = line;

		/* The fifth field: the mount point, octal escapes. */
		for (int i = 0; i < 4 && f != NULL; i++)
			if ((f = strchr(f, ' ')) != NULL)
				f++;
		if (f == NULL)
			continue;
		for (; *f != '\0' && *f != ' ' && o < mp + sizeof mp - 1; o++)
			if (f[0] == '\\' && f[1] >= '0' && f[1] <= '3' &&
			    f[2] >= '0' && f[2] <= '7' && f[3] >= '0' &&
			    f[3] <= '7') {
				*o = (char)((f[1] - '0') * 64 + (f[2] - '0') *
				    8 + (f[3] - '0'));
				f += 4;
			} else
				*o = *f++;
		*o = '\0';
		found = strcmp(mp, project) != 0 && path_is_under(mp, project);
	}
	buf_release(&b);
	return found;
}

static int
listen_at(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int		 fd;

	if (strlen(sock) >= sizeof sa.sun_path)
		return -1;
	strcpy(sa.sun_path, sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	unlink(sock);		/* a dead watcher's: we hold the lock */
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(fd, 16) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The project's root, by its path, if it is still the one watched (the
   descriptor is held only while working: an open one would keep the
   project's file system from being unmounted). */
static bool
root_open(struct watcher *w, const struct stat *st)
{
	struct stat	rst;

	w->rootfd = open(w->project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->rootfd >= 0 && fstat(w->rootfd, &rst) == 0 &&
	    rst.st_dev == st->st_dev && rst.st_ino == st->st_ino)
		return true;
	if (w->rootfd >= 0)
		close(w->rootfd);
	w->rootfd = -1;
	gone(w);
	return false;
}

static void
root_close(struct watcher *w)
{
	if (w->rootfd >= 0)
		close(w->rootfd);
	w->rootfd = -1;
}

/* Why runs should not start another one soon. */
static void
write_off(const char *sock, const char *why)
{
	char	*off = xasprintf("%.*s.off", (int)(strlen(sock) - 5), sock);
	int	 fd = open(off, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0600);

	if (fd >= 0) {
		(void)!write(fd, why, strlen(why));
		(void)!write(fd, "\n", 1);
		close(fd);
	}
	free(off);
}

void
gitwatch_daemon(const char *project, const struct stat *st, size_t budget,
    int lockfd, const char *sock)
{
	struct watcher	 w = { .project = project, .ifd = -1, .rootfd = -1,
			    .budget = budget };
	struct stat	 bound;
	struct pollfd	 pfd[3];
	int		 lfd = -1, mfd;
	time_t		 idle_until;

	prctl(PR_SET_DUMPABLE, 0);
	w.dev = st->st_dev;
	mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (!root_open(&w, st))
		_exit(0);	/* not the project asked for */
	if (mfd < 0 || mounted_inside(project, mfd))
		give_up(&w, "a file system is mounted inside the project",
		    NULL);
	if (w.quit == NULL)
		rebuild(&w);
	if (w.quit == NULL)
		drain(&w);
	root_close(&w);
	if (w.quit == NULL && ((lfd = listen_at(sock)) < 0 ||
	    lstat(sock, &bound) != 0))
		_exit(0);
	idle_until = time(NULL) + GITWATCH_IDLE_SEC;
	while (w.quit == NULL) {
		struct stat	rst;

		/* Removed or moved shows here within a second (a removal
		   sends no event while anything holds the directory). */
		if (idle_until <= time(NULL) || !file_is_still(sock, &bound) ||
		    stat(project, &rst) != 0 || rst.st_dev != st->st_dev ||
		    rst.st_ino != st->st_ino)
			break;
		pfd[0] = (struct pollfd){ w.ifd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ lfd, POLLIN, 0 };
		pfd[2] = (struct pollfd){ mfd, POLLPRI, 0 };
		if (poll(pfd, 3, 1000) < 0 && errno != EINTR)
			break;
		if (pfd[2].revents & (POLLPRI | POLLERR) &&
		    mounted_inside(project, mfd))
			give_up(&w, "a file system was mounted inside the "
			    "project", NULL);
		if (w.quit != NULL || !((pfd[0].revents | pfd[1].revents) &
		    POLLIN) || !root_open(&w, st))
			continue;
		if (pfd[0].revents & POLLIN)
			drain(&w);
		if (w.quit == NULL && (pfd[1].revents & POLLIN)) {
			serve(&w, lfd, mfd);
			idle_until = time(NULL) + GITWATCH_IDLE_SEC;
		}
		root_close(&w);
	}
	if (lfd >= 0 && file_is_still(sock, &bound))
		unlink(sock);
	if (w.quit != NULL && !w.gone)
		write_off(sock, w.quit);
	close(lockfd);
	_exit(0);
}
