/*
 * gitscan-cache: the last scan of each project, kept in the runtime
 * directory (private to the user, never inside a sandbox) as
 * gitscan-DEV-INO of the project's root:
 *
 *	bwgate-gitscan 2
 *	w SEC NSEC				when the scan began
 *	d DEV INO SEC NSEC OPAQUE LEN		a directory, then its rel
 *						(OPAQUE: 1 unreadable, 2 deep)
 *	REL					(LEN bytes) on a line
 *	g INO LEN				a .git, then its rel
 *	REL
 *
 * Names are counted, not quoted: a file name may hold any byte but '/'
 * and NUL. A file that is not exactly this (another version, cut short,
 * out of order, a directory without its parent) is not used: the project
 * is walked whole, as without a cache. Only file systems whose directory
 * change times are kept by the kernel itself are cached (a network file
 * system's may be stale).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "file.h"
#include "gitscan.h"
#include "gitwatch.h"
#include "log.h"
#include "path.h"
#include "rundir.h"
#include "sandbox.h"
#include "xalloc.h"

#define CACHE_MAGIC	"bwgate-gitscan 2\n"
#define CACHE_MAX	(256 << 20)
/* Fewer directories are read faster than a cache file is. */
#define CACHE_MIN_DIRS	256

/* File systems whose directories' change times are the kernel's own. */
static const unsigned long ctime_fs[] = {
	0xEF53,		/* ext2, ext3, ext4 */
	0x58465342,	/* xfs */
	0x9123683E,	/* btrfs */
	0x01021994,	/* tmpfs */
	0xF2F52010,	/* f2fs */
	0x794C7630,	/* overlayfs (its lower layers may not change) */
	0x2FC12FC1,	/* zfs */
	0xCA451A4E,	/* bcachefs */
	0
};

static bool
fs_keeps_ctime(int fd)
{
	struct statfs	sf;

	if (fstatfs(fd, &sf) != 0)
		return false;
	for (const unsigned long *t = ctime_fs; *t != 0; t++)
		if ((unsigned long)sf.f_type == *t)
			return true;
	return false;
}

/* Reading a cache file (hand-parsed: a large project's holds thousands
   of lines, read before every writable run). The tag c then a space. */
bool
gs_take_tag(struct gs_cursor *c, char tag)
{
	if (c->end - c->p < 2 || c->p[0] != tag || c->p[1] != ' ')
		return false;
	c->p += 2;
	return true;
}

/* A decimal number, then sep. */
bool
gs_take_num(struct gs_cursor *c, unsigned long long *v, char sep)
{
	unsigned long long n = 0;
	const char	*p = c->p;

	if (p == c->end || *p < '0' || *p > '9')
		return false;
	for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
		if (n > (ULLONG_MAX - 9) / 10)
			return false;
		n = n * 10 + (unsigned long long)(*p - '0');
	}
	if (p == c->end || *p != sep)
		return false;
	c->p = p + 1;
	*v = n;
	return true;
}

/* A counted name, then its newline; a sane relative path. */
char *
gs_take_rel(struct gs_cursor *c, unsigned long long len)
{
	char	*rel;

	if (len >= PATH_MAX || (unsigned long long)(c->end - c->p) < len + 1 ||
	    c->p[len] != '\n' || memchr(c->p, '\0', len) != NULL)
		return NULL;
	rel = xstrndup(c->p, len);
	c->p += len + 1;
	if (rel[0] == '/' || (len > 0 && rel[len - 1] == '/') ||
	    strstr(rel, "//") != NULL || path_has_dotdot(rel) ||
	    strcmp(rel, ".") == 0 || strncmp(rel, "./", 2) == 0 ||
	    strstr(rel, "/./") != NULL ||
	    (len >= 2 && strcmp(rel + len - 2, "/.") == 0)) {
		free(rel);
		return NULL;
	}
	return rel;
}

