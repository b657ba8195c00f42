/* snapshot-diff: the change report between two snapshots (see snapshot.h). */
#include "autoconf.h"

#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "report.h"
#include "snapshot-int.h"
#include "snapshot.h"
#include "xalloc.h"

/*
 * The diff.
 *
 * Paths are matched through the "before" index: a path in both snapshots
 * is modified or not (never part of a rename, which is what makes an
 * editor's atomic save a plain "modified"); the rest are vanished and
 * appeared entries. A vanished and an appeared entry with the same
 * identity are one rename. Identity is device, inode and type, plus the
 * birth time when both scans have it: ext4 hands a freed inode number to
 * the next file at once, and only the birth time tells "a deleted, b
 * created" from "a renamed to b". Without a birth time (filesystems that
 * do not record one) the modification time must match too, so a rename
 * that also rewrote the file shows as delete and create there.
 *
 * A rename whose content (size, mtime, mode, owner) changed too is still a
 * rename, and the new path is listed as modified as well: the agent learns
 * both facts. The ctime is not compared across a rename since rename(2)
 * itself sets it.
 *
 * A directory's own size, mtime and ctime change whenever an entry is
 * added or removed, which is reported through those entries; so a
 * directory is modified only when its type, identity, mode or owner
 * changed. A file's ctime catches chmod, chown and a rewrite that reset
 * the mtime; but when the link count changed too, the ctime change is
 * taken to be that (ln, or rm of another link) and the file is not
 * modified by it.
 */

/* A growable array of entry pointers. */
struct entryv {
	const struct snapshot_entry	**v;
	size_t				  n;
	size_t				  cap;
};

struct pair {
	const struct snapshot_entry	*from;
	const struct snapshot_entry	*to;
	int				 implied;
};

/* Append an entry pointer. */
static void
entryv_push(struct entryv *ev, const struct snapshot_entry *e)
{
	if (ev->n == ev->cap) {
		ev->cap = ev->cap ? ev->cap * 2 : 64;
		ev->v = xreallocarray(ev->v, ev->cap, sizeof *ev->v);
	}
	ev->v[ev->n++] = e;
}

/*
 * Compare paths component by component ('/' sorts before every other
 * byte), so parents come before their children; with post, ancestors come
 * after their descendants instead.
 */
static int
diff_path_cmp(const char *a, size_t alen, const char *b, size_t blen,
    int post)
{
	size_t	n = alen < blen ? alen : blen, i;
	int	ca, cb;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	if (i < n) {
		ca = a[i] == '/' ? 0 : (unsigned char)a[i] + 1;
		cb = b[i] == '/' ? 0 : (unsigned char)b[i] + 1;
		return ca - cb;
	}
	if (alen == blen)
		return 0;
	if (post) {
		if (alen < blen && b[alen] == '/')
			return 1;
		if (blen < alen && a[blen] == '/')
			return -1;
	}
	return alen < blen ? -1 : 1;
}

/* qsort: entries parents first. */
static int
diff_cmp_pre(const void *va, const void *vb)
{
	const struct snapshot_entry	*a = *(const void *const *)va;
	const struct snapshot_entry	*b = *(const void *const *)vb;

	return diff_path_cmp(a->path, a->len, b->path, b->len, 0);
}

/* qsort: entries children first. */
static int
diff_cmp_post(const void *va, const void *vb)
{
	const struct snapshot_entry	*a = *(const void *const *)va;
	const struct snapshot_entry	*b = *(const void *const *)vb;

	return diff_path_cmp(a->path, a->len, b->path, b->len, 1);
}

/* qsort: renames by source path, parents first. */
static int
diff_cmp_pair(const void *va, const void *vb)
{
	const struct pair	*a = va, *b = vb;

	return diff_path_cmp(a->from->path, a->from->len, b->from->path,
	    b->from->len, 0);
}

/* Did anything but the identity change? (ctime only for the same path) */
static int
diff_content_changed(const struct snapshot_entry *b,
    const struct snapshot_entry *a, int with_ctime)
{
	if (b->mode != a->mode || b->uid != a->uid || b->gid != a->gid)
		return 1;
	if ((b->flags | a->flags) & SNAPSHOT_OPAQUE)
		return 0;
	if (S_ISDIR(a->mode))
		return 0;
	if (b->size != a->size || b->mtime != a->mtime)
		return 1;
	if (with_ctime && b->ctime != a->ctime && b->nlink == a->nlink)
		return 1;
	return 0;
}

