/*
 * gitwatch-client: ask a project's watcher, or start one (gitwatch.h).
 *
 * In the runtime directory, per project root DEV-INO (hex):
 *	gitwatch-DEV-INO.sock	the watcher's socket
 *	gitwatch-DEV-INO.lock	held by the watcher for its life (one each);
 *				holds its pid
 *	gitwatch-DEV-INO.off	why the last one gave up (none is started
 *				for GITWATCH_IDLE_SEC after)
 *
 * The answer, counted names as in gitscan-cache.c:
 *	bwgate-gitwatch 1
 *	n NDIRS				directories watched
 *	o LEN				a directory it may not read, then
 *	REL				its path (LEN bytes)
 *	g INO LEN			a .git, then its path
 *	REL
 *	end
 * Anything else, a peer that is not us, or no answer within ASK_MS: no
 * answer (the run scans the project itself).
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "gitwatch.h"
#include "libexec.h"
#include "log.h"
#include "rundir.h"
#include "sandbox.h"
#include "spawn.h"
#include "xalloc.h"

#define ANSWER_MAGIC	"bwgate-gitwatch 1\n"
#define ASK_MS		3000
#define ANSWER_MAX	(64 << 20)

bool
gitwatch_enabled(void)
{
	const char	*v = getenv("BWGATE_GITWATCH");

	return v == NULL || strcmp(v, "0") != 0;
}

/* gitwatch-DEV-INO.SUFFIX in the runtime directory (or NULL). */
static char *
watch_file(const struct stat *st, const char *suffix)
{
	return gitscan_rundir_file(st, "gitwatch", suffix);
}

static int
ask_connect(const char *sock)
{
	int	fd;

	if ((fd = rundir_connect_own(sock)) < 0)
		return -1;
	if (send(fd, "scan\n", 5, MSG_NOSIGNAL) != 5) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole answer (until the watcher closes), within ASK_MS. */
static bool
ask_read(int fd, struct buf *b)
{
	struct timespec	 t0, t;
	char		 chunk[16384];
	ssize_t		 n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd	pfd = { fd, POLLIN, 0 };
		long		ms;

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = ASK_MS - ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0 || poll(&pfd, 1, (int)ms) <= 0)
			return false;
		if ((n = read(fd, chunk, sizeof chunk)) < 0)
			return errno == EINTR;
		if (n == 0)
			return true;
		if (b->len + (size_t)n > ANSWER_MAX)
			return false;
		buf_add(b, chunk, (size_t)n);
	}
}

/* One "TAG NUMBERS LEN\nREL\n" record after the tag. */
static bool
parse_record(struct gs_cursor *c, struct gitscan *gs, char tag)
{
	unsigned long long ino = 0, len;
	char		*rel;
	const char	*slash;

	if ((tag == 'g' && !gs_take_num(c, &ino, ' ')) ||
	    !gs_take_num(c, &len, '\n') || (rel = gs_take_rel(c, len)) == NULL)
		return false;
	if (tag == 'o') {
		if (rel[0] == '\0') {
			free(rel);
			return false;
		}
		gitscan_push_dir(gs, (struct git_dir){ rel, 0, 0, { 0, 0 },
		    true, false });
		return true;
	}
	slash = strrchr(rel, '/');
	if (strcmp(slash == NULL ? rel : slash + 1, ".git") != 0) {
		free(rel);
		return false;
	}
	gitscan_push_git(gs, rel, (ino_t)ino);
	return true;
}

static bool
parse(const struct buf *b, struct gitscan *gs, size_t *ndirs)
{
	const size_t	 mlen = strlen(ANSWER_MAGIC);
	struct gs_cursor c;
	unsigned long long n;

	if (b->len < mlen || memcmp(b->data, ANSWER_MAGIC, mlen) != 0)
		return false;
	c = (struct gs_cursor){ b->data + mlen, b->data + b->len };
	if (!gs_take_tag(&c, 'n') || !gs_take_num(&c, &n, '\n'))
		return false;
	*ndirs = (size_t)n;
	for (;;) {
		if (c.end - c.p == 4 && memcmp(c.p, "end\n", 4) == 0)
			return true;
		if (gs_take_tag(&c, 'o')) {
			if (!parse_record(&c, gs, 'o'))
				return false;
		} else if (!gs_take_tag(&c, 'g') || !parse_record(&c, gs, 'g'))
			return false;
	}
}

struct gitscan *
gitwatch_ask(const struct stat *st)
{
	struct gitscan	*gs;
	struct buf	 b = BUF_INIT;
	char		*sock = watch_file(st, ".sock");
	size_t		 ndirs = 0;
	int		 fd;
	bool		 ok;

	if (sock == NULL)
		return NULL;
	fd = ask_connect(sock);
	free(sock);
	if (fd < 0)
		return NULL;
	ok = ask_read(fd, &b);
	close(fd);
	gs = xcalloc(1, sizeof *gs);
	clock_gettime(CLOCK_REALTIME, &gs->when);
	gs->ctime_ok = gs->watched = true;
	gitscan_push_dir(gs, (struct git_dir){ xstrdup(""), st->st_dev,
	    st->st_ino, st->st_ctim, false, false });
	if (!ok || !parse(&b, gs, &ndirs)) {
		LOG("the project's watcher gave no answer: scanning");
		buf_release(&b);
		sandbox_gitscan_free(gs);
		return NULL;
	}
	buf_release(&b);
	gitscan_sort(gs);
	LOG("%zu directories watched, %zu .git, %zu unreadable", ndirs,
	    gs->ngit, gs->ndirs - 1);
	return gs;
}