/* A directory and its name; in order, its parent already there. */
static bool
load_dir(struct gs_cursor *c, struct gitscan *gs)
{
	unsigned long long dev, ino, sec, nsec, opaque, len;
	char		*rel;

	if (!gs_take_num(c, &dev, ' ') || !gs_take_num(c, &ino, ' ') ||
	    !gs_take_num(c, &sec, ' ') || !gs_take_num(c, &nsec, ' ') ||
	    !gs_take_num(c, &opaque, ' ') || !gs_take_num(c, &len, '\n') ||
	    sec > INT64_MAX || nsec >= 1000000000ULL || opaque > 2 ||
	    (rel = gs_take_rel(c, len)) == NULL)
		return false;
	if ((gs->ndirs == 0) != (rel[0] == '\0') || (gs->ndirs > 0 &&
	    (strcmp(gs->dirs[gs->ndirs - 1].rel, rel) >= 0 ||
	    gitscan_parent(gs, rel) < 0))) {
		free(rel);
		return false;
	}
	gitscan_push_dir(gs, (struct git_dir){ rel, (dev_t)dev, (ino_t)ino,
	    { (time_t)sec, (long)nsec }, opaque == 1, opaque == 2 });
	gs->ndeep += opaque == 2;
	return true;
}

/* A .git and its name, in a directory of the file. */
static bool
load_git(struct gs_cursor *c, struct gitscan *gs)
{
	unsigned long long ino, len;
	char		*rel;
	const char	*slash;

	if (!gs_take_num(c, &ino, ' ') || !gs_take_num(c, &len, '\n') ||
	    (rel = gs_take_rel(c, len)) == NULL)
		return false;
	slash = strrchr(rel, '/');
	if (strcmp(slash == NULL ? rel : slash + 1, ".git") != 0 ||
	    gitscan_parent(gs, rel) < 0) {
		free(rel);
		return false;
	}
	gitscan_push_git(gs, rel, (ino_t)ino);
	return true;
}

static bool
load(struct gs_cursor *c, struct gitscan *gs)
{
	unsigned long long sec, nsec;

	if ((size_t)(c->end - c->p) < strlen(CACHE_MAGIC) ||
	    memcmp(c->p, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0)
		return false;
	c->p += strlen(CACHE_MAGIC);
	if (!gs_take_tag(c, 'w') || !gs_take_num(c, &sec, ' ') ||
	    !gs_take_num(c, &nsec, '\n') || sec > INT64_MAX ||
	    nsec >= 1000000000ULL)
		return false;
	gs->when = (struct timespec){ (time_t)sec, (long)nsec };
	while (c->p < c->end) {
		if (gs->ngit == 0 && gs_take_tag(c, 'd')) {
			if (!load_dir(c, gs))
				return false;
		} else if (!gs_take_tag(c, 'g') || !load_git(c, gs))
			return false;
	}
	return gs->ndirs > 0;
}

struct gitscan *
gitscan_cache_load(const char *path)
{
	struct gitscan	*gs;
	struct buf	 b = BUF_INIT;
	struct gs_cursor	 c;
	struct stat	 st;
	int		 fd;
	bool		 ok;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && st.st_size <= CACHE_MAX &&
	    buf_read_fd(&b, fd, CACHE_MAX) == 0;
	close(fd);
	if (!ok) {
		buf_release(&b);
		return NULL;
	}
	gs = xcalloc(1, sizeof *gs);
	gs->ctime_ok = true;
	c.p = b.data;
	c.end = b.data + b.len;
	ok = b.len > 0 && load(&c, gs);
	buf_release(&b);
	if (!ok) {
		LOG("'%s' is not a scan this bwgate wrote: walking whole",
		    path);
		sandbox_gitscan_free(gs);
		return NULL;
	}
	return gs;
}

void
gitscan_cache_save(const char *path, const struct gitscan *gs)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL;

	buf_puts(&b, CACHE_MAGIC);
	buf_printf(&b, "w %lld %ld\n", (long long)gs->when.tv_sec,
	    (long)gs->when.tv_nsec);
	for (size_t i = 0; i < gs->ndirs; i++) {
		const struct git_dir *d = &gs->dirs[i];

		buf_printf(&b, "d %llu %llu %lld %ld %d %zu\n",
		    (unsigned long long)d->dev, (unsigned long long)d->ino,
		    (long long)d->ctime.tv_sec, (long)d->ctime.tv_nsec,
		    d->opaque ? 1 : d->deep ? 2 : 0, strlen(d->rel));
		buf_puts(&b, d->rel);
		buf_putc(&b, '\n');
	}
	for (size_t i = 0; i < gs->ngit; i++) {
		buf_printf(&b, "g %llu %zu\n",
		    (unsigned long long)gs->git_ino[i], strlen(gs->gits.v[i]));
		buf_puts(&b, gs->gits.v[i]);
		buf_putc(&b, '\n');
	}
	if (file_write_replace(path, b.data, b.len, 0600, &cause) != 0) {
		LOG("%s", cause);	/* only a cache: walked whole next time */
		free(cause);
	}
	buf_release(&b);
}