/* Is the entry at the same path a different or changed object? */
static int
diff_changed(const struct snapshot_entry *b, const struct snapshot_entry *a)
{
	if ((b->mode ^ a->mode) & S_IFMT)
		return 1;
	if (b->dev != a->dev || b->ino != a->ino)
		return 1;
	if ((b->flags & a->flags & SNAPSHOT_BTIME) && b->btime != a->btime)
		return 1;
	return diff_content_changed(b, a, 1);
}

/* Could appeared entry a be vanished entry v under a new name? */
static int
diff_same_object(const struct snapshot_entry *v, const struct snapshot_entry *a)
{
	if (v->dev != a->dev || v->ino != a->ino ||
	    ((v->mode ^ a->mode) & S_IFMT))
		return 0;
	if (v->flags & a->flags & SNAPSHOT_BTIME)
		return v->btime == a->btime;
	return v->mtime == a->mtime;
}

/* Hash of an identity (device and inode). */
static uint32_t
diff_id_hash(const struct snapshot_entry *e)
{
	uint64_t	h = (e->ino ^ (e->dev * 0x9e3779b97f4a7c15ULL)) *
			    0xff51afd7ed558ccdULL;

	return (uint32_t)(h >> 32);
}

/* A power of two at least twice n (and 16). */
static size_t
diff_table_size(size_t n)
{
	size_t	size = 16;

	while (size < n * 2)
		size *= 2;
	return size;
}

/*
 * Pair vanished and appeared entries with the same identity; what stays
 * unpaired is marked in the used arrays as 0.
 */
static void
diff_pair(const struct entryv *vanished, const struct entryv *appeared,
    uint8_t *vused, uint8_t *aused, struct pair **pairs, size_t *npairs)
{
	const struct snapshot_entry	*a, *v;
	uint32_t			*table;
	size_t				 size, mask, i, j;

	*pairs = NULL;
	*npairs = 0;
	if (vanished->n == 0 || appeared->n == 0)
		return;
	size = diff_table_size(vanished->n);
	mask = size - 1;
	table = xcalloc(size, sizeof *table);
	for (i = 0; i < vanished->n; i++) {
		j = diff_id_hash(vanished->v[i]) & mask;
		while (table[j] != 0)
			j = (j + 1) & mask;
		table[j] = i + 1;
	}
	*pairs = xreallocarray(NULL, appeared->n, sizeof **pairs);
	for (i = 0; i < appeared->n; i++) {
		a = appeared->v[i];
		for (j = diff_id_hash(a) & mask; table[j] != 0;
		    j = (j + 1) & mask) {
			v = vanished->v[table[j] - 1];
			if (vused[table[j] - 1] || !diff_same_object(v, a))
				continue;
			vused[table[j] - 1] = 1;
			aused[i] = 1;
			(*pairs)[*npairs].from = v;
			(*pairs)[*npairs].to = a;
			(*pairs)[*npairs].implied = 0;
			(*npairs)++;
			break;
		}
	}
	free(table);
}

/* Length of a path's parent ("" for a top-level entry: 0, no parent). */
static size_t
diff_parent_len(const struct snapshot_entry *e)
{
	const char	*slash = memrchr(e->path, '/', e->len);

	return slash != NULL ? (size_t)(slash - e->path) : 0;
}

/*
 * Mark renames that only follow a renamed parent directory (a/x -> b/x
 * when a -> b is a rename): they are implied by the parent's entry.
 */
