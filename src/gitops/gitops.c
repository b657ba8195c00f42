/* gitops: commits, refs and the index a git-write run changed (gitops.h). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "cleanup.h"
#include "gitops-int.h"
#include "gitops.h"
#include "jsonutil.h"
#include "xalloc.h"

#define GITOPS_REF_BYTES	512		/* a loose ref file */
#define GITOPS_PACKED_BYTES	(64u << 20)	/* packed-refs */
#define GITOPS_DEPTH		32		/* directories under refs/ */
#define GITOPS_TRAILER		32		/* the index's checksum */
#define GITOPS_LOG_BYTES	(1u << 20)	/* git log's output */
#define GITOPS_FORCED_CHECKS	20		/* merge-base runs */

struct gitref {
	char	*name;
	char	*value;		/* an object id, or "ref: TARGET" */
};

struct gitops {
	struct gitref	*v;
	size_t		 n, cap;
	bool		 complete;	/* every ref read */
	char		*why;		/* why not, when not complete */
	bool		 index;		/* there is an index */
	off_t		 index_size;
	unsigned char	 trailer[GITOPS_TRAILER];
	struct timespec	 index_mtime;
	ino_t		 index_ino;
};

static void
gitops_add(struct gitops *g, const char *name, const char *value)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		g->v = xreallocarray(g->v, g->cap, sizeof *g->v);
	}
	g->v[g->n].name = xstrdup(name);
	g->v[g->n].value = xstrdup(value);
	g->n++;
}

static void
gitops_incomplete(struct gitops *g, const char *why)
{
	if (g->complete) {
		g->complete = false;
		g->why = xstrdup(why);
	}
}

/* A regular file below dfd, read whole up to max bytes (a FIFO is
   never waited for, a link never followed); -1 when it is not there. */
static int
gitops_read(int dfd, const char *name, size_t max, struct buf *b,
    struct stat *st)
{
	int	fd = beneath_child(dfd, name, O_RDONLY | O_NONBLOCK);
	int	rc;

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	rc = buf_read_fd(b, fd, max);
	close(fd);
	buf_putc(b, '\0');
	b->len--;
	return rc;
}

/* Trim trailing white space in place. */
static char *
gitops_trim(char *s)
{
	size_t	n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
	    s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Every loose ref below the directory open at dfd (named prefix). */
static void
gitops_loose(struct gitops *g, int dfd, const char *prefix, int depth)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd;

	if (depth > GITOPS_DEPTH) {
		gitops_incomplete(g, "refs nested too deep");
		return;
	}
	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		gitops_incomplete(g, "refs/ cannot be read");
		return;
	}
	while ((de = readdir(d)) != NULL && g->complete) {
		_cleanup_free_ char *name = NULL;
		struct buf	 b = BUF_INIT;
		struct stat	 st;
		int		 sub;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		name = xasprintf("%s/%s", prefix, de->d_name);
		if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			sub = beneath_child(dfd, de->d_name,
			    O_RDONLY | O_DIRECTORY);
			if (sub >= 0) {
				gitops_loose(g, sub, name, depth + 1);
				close(sub);
				continue;
			}
		}
		if (gitops_read(dfd, de->d_name, GITOPS_REF_BYTES, &b,
		    &st) == 0 && b.len > 0)
			gitops_add(g, name, gitops_trim(b.data));
		buf_release(&b);
		if (g->n > GITOPS_MAX_REFS)
			gitops_incomplete(g, "too many refs");
	}
	closedir(d);
}

/* packed-refs: "ID NAME" lines; '#' a header, '^' a peeled tag. */
static void
gitops_packed(struct gitops *g, int git)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*line, *next, *sp;

	if (gitops_read(git, "packed-refs", GITOPS_PACKED_BYTES, &b,
	    &st) != 0) {
		buf_release(&b);
		return;
	}
	for (line = b.data; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (*line == '#' || *line == '^' ||
		    (sp = strchr(line, ' ')) == NULL)
			continue;
		*sp = '\0';
		gitops_add(g, gitops_trim(sp + 1), line);
		if (g->n > GITOPS_MAX_REFS) {
			gitops_incomplete(g, "too many refs");
			break;
		}
	}
	buf_release(&b);
}

