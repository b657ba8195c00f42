/*
 * undo-plan: read a run's manifest and plan putting it back (undo.h);
 * undo-apply.c does what the plan says.
 *
 * The manifest holds every recorded path's state before and after the run.
 * Undo first checks that the project still is as the run left it (each
 * path's identity, type, mode, size and modification time): a difference
 * is a conflict, named, and stops it unless forced. Then, by inode:
 * - a before entry whose inode is still at its name keeps it; its content
 *   is written back in place when it was changed (so its other hard links
 *   come back too), its mode and modification time reset;
 * - a before inode now under another name is renamed back (names that
 *   moved along with a renamed directory go with it);
 * - a before inode that is gone is made again: a file from its kept
 *   content, a symbolic link from its target, a directory empty, a second
 *   name of a made file as a hard link;
 * - whatever is left at an after name that the run made is removed.
 * Renamed entries go through a staging directory in the project first, so
 * swaps and cycles need no order. Every operation on the project goes
 * through the door (beneath.h), relative to the project's descriptor, and
 * removes only what is still the inode the run made. Kept content is
 * checked against its sha256 before anything is touched. A file the run
 * only appended to (its length kept, "append") is cut back to it, only
 * while it still is the run's inode with the run's size, modification
 * and change time (no call can set a change time back), and its start
 * still has the digest kept with it where one was; otherwise it cannot
 * be undone, and the plan says so.
 *
 * All or nothing: nothing is destroyed before every step succeeded. What
 * undo removes goes to the staging directory, what it makes is written
 * there and renamed into place, what it rewrites in place is copied there
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

static enum ue_type st_type(const struct stat *);
static void	plan_look(struct undo_plan *);
static void	plan_lines_merge(struct undo_plan *);

static int
ue_depth(const char *p)
{
	int	d = 0;

	for (; *p != '\0'; p++)
		d += *p == '/';
	return d;
}

static void
ue_parse(const cJSON *arr, struct ue **out, size_t *n)
{
	const cJSON	*e, *v;
	struct ue	*u;
	const char	*t;

	*n = 0;
	*out = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof **out);
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(v = cJSON_GetObjectItem(e, "path")))
			continue;
		u = &(*out)[(*n)++];
		u->path = v->valuestring;
		t = cJSON_GetStringValue(cJSON_GetObjectItem(e, "type"));
		u->type = t == NULL ? UE_OTHER : strcmp(t, "file") == 0 ?
		    UE_FILE : strcmp(t, "dir") == 0 ? UE_DIR :
		    strcmp(t, "link") == 0 ? UE_LINK : UE_OTHER;
		u->mode = (mode_t)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "mode"));
		u->size = (uint64_t)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "size"));
		u->mtime = (int64_t)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "mtime_s")) * 1000000000 +
		    (int64_t)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "mtime_ns"));
		u->dev = (uint64_t)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "dev"));
		u->ino = (uint64_t)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "ino"));
		u->blob = cJSON_GetStringValue(cJSON_GetObjectItem(e, "blob"));
		u->pack_off = -1;
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "pack_off")) &&
		    cJSON_GetNumberValue(cJSON_GetObjectItem(e,
		    "pack_off")) >= 0) {
			u->pack_off = (int64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "pack_off"));
			u->pack_len = (uint64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "pack_len"));
		}
		u->target = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "target"));
		u->opaque = cJSON_IsTrue(cJSON_GetObjectItem(e, "opaque"));
		u->uid = (uid_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e,
		    "uid"));
		u->gid = (gid_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e,
		    "gid"));
		u->append = cJSON_IsTrue(cJSON_GetObjectItem(e, "append"));
		u->clone = cJSON_IsTrue(cJSON_GetObjectItem(e, "clone"));
		u->prefix = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "prefix"));
		u->ctime = -1;
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "ctime_s")))
			u->ctime = (int64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "ctime_s")) * 1000000000 +
			    (int64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "ctime_ns"));
		u->btime = -1;
		if (cJSON_IsNumber(cJSON_GetObjectItem(e, "btime_s")))
			u->btime = (int64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "btime_s")) * 1000000000 +
			    (int64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "btime_ns"));
	}
}

/* The first entry of v (keys by path) at path, or NULL. */
static struct ue *
ue_find(struct ue *v, const struct undo_key *keys, size_t n,
    const char *path)
{
	size_t	i = undo_index_path(keys, n, path);

	return i == SIZE_MAX ? NULL : &v[i];
}

