/* stake: what a dangerous command puts at stake, counted beneath the
   project (stake.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "path.h"
#include "stake.h"
#include "undo.h"
#include "units.h"
#include "xalloc.h"

struct stake_count {
	unsigned long long	 files;		/* not directories */
	unsigned long long	 bytes;
	size_t			 seen;		/* entries, for the cap */
	bool			 capped;
	bool			 failed;	/* an entry not looked at */
	unsigned long long	 largest;	/* bytes of the largest file */
};

/* Count what is beneath the open directory fd (closed here). */
static void
stake_walk(int fd, struct stake_count *n)
{
	DIR		*d = fdopendir(fd);
	struct dirent	*de;
	struct stat	 st;
	int		 sub;

	if (d == NULL) {
		n->failed = true;
		close(fd);
		return;
	}
	while (!n->capped && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++n->seen > STAKE_MAX_ENTRIES) {
			n->capped = true;
			break;
		}
		if (beneath_child_stat(dirfd(d), de->d_name, &st) != 0) {
			n->failed = true;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			n->files++;
			n->bytes += (unsigned long long)st.st_size;
			if ((unsigned long long)st.st_size > n->largest)
				n->largest = (unsigned long long)st.st_size;
			continue;
		}
		sub = beneath_child(dirfd(d), de->d_name, O_RDONLY |
		    O_DIRECTORY);
		if (sub >= 0)
			stake_walk(sub, n);
		else
			n->failed = true;
	}
	closedir(d);
}

/* A size in words: 4.1 MiB (units.h: one system everywhere). */
static void
stake_size(struct buf *b, unsigned long long bytes)
{
	char	s[SIZE_TEXT_MAX];

	buf_printf(b, "%s", size_text(bytes, s));
}

/* One operand of a delete, relative to cwd: counted, or why not. */
static void
stake_target(int root, const char *project, const char *cwd,
    const char *target, struct buf *b, struct stake_count *all,
    struct strv *notes)
{
	char			*abs, *rel, *cause = NULL;
	struct stake_count	 n = { 0, 0, 0, false, false, 0 };
	struct stat		 st;
	int			 fd;

	if (strpbrk(target, "*?[") != NULL) {
		strv_pushf(notes, "'%s' is a pattern", target);
		return;
	}
	abs = target[0] == '/' ? xstrdup(target) : path_join(cwd, target);
	if ((rel = beneath_relative(project, abs, &cause)) == NULL) {
		free(cause);
		strv_pushf(notes, "'%s' is outside the project (the sandbox "
		    "keeps it)", target);
		free(abs);
		return;
	}
	fd = beneath_open(root, rel, O_RDONLY | O_NOFOLLOW, 0, &cause);
	if (fd < 0) {
		strv_pushf(notes, "'%s' %s", target, errno == ENOENT ?
		    "does not exist" : "cannot be looked at");
		free(cause);
	} else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		stake_walk(fd, &n);
		buf_printf(b, "%s%llu file%s (", b->len > 0 ? ", " : "",
		    n.files, n.files == 1 ? "" : "s");
		stake_size(b, n.bytes);
		buf_printf(b, ") under %s/", strcmp(rel, ".") == 0 ?
		    "the whole project" : rel);
	} else {
		n.files = 1;
		n.bytes = fd >= 0 && fstat(fd, &st) == 0 ?
		    (unsigned long long)st.st_size : 0;
		buf_printf(b, "%s%s (", b->len > 0 ? ", " : "", rel);
		stake_size(b, n.bytes);
		buf_puts(b, ")");
		close(fd);
	}
	all->files += n.files;
	all->capped |= n.capped;
	free(rel);
	free(abs);
}

char *
stake_describe(const char *project, const char *cwd, const char *stake,
    const struct strv *targets)
{
	struct buf		 b = BUF_INIT, what = BUF_INIT;
	struct strv		 notes = STRV_INIT;
	struct stake_count	 all = { 0, 0, 0, false, false, 0 };
	struct stat		 st;
	int			 root;
	char			*s, *cause = NULL;

	if (strcmp(stake, "delete") != 0 || targets->n == 0)
		return NULL;	/* the reason says it */
	if ((root = beneath_root(project, &st, &cause)) < 0)
		free(cause);
	for (size_t i = 0; root >= 0 && i < targets->n; i++)
		stake_target(root, project, cwd, targets->v[i], &what, &all,
		    &notes);
	if (root >= 0)
		close(root);
	buf_puts(&b, "deletes ");
	if (what.len > 0)
		buf_add(&b, what.data, what.len);
	else
		buf_puts(&b, "nothing that exists now");
	if (all.capped)
		buf_printf(&b, " (counted up to %d entries: more)",
		    STAKE_MAX_ENTRIES);
	if (notes.n > 0) {
		s = strv_join(&notes, "; ", false);
		buf_printf(&b, "; %s", s);
		free(s);
	}
	buf_release(&what);
	strv_release(&notes);
	return buf_detach(&b);
}