static int
gitops_cmp(const void *a, const void *b)
{
	const struct gitref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* Equal names: the later one (loose, added after packed) last. */
	if (c == 0)
		return x < y ? -1 : x > y;
	return c;
}

/* Sort by name; of a name both packed and loose, the loose one wins. */
static void
gitops_sort(struct gitops *g)
{
	size_t	k = 0;

	if (g->n == 0)
		return;		/* no refs (qsort of NULL is undefined) */
	qsort(g->v, g->n, sizeof *g->v, gitops_cmp);
	for (size_t i = 0; i < g->n; i++) {
		if (i + 1 < g->n && strcmp(g->v[i].name,
		    g->v[i + 1].name) == 0) {
			free(g->v[i].name);
			free(g->v[i].value);
			continue;
		}
		g->v[k++] = g->v[i];
	}
	g->n = k;
}

/* The index's size and trailing checksum (equal checksums: equal
   content; a zero one, index.skipHash: its time and inode too). */
static void
gitops_index(struct gitops *g, int git)
{
	struct stat	 st;
	int		 fd = beneath_child(git, "index", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		g->index = true;
		g->index_size = st.st_size;
		g->index_mtime = st.st_mtim;
		g->index_ino = st.st_ino;
		if (st.st_size >= GITOPS_TRAILER)
			(void)!pread(fd, g->trailer, GITOPS_TRAILER,
			    st.st_size - GITOPS_TRAILER);
	}
	close(fd);
}

struct gitops *
gitops_take(const char *project)
{
	struct gitops	*g;
	struct stat	 st;
	struct buf	 b = BUF_INIT;
	char		*cause = NULL;
	int		 root, git, refs;

	if ((root = beneath_root(project, &st, &cause)) < 0) {
		free(cause);
		return NULL;
	}
	git = beneath_open(root, ".git", O_RDONLY | O_DIRECTORY, 0, &cause);
	close(root);
	free(cause);
	g = xcalloc(1, sizeof *g);
	g->complete = true;
	if (git < 0)
		return g;	/* none (yet): a `git init` is reported */
	if (beneath_child_stat(git, "reftable", &st) == 0)
		gitops_incomplete(g, "its refs are a reftable");
	if (gitops_read(git, "HEAD", GITOPS_REF_BYTES, &b, &st) == 0)
		gitops_add(g, "HEAD", gitops_trim(b.data));
	buf_release(&b);
	gitops_packed(g, git);
	if ((refs = beneath_child(git, "refs", O_RDONLY | O_DIRECTORY)) >= 0) {
		gitops_loose(g, refs, "refs", 0);
		close(refs);
	}
	gitops_sort(g);
	gitops_index(g, git);
	close(git);
	return g;
}

void
gitops_free(struct gitops *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].name);
		free(g->v[i].value);
	}
	free(g->v);
	free(g->why);
	free(g);
}

/* An object id: 40 or 64 lower-case hex digits. */
static bool
gitops_is_id(const char *s)
{
	size_t	n = strspn(s, "0123456789abcdef");

	return s[n] == '\0' && (n == 40 || n == 64);
}

static bool
gitops_index_changed(const struct gitops *a, const struct gitops *b)
{
	static const unsigned char zero[GITOPS_TRAILER];

	if (a->index != b->index)
		return true;
	if (!a->index)
		return false;
	if (a->index_size != b->index_size ||
	    memcmp(a->trailer, b->trailer, GITOPS_TRAILER) != 0)
		return true;
	/* index.skipHash: no checksum to compare. */
	if (memcmp(a->trailer + GITOPS_TRAILER - 20, zero, 20) == 0)
		return a->index_ino != b->index_ino ||
		    a->index_mtime.tv_sec != b->index_mtime.tv_sec ||
		    a->index_mtime.tv_nsec != b->index_mtime.tv_nsec;
	return false;
}