/* The keys of n entries, sorted by path (now: by the inode there now,
   only the present ones; else by the inode recorded); their count. */
static size_t
plan_keys(struct ue *v, size_t n, struct undo_key **out, bool by_path,
    bool now)
{
	struct undo_key	*k;
	size_t		 m = 0;

	free(*out);
	*out = k = xcalloc(n + 1, sizeof *k);
	for (size_t i = 0; i < n; i++) {
		if (now && !v[i].now)
			continue;
		k[m].path = v[i].path;
		k[m].dev = now ? (uint64_t)v[i].st.st_dev : v[i].dev;
		k[m].ino = now ? (uint64_t)v[i].st.st_ino : v[i].ino;
		k[m++].i = i;
	}
	undo_index_sort(k, m, by_path);
	return m;
}

/* Is the file now at a (present) the inode of b (device, inode, and
   birth time when both are known: inode numbers are reused)? */
static bool
ue_same(const struct ue *a, const struct ue *b)
{
	return a->now && a->st.st_ino == b->ino && a->st.st_dev == b->dev &&
	    (a->nbtime < 0 || b->btime < 0 || a->nbtime == b->btime);
}

/* Another inode, but the state the run left (type, mode, size and
   modification time to the nanosecond): what a later run's undo made
   again, so undoing several runs newest first goes on. */
static bool
ue_same_state(const struct ue *a)
{
	return a->now && st_type(&a->st) == a->type &&
	    (a->st.st_mode & 07777) == a->mode && (a->type == UE_DIR ||
	    ((uint64_t)a->st.st_size == a->size &&
	    (int64_t)a->st.st_mtim.tv_sec * 1000000000 +
	    a->st.st_mtim.tv_nsec == a->mtime));
}

/* lstat through the door, with the birth time (-1 when unknown). */
static int
ue_stat(int root, const char *rel, struct stat *st, int64_t *btime)
{
	struct statx	 sx;
	const char	*name;
	char		*cause = NULL;
	int		 pfd, rc;

	*btime = -1;
	if ((pfd = beneath_parent(root, rel, false, &name, &cause)) < 0) {
		free(cause);
		return -1;
	}
	rc = beneath_child_statx(pfd, name, 0, STATX_BASIC_STATS | STATX_BTIME,
	    &sx);
	close(pfd);
	if (rc != 0)
		return -1;
	memset(st, 0, sizeof *st);
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_ino = sx.stx_ino;
	st->st_mode = sx.stx_mode;
	st->st_nlink = sx.stx_nlink;
	st->st_size = (off_t)sx.stx_size;
	st->st_mtim.tv_sec = sx.stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = sx.stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = sx.stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = sx.stx_ctime.tv_nsec;
	if (sx.stx_mask & STATX_BTIME)
		*btime = sx.stx_btime.tv_sec * 1000000000LL +
		    sx.stx_btime.tv_nsec;
	return 0;
}

static enum ue_type
st_type(const struct stat *st)
{
	return S_ISREG(st->st_mode) ? UE_FILE : S_ISDIR(st->st_mode) ? UE_DIR :
	    S_ISLNK(st->st_mode) ? UE_LINK : UE_OTHER;
}

static int64_t
st_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static struct act *
plan_add(struct undo_plan *p, enum act_kind kind, const char *path,
    struct ue *b)
{
	struct act	*a;

	/* Room doubles at 0, 1, 2, 4, ... */
	if ((p->nacts & (p->nacts - 1)) == 0)
		p->acts = xreallocarray(p->acts, p->nacts ? p->nacts * 2 : 1,
		    sizeof *p->acts);
	a = &p->acts[p->nacts++];
	memset(a, 0, sizeof *a);
	a->kind = kind;
	a->path = xstrdup(path);
	a->b = b;
	a->depth = ue_depth(path);
	return a;
}

/* Is the after entry a (now at its name) there only because its parent
   directory moved (the same name below the before parent's inode)? */