static void
diff_mark_implied(struct pair *pairs, size_t npairs)
{
	const struct snapshot_entry	*from, *to, *pf;
	struct pair			*q;
	uint32_t			*table, hash;
	size_t				 size, mask, i, j, fp, tp;

	if (npairs < 2)
		return;
	size = diff_table_size(npairs);
	mask = size - 1;
	table = xcalloc(size, sizeof *table);
	for (i = 0; i < npairs; i++) {
		j = pairs[i].from->hash & mask;
		while (table[j] != 0)
			j = (j + 1) & mask;
		table[j] = i + 1;
	}
	for (i = 0; i < npairs; i++) {
		from = pairs[i].from;
		to = pairs[i].to;
		fp = diff_parent_len(from);
		tp = diff_parent_len(to);
		if (fp == 0 || tp == 0 || from->len - fp != to->len - tp ||
		    memcmp(from->path + fp, to->path + tp, from->len - fp) != 0)
			continue;
		hash = snapshot_hash(from->path, fp);
		for (j = hash & mask; table[j] != 0; j = (j + 1) & mask) {
			q = &pairs[table[j] - 1];
			pf = q->from;
			if (pf->hash != hash || pf->len != fp ||
			    memcmp(pf->path, from->path, fp) != 0)
				continue;
			if (q->to->len == tp &&
			    memcmp(q->to->path, to->path, tp) == 0)
				pairs[i].implied = 1;
			break;
		}
	}
	free(table);
}

void
snapshot_diff(const struct snapshot *before, const struct snapshot *after,
    struct changes *out)
{
	const struct snapshot_entry	*a, *b;
	struct entryv			 appeared = { 0 }, vanished = { 0 };
	struct entryv			 modified = { 0 };
	struct pair			*pairs;
	uint8_t				*seen, *vused, *aused;
	size_t				 npairs, i, slot, hint = 0;

	/*
	 * Two scans of an unchanged directory list it in the same order, so
	 * the entry after the last match is tried before the index: the
	 * common case then walks both snapshots in step, cache friendly.
	 */
	seen = xcalloc(before->n + 1, 1);
	for (i = 0; i < after->n; i++) {
		a = &after->v[i];
		if (a->flags & SNAPSHOT_DUPLICATE)
			continue;
		b = hint < before->n ? &before->v[hint] : NULL;
		if (b == NULL || b->hash != a->hash || b->len != a->len ||
		    (b->flags & SNAPSHOT_DUPLICATE) ||
		    memcmp(b->path, a->path, a->len) != 0) {
			slot = snapshot_slot(before, a->path, a->len, a->hash);
			if (before->index[slot] == 0) {
				entryv_push(&appeared, a);
				continue;
			}
			b = &before->v[before->index[slot] - 1];
		}
		hint = b - before->v + 1;
		seen[hint - 1] = 1;
		if (diff_changed(b, a))
			entryv_push(&modified, a);
	}
	for (i = 0; i < before->n; i++) {
		if (!seen[i] && !(before->v[i].flags & SNAPSHOT_DUPLICATE))
			entryv_push(&vanished, &before->v[i]);
	}
	free(seen);

	/* Sorted first so that pairing hard links is deterministic. */
	if (appeared.n > 1)
		qsort(appeared.v, appeared.n, sizeof *appeared.v, diff_cmp_pre);
	if (vanished.n > 1)
		qsort(vanished.v, vanished.n, sizeof *vanished.v,
		    diff_cmp_post);

	vused = xcalloc(vanished.n + 1, 1);
	aused = xcalloc(appeared.n + 1, 1);
	diff_pair(&vanished, &appeared, vused, aused, &pairs, &npairs);
	diff_mark_implied(pairs, npairs);
	if (npairs > 1)
		qsort(pairs, npairs, sizeof *pairs, diff_cmp_pair);
	for (i = 0; i < npairs; i++) {
		if (!pairs[i].implied)
			changes_add_rename(out, pairs[i].from->path,
			    pairs[i].to->path);
		if (diff_content_changed(pairs[i].from, pairs[i].to,
		    pairs[i].implied))
			entryv_push(&modified, pairs[i].to);
	}

	for (i = 0; i < appeared.n; i++) {
		if (!aused[i])
			strv_push(&out->created, appeared.v[i]->path);
	}
	if (modified.n > 1)
		qsort(modified.v, modified.n, sizeof *modified.v, diff_cmp_pre);
	for (i = 0; i < modified.n; i++)
		strv_push(&out->modified, modified.v[i]->path);
	for (i = 0; i < vanished.n; i++) {
		if (!vused[i])
			strv_push(&out->deleted, vanished.v[i]->path);
	}

	free(pairs);
	free(vused);
	free(aused);
	free(appeared.v);
	free(vanished.v);
	free(modified.v);
}
