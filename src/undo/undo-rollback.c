/*
 * undo-rollback: what an undo did to the project, step by step, so that a
 * step that fails (a full disk, a name now blocked, EACCES) puts the
 * project back exactly as it was before the undo started (undo-int.h).
 *
 * Undo never destroys anything before it has done everything: a name it
 * removes is renamed into its staging directory (kept until the end), a
 * file it makes is written there first and renamed into place, a file it
 * rewrites in place is copied there first. Each step leaves its inverse
 * here; undo_journal_rollback() plays them back, newest first. Every
 * operation goes through the door (beneath.h), relative to the project.
 */
#include "autoconf.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/fs.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "cleanup.h"
#include "undo-int.h"
#include "xalloc.h"

enum uj_kind { UJ_RENAMED, UJ_MADE, UJ_RMDIR, UJ_META, UJ_CONTENT };

struct uj_step {
	enum uj_kind	 kind;
	char		*path;		/* the project's name it acted on */
	char		*other;		/* RENAMED: where it came from;
					   CONTENT: the copy in the stage */
	struct stat	 st;		/* MADE: what it made; RMDIR, META: the
					   state before */
	bool		 times;		/* META: the modification time too */
};

void
undo_journal_init(struct undo_journal *j, int root)
{
	memset(j, 0, sizeof *j);
	j->root = root;
}

