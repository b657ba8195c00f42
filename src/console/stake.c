/* stake: what a dangerous command puts at stake, counted beneath the
   project (stake.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "gitops.h"
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

/* One thing a delete would remove, beneath the project. */
struct stake_item {
	char			*rel;
	bool			 dir;
	bool			 link;
	unsigned long long	 files, bytes, tracked;
};

/* One operand: its items first .. first + n; pattern when it is one. */
struct stake_op {
	size_t			 first, n;
	char			*pattern;	/* as written, or NULL */
	bool			 whole;		/* the project's top */
};

/* One measure of a delete's operands: what the text says and what undo is
   judged on come from the same walk. */
struct stake_run {
	int			 root;
	const char		*project, *cwd;
	struct stake_item	*items;
	size_t			 nitems, capitems;
	struct stake_op		*ops;
	size_t			 nops;
	struct stake_count	 all;
	bool			 kept;		/* undo keeps all, so far */
	struct strv		 notes;
	struct strv		 specs;		/* where git is asked */
};

/* Measure the entry name of the open directory dfd as an item. */
static void
stake_item_add(struct stake_run *r, int dfd, const char *name,
    const char *rel)
{
	struct stake_item	*it;
	struct stat		 st;
	unsigned long long	 files = r->all.files, bytes = r->all.bytes;
	int			 sub;

	if (++r->all.seen > STAKE_MAX_ENTRIES) {
		r->all.capped = true;
		return;
	}
	if (beneath_child_stat(dfd, name, &st) != 0) {
		r->all.failed = true;
		return;
	}
	if (r->nitems == r->capitems) {
		r->capitems = r->capitems * 2 + 8;
		r->items = xreallocarray(r->items, r->capitems,
		    sizeof *r->items);
	}
	it = &r->items[r->nitems++];
	memset(it, 0, sizeof *it);
	it->rel = xstrdup(rel);
	it->link = S_ISLNK(st.st_mode);
	it->dir = S_ISDIR(st.st_mode);
	if (it->link)
		r->kept = false;	/* not measured */
	if (!it->dir) {
		r->all.files++;
		r->all.bytes += (unsigned long long)st.st_size;
		if ((unsigned long long)st.st_size > r->all.largest)
			r->all.largest = (unsigned long long)st.st_size;
	} else if ((sub = beneath_child(dfd, name, O_RDONLY |
	    O_DIRECTORY)) >= 0)
		stake_walk(sub, &r->all);
	else {
		r->all.failed = true;
		r->kept = false;
	}
	it->files = r->all.files - files;
	it->bytes = r->all.bytes - bytes;
}

/* The project's top, open at dfd (closed here), as one item. */
static void
stake_item_whole(struct stake_run *r, int dfd)
{
	struct stake_item	*it;
	unsigned long long	 files = r->all.files, bytes = r->all.bytes;

	stake_walk(dfd, &r->all);
	r->items = xreallocarray(r->items, r->nitems + 1, sizeof *r->items);
	r->capitems = r->nitems + 1;
	it = &r->items[r->nitems++];
	memset(it, 0, sizeof *it);
	it->rel = xstrdup(".");
	it->dir = true;
	it->files = r->all.files - files;
	it->bytes = r->all.bytes - bytes;
	strv_push(&r->specs, ".");
}

static int
stake_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A pattern's matches in the directory dir ("" the top), each an item,
   in order. Matched with fnmatch's widest reading (dot files, either
   case: shopt may widen bash's), so what the shell expands is among
   them. */
static void
stake_expand(struct stake_run *r, const char *dir, const char *pat)
{
	struct strv	 names = STRV_INIT;
	struct dirent	*de;
	char		*cause = NULL, *rel;
	DIR		*d;
	int		 fd;

	fd = beneath_open(r->root, dir[0] == '\0' ? "." : dir, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW, 0, &cause);
	if (fd < 0) {
		r->kept &= errno == ENOENT;	/* matches nothing */
		free(cause);
		return;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		r->kept = false;
		return;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			r->kept &= errno == 0;	/* the end, not an error */
			break;
		}
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    fnmatch(pat, de->d_name, FNM_CASEFOLD) == 0)
			strv_push(&names, de->d_name);
		if (names.n > STAKE_MAX_ENTRIES)
			break;
	}
	if (names.n > 1)	/* (v is NULL when empty: no qsort) */
		qsort(names.v, names.n, sizeof *names.v, stake_cmp);
	for (size_t i = 0; i < names.n && !r->all.capped; i++) {
		rel = dir[0] == '\0' ? xstrdup(names.v[i]) :
		    path_join(dir, names.v[i]);
		stake_item_add(r, dirfd(d), names.v[i], rel);
		free(rel);
	}
	closedir(d);
	strv_release(&names);
}

