/*
 * undo-manifest: a recorded run as its manifest (runs/<id>/manifest.json,
 * read back by undo-store.c and undo-apply.c): every recorded path's
 * state before and after the run, where each replaced file's content is
 * kept (an object, or a place in the run's pack), and what undo will not
 * restore and why. A name recorded after its inode was changed through
 * another name stands as the inode was first seen; a kept file's other
 * hard links, which no call named, are found here by one scan. The text
 * is printed by hand (the manifest of a large run holds many numbers,
 * which cJSON formats slowly).
 */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "log.h"
#include "undo-int.h"
#include "undo-rec.h"
#include "xalloc.h"

/* "file", "dir", "link" or "other". */
static const char *
undo_type(uint32_t mode)
{
	return S_ISREG(mode) ? "file" : S_ISDIR(mode) ? "dir" :
	    S_ISLNK(mode) ? "link" : "other";
}

/* One entry of a snapshot as manifest JSON. */
static cJSON *
undo_entry_json(struct undo_rec *u, const struct snapshot_entry *e,
    bool before, cJSON *unsaved)
{
	cJSON			*j = cJSON_CreateObject(), *w;
	struct undo_kept	*k = NULL;
	struct snapshot_entry	 first;

	/* A name recorded after its inode was changed through another:
	   the inode as it was first seen. */
	if (before && (k = undo_rec_find(u, (dev_t)e->dev,
	    (ino_t)e->ino)) != NULL && (k->btime < 0 ||
	    !(e->flags & SNAPSHOT_BTIME) || k->btime == e->btime) &&
	    (k->mode & S_IFMT) == (e->mode & S_IFMT)) {
		first = *e;
		first.mode = k->mode;
		first.size = k->size;
		first.mtime = k->mtime;
		e = &first;
	}
	cJSON_AddStringToObject(j, "path", e->path);
	cJSON_AddStringToObject(j, "type", undo_type(e->mode));
	cJSON_AddNumberToObject(j, "mode", e->mode & 07777);
	cJSON_AddNumberToObject(j, "size", (double)e->size);
	/* Nanoseconds since the epoch do not fit a double exactly. */
	cJSON_AddNumberToObject(j, "mtime_s", (double)(e->mtime / 1000000000));
	cJSON_AddNumberToObject(j, "mtime_ns", (double)(e->mtime % 1000000000));
	cJSON_AddNumberToObject(j, "dev", (double)e->dev);
	cJSON_AddNumberToObject(j, "ino", (double)e->ino);
	cJSON_AddNumberToObject(j, "nlink", e->nlink);
	cJSON_AddNumberToObject(j, "uid", e->uid);
	cJSON_AddNumberToObject(j, "gid", e->gid);
	if (e->flags & SNAPSHOT_OPAQUE)
		cJSON_AddTrueToObject(j, "opaque");
	/* Inode numbers are reused: the birth time tells two apart. */
	if (e->flags & SNAPSHOT_BTIME) {
		cJSON_AddNumberToObject(j, "btime_s",
		    (double)(e->btime / 1000000000));
		cJSON_AddNumberToObject(j, "btime_ns",
		    (double)(e->btime % 1000000000));
	}
	if (!before) {
		/* Undo cuts a file kept by length back only while it is
		   as the run left it, change time too. */
		cJSON_AddNumberToObject(j, "ctime_s",
		    (double)(e->ctime / 1000000000));
		cJSON_AddNumberToObject(j, "ctime_ns",
		    (double)(e->ctime % 1000000000));
	}
	if (!before || k == NULL)
		return j;
	if (k->append) {
		cJSON_AddTrueToObject(j, "append");
		if (k->prefix_sha != NULL)
			cJSON_AddStringToObject(j, "prefix", k->prefix_sha);
	}
	if (k->sha != NULL)
		cJSON_AddStringToObject(j, "blob", k->sha);
	if (k->sha != NULL && k->clone)
		cJSON_AddTrueToObject(j, "clone");
	if (k->sha != NULL && k->packed) {
		cJSON_AddNumberToObject(j, "pack_off", (double)k->poff);
		cJSON_AddNumberToObject(j, "pack_len", (double)k->plen);
	}
	if (k->target != NULL)
		cJSON_AddStringToObject(j, "target", k->target);
	if (k->why != NULL) {
		w = cJSON_CreateObject();
		cJSON_AddStringToObject(w, "path", e->path);
		cJSON_AddStringToObject(w, "why", k->why);
		cJSON_AddItemToArray(unsaved, w);
	}
	return j;
}

/* Add {path, why} to unsaved once per path. */
static void
undo_unsaved_add(cJSON *unsaved, const char *path, const char *why)
{
	const cJSON	*e;
	cJSON		*w;

	cJSON_ArrayForEach(e, unsaved)
		if (strcmp(cJSON_GetObjectItem(e, "path")->valuestring,
		    path) == 0)
			return;
	w = cJSON_CreateObject();
	cJSON_AddStringToObject(w, "path", path);
	cJSON_AddStringToObject(w, "why", why);
	cJSON_AddItemToArray(unsaved, w);
}

