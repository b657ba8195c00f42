/*
 * undo-apply: do what an undo plan says (undo-plan.c made it), all or
 * nothing: nothing is destroyed before every step succeeded. What undo
 * removes goes to the staging directory, what it makes is written there
 * and renamed into place, what it rewrites in place is copied there
 * first; each step is journaled (undo-rollback.c). When one fails, the
 * journal is played back and the project is as it was before the undo.
 */
#include "autoconf.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <dirent.h>
#include <linux/fs.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "sha256.h"
#include "undo-int.h"
#include "undo-plan.h"
#include "undo.h"
#include "xalloc.h"

/* Order: remove files (deepest first), stage renamed ones (deepest
   first), remove directories (deepest first), make and unstage (parents
   first), content, metadata (deepest first). */
static int
act_cmp(const void *x, const void *y)
{
	const struct act	*a = x, *b = y;
	static const int	 phase[] = { [ACT_REMOVE] = 0, [ACT_STAGE] = 1,
				    [ACT_RMDIR] = 2, [ACT_MKDIR] = 3,
				    [ACT_UNSTAGE] = 3, [ACT_MAKE] = 3,
				    [ACT_LINK] = 3, [ACT_SYMLINK] = 3,
				    [ACT_CONTENT] = 4, [ACT_META] = 5 };

	if (phase[a->kind] != phase[b->kind])
		return phase[a->kind] - phase[b->kind];
	if (phase[a->kind] == 3)
		return a->depth != b->depth ? a->depth - b->depth :
		    strcmp(a->path, b->path);
	return b->depth != a->depth ? b->depth - a->depth :
	    strcmp(b->path, a->path);
}

/* Where path is now, after the staging moves done so far (the deepest
   staged ancestor carried it). */
static char *
apply_where(struct undo_plan *p, size_t done, const char *path)
{
	size_t		 best = 0, len;
	const char	*to = NULL;

	for (size_t i = 0; i < done; i++) {
		const struct act *a = &p->acts[i];

		if (a->kind != ACT_STAGE || a->to == NULL)
			continue;
		len = strlen(a->path);
		if (len > best && strncmp(path, a->path, len) == 0 &&
		    path[len] == '/') {
			best = len;
			to = a->to;
		}
	}
	return to != NULL ? xasprintf("%s%s", to, path + best) :
	    xstrdup(path);
}