/* A pattern operand, rel beneath the project: only its last component is
   expanded; undo is judged on it only after a literal start at the top
   (`rm -rf *` is the whole project). */
static void
stake_glob(struct stake_run *r, const char *target, char *rel)
{
	char	*slash = strrchr(rel, '/'), *pat = slash != NULL ? slash + 1 :
		    rel;

	if (slash != NULL)
		*slash = '\0';
	if (pat[0] == '\0' || (slash != NULL && strpbrk(rel, "*?[\\") !=
	    NULL)) {
		strv_pushf(&r->notes, "'%s' is a pattern", target);
		r->kept = false;
		return;
	}
	if (slash == NULL && strchr("*?[", pat[0]) != NULL)
		r->kept = false;
	strv_push(&r->specs, slash != NULL ? rel : ".");
	stake_expand(r, slash != NULL ? rel : "", pat);
}

/* A literal operand, rel beneath the project: the entry looked at in its
   directory, through the door. */
static void
stake_literal(struct stake_run *r, const char *target, char *rel,
    bool whole)
{
	struct stat	 st;
	char		*cause = NULL, *slash = whole ? NULL : strrchr(rel, '/');
	const char	*name = slash != NULL ? slash + 1 : rel;
	int		 dfd, err = 0;

	if (slash != NULL)
		*slash = '\0';
	dfd = beneath_open(r->root, slash != NULL ? rel : ".", O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW, 0, &cause);
	if (dfd < 0)
		err = errno;
	if (slash != NULL)
		*slash = '/';
	free(cause);
	if (dfd >= 0 && whole) {
		stake_item_whole(r, dfd);	/* closes dfd */
		return;
	}
	if (dfd >= 0 && beneath_child_stat(dfd, name, &st) == 0) {
		strv_push(&r->specs, rel);
		stake_item_add(r, dfd, name, rel);
	} else if (dfd >= 0)
		err = errno;
	if (dfd >= 0)
		close(dfd);
	if (err == ENOENT)
		strv_pushf(&r->notes, "'%s' does not exist", target);
	else if (err != 0) {
		strv_pushf(&r->notes, "'%s' cannot be looked at", target);
		r->kept = false;
	}
}

/* The operand abs (absolute) beneath the project, its ".." taken as the
   system takes it: from the directory before it, which must be one and
   no symbolic link (`cd build && rm -rf ../x` deletes x). NULL with a
   note: outside the project, deletes nothing (what is before a ".." is
   not there, or no directory), or not measured (a link, a pattern). */
static char *
stake_resolve(struct stake_run *r, const char *target, const char *abs)
{
	struct strv	 comps = STRV_INIT;
	struct stat	 st;
	char		*copy = xstrdup(abs), *dots, *c, *last, *rel = NULL,
			*cause = NULL;
	const char	*why = "is outside the project (the sandbox keeps it)";
	bool		 keep = false;
	size_t		 n = strlen(copy);

	/* What comes before the first ".." is resolved as a path name. */
	dots = strstr(copy, "/../");
	if (dots == NULL && n >= 3 && strcmp(copy + n - 3, "/..") == 0)
		dots = copy + n - 3;
	/* The shell expands a pattern before a ".."; not followed here. */
	for (const char *q = abs; (q = strstr(q, "/..")) != NULL; q++)
		if (q[3] == '/' || q[3] == '\0')
			for (const char *g = abs; g < q; g++)
				if (strchr("*?[\\", *g) != NULL) {
					why = "is a pattern before '..'";
					goto note;
				}
	if (dots != NULL)
		*dots++ = '\0';
	if ((rel = beneath_relative(r->project, copy[0] != '\0' ? copy : "/",
	    &cause)) == NULL)
		goto note;
	if (strcmp(rel, ".") != 0)
		for (c = strtok_r(rel, "/", &last); c != NULL;
		    c = strtok_r(NULL, "/", &last))
			strv_push(&comps, c);
	for (c = dots != NULL ? strtok_r(dots, "/", &last) : NULL; c != NULL;
	    c = strtok_r(NULL, "/", &last)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") != 0) {
			strv_push(&comps, c);
			continue;
		}
		if (comps.n == 0)
			goto note;	/* above the project */
		free(rel);
		rel = strv_join(&comps, "/", false);
		if (beneath_lstat(r->root, rel, &st) != 0) {
			keep = errno == ENOENT;
			why = keep ? "does not exist" : "cannot be looked at";
			goto note;
		}
		if (S_ISLNK(st.st_mode)) {
			why = "goes through a symbolic link";
			goto note;
		}
		if (!S_ISDIR(st.st_mode)) {
			keep = true;	/* ENOTDIR: deletes nothing */
			why = "does not exist";
			goto note;
		}
		free(comps.v[--comps.n]);
	}
	free(rel);
	rel = comps.n > 0 ? strv_join(&comps, "/", false) : xstrdup(".");
	goto out;