/*
 * A kept file had other names (hard links) that no call named: a change
 * through one name changed them too, so they are part of the run. Find
 * them (one scan of the project, only in this case) and add each to both
 * lists: before as the inode was, after as it is.
 */
static void
undo_other_names(struct undo_rec *u, const struct snapshot *before,
    const struct snapshot *after, const struct snapshot_opts *opts,
    cJSON *barr, cJSON *aarr, cJSON *unsaved)
{
	struct snapshot			*all;
	const struct snapshot_entry	*e, *b;
	struct undo_kept		*k;
	struct snapshot_entry		 copy;
	char				*cause = NULL;

	if ((all = snapshot_take(u->project, opts, &cause)) == NULL) {
		for (size_t i = 0; i < u->nk; i++)
			if (u->k[i].multi)
				undo_unsaved_add(unsaved, u->k[i].path, "its "
				    "other hard links could not be found");
		free(cause);
		return;
	}
	for (size_t i = 0; i < snapshot_count(all); i++) {
		e = snapshot_entry(all, i);
		if (!S_ISREG(e->mode) || (e->flags & SNAPSHOT_DUPLICATE) ||
		    (k = undo_rec_find(u, (dev_t)e->dev,
		    (ino_t)e->ino)) == NULL || !k->multi ||
		    snapshot_find(before, e->path) != NULL ||
		    snapshot_find(after, e->path) != NULL)
			continue;
		/* The inode as the run found it, under this name. */
		b = NULL;
		for (size_t j = 0; j < snapshot_count(before) && b == NULL;
		    j++) {
			const struct snapshot_entry *c = snapshot_entry(before,
			    j);

			if (c->ino == e->ino && c->dev == e->dev &&
			    (!(c->flags & SNAPSHOT_BTIME) ||
			    !(e->flags & SNAPSHOT_BTIME) ||
			    c->btime == e->btime))
				b = c;
		}
		if (b == NULL)
			continue;
		copy = *b;
		copy.path = e->path;
		copy.len = e->len;
		cJSON_AddItemToArray(barr, undo_entry_json(u, &copy, true,
		    unsaved));
		cJSON_AddItemToArray(aarr, undo_entry_json(u, e, false, NULL));
	}
	snapshot_free(all);
}

/* A JSON string (as cJSON writes it: ", \\ and control characters
   escaped, other bytes as they are). */
static void
undo_json_string(const char *s, struct buf *b)
{
	static const char hex[] = "0123456789abcdef";
	const char	*run = s;

	buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		char e[7];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(b, run, (size_t)(s - run));
		run = s + 1;
		e[0] = '\\';
		switch (c) {
		case '"': case '\\': e[1] = (char)c; buf_add(b, e, 2); break;
		case '\b': e[1] = 'b'; buf_add(b, e, 2); break;
		case '\f': e[1] = 'f'; buf_add(b, e, 2); break;
		case '\n': e[1] = 'n'; buf_add(b, e, 2); break;
		case '\r': e[1] = 'r'; buf_add(b, e, 2); break;
		case '\t': e[1] = 't'; buf_add(b, e, 2); break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			buf_add(b, e, 6);
		}
	}
	buf_add(b, run, (size_t)(s - run));
	buf_putc(b, '"');
}

/* A number: an integer (every number of a manifest) without printf. */
static void
undo_json_number(double d, struct buf *b)
{
	char		 t[32], *p = t + sizeof t;
	uint64_t	 v;
	bool		 neg = d < 0;

	if (d != d || d - d != 0) {	/* NaN, infinite */
		buf_puts(b, "null");
		return;
	}
	if (d != (double)(int64_t)d || d > 9007199254740992.0 ||
	    d < -9007199254740992.0) {
		int n = snprintf(t, sizeof t, "%1.17g", d);

		buf_add(b, t, (size_t)n);
		return;
	}
	v = neg ? (uint64_t)-(int64_t)d : (uint64_t)d;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	if (neg)
		*--p = '-';
	buf_add(b, p, (size_t)(t + sizeof t - p));
}

/* A manifest as JSON text: what cJSON_PrintUnformatted() writes, in a
   fraction of its time (it formats each of the many numbers with
   printf and reads it back). */