static bool
plan_implied(struct undo_plan *p, const struct ue *a, const struct ue *b)
{
	const char	*sa = strrchr(a->path, '/');
	const char	*sb = strrchr(b->path, '/');
	_cleanup_free_ char *pa = NULL, *pb = NULL;
	struct ue	*ea, *eb;
	struct stat	 st;

	if (sa == NULL || sb == NULL || strcmp(sa, sb) != 0)
		return false;
	pa = xstrndup(a->path, (size_t)(sa - a->path));
	pb = xstrndup(b->path, (size_t)(sb - b->path));
	eb = ue_find(p->b, p->bpath, p->nb, pb);
	ea = ue_find(p->a, p->apath, p->na, pa);
	if (eb == NULL)
		return false;
	if (ea != NULL && ea->now)
		return ea->st.st_ino == eb->ino && ea->st.st_dev == eb->dev;
	return beneath_lstat(p->root, pa, &st) == 0 &&
	    st.st_ino == eb->ino && st.st_dev == eb->dev;
}

/* Open b's kept content: the run's pack (positioned at it) or its
   object; *len: its length (-1 with errno). */
int
blob_open(struct undo_plan *p, const struct ue *b, uint64_t *len)
{
	_cleanup_free_ char	*path = NULL;
	struct stat		 st;
	int			 fd;

	if (b->pack_off >= 0)
		path = xasprintf("%s/runs/%.0f/pack", p->store,
		    cJSON_GetNumberValue(cJSON_GetObjectItem(p->m, "id")));
	else
		path = xasprintf("%s/objects/%s", p->store, b->blob);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (b->pack_off >= 0 &&
	    ((uint64_t)st.st_size < b->pack_len ||
	    (uint64_t)b->pack_off > (uint64_t)st.st_size - b->pack_len ||
	    lseek(fd, (off_t)b->pack_off, SEEK_SET) < 0))) {
		close(fd);
		errno = EIO;
		return -1;
	}
	*len = b->pack_off >= 0 ? b->pack_len : (uint64_t)st.st_size;
	return fd;
}

/* The sha256 of the next len bytes of fd, against want (hex): 1 the
   same, 0 another, -1 fewer bytes to read. */
static int
fd_digest_is(int fd, uint64_t len, const char *want)
{
	char		 buf[1 << 16], hex[SHA256_HEX_LEN + 1];
	uint8_t		 d[SHA256_LEN];
	struct sha256	 h;
	ssize_t		 r;

	sha256_init(&h);
	while (len > 0 && (r = read(fd, buf, len < sizeof buf ? len :
	    sizeof buf)) > 0) {
		sha256_update(&h, buf, (size_t)r);
		len -= (uint64_t)r;
	}
	if (len > 0)
		return -1;
	sha256_final(&h, d);
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return strcmp(hex, want) == 0;
}

/* Is b's kept content there and whole (its sha256)? */
static bool
plan_blob_ok(struct undo_plan *p, const struct ue *b)
{
	_cleanup_close_ int	 fd = -1;
	uint64_t		 len;

	if ((fd = blob_open(p, b, &len)) < 0)
		return false;
	/* A clone (undo-object.c): not read, its length checked. */
	if (b->clone)
		return b->pack_off < 0 && len == b->size;
	return fd_digest_is(fd, len, b->blob) == 1;
}

/* Can the file now at a (the run's inode) be cut back to b's length:
   as the run left it, change time too, and its start still what it was
   (its digest, where one was kept)? NULL, or why not. */
static const char *
plan_cut_ok(struct undo_plan *p, const struct ue *a, const struct ue *b)
{
	_cleanup_close_ int	 fd = -1;
	_cleanup_free_ char	*cause = NULL;
	int			 same;

	if (a->ctime < 0 || (int64_t)a->st.st_ctim.tv_sec * 1000000000 +
	    a->st.st_ctim.tv_nsec != a->ctime || (uint64_t)a->st.st_size !=
	    a->size || st_mtime_ns(&a->st) != a->mtime)
		return "it changed since the run";
	if ((uint64_t)a->st.st_size < b->size)
		return "it is shorter than before the run";
	if (b->prefix == NULL)
		return NULL;
	if ((fd = beneath_open(p->root, a->path, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC, 0, &cause)) < 0 ||
	    (same = fd_digest_is(fd, b->size, b->prefix)) < 0)
		return "it cannot be read";
	return same ? NULL : "its start is not what it was";
}

/* The after entry (present now, not claimed) holding b's inode,
   preferring a name that moved along with its
   directory (the others are links the run added). */
static struct ue *
plan_now_pref(struct undo_plan *p, struct ue *b)
{
	struct ue	*first = NULL;

	for (size_t i = undo_index_ino(p->aino, p->naino, b->dev, b->ino);
	    i < p->naino && p->aino[i].dev == b->dev &&
	    p->aino[i].ino == b->ino; i++) {
		struct ue *a = &p->a[p->aino[i].i];

		if (a->claimed || !ue_same(a, b))
			continue;
		if (plan_implied(p, a, b))
			return a;
		if (first == NULL)
			first = a;
	}
	return first;
}