note:
	r->kept &= keep;
	strv_pushf(&r->notes, "'%s' %s", target, why);
	free(rel);
	rel = NULL;
out:
	free(cause);
	free(copy);
	strv_release(&comps);
	return rel;
}

/* target without its escapes when it has escaped pattern characters and
   no other (one file's name), or NULL. */
static char *
stake_unescape(const char *target)
{
	char	*out = xmalloc(strlen(target) + 1), *o = out;
	bool	 escaped = false;

	for (const char *t = target; *t != '\0'; t++) {
		if (*t == '\\' && t[1] != '\0')
			escaped |= strchr("*?[", *++t) != NULL;
		else if (strchr("*?[", *t) != NULL) {
			escaped = false;	/* a pattern after all */
			break;
		}
		*o++ = *t;
	}
	*o = '\0';
	if (!escaped) {
		free(out);
		return NULL;
	}
	return out;
}

/* One operand of a delete, relative to cwd: its items, or why none. */
static void
stake_operand(struct stake_run *r, const char *target)
{
	struct stake_op	*op;
	char		*abs, *rel, *plain = NULL;

	/* A quoted operand with pattern characters comes escaped (danger.h):
	   it names one file. */
	if (strchr(target, '\\') != NULL && (plain = stake_unescape(target))
	    != NULL)
		target = plain;
	abs = target[0] == '/' ? xstrdup(target) : path_join(r->cwd, target);
	if ((rel = stake_resolve(r, target, abs)) == NULL) {
		free(abs);
		return;
	}
	r->ops = xreallocarray(r->ops, r->nops + 1, sizeof *r->ops);
	op = &r->ops[r->nops++];
	op->first = r->nitems;
	op->pattern = NULL;
	op->whole = strcmp(rel, ".") == 0;
	if (op->whole)
		r->kept = false;	/* the whole project: always asked */
	if (plain == NULL && strpbrk(rel, "*?[") != NULL) {
		op->pattern = xstrdup(target);
		stake_glob(r, target, rel);
	} else
		stake_literal(r, target, rel, op->whole);
	op->n = r->nitems - op->first;
	free(rel);
	free(abs);
	free(plain);
}