/* A ref value for the report: "ref: X" as X (a symbolic ref). */
static const char *
gitops_shown(const char *value)
{
	return strncmp(value, "ref: ", 5) == 0 ? value + 5 : value;
}

/* Is old an ancestor of new (a fast-forward)? 1, 0, or -1 unknown. */
static int
gitops_ancestor(const char *project, const char *old, const char *new)
{
	const char *const args[] = { "merge-base", "--is-ancestor", old, new,
	    NULL };
	struct buf	 out = BUF_INIT;
	char		*cause = NULL;
	int		 rc;

	rc = gitops_git(project, args, NULL, 0, &out, 64, &cause);
	buf_release(&out);
	free(cause);
	return rc == 0 ? 1 : rc == 1 ? 0 : -1;
}

/* The refs that differ, as report entries; new tips go to tips. */
static cJSON *
gitops_refs(const struct gitops *a, const struct gitops *b,
    const char *project, struct buf *tips, bool *escaped)
{
	cJSON	*refs = cJSON_CreateArray();
	size_t	 i = 0, k = 0;
	int	 checks = 0;

	while (i < a->n || k < b->n) {
		const struct gitref *x = i < a->n ? &a->v[i] : NULL;
		const struct gitref *y = k < b->n ? &b->v[k] : NULL;
		const char	*change;
		cJSON		*e;
		int		 c;

		c = x == NULL ? 1 : y == NULL ? -1 : strcmp(x->name, y->name);
		if (c == 0 && strcmp(x->value, y->value) == 0) {
			i++, k++;
			continue;
		}
		if (c < 0) {
			change = "deleted";
			y = NULL;
			i++;
		} else if (c > 0) {
			change = "created";
			x = NULL;
			k++;
		} else {
			change = "moved";
			if (gitops_is_id(x->value) && gitops_is_id(y->value) &&
			    checks < GITOPS_FORCED_CHECKS) {
				int	anc = gitops_ancestor(project, x->value,
					    y->value);

				/* git failed or ran out of time: no more
				   waiting on it for this report. */
				checks = anc < 0 ? GITOPS_FORCED_CHECKS :
				    checks + 1;
				if (anc == 0)
					change = "forced";
			}
			i++, k++;
		}
		e = cJSON_CreateObject();
		cJSON_AddItemToObject(e, "name", json_path(x != NULL ?
		    x->name : y->name, escaped));
		cJSON_AddStringToObject(e, "change", change);
		if (x != NULL)
			cJSON_AddItemToObject(e, "old",
			    json_path(gitops_shown(x->value), escaped));
		else
			cJSON_AddNullToObject(e, "old");
		if (y != NULL)
			cJSON_AddItemToObject(e, "new",
			    json_path(gitops_shown(y->value), escaped));
		else
			cJSON_AddNullToObject(e, "new");
		cJSON_AddItemToArray(refs, e);
		if (y != NULL && gitops_is_id(y->value))
			buf_printf(tips, "%s\n", y->value);
	}
	return refs;
}

/* The commits reachable from the new tips and from no ref before: ids
   and subjects, at most GITOPS_COMMITS, and how many in all. */
