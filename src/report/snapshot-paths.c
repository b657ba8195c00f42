/*
 * snapshot-paths: a snapshot of chosen paths only, for the change report
 * built from system calls (see snapshot.h).
 *
 * The observer names each path a file-changing call is about to touch; the
 * first time a path is named its state is recorded (or its absence: then
 * nothing is). At the end the same paths are looked at again, and the two
 * partial snapshots go through the ordinary snapshot_diff(), so both
 * methods share every rule (renames by identity, atomic saves, opaque
 * trees, parents before children). The cost is O(paths named), not
 * O(project).
 *
 * A path under an opaque tree (.git, an excluded name) stands for the
 * tree's top, as the scan records it; a skipped path (a placeholder) and
 * everything below it is left out.
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdint.h>
#include <stdio.h>

#include "beneath.h"
#include "snapshot-int.h"
#include "snapshot.h"
#include "xalloc.h"

struct snapshot_paths {
	struct scan_shared	 sh;
	char			*root;
	struct snapshot_opts	 opts;		/* for a widening's scans */
	struct snapshot		*before;
	/* Widened: the whole project as it was at the first call the
	   observer could not resolve (paths first seen before it keep
	   their own earlier state), and why. */
	struct snapshot		*mid;
	size_t			 seen_at_widen;
	bool			 widened;
	struct strv		 widened_why;
	struct snapshot		*merged;	/* the before of the diff */
	struct strv		 moved;		/* directories renamed to */
	struct strv		 warnings;
	struct strv		 paths;		/* recorded, in order */
	struct strv		 seen;		/* every name ever added */
	uint32_t		*set;		/* hash -> seen index + 1 */
	size_t			 mask;
	size_t			 cap;		/* entries allocated in before */
	struct snapshot		*after;		/* after _diff */
	snapshot_hook_fn	*hook;
	unsigned		 hook_how;	/* SNAPSHOT_HOOK_APPEND */
	void			*hook_arg;
	bool			 in_tree;	/* adding a renamed tree's names */
};

static bool	paths_under_moved(const struct snapshot_paths *, const char *);

/* The scan's view of rel (one walk over its ancestors, lowest first):
   PATHS_SKIPPED when a skipped tree holds it, PATHS_OPAQUE when an opaque
   one does (*top: the length of that tree's path), else PATHS_PLAIN. */
enum paths_view { PATHS_PLAIN, PATHS_OPAQUE, PATHS_SKIPPED };

static enum paths_view
paths_view(const struct snapshot_paths *sp, const char *p, size_t *top)
{
	const char	*name, *end;

	for (name = p; ; name = end + 1) {
		end = strchr(name, '/');
		if (end == NULL)
			end = name + strlen(name);
		if (scan_is_skipped(&sp->sh, p, (size_t)(end - p)))
			return PATHS_SKIPPED;
		if (scan_is_opaque(&sp->sh, p, (size_t)(end - p), name,
		    (size_t)(end - name))) {
			*top = (size_t)(end - p);
			return PATHS_OPAQUE;
		}
		if (*end == '\0')
			return PATHS_PLAIN;
	}
}

/* Is rel under a skipped or opaque tree (not the hook's)? */
static bool
paths_hidden(const struct snapshot_paths *sp, const char *p)
{
	size_t	top;

	return paths_view(sp, p, &top) != PATHS_PLAIN;
}

/* Open the directory part of rel beneath the root through the door
   (beneath.h: no link followed, no mount crossed). */
static int
paths_open_parent(const struct snapshot_paths *sp, const char *rel,
    const char **name)
{
	const char	*slash = strrchr(rel, '/');
	char		*dir, *cause = NULL;
	int		 fd, err;

	if (slash == NULL) {
		*name = rel;
		return dup(sp->sh.rootfd);
	}
	*name = slash + 1;
	dir = xstrndup(rel, (size_t)(slash - rel));
	fd = beneath_open_how(sp->sh.rootfd, dir, O_PATH | O_DIRECTORY, 0,
	    BENEATH_NO_XDEV, &cause);
	err = errno;
	free(cause);
	free(dir);
	errno = err;
	return fd;
}

/* Look at rel now: 1 and e filled, 0 when absent, -1 when unknown. */
static int
paths_stat(struct snapshot_paths *sp, const char *rel,
    struct snapshot_entry *e)
{
	const char	*name;
	int		 fd, rc;