/* Content and metadata of what is (or will be) at its name. */
static void
plan_content(struct undo_plan *p)
{
	struct ue	*b, *q;
	size_t		 k;

	for (size_t i = 0; i < p->nb; i++) {
		b = &p->b[i];
		if (b->opaque || !b->placed)
			continue;
		q = NULL;
		for (k = undo_index_ino(p->aino, p->naino, b->dev, b->ino);
		    k < p->naino && p->aino[k].dev == b->dev &&
		    p->aino[k].ino == b->ino; k++)
			if (ue_same(&p->a[p->aino[k].i], b))
				q = &p->a[p->aino[k].i];
		if (q == NULL)
			continue;
		if (b->type == UE_FILE && b->blob == NULL && b->append &&
		    ((uint64_t)q->st.st_size != b->size ||
		    st_mtime_ns(&q->st) != b->mtime)) {
			const char *why = plan_cut_ok(p, q, b);

			if (why != NULL) {
				strv_pushf(&p->lines, "cannot: %s (only its "
				    "length was kept, and %s)", b->path, why);
				p->cannot++;
			} else {
				b->cut_from = (uint64_t)q->st.st_size;
				plan_add(p, ACT_CONTENT, b->path, b);
				strv_pushf(&p->lines, "restore: %s (cut back "
				    "to %llu bytes)", b->path,
				    (unsigned long long)b->size);
			}
		}
		if (b->type == UE_FILE && b->blob != NULL &&
		    ((uint64_t)q->st.st_size != b->size ||
		    st_mtime_ns(&q->st) != b->mtime)) {
			if (!plan_blob_ok(p, b)) {
				strv_pushf(&p->lines, "cannot: %s (its kept "
				    "content is missing or damaged)", b->path);
				p->cannot++;
			} else {
				plan_add(p, ACT_CONTENT, b->path, b);
				strv_pushf(&p->lines, "restore: %s", b->path);
			}
		}
		if (b->type != UE_LINK && ((q->st.st_mode & 07777) != b->mode ||
		    (b->type == UE_FILE && st_mtime_ns(&q->st) != b->mtime))) {
			plan_add(p, ACT_META, b->path, b);
			if ((q->st.st_mode & 07777) != b->mode)
				strv_pushf(&p->lines, "mode: %s %04o",
				    b->path, (unsigned)b->mode);
		}
	}
}