static void
gitops_commits(const struct gitops *a, const char *project,
    const struct buf *tips, cJSON *rep, struct strv *warnings,
    bool *escaped)
{
	static const char *const log[] = { "log", "--stdin", "-z",
	    "--no-color", "--no-decorate", "--no-show-signature",
	    "--format=%H %s", NULL };
	static const char *const check[] = { "cat-file",
	    "--batch-check=%(objectname) %(objecttype)", NULL };
	static const char *const count[] = { "rev-list", "--count",
	    "--stdin", NULL };
	struct buf	 in = BUF_INIT, have = BUF_INIT, out = BUF_INIT;
	cJSON		*list = cJSON_CreateArray();
	char		*cause = NULL, *s, *end;
	size_t		 total = 0;
	int		 rc;

	buf_add(&in, tips->data, tips->len);
	/* Every tip before, less what no longer exists (a missing object
	   after '^' stops git). */
	for (size_t i = 0; i < a->n; i++)
		if (gitops_is_id(a->v[i].value))
			buf_printf(&have, "%s\n", a->v[i].value);
	if (have.len > 0) {
		rc = gitops_git(project, check, have.data, have.len, &out,
		    GITOPS_PACKED_BYTES, &cause);
		if (rc != 0)
			goto fail;
		for (s = out.data; s != NULL && *s != '\0'; s = end) {
			char	*sp;

			if ((end = strchr(s, '\n')) != NULL)
				*end++ = '\0';
			if ((sp = strchr(s, ' ')) == NULL)
				continue;
			*sp = '\0';
			if (gitops_is_id(s) && strcmp(sp + 1, "missing") != 0)
				buf_printf(&in, "^%s\n", s);
		}
		buf_reset(&out);
	}
	rc = gitops_git(project, log, in.data, in.len, &out, GITOPS_LOG_BYTES,
	    &cause);
	if (rc != 0 && rc != GITOPS_FULL)
		goto fail;
	for (s = out.data; s != NULL && s < out.data + out.len; s = end + 1) {
		char	*sp;
		cJSON	*e;

		if ((end = memchr(s, '\0', out.data + out.len - s)) == NULL)
			break;		/* cut by the bound */
		s += strspn(s, "\n");
		if ((sp = strchr(s, ' ')) == NULL)
			continue;
		*sp = '\0';
		if (!gitops_is_id(s))
			continue;
		if (total++ >= GITOPS_COMMITS)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "id", s);
		cJSON_AddItemToObject(e, "subject", json_path(sp + 1,
		    escaped));
		cJSON_AddItemToArray(list, e);
	}
	if (rc == GITOPS_FULL) {
		buf_reset(&out);
		rc = gitops_git(project, count, in.data, in.len, &out, 64,
		    &cause);
		if (rc == 0 && out.len > 0)
			total = strtoul(out.data, NULL, 10);
	}
	cJSON_AddItemToObject(rep, "commits", list);
	cJSON_AddNumberToObject(rep, "commits_total", (double)total);
	goto out;
fail:
	strv_push_owned(warnings, xasprintf("the commits made are not "
	    "listed: %s", cause != NULL ? cause : "git failed"));
	cJSON_AddItemToObject(rep, "commits", list);
	cJSON_AddNullToObject(rep, "commits_total");
out:
	free(cause);
	buf_release(&in);
	buf_release(&have);
	buf_release(&out);
}

/* Is the object store, or a directory of it, a symbolic link (git would
   follow it out of the project)? */
static bool
gitops_linked(const char *project)
{
	struct stat	 st;
	char		*cause = NULL;
	int		 root, objects, fd;
	bool		 linked = false;

	if ((root = beneath_root(project, &st, &cause)) < 0) {
		free(cause);
		return true;
	}
	objects = beneath_open(root, ".git/objects", O_RDONLY | O_DIRECTORY,
	    0, &cause);
	close(root);
	free(cause);
	if (objects < 0)
		return true;
	for (int i = -1; i < 256 && !linked; i++) {
		char	name[8];

		if (i < 0)
			strcpy(name, "pack");
		else
			snprintf(name, sizeof name, "%02x", i);
		if (beneath_child_stat(objects, name, &st) == 0 &&
		    S_ISLNK(st.st_mode))
			linked = true;
	}
	if ((fd = beneath_child(objects, "info", O_RDONLY |
	    O_DIRECTORY)) >= 0) {
		if (beneath_child_stat(fd, "alternates", &st) == 0 &&
		    st.st_size > 0)
			linked = true;
		close(fd);
	}
	close(objects);
	return linked;
}

cJSON *
gitops_report(const struct gitops *before, const char *project,
    struct strv *warnings)
{
	struct gitops	*after;
	struct buf	 tips = BUF_INIT;
	cJSON		*rep, *refs;
	bool		 index, escaped = false;