char *
gitscan_rundir_file(const struct stat *st, const char *prefix,
    const char *suffix)
{
	char	*dir, *cause = NULL, *p;

	if ((dir = rundir_get(true, &cause)) == NULL) {
		LOG("%s", cause);
		free(cause);
		return NULL;
	}
	p = xasprintf("%s/%s-%llx-%llx%s", dir, prefix,
	    (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
	    suffix);
	free(dir);
	return p;
}

struct gitscan *
gitscan_project(const char *project, int rootfd, char **cause)
{
	struct gitscan	*old = NULL, *gs;
	struct stat	 st;
	char		*path = NULL;
	bool		 keeps;
	int		 root;

	root = beneath_open(rootfd, ".", O_RDONLY | O_DIRECTORY, 0, cause);
	if (root < 0 || fstat(root, &st) != 0) {
		free(*cause);
		*cause = xasprintf("cannot open the project '%s': %s",
		    project, strerror(errno));
		if (root >= 0)
			close(root);
		return NULL;
	}
	keeps = fs_keeps_ctime(root);
	if (keeps && gitwatch_enabled() && (gs = gitwatch_ask(&st)) != NULL) {
		close(root);
		return gs;
	}
	if (keeps && (path = gitscan_rundir_file(&st, "gitscan", "")) != NULL &&
	    (old = gitscan_cache_load(path)) != NULL &&
	    (old->dirs[0].dev != st.st_dev || old->dirs[0].ino != st.st_ino)) {
		sandbox_gitscan_free(old);
		old = NULL;
	}
	gs = old != NULL ? gitscan_refresh(old, root) : gitscan_walk(root);
	gs->ctime_ok = keeps;
	close(root);
	LOG("%zu directories, %zu read, %zu .git%s", gs->ndirs, gs->read,
	    gs->ngit, old != NULL ? " (from the last scan)" : "");
	if (gs->ndeep > 0)
		LOG("%zu directories hold one too deep to read: read-only "
		    "whole", gs->ndeep);
	if (gs->error != NULL) {
		*cause = xstrdup(gs->error);
		sandbox_gitscan_free(gs);
		sandbox_gitscan_free(old);
		free(path);
		return NULL;
	}
	/* Worth keeping when it spares a read next time: not for a directory
	   read because it just changed (the project's own, at every run that
	   leaves a placeholder), which will be read again anyway. */
	if (path != NULL && gs->ndirs >= CACHE_MIN_DIRS &&
	    (old == NULL || gs->read_settled > 0))
		gitscan_cache_save(path, gs);
	/* The next runs ask a watcher instead. */
	gitwatch_start(project, &st, gs);
	sandbox_gitscan_free(old);
	free(path);
	return gs;
}