/* Would undo keep all a pattern's matches in the directory rel ("" the
   top) would delete? Matched with fnmatch's widest reading (dot files,
   either case: shopt may widen bash's), so what the shell expands is among
   them; a link among them, or one not looked at, is not measured. */
static bool
stake_pattern_kept(int root, const char *rel, const char *pat,
    struct stake_count *all)
{
	struct dirent	*de;
	struct stat	 st;
	char		*cause = NULL;
	DIR		*d;
	int		 fd, sub;
	bool		 ok = true;

	fd = beneath_open(root, rel[0] == '\0' ? "." : rel, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW, 0, &cause);
	if (fd < 0) {
		ok = errno == ENOENT;	/* matches nothing */
		free(cause);
		return ok;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			ok = errno == 0;	/* the end, not an error */
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    fnmatch(pat, de->d_name, FNM_CASEFOLD) != 0)
			continue;
		if (++all->seen > STAKE_MAX_ENTRIES ||
		    beneath_child_stat(dirfd(d), de->d_name, &st) != 0 ||
		    S_ISLNK(st.st_mode)) {
			ok = false;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			all->files++;
			all->bytes += (unsigned long long)st.st_size;
			if ((unsigned long long)st.st_size > all->largest)
				all->largest = (unsigned long long)st.st_size;
		} else if ((sub = beneath_child(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY)) >= 0)
			stake_walk(sub, all);
		else {
			ok = false;
			break;
		}
	}
	closedir(d);
	return ok;
}

/* A pattern operand, rel beneath the project: only its last component may
   be one, and at the top only after a literal start (`rm -rf *` is the
   whole project). */
static bool
stake_glob_kept(int root, char *rel, struct stake_count *all)
{
	char	*slash = strrchr(rel, '/'), *pat = slash != NULL ? slash + 1 :
		    rel;

	if (slash != NULL)
		*slash = '\0';
	if (pat[0] == '\0' || (slash != NULL && strpbrk(rel, "*?[\\") !=
	    NULL) || (slash == NULL && strchr("*?[", pat[0]) != NULL))
		return false;
	return stake_pattern_kept(root, slash != NULL ? rel : "", pat, all);
}

/* Would undo keep one operand's all (stake_undo_restores)? Adds to all. */
static bool
stake_target_kept(int root, const char *project, const char *cwd,
    const char *target, struct stake_count *all)
{
	char		*abs, *rel, *cause = NULL;
	struct stat	 st;
	int		 fd;
	bool		 ok = false;

	abs = target[0] == '/' ? xstrdup(target) : path_join(cwd, target);
	if ((rel = beneath_relative(project, abs, &cause)) == NULL) {
		free(cause);
		free(abs);
		return false;	/* outside: not the project's undo */
	}
	if (strcmp(rel, ".") == 0) {
		free(rel);
		free(abs);
		return false;	/* the whole project: always asked */
	}
	if (strpbrk(rel, "*?[") != NULL) {
		ok = stake_glob_kept(root, rel, all);
		free(rel);
		free(abs);
		return ok;
	}
	fd = beneath_open(root, rel, O_RDONLY | O_NOFOLLOW, 0, &cause);
	if (fd < 0) {
		ok = errno == ENOENT;	/* deletes nothing */
		free(cause);
	} else if (fstat(fd, &st) != 0) {
		close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		stake_walk(fd, all);
		ok = true;
	} else {
		all->files++;
		all->bytes += (unsigned long long)st.st_size;
		if ((unsigned long long)st.st_size > all->largest)
			all->largest = (unsigned long long)st.st_size;
		close(fd);
		ok = true;
	}
	free(rel);
	free(abs);
	return ok;
}

bool
stake_undo_restores(const char *project, const char *cwd,
    const struct strv *targets)
{
	struct stake_count	 all = { 0, 0, 0, false, false, 0 };
	struct undo_limits	 l;
	struct stat		 st;
	char			*cause = NULL;
	bool			 ok = targets->n > 0 && undo_enabled();
	int			 root = -1;

	if (ok && (root = beneath_root(project, &st, &cause)) < 0) {
		free(cause);
		ok = false;
	}
	for (size_t i = 0; ok && i < targets->n; i++)
		ok = stake_target_kept(root, project, cwd, targets->v[i], &all);
	if (root >= 0)
		close(root);
	undo_limits_get(&l);
	return ok && !all.capped && !all.failed && all.largest <= l.file_max &&
	    all.bytes <= l.run_max;
}