static void
plan_build(struct undo_plan *p)
{
	struct ue	*b, *a, *q;
	struct act	*x;
	size_t		 k;

	p->naino = plan_keys(p->a, p->na, &p->aino, false, true);
	/* Conflicts: the project must still be as the run left it. */
	for (size_t i = 0; i < p->na; i++) {
		a = &p->a[i];
		if (a->opaque)
			continue;
		if (a->blocked) {
			strv_pushf(&p->lines, "blocked: %s (below a directory "
			    "the run closed: its mode comes back first)",
			    a->path);
			continue;
		}
		if (!a->now)
			strv_pushf(&p->lines, "conflict: %s (removed since "
			    "the run)", a->path);
		else if ((!ue_same(a, a) && !ue_same_state(a)) ||
		    st_type(&a->st) != a->type ||
		    (a->st.st_mode & 07777) != (a->unlocked ? a->mode |
		    S_IRWXU : a->mode) || (a->type != UE_DIR &&
		    ((uint64_t)a->st.st_size != a->size ||
		    st_mtime_ns(&a->st) != a->mtime)))
			strv_pushf(&p->lines, "conflict: %s (changed since "
			    "the run)", a->path);
		else
			continue;
		p->conflicts++;
	}
	for (size_t i = 0; i < p->nb; i++) {
		b = &p->b[i];
		if (!b->opaque && ue_find(p->a, p->apath, p->na,
		    b->path) == NULL &&
		    b->now) {
			strv_pushf(&p->lines, "conflict: %s (made again since "
			    "the run)", b->path);
			p->conflicts++;
		}
	}
	/* Before entries whose inode is still at their name. */
	for (size_t i = 0; i < p->nb; i++) {
		b = &p->b[i];
		a = ue_find(p->a, p->apath, p->na, b->path);
		if (b->opaque || a == NULL || !ue_same(a, b) ||
		    st_type(&a->st) != b->type)
			continue;
		a->claimed = true;
		b->placed = true;
	}
	/* Renamed back, or made again. */
	for (size_t i = 0; i < p->nb; i++) {
		b = &p->b[i];
		if (b->opaque || b->placed)
			continue;
		if ((q = plan_now_pref(p, b)) != NULL &&
		    st_type(&q->st) == b->type) {
			q->claimed = true;
			b->placed = true;
			if (plan_implied(p, q, b))
				continue;
			x = plan_add(p, ACT_STAGE, q->path, b);
			x->id = q->st;
			x->depth = ue_depth(q->path);
			x = plan_add(p, ACT_UNSTAGE, b->path, b);
			strv_pushf(&p->lines, "rename back: %s -> %s", q->path,
			    b->path);
			continue;
		}
		switch (b->type) {
		case UE_DIR:
			plan_add(p, ACT_MKDIR, b->path, b);
			plan_add(p, ACT_META, b->path, b);
			strv_pushf(&p->lines, "make directory: %s", b->path);
			break;
		case UE_LINK:
			if (b->target == NULL) {
				strv_pushf(&p->lines, "cannot: %s (its target "
				    "was not kept)", b->path);
				p->cannot++;
				break;
			}
			plan_add(p, ACT_SYMLINK, b->path, b);
			strv_pushf(&p->lines, "restore link: %s -> %s",
			    b->path, b->target);
			break;
		case UE_FILE:
			if (b->blob == NULL) {
				strv_pushf(&p->lines, "cannot: %s (its content "
				    "was not kept)", b->path);
				p->cannot++;
				break;
			}
			if (!plan_blob_ok(p, b)) {
				strv_pushf(&p->lines, "cannot: %s (its kept "
				    "content is missing or damaged)", b->path);
				p->cannot++;
				break;
			}
			plan_add(p, ACT_MAKE, b->path, b);
			strv_pushf(&p->lines, "restore: %s", b->path);
			break;
		default:
			strv_pushf(&p->lines, "cannot: %s (a special file)",
			    b->path);
			p->cannot++;
			break;
		}
	}
	plan_content(p);
	/* What the run made, and hard links it added. */
	for (size_t i = 0; i < p->na; i++) {
		a = &p->a[i];
		if (a->opaque || !a->now || a->claimed)
			continue;
		b = NULL;
		/* A name under a directory that moves back moves with it. */
		for (k = undo_index_ino(p->bino, p->nb, a->st.st_dev,
		    a->st.st_ino); b == NULL && k < p->nb &&
		    p->bino[k].dev == (uint64_t)a->st.st_dev &&
		    p->bino[k].ino == (uint64_t)a->st.st_ino; k++)
			if (ue_same(a, &p->b[p->bino[k].i]) &&
			    plan_implied(p, a, &p->b[p->bino[k].i]))
				b = &p->b[p->bino[k].i];
		if (b != NULL)
			continue;
		x = plan_add(p, S_ISDIR(a->st.st_mode) ? ACT_RMDIR :
		    ACT_REMOVE, a->path, NULL);
		x->id = a->st;
		strv_pushf(&p->lines, "remove: %s", a->path);
	}
	plan_lines_merge(p);
}