	if (before == NULL)
		return NULL;
	if ((after = gitops_take(project)) == NULL) {
		after = xcalloc(1, sizeof *after);
		after->complete = true;
	}
	index = gitops_index_changed(before, after);
	if (!before->complete || !after->complete) {
		strv_push_owned(warnings, xasprintf("git refs were not "
		    "compared: %s", before->why != NULL ? before->why :
		    after->why));
		refs = cJSON_CreateArray();
	} else
		refs = gitops_refs(before, after, project, &tips, &escaped);
	if (cJSON_GetArraySize(refs) == 0 && !index) {
		cJSON_Delete(refs);
		gitops_free(after);
		return NULL;
	}
	rep = cJSON_CreateObject();
	if (tips.len == 0) {
		cJSON_AddItemToObject(rep, "commits", cJSON_CreateArray());
		cJSON_AddNumberToObject(rep, "commits_total", 0);
	} else if (gitops_linked(project)) {
		strv_push(warnings, "the commits made are not listed: the "
		    "object store leads out of the project (a symbolic link "
		    "or alternates)");
		cJSON_AddItemToObject(rep, "commits", cJSON_CreateArray());
		cJSON_AddNullToObject(rep, "commits_total");
	} else
		gitops_commits(before, project, &tips, rep, warnings,
		    &escaped);
	cJSON_AddItemToObject(rep, "refs", refs);
	cJSON_AddBoolToObject(rep, "index_changed", index);
	if (escaped)
		cJSON_AddBoolToObject(rep, "escaped", true);
	buf_release(&tips);
	gitops_free(after);
	return rep;
}

char *
gitops_summary(const cJSON *git)
{
	const cJSON	*total = cJSON_GetObjectItem(git, "commits_total");
	const cJSON	*refs = cJSON_GetObjectItem(git, "refs"), *e;
	struct buf	 b = BUF_INIT;
	int		 nrefs = cJSON_GetArraySize(refs), n;

	if (!cJSON_IsObject(git))
		return NULL;
	n = cJSON_IsNumber(total) ? total->valueint : cJSON_GetArraySize(
	    cJSON_GetObjectItem(git, "commits"));
	if (n > 0)
		buf_printf(&b, "%d commit%s made", n, n == 1 ? "" : "s");
	if (nrefs == 1) {
		e = cJSON_GetArrayItem(refs, 0);
		buf_printf(&b, "%s%s %s", b.len ? ", " : "",
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "change")));
	} else if (nrefs > 1)
		buf_printf(&b, "%s%d refs changed", b.len ? ", " : "", nrefs);
	if (cJSON_IsTrue(cJSON_GetObjectItem(git, "index_changed")))
		buf_printf(&b, "%sindex changed", b.len ? ", " : "");
	if (b.len == 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* The index's paths under pathspecs (git ls-files): the host's git, run as
   gitops_git runs it, and only when .git is a directory whose index is a
   regular file, both reached through the door. */
int
gitops_tracked(const char *project, const struct strv *pathspecs,
    struct strv *out)
{
	struct strv	 av = STRV_INIT;
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*cause = NULL;
	int		 root, git = -1, rc = -1;

	if ((root = beneath_root(project, &st, &cause)) < 0)
		goto out;
	git = beneath_open(root, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
	    0, &cause);
	if (git < 0 || beneath_child_stat(git, "index", &st) != 0 ||
	    !S_ISREG(st.st_mode))
		goto out;
	strv_push(&av, "ls-files");
	strv_push(&av, "-z");
	strv_push(&av, "--");
	strv_append_all(&av, pathspecs);
	if (gitops_git(project, (const char *const *)av.v, NULL, 0, &b,
	    GITOPS_TRACKED_BYTES, &cause) != 0)
		goto out;
	for (size_t i = 0; i < b.len; i += strlen(b.data + i) + 1)
		strv_push(out, b.data + i);
	rc = 0;
out:
	if (git >= 0)
		close(git);
	if (root >= 0)
		close(root);
	free(cause);
	buf_release(&b);
	strv_release(&av);
	return rc;
}