/* Write b's kept content into fd (from its start, truncating). */
static int
apply_content(struct undo_plan *p, int fd, const struct ue *b)
{
	_cleanup_close_ int	 src = -1;
	char			 buf[1 << 16];
	uint64_t		 len;
	ssize_t			 r = 0;
	struct stat		 st;

	if (b->blob == NULL && b->append) {
		/* Appended to: cut back, if it is still what was planned. */
		if (fstat(fd, &st) != 0)
			return -1;
		if ((uint64_t)st.st_size == b->size)
			return 0;	/* cut through another name of it */
		if ((uint64_t)st.st_size != b->cut_from) {
			errno = ESTALE;
			return -1;
		}
		return ftruncate(fd, (off_t)b->size);
	}
	if ((src = blob_open(p, b, &len)) < 0 || ftruncate(fd, 0) != 0 ||
	    lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	/* An object where the file system clones: its extents, shared. */
	if (b->pack_off < 0 && ioctl(fd, FICLONE, src) == 0)
		return 0;
	while (len > 0 && (r = read(src, buf, len < sizeof buf ? len :
	    sizeof buf)) > 0) {
		len -= (uint64_t)r;
		for (ssize_t off = 0, w; off < r; off += w)
			if ((w = write(fd, buf + off, (size_t)(r - off))) < 0)
				return -1;
	}
	if (r == 0 && len > 0)
		errno = EIO;
	return r < 0 || len > 0 ? -1 : 0;
}

/* The file a made name should share (an earlier name of the same before
   inode, placed already), or -1. */
static int
apply_sibling(struct undo_plan *p, const struct ue *b)
{
	struct stat	 st;
	char		*cause = NULL;
	int		 fd;

	for (size_t i = 0; i < p->nb; i++) {
		const struct ue *o = &p->b[i];

		if (o == b || o->ino != b->ino || o->dev != b->dev ||
		    o->type != UE_FILE || beneath_lstat(p->root, o->path,
		    &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (o->placed && (fd = beneath_open(p->root, o->path,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0, &cause)) >= 0)
			return fd;
		free(cause);
		cause = NULL;
	}
	return -1;
}

/*
 * A directory the run made still holds names nobody recorded (made while
 * a rename of a parent raced the recorder): remove what was born during
 * the run (the sweep's proof, beneath.h), never anything older.
 */
static int
apply_dispose(struct undo_plan *p, struct act *a, char **cause)
{
	const char	*name;
	int		 pfd, rc;

	if ((pfd = beneath_parent(p->root, a->to, false, &name, cause)) < 0)
		return -1;
	rc = beneath_dispose(pfd, name, &p->since);
	close(pfd);
	if (rc == 0)
		return 0;
	*cause = xasprintf("cannot remove '%s': it holds files older than "
	    "the run", a->path);
	return -1;
}

/* A directory or link undo made: its owner's again (when root undoes a
   user's project). */
static int
apply_owner(struct undo_plan *p, const char *rel, const struct ue *b)
{
	if (geteuid() != 0)
		return 0;
	return beneath_lchown(p->root, rel, b->uid, b->gid);
}

/* Give the owner write permission on rel (a regular file). */
static int
apply_writable(struct undo_plan *p, const char *rel)
{
	struct stat	 st;

	if (beneath_lstat(p->root, rel, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	return beneath_chmod(p->root, rel, (st.st_mode & 07777) | S_IWUSR);
}

/* A new name in the staging directory. */
static char *
apply_staged(struct undo_plan *p, unsigned *seq)
{
	return xasprintf("%s/%u", p->stage, (*seq)++);
}

/* Set fd's mode and modification time to b's. */
static int
apply_meta_fd(struct act *a, int fd, char **cause)
{
	struct timespec	 ts[2];
	struct ue	*b = a->b;

	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = (time_t)(b->mtime / 1000000000);
	ts[1].tv_nsec = (long)(b->mtime % 1000000000);
	if (fchmod(fd, b->mode) != 0 || futimens(fd, ts) != 0) {
		*cause = xasprintf("cannot set the mode of '%s': %s", a->path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* A file made again: written in the staging directory (content, owner,
   mode, time), then renamed into place. */
static int
apply_make(struct undo_plan *p, struct act *a, unsigned *seq, char **cause)
{
	struct ue		*b = a->b;
	_cleanup_free_ char	*tmp = NULL;
	int			 fd, sib, rc;

	if ((sib = apply_sibling(p, b)) >= 0) {
		rc = beneath_link(p->root, a->path, sib);
		close(sib);
		if (rc == 0) {
			undo_journal_made(&p->j, a->path);
			b->placed = true;
			return 0;
		}
	}
	tmp = apply_staged(p, seq);
	if ((fd = beneath_open(p->root, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600, cause)) < 0)
		return -1;
	if (apply_content(p, fd, b) != 0) {
		*cause = xasprintf("cannot write '%s': %s", a->path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	/* Made by root for someone else: theirs again. */
	if (geteuid() == 0 && fchown(fd, b->uid, b->gid) != 0) {
		*cause = xasprintf("cannot give '%s' back to its owner: %s",
		    a->path, strerror(errno));
		close(fd);
		return -1;
	}
	rc = apply_meta_fd(a, fd, cause);
	close(fd);
	if (rc != 0 || beneath_rename(p->root, tmp, a->path, cause) != 0)
		return -1;
	undo_journal_renamed(&p->j, tmp, a->path);
	b->placed = true;
	return 0;
}

/* Content written back in place (its other hard links see it too), after
   a copy of what it holds now went to the staging directory. */
static int
apply_rewrite(struct undo_plan *p, struct act *a, unsigned *seq,
    char **cause)
{
	_cleanup_free_ char	*copy = NULL;
	int			 fd, rc;

	if (undo_journal_meta(&p->j, a->path, true) != 0) {
		*cause = xasprintf("cannot look at '%s': %s", a->path,
		    strerror(errno));
		return -1;
	}
	fd = beneath_open(p->root, a->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC,
	    0, cause);
	if (fd < 0 && errno == EACCES && geteuid() != 0 &&
	    apply_writable(p, a->path) == 0) {
		/* Read-only now: writable for the content, its mode comes
		   back right after. */
		free(*cause);
		*cause = NULL;
		fd = beneath_open(p->root, a->path, O_RDWR | O_NOFOLLOW |
		    O_CLOEXEC, 0, cause);
	}
	if (fd < 0)
		return -1;
	copy = apply_staged(p, seq);
	if (undo_journal_content(&p->j, a->path, fd, copy, cause) != 0) {
		close(fd);
		return -1;
	}
	if (apply_content(p, fd, a->b) != 0) {
		*cause = xasprintf("cannot write '%s': %s", a->path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	a->b->placed = true;
	rc = apply_meta_fd(a, fd, cause);
	close(fd);
	return rc;
}

static int
apply_one(struct undo_plan *p, struct act *a, unsigned *seq, char **cause)
{
	struct ue	*b = a->b;
	struct stat	 st;
	int		 fd, rc = 0;

	switch (a->kind) {
	case ACT_STAGE:
		free(a->to);
		a->to = apply_staged(p, seq);
		/* Later unstaging of b comes from here. */
		for (size_t i = 0; i < p->nacts; i++)
			if (p->acts[i].kind == ACT_UNSTAGE &&
			    p->acts[i].b == b) {
				free(p->acts[i].to);
				p->acts[i].to = xstrdup(a->to);
			}
		if (beneath_rename(p->root, a->path, a->to, cause) != 0)
			return -1;
		undo_journal_renamed(&p->j, a->path, a->to);
		return 0;
	case ACT_UNSTAGE:
		if (beneath_rename(p->root, a->to, a->path, cause) != 0)
			return -1;
		undo_journal_renamed(&p->j, a->to, a->path);
		return 0;
	case ACT_RMDIR:
		if (beneath_lstat(p->root, a->to, &st) != 0 && errno == ENOENT)
			return 0;
		if (beneath_remove(p->root, a->to, &a->id) == 0) {
			undo_journal_rmdir(&p->j, a->to, &st);
			return 0;
		}
		if (errno == ENOENT)
			return 0;
		/* (What dispose removes was born during the run and never
		   recorded: not put back if a later step fails.) */
		if (errno == ENOTEMPTY && p->since.tv_sec > 0) {
			if (apply_dispose(p, a, cause) != 0)
				return -1;
			undo_journal_rmdir(&p->j, a->to, &st);
			return 0;
		}
		*cause = xasprintf("cannot remove '%s': %s", a->path,
		    strerror(errno));
		return -1;
	case ACT_REMOVE:
		/* Into the staging directory: gone for good only once every
		   step succeeded. */
		if (beneath_lstat(p->root, a->path, &st) != 0) {
			if (errno == ENOENT)
				return 0;
		} else if (st.st_dev != a->id.st_dev ||
		    st.st_ino != a->id.st_ino) {
			errno = ESTALE;
		} else {
			_cleanup_free_ char *to = apply_staged(p, seq);
			char *c = NULL;

			if (beneath_rename(p->root, a->path, to, &c) == 0) {
				undo_journal_renamed(&p->j, a->path, to);
				return 0;
			}
			free(c);
		}
		*cause = xasprintf("cannot remove '%s': %s", a->path,
		    strerror(errno));
		return -1;
	case ACT_MKDIR:
		if (beneath_mkdir(p->root, a->path, 0700, cause) != 0)
			return -1;
		undo_journal_made(&p->j, a->path);
		/* Its own mode at the end (ACT_META), when what goes in it
		   is in place. */
		return apply_owner(p, a->path, b);
	case ACT_SYMLINK:
		if (beneath_symlink(p->root, a->path, b->target) != 0) {
			*cause = xasprintf("cannot make the link '%s': %s",
			    a->path, strerror(errno));
			return -1;
		}
		undo_journal_made(&p->j, a->path);
		return apply_owner(p, a->path, b);
	case ACT_MAKE:
		return apply_make(p, a, seq, cause);
	case ACT_CONTENT:
		return apply_rewrite(p, a, seq, cause);
	case ACT_META:
		if (undo_journal_meta(&p->j, a->path, b->type == UE_FILE) !=
		    0) {
			*cause = xasprintf("cannot look at '%s': %s", a->path,
			    strerror(errno));
			return -1;
		}
		if (b->type == UE_DIR) {
			fd = beneath_open(p->root, a->path, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0, cause);
			if (fd < 0)
				return -1;
			if ((rc = fchmod(fd, b->mode)) != 0)
				*cause = xasprintf("cannot set the mode of "
				    "'%s': %s", a->path, strerror(errno));
			close(fd);
			return rc;
		}
		fd = beneath_open(p->root, a->path, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC, 0, cause);
		if (fd < 0)
			return -1;
		rc = apply_meta_fd(a, fd, cause);
		close(fd);
		return rc;
	default:
		return 0;
	}
}

static int
ue_path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A directory renamed back may carry names nobody recorded (made in it
 * while a rename of it raced the recorder). Below it, whatever is not a
 * before name and was born during the run goes (the sweep's proof,
 * beneath.h); nothing older is touched.
 */
static void
apply_sweep(struct undo_plan *p, const char **sorted, int dfd,
    const char *path, int depth)
{
	DIR		*d;
	struct dirent	*de;
	struct statx	 sx;
	char		*child;
	const char	*key;
	int		 sub, nd;
	int64_t		 born, since = p->since.tv_sec * 1000000000LL +
			    p->since.tv_nsec;

	if ((nd = dup(dfd)) < 0)
		return;
	if ((d = fdopendir(nd)) == NULL) {
		close(nd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		child = xasprintf("%s/%s", path, de->d_name);
		key = child;
		if (bsearch(&key, sorted, p->nb, sizeof *sorted,
		    ue_path_cmp) == NULL &&
		    beneath_child_statx(dfd, de->d_name, 0, STATX_BTIME |
		    STATX_TYPE, &sx) == 0 && (sx.stx_mask & STATX_BTIME)) {
			born = sx.stx_btime.tv_sec * 1000000000LL +
			    sx.stx_btime.tv_nsec;
			if (born >= since) {
				(void)beneath_dispose(dfd, de->d_name,
				    &p->since);
				free(child);
				continue;
			}
		}
		if (de->d_type == DT_DIR && depth > 0 && (sub = beneath_child(
		    dfd, de->d_name, O_RDONLY | O_DIRECTORY)) >= 0) {
			apply_sweep(p, sorted, sub, child, depth - 1);
			close(sub);
		}
		free(child);
	}
	closedir(d);
}

/* Sweep every directory that was renamed back. */
static void
apply_sweep_renamed(struct undo_plan *p)
{
	const char	**sorted;
	char		 *cause = NULL;
	int		  fd;

	if (p->since.tv_sec == 0)
		return;
	sorted = xcalloc(p->nb + 1, sizeof *sorted);
	for (size_t i = 0; i < p->nb; i++)
		sorted[i] = p->b[i].path;
	if (p->nb > 1)
		qsort(sorted, p->nb, sizeof *sorted, ue_path_cmp);
	for (size_t i = 0; i < p->nacts; i++) {
		struct act *a = &p->acts[i];

		if (a->kind != ACT_UNSTAGE || a->b->type != UE_DIR)
			continue;
		fd = beneath_open(p->root, a->path, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC, 0, &cause);
		free(cause);
		cause = NULL;
		if (fd < 0)
			continue;
		apply_sweep(p, sorted, fd, a->path, 64);
		close(fd);
	}
	free(sorted);
}

/* Empty the staging directory and remove it (after a success, or after
   a rollback took back what was in it); -1 when something is left. */
static int
apply_unstage_all(struct undo_plan *p)
{
	struct dirent	*de;
	struct stat	 st;
	char		*cause = NULL;
	DIR		*d;
	int		 fd, nd, rc = 0;

	fd = beneath_open(p->root, p->stage, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC, 0, &cause);
	free(cause);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if ((nd = dup(fd)) >= 0 && (d = fdopendir(nd)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			/* What removed directories held was moved out of
			   them before: only files and links are here. */
			if (de->d_type == DT_DIR ||
			    beneath_drop(fd, de->d_name) != 0)
				rc = -1;
		}
		closedir(d);
	} else if (nd >= 0)
		close(nd);
	close(fd);
	if (beneath_lstat(p->root, p->stage, &st) == 0 &&
	    beneath_remove(p->root, p->stage, &st) != 0)
		rc = -1;
	return rc;
}

/* Take back what was done; the cause says what happened, in one line. */
static void
apply_rollback(struct undo_plan *p, char **cause)
{
	char	*failed = NULL, *c = *cause;

	if (p->j.n == 0) {		/* it had not begun */
		if (p->stage != NULL)
			(void)apply_unstage_all(p);
		*cause = xasprintf("%s: nothing was changed", c);
		free(c);
		return;
	}
	if (undo_journal_rollback(&p->j, &failed) == 0) {
		if (p->stage != NULL)
			(void)apply_unstage_all(p);
		*cause = xasprintf("%s: nothing was changed (what undo had "
		    "done was taken back)", c);
	} else
		*cause = xasprintf("%s; taking back what undo had done "
		    "failed: %s%s%s", c, failed, p->stage != NULL ?
		    "; what it held is in " : "", p->stage != NULL ?
		    p->stage : "");
	free(failed);
	free(c);
	undo_journal_release(&p->j);
}

int
undo_plan_apply(struct undo_plan *p, bool force, char **cause)
{
	unsigned	 seq = 0;
	int		 rc = 0;

	/* Open what the run closed, then look again (each pass opens one
	   more level). */
	for (int pass = 0; pass < 64 && geteuid() != 0 && p->conflicts == 0 &&
	    plan_unlock(p) > 0; pass++)
		plan_again(p);
	if (p->blocked > 0 && p->conflicts == 0) {
		*cause = xasprintf("%zu path%s cannot be looked at (a directory "
		    "the run made unsearchable)", p->blocked,
		    p->blocked == 1 ? "" : "s");
		apply_rollback(p, cause);
		return -1;
	}
	if (p->conflicts > 0 && !force) {
		*cause = xasprintf("%zu conflict%s: the project changed since "
		    "the run (--force undoes it anyway)", p->conflicts,
		    p->conflicts == 1 ? "" : "s");
		apply_rollback(p, cause);
		return -1;
	}
	if (p->nacts > 1)
		qsort(p->acts, p->nacts, sizeof *p->acts, act_cmp);
	if (p->nacts > 0) {
		p->stage = xasprintf(".bwgate-undo.%ld", (long)getpid());
		if (beneath_mkdir(p->root, p->stage, 0700, cause) < 0) {
			free(p->stage);
			p->stage = NULL;
			apply_rollback(p, cause);
			return -1;
		}
	}
	for (size_t i = 0; i < p->nacts && rc == 0; i++) {
		if (p->acts[i].kind == ACT_RMDIR) {
			free(p->acts[i].to);
			p->acts[i].to = apply_where(p, i, p->acts[i].path);
		}
		rc = apply_one(p, &p->acts[i], &seq, cause);
	}
	if (rc != 0) {
		if (*cause == NULL)
			*cause = xasprintf("%s", strerror(errno));
		apply_rollback(p, cause);
		return -1;
	}
	/* Done: what was removed or replaced goes for good. */
	undo_journal_release(&p->j);
	apply_sweep_renamed(p);
	/* (Only what undo put there itself: it cannot fail short of the
	   disk failing, and what is left is then in plain sight.) */
	if (p->stage != NULL)
		(void)apply_unstage_all(p);
	return 0;
}

void
undo_plan_free(struct undo_plan *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nacts; i++) {
		free(p->acts[i].path);
		free(p->acts[i].to);
	}
	free(p->acts);
	free(p->b);
	free(p->a);
	free(p->bpath);
	free(p->apath);
	free(p->bino);
	free(p->aino);
	undo_journal_release(&p->j);
	strv_release(&p->lines);
	if (p->root >= 0)
		close(p->root);
	cJSON_Delete(p->m);
	free(p->store);
	free(p->stage);
	free(p->project);
	free(p);
}