/* Did the last watcher give up lately? */
static bool
recently_off(const struct stat *st)
{
	char		*off = watch_file(st, ".off");
	struct stat	 ost;
	bool		 recent;

	recent = off != NULL && lstat(off, &ost) == 0 &&
	    ost.st_mtime > time(NULL) - GITWATCH_IDLE_SEC;
	free(off);
	return recent;
}

/* Watchers running (their locks held; a watcher's is taken before it is
   forked, so one just started counts), and the watches they may take
   together (each writes "PID BUDGET" into its lock file; one that has
   yet to is counted at its whole share). */
static size_t
watchers_running(size_t *taken, size_t share)
{
	char		*dir, *cause = NULL;
	DIR		*d;
	struct dirent	*de;
	size_t		 n = 0;

	*taken = 0;
	if ((dir = rundir_get(false, &cause)) == NULL) {
		free(cause);
		return 0;
	}
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			size_t	len = strlen(de->d_name);
			int	fd;

			if (strncmp(de->d_name, "gitwatch-", 9) != 0 ||
			    len < 5 || strcmp(de->d_name + len - 5, ".lock")
			    != 0 || (fd = openat(dirfd(d), de->d_name,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				continue;
			if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
				char		 buf[64] = "";
				long		 pid;
				unsigned long	 budget;

				n++;
				if (pread(fd, buf, sizeof buf - 1, 0) > 0 &&
				    sscanf(buf, "%ld %lu", &pid, &budget) == 2)
					*taken += budget;
				else
					*taken += share;
			}
			close(fd);
		}
		closedir(d);
	}
	free(dir);
	return n;
}

/* Inotify watches it may take: a quarter of the user's, the rest left to
   live monitors and other tools. */
static size_t
watch_budget(void)
{
	char		 buf[32] = "";
	unsigned long	 v;
	int		 fd = open("/proc/sys/fs/inotify/max_user_watches",
			    O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	(void)!read(fd, buf, sizeof buf - 1);
	close(fd);
	v = strtoul(buf, NULL, 10);
	return v / 4;
}

void
gitwatch_start(const char *project, const struct stat *st,
    const struct gitscan *scan)
{
	const char	*v = getenv("BWGATE_GITWATCH");
	size_t		 min = v != NULL && strcmp(v, "1") == 0 ? 1 :
			    GITWATCH_MIN_DIRS;
	char		*lock, *prog, dev[32], ino[32], bud[32];
	char		*argv[] = { "bwgate-gitwatch", (char *)project, dev,
			    ino, bud, NULL };
	size_t		 quarter = watch_budget(), taken, budget;
	int		 lfd, fds[4] = { SPAWN_DEVNULL, SPAWN_DEVNULL,
			    SPAWN_DEVNULL };
	struct spawn	 sp = SPAWN_INIT;
	char		*cause = NULL;

	if (!gitwatch_enabled() || !scan->ctime_ok || scan->ndirs < min ||
	    recently_off(st) ||
	    watchers_running(&taken, quarter / GITWATCH_MAX) >= GITWATCH_MAX)
		return;
	/* Room to grow, within what the others leave of the quarter. */
	budget = quarter > taken ? quarter - taken : 0;
	if (budget > 2 * scan->ndirs + 1024)
		budget = 2 * scan->ndirs + 1024;
	if (scan->ndirs + scan->ndirs / 8 > budget)
		return;
	/* Nothing mounted inside (a watch sees one file system). */
	for (size_t i = 0; i < scan->ndirs; i++)
		if (!scan->dirs[i].opaque && scan->dirs[i].dev != st->st_dev)
			return;
	if ((prog = libexec_find("bwgate-gitwatch", NULL)) == NULL)
		return;
	snprintf(dev, sizeof dev, "%ju", (uintmax_t)st->st_dev);
	snprintf(ino, sizeof ino, "%ju", (uintmax_t)st->st_ino);
	snprintf(bud, sizeof bud, "%zu", budget);
	/* The lock first: one watcher a project, and counted at once. */
	if ((lock = watch_file(st, ".lock")) == NULL) {
		free(prog);
		return;
	}
	lfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	free(lock);
	if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB) != 0) {
		if (lfd >= 0)
			close(lfd);	/* another one runs */
		free(prog);
		return;
	}
	/* A daemon of its own session, adopted by init, the lock on 3. */
	fds[3] = lfd;
	argv[0] = prog;
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 4;
	sp.flags = SPAWN_DETACH;
	if (spawn_start(&sp, &cause) != 0) {
		LOG("%s", cause);
		free(cause);
	} else {
		spawn_wait(&sp);	/* the child in between */
		spawn_release(&sp);
		LOG("started a watcher for the project (%zu directories)",
		    scan->ndirs);
	}
	free(prog);
	close(lfd);		/* the watcher holds the lock now */
}