static int
plan_str_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * A name the run replaced (removed and made again, or written over by a
 * rename) is put back: the plan says "restore: X" (or "make directory:
 * X") once, not "remove: X" beside it; taking away what is there now is
 * part of putting it back. Only the lines change, not the actions.
 */
static void
plan_lines_merge(struct undo_plan *p)
{
	struct strv	 made = STRV_INIT, kept = STRV_INIT;
	const char	*s, *key;

	for (size_t i = 0; i < p->lines.n; i++) {
		s = p->lines.v[i];
		if (strncmp(s, "restore: ", 9) == 0)
			strv_push(&made, s + 9);
		else if (strncmp(s, "make directory: ", 16) == 0)
			strv_push(&made, s + 16);
	}
	if (made.n == 0)
		return;
	qsort(made.v, made.n, sizeof *made.v, plan_str_cmp);
	for (size_t i = 0; i < p->lines.n; i++) {
		s = p->lines.v[i];
		key = s + 8;
		if (strncmp(s, "remove: ", 8) == 0 && bsearch(&key, made.v,
		    made.n, sizeof *made.v, plan_str_cmp) != NULL) {
			free(p->lines.v[i]);
			continue;
		}
		strv_push_owned(&kept, p->lines.v[i]);
	}
	free(p->lines.v);
	p->lines = kept;
	strv_release(&made);
}

struct undo_plan *
undo_plan_new(const char *project, const cJSON *m, char **cause)
{
	struct undo_plan	*p;
	struct stat		 st;

	p = xcalloc(1, sizeof *p);
	p->root = -1;
	p->project = xstrdup(project);
	p->m = cJSON_Duplicate(m, true);
	p->store = undo_store_dir(project);
	if ((p->root = beneath_root(project, &st, cause)) < 0) {
		undo_plan_free(p);
		return NULL;
	}
	undo_journal_init(&p->j, p->root);
	p->since.tv_sec = (time_t)cJSON_GetNumberValue(
	    cJSON_GetObjectItem(p->m, "start_s"));
	p->since.tv_nsec = (long)cJSON_GetNumberValue(
	    cJSON_GetObjectItem(p->m, "start_ns"));
	if (p->since.tv_sec < 0 || p->since.tv_nsec < 0 ||
	    p->since.tv_nsec >= 1000000000) {
		p->since.tv_sec = 0;
		p->since.tv_nsec = 0;
	}
	ue_parse(cJSON_GetObjectItem(p->m, "before"), &p->b, &p->nb);
	ue_parse(cJSON_GetObjectItem(p->m, "after"), &p->a, &p->na);
	(void)plan_keys(p->b, p->nb, &p->bpath, true, false);
	(void)plan_keys(p->b, p->nb, &p->bino, false, false);
	(void)plan_keys(p->a, p->na, &p->apath, true, false);
	plan_look(p);
	plan_build(p);
	return p;
}

/* Look at every recorded path now. A name below a directory the run made
   unsearchable (chmod, for an undo that is not root's) is blocked: not a
   conflict yet, the directory gets its mode back first. */
static void
plan_look(struct undo_plan *p)
{
	p->blocked = 0;
	for (size_t i = 0; i < p->nb; i++) {
		p->b[i].now = ue_stat(p->root, p->b[i].path, &p->b[i].st,
		    &p->b[i].nbtime) == 0;
		p->b[i].blocked = !p->b[i].now && errno == EACCES;
		p->blocked += p->b[i].blocked;
	}
	for (size_t i = 0; i < p->na; i++) {
		p->a[i].now = ue_stat(p->root, p->a[i].path, &p->a[i].st,
		    &p->a[i].nbtime) == 0;
		p->a[i].blocked = !p->a[i].now && errno == EACCES;
		p->blocked += p->a[i].blocked;
	}
}

/* Open the directories the run left closed to their owner (u+rwx), so
   an undo that is not root's can look and work inside; the number
   opened. */
int
plan_unlock(struct undo_plan *p)
{
	int	 n = 0;

	for (size_t i = 0; i < p->na; i++) {
		struct ue *a = &p->a[i];

		/* Only the run's own directories (as it left them): the
		   before mode comes back at the end (ACT_META), and what it
		   made goes. */
		if (!a->now || a->type != UE_DIR || !ue_same(a, a) ||
		    (a->st.st_mode & S_IRWXU) == S_IRWXU ||
		    undo_journal_meta(&p->j, a->path, false) != 0)
			continue;
		if (beneath_chmod(p->root, a->path, (a->st.st_mode & 07777) |
		    S_IRWXU) == 0) {
			a->unlocked = true;
			n++;
		}
	}
	return n;
}

/* Look again and plan again (after plan_unlock). */
void
plan_again(struct undo_plan *p)
{
	for (size_t i = 0; i < p->nacts; i++) {
		free(p->acts[i].path);
		free(p->acts[i].to);
	}
	p->nacts = 0;
	strv_release(&p->lines);
	p->conflicts = 0;
	p->cannot = 0;
	for (size_t i = 0; i < p->nb; i++)
		p->b[i].claimed = p->b[i].placed = false;
	for (size_t i = 0; i < p->na; i++)
		p->a[i].claimed = p->a[i].placed = false;
	plan_look(p);
	plan_build(p);
}

const struct strv *
undo_plan_lines(const struct undo_plan *p)
{
	return &p->lines;
}

size_t
undo_plan_conflicts(const struct undo_plan *p)
{
	return p->conflicts;
}

size_t
undo_plan_actions(const struct undo_plan *p)
{
	return p->nacts;
}