	memset(e, 0, sizeof *e);
	if ((fd = paths_open_parent(sp, rel, &name)) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	rc = snapshot_stat(&sp->sh, fd, name, e);
	close(fd);
	if (rc != 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	return 1;
}

/* Append an entry for rel to sn (its path copied into sn's arena). */
static void
paths_push(struct snapshot *sn, size_t *cap, const char *rel,
    struct snapshot_entry *e, bool opaque)
{
	size_t	 len = strlen(rel);
	char	*p = snapshot_arena_alloc(&sn->arena, len + 1);

	memcpy(p, rel, len + 1);
	e->path = p;
	e->len = (uint32_t)len;
	e->hash = snapshot_hash(p, len);
	if (opaque)
		e->flags |= SNAPSHOT_OPAQUE;
	if (sn->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		sn->v = xreallocarray(sn->v, *cap, sizeof *sn->v);
	}
	sn->v[sn->n++] = *e;
}

/* Add name to the seen set; false when it was there already. */
static bool
paths_see(struct snapshot_paths *sp, const char *rel)
{
	size_t		 len = strlen(rel), i, size;
	uint32_t	 h = snapshot_hash(rel, len);

	if ((sp->seen.n + 1) * 2 > sp->mask + 1) {
		size = (sp->mask + 1) * 2;
		free(sp->set);
		sp->set = xcalloc(size, sizeof *sp->set);
		sp->mask = size - 1;
		for (size_t k = 0; k < sp->seen.n; k++) {
			const char *s = sp->seen.v[k];

			i = snapshot_hash(s, strlen(s)) & sp->mask;
			while (sp->set[i] != 0)
				i = (i + 1) & sp->mask;
			sp->set[i] = (uint32_t)k + 1;
		}
	}
	for (i = h & sp->mask; sp->set[i] != 0; i = (i + 1) & sp->mask) {
		if (strcmp(sp->seen.v[sp->set[i] - 1], rel) == 0)
			return false;
	}
	strv_push(&sp->seen, rel);
	sp->set[i] = (uint32_t)sp->seen.n;
	return true;
}

/* The order in which name was first added, or SIZE_MAX. */
static size_t
paths_seen_index(const struct snapshot_paths *sp, const char *rel, size_t len)
{
	uint32_t	h = snapshot_hash(rel, len);

	for (size_t i = h & sp->mask; sp->set[i] != 0; i = (i + 1) & sp->mask) {
		const char *s = sp->seen.v[sp->set[i] - 1];

		if (strlen(s) == len && memcmp(s, rel, len) == 0)
			return sp->set[i] - 1;
	}
	return SIZE_MAX;
}

/* A file with more than one name: a change through this name changes the
   others (content, or at least the change time), and only a scan finds
   them. */
static void
paths_check_links(struct snapshot_paths *sp, const char *rel,
    const struct snapshot_entry *e)
{
	char	*why;

	if (sp->widened || S_ISDIR(e->mode) || e->nlink <= 1)
		return;
	why = xasprintf("a change to a file with %u hard links (%s)",
	    (unsigned)e->nlink, rel);
	snapshot_paths_widen(sp, why);
	free(why);
}

/*
 * Did a recorded call name rel (the live events' attribution)? The name
 * itself, an opaque ancestor the scan's view stopped at, or a
 * place below a directory one of the recorded renames moved.
 */
bool
snapshot_paths_claims(const struct snapshot_paths *sp, const char *rel)
{
	const char	*name, *end;

	if (sp == NULL)
		return false;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (*rel == '/')
		rel++;
	if (*rel == '\0')
		return false;
	if (paths_seen_index(sp, rel, strlen(rel)) != SIZE_MAX ||
	    paths_under_moved(sp, rel))
		return true;
	for (name = rel; (end = strchr(name, '/')) != NULL; name = end + 1) {
		if (scan_is_opaque(&sp->sh, rel, (size_t)(end - rel), name,
		    (size_t)(end - name)) &&
		    paths_seen_index(sp, rel, (size_t)(end - rel)) != SIZE_MAX)
			return true;
	}
	return false;
}

struct snapshot_paths *
snapshot_paths_new(const char *root, const struct snapshot_opts *opts,
    char **cause)
{
	static const struct snapshot_opts	 defaults = SNAPSHOT_OPTS_INIT;
	struct snapshot_paths			*sp;

	sp = xcalloc(1, sizeof *sp);
	sp->opts = opts != NULL ? *opts : defaults;
	sp->root = xstrdup(root);
	scan_shared_init(&sp->sh, &sp->opts);
	if ((sp->sh.rootfd = scan_open_root(root, cause)) < 0) {
		snapshot_paths_free(sp);
		return NULL;
	}
	sp->before = xcalloc(1, sizeof *sp->before);
	sp->set = xcalloc(16, sizeof *sp->set);
	sp->mask = 15;
	return sp;
}

void
snapshot_paths_add(struct snapshot_paths *sp, const char *rel)
{
	struct snapshot_entry	 e;
	char			*p;
	const char		*full = rel;
	size_t			 top;
	bool			 opaque = false;

	if (sp == NULL)
		return;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (*rel == '/')
		rel++;
	if (*rel == '\0' || strcmp(rel, ".") == 0)
		return;		/* the root itself is never reported */
	full = rel;
	p = xstrdup(rel);
	if (sp->hook != NULL)
		sp->hook(sp->hook_arg, sp->sh.rootfd, p, sp->hook_how |
		    (sp->in_tree || paths_hidden(sp, p) ?
		    SNAPSHOT_HOOK_SEEN : 0));
	/* The scan's view: stop at a skipped or opaque ancestor. */
	switch (paths_view(sp, p, &top)) {
	case PATHS_SKIPPED:
		goto out;
	case PATHS_OPAQUE:
		p[top] = '\0';
		opaque = true;
		break;
	case PATHS_PLAIN:
		break;
	}
	if (!paths_see(sp, p)) {
		/* Seen before: it may have gained a name since. */
		if (!sp->widened && paths_stat(sp, full, &e) == 1)
			paths_check_links(sp, full, &e);
		goto out;
	}
	switch (paths_stat(sp, p, &e)) {
	case 1:
		paths_push(sp->before, &sp->cap, p, &e, opaque);
		strv_push(&sp->paths, p);
		/* The file itself, not the opaque tree standing for it. */
		if (!opaque || paths_stat(sp, full, &e) == 1)
			paths_check_links(sp, full, &e);
		break;
	case 0:
		strv_push(&sp->paths, p);
		break;
	default:
		/* Cannot be looked at: the whole project is. */
		snapshot_paths_widen(sp, "a path the change report could "
		    "not look at");
		break;
	}
out:
	free(p);
}

static void	paths_add_absent(struct snapshot_paths *, const char *);

/* Is rel at or below a directory a rename moved (a destination)? */
static bool
paths_under_moved(const struct snapshot_paths *sp, const char *rel)
{
	size_t	len;

	for (size_t i = 0; i < sp->moved.n; i++) {
		len = strlen(sp->moved.v[i]);
		if (strncmp(rel, sp->moved.v[i], len) == 0 &&
		    (rel[len] == '\0' || rel[len] == '/'))
			return true;
	}
	return false;
}

/*
 * Add every name below the directory open on fd (path from, at most depth
 * levels deeper), and the same name below to. fresh: from was moved there
 * by an earlier rename of this run, whose walk recorded every name it had
 * then; a name not seen since was made by another task between that walk
 * and the rename itself, so it did not exist before the command.
 */
static void
paths_add_below(struct snapshot_paths *sp, int fd, const char *from,
    const char *to, int depth, bool fresh)
{
	DIR		*d;
	struct dirent	*de;
	char		*f, *t;
	int		 sub;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		f = xasprintf("%s/%s", from, de->d_name);
		t = xasprintf("%s/%s", to, de->d_name);
		if (fresh) {
			paths_add_absent(sp, f);
			paths_add_absent(sp, t);
		} else {
			snapshot_paths_add(sp, f);
			snapshot_paths_add(sp, t);
		}
		if (de->d_type == DT_DIR && depth == 0)
			snapshot_paths_widen(sp, "a renamed directory more "
			    "than 64 levels deep");
		if (de->d_type == DT_DIR && depth > 0 &&
		    !scan_is_opaque(&sp->sh, f, strlen(f), de->d_name,
		    strlen(de->d_name)) && (sub = beneath_child(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY)) >= 0)
			paths_add_below(sp, sub, f, t, depth - 1, fresh);
		free(f);
		free(t);
	}
	closedir(d);
}

void
snapshot_paths_add_tree(struct snapshot_paths *sp, const char *from,
    const char *to)
{
	const char	*name;
	int		 pfd, fd;
	bool		 fresh;

	if (sp == NULL)
		return;
	while (*from == '/')
		from++;
	while (*to == '/')
		to++;
	/* Below a directory moved earlier, an unseen name is new (see
	   paths_add_below). */
	if (paths_under_moved(sp, from))
		paths_add_absent(sp, from);
	else
		snapshot_paths_add(sp, from);
	if (paths_under_moved(sp, to))
		paths_add_absent(sp, to);
	else
		snapshot_paths_add(sp, to);
	if (*from == '\0' || *to == '\0')
		return;
	if ((pfd = paths_open_parent(sp, from, &name)) < 0)
		return;
	fd = beneath_child(pfd, name, O_RDONLY | O_DIRECTORY);
	close(pfd);
	if (fd < 0)
		return;
	/* Looked at again at the end: what another task made in it between
	   this walk and the rename itself moved with it unseen. */
	fresh = paths_under_moved(sp, from);
	if (!strv_contains(&sp->moved, to))
		strv_push(&sp->moved, to);
	/* The names below move along; nothing is changed in them. */
	sp->in_tree = true;
	paths_add_below(sp, fd, from, to, 64, fresh);
	sp->in_tree = false;
}

void
snapshot_paths_hook(struct snapshot_paths *sp, snapshot_hook_fn *fn,
    void *arg)
{
	sp->hook = fn;
	sp->hook_arg = arg;
}

void
snapshot_paths_add_append(struct snapshot_paths *sp, const char *rel)
{
	if (sp == NULL)
		return;
	sp->hook_how = SNAPSHOT_HOOK_APPEND;
	snapshot_paths_add(sp, rel);
	sp->hook_how = 0;
}

int
snapshot_paths_rootfd(const struct snapshot_paths *sp)
{
	return sp->sh.rootfd;
}

void
snapshot_paths_content(struct snapshot_paths *sp, const char *rel)
{
	if (sp == NULL || sp->hook == NULL)
		return;
	while (rel != NULL && rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (rel != NULL && *rel == '/')
		rel++;
	if (rel != NULL && *rel == '\0')
		return;
	sp->hook(sp->hook_arg, sp->sh.rootfd, rel, SNAPSHOT_HOOK_SEEN);
}

const struct snapshot *
snapshot_paths_after(const struct snapshot_paths *sp)
{
	return sp->after;
}

size_t
snapshot_paths_count(const struct snapshot_paths *sp)
{
	return sp != NULL ? sp->paths.n : 0;
}

void
snapshot_paths_widen(struct snapshot_paths *sp, const char *why)
{
	char	*cause = NULL;

	if (sp == NULL)
		return;
	if (sp->widened_why.n < SNAPSHOT_WIDEN_MAX &&
	    !strv_contains(&sp->widened_why, why))
		strv_push(&sp->widened_why, why);
	if (sp->widened)
		return;
	sp->widened = true;
	sp->seen_at_widen = sp->seen.n;
	sp->mid = snapshot_take(sp->root, &sp->opts, &cause);
	if (sp->mid == NULL) {
		strv_pushf(&sp->warnings, "the change report could not be "
		    "widened: %s", cause);
		free(cause);
	}
}

bool
snapshot_paths_widened(const struct snapshot_paths *sp)
{
	return sp != NULL && sp->widened;
}

const struct strv *
snapshot_paths_why(const struct snapshot_paths *sp)
{
	return &sp->widened_why;
}

const struct strv *
snapshot_paths_warnings(const struct snapshot_paths *sp)
{
	return &sp->warnings;
}

/*
 * Widened: the state before the command is, for each path, the one
 * recorded when it was first named before the widening, else the one the
 * whole-project scan at the widening saw (nothing the command did could
 * have touched a path before it was named: every such call was resolved
 * until then). Then a scan of the whole project after.
 */
static bool
paths_diff_widened(struct snapshot_paths *sp, struct changes *out)
{
	struct snapshot			*after, *m;
	const struct snapshot_entry	*v;
	struct snapshot_entry		 e;
	char				*cause = NULL;
	size_t				 cap = 0, k;

	if (sp->mid == NULL)
		return false;
	after = snapshot_take(sp->root, &sp->opts, &cause);
	if (after == NULL) {
		strv_pushf(&sp->warnings, "the change report could not be "
		    "widened: %s", cause);
		free(cause);
		return false;
	}
	m = xcalloc(1, sizeof *m);
	for (size_t i = 0; i < sp->before->n; i++) {
		v = &sp->before->v[i];
		k = paths_seen_index(sp, v->path, v->len);
		if (k < sp->seen_at_widen) {
			e = *v;
			paths_push(m, &cap, v->path, &e, false);
		}
	}
	for (size_t i = 0; i < sp->mid->n; i++) {
		v = &sp->mid->v[i];
		if (v->flags & SNAPSHOT_DUPLICATE)
			continue;
		k = paths_seen_index(sp, v->path, v->len);
		if (k == SIZE_MAX || k >= sp->seen_at_widen) {
			e = *v;
			paths_push(m, &cap, v->path, &e, false);
		}
	}
	snapshot_build_index(m);
	snapshot_diff(m, after, out);
	strv_append_all(&sp->warnings, snapshot_warnings(after));
	snapshot_free(sp->after);
	sp->after = after;	/* what undo compares with (undo.h) */
	sp->merged = m;
	return true;
}

/* A name found at the end that no call named: it was not there before
   (see paths_walk_moved). */
static void
paths_add_absent(struct snapshot_paths *sp, const char *rel)
{
	char		*p = xstrdup(rel);
	size_t		 top;

	switch (paths_view(sp, p, &top)) {
	case PATHS_SKIPPED:
		break;
	case PATHS_OPAQUE:
		p[top] = '\0';
		/* FALLTHROUGH */
	case PATHS_PLAIN:
		if (paths_see(sp, p))
			strv_push(&sp->paths, p);
		break;
	}
	free(p);
}

/*
 * Every directory a rename moved is walked again at the end (breadth
 * first, each opened beneath the root without following links). Its
 * names were recorded when the rename was notified; one another task
 * made there before the rename itself ran moved along unseen. A name not
 * recorded then, nor named by a call since, did not exist before the
 * command: it is added as absent before.
 */
static void
paths_walk_moved(struct snapshot_paths *sp)
{
	struct strv	 queue = STRV_INIT;
	const char	*name;
	struct dirent	*de;
	DIR		*d;
	char		*f;
	int		 pfd, fd;

	for (size_t i = 0; i < sp->moved.n; i++)
		strv_push(&queue, sp->moved.v[i]);
	for (size_t i = 0; i < queue.n; i++) {
		if ((pfd = paths_open_parent(sp, queue.v[i], &name)) < 0)
			continue;
		fd = beneath_child(pfd, name, O_RDONLY | O_DIRECTORY);
		close(pfd);
		if (fd < 0 || (d = fdopendir(fd)) == NULL) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			f = xasprintf("%s/%s", queue.v[i], de->d_name);
			paths_add_absent(sp, f);
			if (de->d_type == DT_DIR && !scan_is_opaque(&sp->sh, f,
			    strlen(f), de->d_name, strlen(de->d_name)))
				strv_push_owned(&queue, f);
			else
				free(f);
		}
		closedir(d);
	}
	strv_release(&queue);
}

void
snapshot_paths_diff(struct snapshot_paths *sp, struct changes *out)
{
	struct snapshot		*after;
	const struct snapshot_entry *old;
	struct snapshot_entry	 e;
	size_t			 cap = 0;
	const char		*p;

	snapshot_build_index(sp->before);
	if (sp->widened && paths_diff_widened(sp, out))
		return;
	paths_walk_moved(sp);
	after = xcalloc(1, sizeof *after);
	for (size_t i = 0; i < sp->paths.n; i++) {
		p = sp->paths.v[i];
		old = snapshot_find(sp->before, p);
		switch (paths_stat(sp, p, &e)) {
		case 1:
			paths_push(after, &cap, p, &e,
			    old != NULL && (old->flags & SNAPSHOT_OPAQUE));
			break;
		case 0:
			break;
		default:
			/* Unknown now: take it as unchanged. */
			if (old != NULL) {
				e = *old;
				paths_push(after, &cap, p, &e, false);
			}
			break;
		}
	}
	/* An opaque tree created during the run is opaque too. */
	for (size_t i = 0; i < after->n; i++) {
		const char *name = strrchr(after->v[i].path, '/');

		name = name != NULL ? name + 1 : after->v[i].path;
		if (scan_is_opaque(&sp->sh, after->v[i].path, after->v[i].len,
		    name, strlen(name)))
			after->v[i].flags |= SNAPSHOT_OPAQUE;
	}
	snapshot_build_index(after);
	snapshot_diff(sp->before, after, out);
	snapshot_free(sp->after);
	sp->after = after;
}

void
snapshot_paths_free(struct snapshot_paths *sp)
{
	if (sp == NULL)
		return;
	scan_shared_release(&sp->sh);
	free(sp->root);
	snapshot_free(sp->before);
	snapshot_free(sp->mid);
	snapshot_free(sp->merged);
	strv_release(&sp->widened_why);
	strv_release(&sp->warnings);
	strv_release(&sp->moved);
	snapshot_free(sp->after);
	strv_release(&sp->paths);
	strv_release(&sp->seen);
	free(sp->set);
	free(sp);
}

/* The recorded paths' states before the command changed them (indexed by
   snapshot_paths_diff()). */
const struct snapshot *
snapshot_paths_before(const struct snapshot_paths *sp)
{
	return sp->merged != NULL ? sp->merged : sp->before;
}