static void
undo_json_print(const cJSON *j, struct buf *b)
{
	const cJSON	*e;
	bool		 first = true;

	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		buf_putc(b, cJSON_IsObject(j) ? '{' : '[');
		cJSON_ArrayForEach(e, j) {
			if (!first)
				buf_putc(b, ',');
			first = false;
			if (cJSON_IsObject(j)) {
				undo_json_string(e->string, b);
				buf_putc(b, ':');
			}
			undo_json_print(e, b);
		}
		buf_putc(b, cJSON_IsObject(j) ? '}' : ']');
	} else if (cJSON_IsString(j))
		undo_json_string(j->valuestring, b);
	else if (cJSON_IsNumber(j))
		undo_json_number(j->valuedouble, b);
	else if (cJSON_IsTrue(j))
		buf_puts(b, "true");
	else if (cJSON_IsFalse(j))
		buf_puts(b, "false");
	else
		buf_puts(b, "null");
}

/*
 * May the run have changed what excluded tree e (after; b before, NULL:
 * none) holds? Its contents are not recorded, so undo names it when the
 * run made, removed or replaced it, changed its own entries, or a call
 * named a path below it. A tree the run left alone is no news: a widened
 * report looks at every tree of the project, node_modules and .git too.
 */
static bool
undo_opaque_touched(const struct snapshot_paths *rec,
    const struct snapshot_entry *b, const struct snapshot_entry *a)
{
	if (b == NULL || a == NULL)
		return true;
	if (b->dev != a->dev || b->ino != a->ino ||
	    ((b->mode ^ a->mode) & S_IFMT) ||
	    ((b->flags & a->flags & SNAPSHOT_BTIME) && b->btime != a->btime))
		return true;
	if (b->mtime != a->mtime || b->ctime != a->ctime)
		return true;
	return snapshot_paths_claims(rec, a->path);
}

char *
undo_manifest_text(struct undo_rec *u, const struct result *r,
    const struct snapshot_paths *rec, const struct snapshot_opts *opts,
    cJSON **unsavedp)
{
	const struct snapshot *before = snapshot_paths_before(rec);
	const struct snapshot *after = snapshot_paths_after(rec);
	cJSON		*barr;
	cJSON		*m, *arr, *unsaved;
	char		*text;
	struct buf	 mb = BUF_INIT;
	const struct snapshot_entry *e;

	m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "version", UNDO_MANIFEST_VERSION);
	cJSON_AddNumberToObject(m, "id", (double)u->id);
	cJSON_AddStringToObject(m, "project", u->project);
	if (r->command != NULL)
		cJSON_AddStringToObject(m, "command", r->command);
	else {
		char *c = strv_join(&r->argv, " ", true);

		cJSON_AddStringToObject(m, "command", c);
		free(c);
	}
	cJSON_AddNumberToObject(m, "time", (double)time(NULL));
	cJSON_AddNumberToObject(m, "start_s", (double)u->start.tv_sec);
	cJSON_AddNumberToObject(m, "start_ns", (double)u->start.tv_nsec);
	unsaved = cJSON_CreateArray();
	arr = barr = cJSON_AddArrayToObject(m, "before");
	for (size_t i = 0; i < snapshot_count(before); i++) {
		e = snapshot_entry(before, i);
		if (e->flags & SNAPSHOT_DUPLICATE)
			continue;
		/* First named after the run made it (under a name a renamed
		   parent gave it): not something the project had. */
		if ((e->flags & SNAPSHOT_BTIME) && e->btime >=
		    u->start.tv_sec * 1000000000LL + u->start.tv_nsec)
			continue;
		cJSON_AddItemToArray(arr, undo_entry_json(u, e, true,
		    unsaved));
	}
	arr = cJSON_AddArrayToObject(m, "after");
	for (size_t i = 0; i < snapshot_count(after); i++) {
		e = snapshot_entry(after, i);
		if (e->flags & SNAPSHOT_DUPLICATE)
			continue;
		cJSON_AddItemToArray(arr, undo_entry_json(u, e, false, NULL));
		if ((e->flags & SNAPSHOT_OPAQUE) && undo_opaque_touched(rec,
		    snapshot_find(before, e->path), e))
			undo_unsaved_add(unsaved, e->path, "an excluded tree: "
			    "its contents are not recorded");
	}
	for (size_t i = 0; i < snapshot_count(before); i++) {
		e = snapshot_entry(before, i);
		if ((e->flags & SNAPSHOT_OPAQUE) &&
		    snapshot_find(after, e->path) == NULL)
			undo_unsaved_add(unsaved, e->path, "an excluded tree: "
			    "its contents are not recorded");
	}
	if (u->multi)
		undo_other_names(u, before, after, opts, barr, arr, unsaved);
	cJSON_AddItemToObject(m, "unsaved", cJSON_Duplicate(unsaved, true));
	cJSON_AddNumberToObject(m, "bytes", (double)u->ref_bytes);
	undo_json_print(m, &mb);
	buf_putc(&mb, '\0');
	text = buf_detach(&mb);
	cJSON_Delete(m);
	LOG("manifest: %zu bytes", strlen(text));
	*unsavedp = unsaved;
	return text;
}
