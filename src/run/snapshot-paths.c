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
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot-int.h"
#include "snapshot.h"
#include "xalloc.h"

struct snapshot_paths {
	struct scan_shared	 sh;
	struct snapshot		*before;
	struct strv		 paths;		/* recorded, in order */
	struct strv		 seen;		/* every name ever added */
	uint32_t		*set;		/* hash -> seen index + 1 */
	size_t			 mask;
	size_t			 cap;		/* entries allocated in before */
	struct snapshot		*after;		/* after _diff */
	void			(*hook)(void *, int, const char *);
	void			*hook_arg;
	bool			 in_tree;	/* adding a renamed tree's names */
};

/* Is rel under a skipped or opaque tree (not the hook's)? */
static bool
paths_hidden(const struct snapshot_paths *sp, const char *p)
{
	const char	*name, *end;

	for (name = p; ; name = end + 1) {
		end = strchr(name, '/');
		if (end == NULL)
			end = name + strlen(name);
		if (scan_is_skipped(&sp->sh, p, (size_t)(end - p)) ||
		    scan_is_opaque(&sp->sh, p, (size_t)(end - p), name,
		    (size_t)(end - name)))
			return true;
		if (*end == '\0')
			return false;
	}
}

/* Open the directory part of rel beneath the root, following nothing. */
static int
paths_open_parent(const struct snapshot_paths *sp, const char *rel,
    const char **name)
{
	struct open_how	 how;
	const char	*slash = strrchr(rel, '/');
	char		*dir;
	int		 fd;

	if (slash == NULL) {
		*name = rel;
		return dup(sp->sh.rootfd);
	}
	*name = slash + 1;
	dir = xstrndup(rel, (size_t)(slash - rel));
	memset(&how, 0, sizeof how);
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
	fd = (int)syscall(SYS_openat2, sp->sh.rootfd, dir, &how, sizeof how);
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		fd = openat(sp->sh.rootfd, dir,
		    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(dir);
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

struct snapshot_paths *
snapshot_paths_new(const char *root, const struct snapshot_opts *opts,
    char **cause)
{
	static const struct snapshot_opts	 defaults = SNAPSHOT_OPTS_INIT;
	struct snapshot_paths			*sp;

	sp = xcalloc(1, sizeof *sp);
	scan_shared_init(&sp->sh, opts != NULL ? opts : &defaults);
	sp->sh.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sp->sh.rootfd < 0) {
		*cause = xasprintf("cannot open '%s': %s", root,
		    strerror(errno));
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
	const char		*name, *end;
	bool			 opaque = false;

	if (sp == NULL)
		return;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	while (*rel == '/')
		rel++;
	if (*rel == '\0' || strcmp(rel, ".") == 0)
		return;		/* the root itself is never reported */
	p = xstrdup(rel);
	if (sp->hook != NULL && !sp->in_tree && !paths_hidden(sp, p))
		sp->hook(sp->hook_arg, sp->sh.rootfd, p);
	/* The scan's view: stop at a skipped or opaque ancestor. */
	for (name = p; ; name = end + 1) {
		end = strchr(name, '/');
		if (end == NULL)
			end = name + strlen(name);
		if (scan_is_skipped(&sp->sh, p, (size_t)(end - p)))
			goto out;
		if (scan_is_opaque(&sp->sh, p, (size_t)(end - p), name,
		    (size_t)(end - name))) {
			p[end - p] = '\0';
			opaque = true;
			break;
		}
		if (*end == '\0')
			break;
	}
	if (!paths_see(sp, p))
		goto out;
	switch (paths_stat(sp, p, &e)) {
	case 1:
		paths_push(sp->before, &sp->cap, p, &e, opaque);
		/* FALLTHROUGH */
	case 0:
		strv_push(&sp->paths, p);
		break;
	default:
		break;		/* cannot be looked at: not reported */
	}
out:
	free(p);
}

/* Add every name below the directory open on fd (path from, at most
   depth levels deeper), and the same name below to. */
static void
paths_add_below(struct snapshot_paths *sp, int fd, const char *from,
    const char *to, int depth)
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
		snapshot_paths_add(sp, f);
		snapshot_paths_add(sp, t);
		if (de->d_type == DT_DIR && depth > 0 &&
		    !scan_is_opaque(&sp->sh, f, strlen(f), de->d_name,
		    strlen(de->d_name)) && (sub = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			paths_add_below(sp, sub, f, t, depth - 1);
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

	if (sp == NULL)
		return;
	snapshot_paths_add(sp, from);
	snapshot_paths_add(sp, to);
	while (*from == '/')
		from++;
	while (*to == '/')
		to++;
	if (*from == '\0' || *to == '\0')
		return;
	if ((pfd = paths_open_parent(sp, from, &name)) < 0)
		return;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return;
	/* The names below move along; nothing is changed in them. */
	sp->in_tree = true;
	paths_add_below(sp, fd, from, to, 64);
	sp->in_tree = false;
}

void
snapshot_paths_hook(struct snapshot_paths *sp,
    void (*fn)(void *, int rootfd, const char *rel), void *arg)
{
	sp->hook = fn;
	sp->hook_arg = arg;
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
snapshot_paths_diff(struct snapshot_paths *sp, struct changes *out)
{
	struct snapshot		*after;
	const struct snapshot_entry *old;
	struct snapshot_entry	 e;
	size_t			 cap = 0;
	const char		*p;

	after = xcalloc(1, sizeof *after);
	snapshot_build_index(sp->before);
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
	snapshot_free(sp->before);
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
	return sp->before;
}