/* How many of the index's paths (sorted) are rel or beneath it. */
static unsigned long long
stake_tracked_under(const struct strv *idx, const char *rel)
{
	unsigned long long	 n = 0;
	size_t			 lo = 0, hi = idx->n, len;
	char			*key;

	if (strcmp(rel, ".") == 0)
		return idx->n;
	key = xasprintf("%s/", rel);
	len = strlen(key);
	while (lo < hi) {	/* the first path not before rel */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(idx->v[mid], rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < idx->n && strncmp(idx->v[lo], rel, len - 1) == 0; lo++)
		if (idx->v[lo][len - 1] == '\0' ||
		    strncmp(idx->v[lo], key, len) == 0)
			n++;
	free(key);
	return n;
}

/* Tracked or untracked, in words ("" when git was not asked). */
static const char *
stake_tracked_words(unsigned long long files, unsigned long long tracked,
    bool known, char *s, size_t len)
{
	if (!known || files == 0)
		return "";
	if (tracked == 0)
		return ", untracked";
	if (tracked >= files)
		return ", tracked";
	snprintf(s, len, ", %llu tracked", tracked);
	return s;
}

/* One item in words: "a.txt (6 B, tracked)", "3 files (4.0 KiB,
   untracked) under build/". */
static void
stake_item_text(struct buf *b, const struct stake_item *it, bool known)
{
	char	t[48];

	if (b->len > 0)
		buf_puts(b, ", ");
	if (it->link) {
		buf_printf(b, "%s (a symbolic link%s)", it->rel,
		    stake_tracked_words(1, it->tracked, known, t, sizeof t));
		return;
	}
	if (!it->dir) {
		buf_printf(b, "%s (", it->rel);
		stake_size(b, it->bytes);
		buf_printf(b, "%s)", stake_tracked_words(1, it->tracked,
		    known, t, sizeof t));
		return;
	}
	buf_printf(b, "%llu file%s (", it->files, it->files == 1 ? "" : "s");
	stake_size(b, it->bytes);
	buf_printf(b, "%s) ", stake_tracked_words(it->files, it->tracked,
	    known, t, sizeof t));
	if (strcmp(it->rel, ".") == 0)
		buf_puts(b, "in the whole project");
	else
		buf_printf(b, "under %s/", it->rel);
}

/* One operand in words: its items, a pattern's first STAKE_NAMED named
   and the rest counted. */
static void
stake_op_text(struct buf *b, struct strv *notes, const struct stake_run *r,
    const struct stake_op *op, bool known)
{
	struct stake_item	 rest = { NULL, false, false, 0, 0, 0 };
	size_t			 named = op->pattern != NULL &&
				     op->n > STAKE_NAMED ? STAKE_NAMED - 1 :
				     op->n;
	char			 t[48];

	if (op->pattern != NULL && op->n == 0)
		strv_pushf(notes, "'%s' matches nothing now", op->pattern);
	for (size_t i = 0; i < named; i++)
		stake_item_text(b, &r->items[op->first + i], known);
	if (named == op->n)
		return;
	for (size_t i = named; i < op->n; i++) {
		const struct stake_item *it = &r->items[op->first + i];

		rest.files += it->link ? 1 : it->files;
		rest.bytes += it->bytes;
		rest.tracked += it->tracked;
	}
	buf_printf(b, ", %zu more matching %s (%llu file%s, ", op->n - named,
	    op->pattern, rest.files, rest.files == 1 ? "" : "s");
	stake_size(b, rest.bytes);
	buf_printf(b, "%s)", stake_tracked_words(rest.files, rest.tracked,
	    known, t, sizeof t));
}

char *
stake_judge(const char *project, const char *cwd, const char *stake,
    const struct strv *targets, bool measured, bool *undo_restores)
{
	struct stake_run	 r;
	struct strv		 idx = STRV_INIT;
	struct undo_limits	 l;
	struct buf		 b = BUF_INIT, what = BUF_INIT;
	struct stat		 st;
	char			*s, *cause = NULL;
	bool			 known = false;

	*undo_restores = false;
	if (strcmp(stake, "delete") != 0 || targets->n == 0)
		return NULL;	/* the reason says it */
	memset(&r, 0, sizeof r);
	r.project = project;
	r.cwd = cwd;
	r.kept = true;
	if ((r.root = beneath_root(project, &st, &cause)) < 0) {
		free(cause);
		r.kept = false;
	}
	for (size_t i = 0; r.root >= 0 && i < targets->n; i++)
		stake_operand(&r, targets->v[i]);
	if (r.root >= 0)
		close(r.root);
	/* Tracked or not: one question to git for every operand. */
	if (r.nitems > 0 && r.specs.n > 0 &&
	    gitops_tracked(project, &r.specs, &idx) == 0) {
		known = true;
		if (idx.n > 1)
			qsort(idx.v, idx.n, sizeof *idx.v, stake_cmp);
		for (size_t i = 0; i < r.nitems; i++)
			r.items[i].tracked = stake_tracked_under(&idx,
			    r.items[i].rel);
	}
	for (size_t i = 0; i < r.nops; i++)
		stake_op_text(&what, &r.notes, &r, &r.ops[i], known);
	undo_limits_get(&l);
	*undo_restores = measured && r.kept && r.root >= 0 && undo_enabled() &&
	    !r.all.capped && !r.all.failed && r.all.largest <= l.file_max &&
	    r.all.bytes <= l.run_max;

	buf_puts(&b, "deletes ");
	if (what.len > 0)
		buf_add(&b, what.data, what.len);
	else
		buf_puts(&b, "nothing that exists now");
	if (r.all.capped)
		buf_printf(&b, " (counted up to %d entries: more)",
		    STAKE_MAX_ENTRIES);
	if (r.notes.n > 0) {
		s = strv_join(&r.notes, "; ", false);
		buf_printf(&b, "; %s", s);
		free(s);
	}
	if (*undo_restores)
		buf_puts(&b, "; undo puts all of it back");
	for (size_t i = 0; i < r.nitems; i++)
		free(r.items[i].rel);
	for (size_t i = 0; i < r.nops; i++)
		free(r.ops[i].pattern);
	free(r.items);
	free(r.ops);
	strv_release(&r.notes);
	strv_release(&r.specs);
	strv_release(&idx);
	buf_release(&what);
	return buf_detach(&b);
}