static struct uj_step *
uj_push(struct undo_journal *j, enum uj_kind kind, const char *path,
    const char *other)
{
	struct uj_step	*s;

	j->steps = xreallocarray(j->steps, j->n + 1, sizeof *j->steps);
	s = &j->steps[j->n++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->path = xstrdup(path);
	s->other = other != NULL ? xstrdup(other) : NULL;
	return s;
}

void
undo_journal_renamed(struct undo_journal *j, const char *from, const char *to)
{
	uj_push(j, UJ_RENAMED, to, from);
}

void
undo_journal_made(struct undo_journal *j, const char *path)
{
	struct uj_step	*s = uj_push(j, UJ_MADE, path, NULL);

	if (beneath_lstat(j->root, path, &s->st) != 0)
		s->st.st_ino = 0;	/* cannot tell it: left alone */
}

void
undo_journal_rmdir(struct undo_journal *j, const char *path,
    const struct stat *st)
{
	uj_push(j, UJ_RMDIR, path, NULL)->st = *st;
}

int
undo_journal_meta(struct undo_journal *j, const char *path, bool times)
{
	struct stat	 st;
	struct uj_step	*s;

	if (beneath_lstat(j->root, path, &st) != 0)
		return -1;
	s = uj_push(j, UJ_META, path, NULL);
	s->st = st;
	s->times = times && !S_ISDIR(st.st_mode);
	return 0;
}

/* Copy everything of src into dst (from the start of both). */
static int
uj_copy(int src, int dst)
{
	char	buf[1 << 16];
	ssize_t	r;

	if (ftruncate(dst, 0) != 0 || lseek(dst, 0, SEEK_SET) < 0)
		return -1;
	if (ioctl(dst, FICLONE, src) == 0)
		return 0;
	if (lseek(src, 0, SEEK_SET) < 0)
		return -1;
	while ((r = read(src, buf, sizeof buf)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (ssize_t off = 0, w; off < r; off += w)
			if ((w = write(dst, buf + off, (size_t)(r - off))) < 0)
				return -1;
	}
	return 0;
}

int
undo_journal_content(struct undo_journal *j, const char *path, int fd,
    const char *copy, char **cause)
{
	_cleanup_close_ int	 dst = beneath_open(j->root, copy, O_RDWR |
				    O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    0600, cause);

	if (dst < 0)
		return -1;
	if (uj_copy(fd, dst) != 0) {
		*cause = xasprintf("cannot keep a copy of '%s' before it is "
		    "rewritten: %s", path, strerror(errno));
		return -1;
	}
	uj_push(j, UJ_CONTENT, path, copy);
	return 0;
}

/* Set path's mode (and modification time) back to st's. */
static int
uj_meta(struct undo_journal *j, const struct uj_step *s)
{
	struct timespec	 ts[2];
	struct stat	 now;
	char		*cause = NULL;
	int		 fd, rc;

	/* As it was already (the step that failed may not have changed
	   it): nothing to do. */
	if (beneath_lstat(j->root, s->path, &now) == 0 &&
	    (now.st_mode & 07777) == (s->st.st_mode & 07777) && (!s->times ||
	    (now.st_mtim.tv_sec == s->st.st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == s->st.st_mtim.tv_nsec)))
		return 0;
	fd = beneath_open(j->root, s->path, (S_ISDIR(s->st.st_mode) ?
	    O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK) | O_NOFOLLOW |
	    O_CLOEXEC, 0, &cause);
	free(cause);
	if (fd < 0)
		return -1;
	rc = fchmod(fd, s->st.st_mode & 07777);
	if (rc == 0 && s->times) {
		ts[0].tv_nsec = UTIME_OMIT;
		ts[1] = s->st.st_mtim;
		rc = futimens(fd, ts);
	}
	close(fd);
	return rc;
}

/* Undo one step. */
static int
uj_undo(struct undo_journal *j, const struct uj_step *s)
{
	_cleanup_close_ int	 src = -1, dst = -1;
	char			*cause = NULL;
	int			 rc = 0;

	switch (s->kind) {
	case UJ_RENAMED:
		rc = beneath_rename(j->root, s->path, s->other, &cause);
		break;
	case UJ_MADE:
		if (s->st.st_ino == 0)
			return -1;
		rc = beneath_remove(j->root, s->path, &s->st);
		break;
	case UJ_RMDIR:
		if ((rc = beneath_mkdir(j->root, s->path, 0700,
		    &cause)) == 0 && geteuid() == 0)
			rc = beneath_lchown(j->root, s->path, s->st.st_uid,
			    s->st.st_gid);
		if (rc == 0)
			rc = beneath_chmod(j->root, s->path,
			    s->st.st_mode & 07777);
		break;
	case UJ_META:
		rc = uj_meta(j, s);
		break;
	case UJ_CONTENT:
		src = beneath_open(j->root, s->other, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC, 0, &cause);
		if (src >= 0) {
			free(cause);
			cause = NULL;
			dst = beneath_open(j->root, s->path, O_WRONLY |
			    O_NOFOLLOW | O_CLOEXEC, 0, &cause);
			if (dst < 0 && errno == EACCES &&
			    beneath_chmod(j->root, s->path, S_IRUSR |
			    S_IWUSR) == 0) {
				/* Its mode comes back with its META step,
				   played next. */
				free(cause);
				cause = NULL;
				dst = beneath_open(j->root, s->path, O_WRONLY |
				    O_NOFOLLOW | O_CLOEXEC, 0, &cause);
			}
		}
		rc = src >= 0 && dst >= 0 ? uj_copy(src, dst) : -1;
		break;
	}
	free(cause);
	return rc;
}

int
undo_journal_rollback(struct undo_journal *j, char **failed)
{
	size_t	bad = 0;
	char	*first = NULL;

	for (size_t i = j->n; i > 0; i--) {
		const struct uj_step *s = &j->steps[i - 1];

		if (uj_undo(j, s) == 0)
			continue;
		if (bad++ == 0)
			first = xasprintf("%s (%s)", s->path, strerror(errno));
	}
	if (bad > 0 && failed != NULL)
		*failed = xasprintf("%zu step%s could not be taken back, "
		    "first %s", bad, bad == 1 ? "" : "s", first);
	free(first);
	return bad > 0 ? -1 : 0;
}

void
undo_journal_release(struct undo_journal *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->steps[i].path);
		free(j->steps[i].other);
	}
	free(j->steps);
	j->steps = NULL;
	j->n = 0;
}
