/*
 * undo-index: the lookups that plan an undo (undo-apply.c), by path and by
 * inode, as sorted arrays searched in O(log n), so a plan of n changes
 * costs O(n log n) and not one scan of every entry per entry. Keys that
 * compare equal keep the order of their entries (the index breaks ties),
 * so a search finds what a scan from the start would have found first.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "undo-int.h"

static int
undo_key_path_cmp(const void *x, const void *y)
{
	const struct undo_key	*a = x, *b = y;
	int			 c = strcmp(a->path, b->path);

	return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

static int
undo_key_ino_cmp(const void *x, const void *y)
{
	const struct undo_key	*a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

void
undo_index_sort(struct undo_key *v, size_t n, bool by_path)
{
	if (n > 1)
		qsort(v, n, sizeof *v, by_path ? undo_key_path_cmp :
		    undo_key_ino_cmp);
}

size_t
undo_index_path(const struct undo_key *v, size_t n, const char *path)
{
	size_t	lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(v[lo].path, path) == 0 ? v[lo].i : SIZE_MAX;
}

size_t
undo_index_ino(const struct undo_key *v, size_t n, uint64_t dev,
    uint64_t ino)
{
	size_t	lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].dev < dev || (v[mid].dev == dev &&
		    v[mid].ino < ino))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
