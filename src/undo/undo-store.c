/*
 * undo-store: the per-project store of what runs replaced (undo.h): its
 * place, its limits, reading manifests back, pruning.
 *
 * Everything here is bwgate's own state directory, never the project.
 */
#include "autoconf.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "config.h"
#include "file.h"
#include "path.h"
#include "sha256.h"
#include "undo-int.h"
#include "undo.h"
#include "xalloc.h"

#define UNDO_FILE_MAX	(256ULL << 20)
#define UNDO_RUN_MAX	(1ULL << 30)
#define UNDO_TOTAL_MAX	(4ULL << 30)
#define UNDO_DAYS	14

/* A size from the environment (K, M, G binary suffixes). */
static uint64_t
undo_env_size(const char *name, uint64_t dflt)
{
	const char		*s = getenv(name);
	char			*end;
	unsigned long long	 v;

	if (s == NULL || *s == '\0')
		return dflt;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	return *end == '\0' ? v : dflt;
}

void
undo_limits_get(struct undo_limits *l)
{
	l->file_max = undo_env_size("BWGATE_UNDO_FILE_MAX", UNDO_FILE_MAX);
	l->run_max = undo_env_size("BWGATE_UNDO_RUN_MAX", UNDO_RUN_MAX);
	l->total_max = undo_env_size("BWGATE_UNDO_TOTAL_MAX", UNDO_TOTAL_MAX);
	l->age_s = (int64_t)undo_env_size("BWGATE_UNDO_DAYS", UNDO_DAYS) *
	    86400;
}

bool
undo_enabled(void)
{
	const char	*s = getenv("BWGATE_UNDO");

	return s == NULL || strcmp(s, "0") != 0;
}

char *
undo_store_dir(const char *project)
{
	_cleanup_free_ char	*state = config_state_dir();
	char			 hex[SHA256_HEX_LEN + 1], *name, *p;

	sha256_hex(project, strlen(project), hex);
	hex[16] = '\0';
	name = xasprintf("undo/%s", hex);
	p = path_join(state, name);
	free(name);
	return p;
}

/* A run's directory. */
char *
undo_run_dir(const char *store, unsigned long id)
{
	return xasprintf("%s/runs/%lu", store, id);
}

/* The whole of a small file, NUL-terminated; NULL with errno. */
char *
undo_read_small(const char *path, size_t max, size_t *lenp)
{
	_cleanup_close_ int	 fd = open(path, O_RDONLY | O_NOFOLLOW |
				    O_CLOEXEC);
	struct stat		 st;
	char			*buf;
	size_t			 n = 0;
	ssize_t			 r;

	if (fd < 0 || fstat(fd, &st) != 0)
		return NULL;
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		errno = EFBIG;
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size &&
	    (r = read(fd, buf + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return buf;
}

cJSON *
undo_manifest_read(const char *project, unsigned long id, char **cause)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	_cleanup_free_ char	*dir = undo_run_dir(store, id);
	_cleanup_free_ char	*path = xasprintf("%s/manifest.json", dir);
	_cleanup_free_ char	*text = NULL;
	struct stat		 st;
	cJSON			*m;
	char			*why;

	if ((text = undo_read_small(path, 1 << 30, NULL)) == NULL) {
		if (errno == ENOENT && stat(dir, &st) == 0)
			*cause = xasprintf("run %lu was not saved completely "
			    "(interrupted): it cannot be undone", id);
		else if (errno == ENOENT)
			*cause = xasprintf("no run %lu in the undo store of "
			    "'%s'", id, project);
		else
			*cause = xasprintf("cannot read '%s': %s", path,
			    strerror(errno));
		return NULL;
	}
	if ((m = cJSON_Parse(text)) == NULL || !cJSON_IsObject(m)) {
		cJSON_Delete(m);
		*cause = xasprintf("'%s' is not a manifest", path);
		return NULL;
	}
	if (undo_manifest_check(m, &why) != 0) {
		cJSON_Delete(m);
		*cause = xasprintf("'%s' is not a valid manifest: %s", path,
		    why);
		free(why);
		return NULL;
	}
	return m;
}

/* Compare run ids, newest first. */
static int
undo_cmp_desc(const void *a, const void *b)
{
	unsigned long	x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long	y = strtoul(*(char *const *)b, NULL, 10);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Every run directory's id (committed or not), newest first. */
void
undo_run_dirs(const char *store, struct strv *ids)
{
	_cleanup_free_ char	*runs = xasprintf("%s/runs", store);
	DIR			*d;
	struct dirent		*de;
	char			*end;

	if ((d = opendir(runs)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		(void)strtoul(de->d_name, &end, 10);
		if (*end == '\0')
			strv_push(ids, de->d_name);
	}
	closedir(d);
	if (ids->n > 1)		/* qsort takes no NULL, even of 0 */
		qsort(ids->v, ids->n, sizeof *ids->v, undo_cmp_desc);
}

void
undo_runs(const char *project, struct strv *ids)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	struct strv		 all = STRV_INIT;
	struct stat		 st;

	undo_run_dirs(store, &all);
	for (size_t i = 0; i < all.n; i++) {
		_cleanup_free_ char *m = xasprintf("%s/runs/%s/manifest.json",
		    store, all.v[i]);

		if (stat(m, &st) == 0)
			strv_push(ids, all.v[i]);
	}
	strv_release(&all);
}

/* Size of one object, 0 when missing. */
static uint64_t
undo_object_size(const char *store, const char *sha)
{
	_cleanup_free_ char	*p = xasprintf("%s/objects/%s", store, sha);
	struct stat		 st;

	return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
}

uint64_t
undo_manifest_bytes(const char *project, const cJSON *m)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	const cJSON		*e, *b;
	struct strv		 seen = STRV_INIT;
	uint64_t		 n = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(m, "before")) {
		const cJSON *off = cJSON_GetObjectItem(e, "pack_off");

		b = cJSON_GetObjectItem(e, "blob");
		if (cJSON_IsString(b) && cJSON_IsNumber(off)) {
			/* In the run's pack: once per place in it. */
			char k[32];

			snprintf(k, sizeof k, "@%.0f", off->valuedouble);
			if (!strv_contains(&seen, k)) {
				strv_push(&seen, k);
				n += (uint64_t)cJSON_GetNumberValue(
				    cJSON_GetObjectItem(e, "pack_len"));
			}
			continue;
		}
		if (!cJSON_IsString(b) || strv_contains(&seen,
		    b->valuestring))
			continue;
		strv_push(&seen, b->valuestring);
		n += undo_object_size(store, b->valuestring);
	}
	strv_release(&seen);
	return n;
}

bool
undo_is_undone(const char *project, unsigned long id)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	_cleanup_free_ char	*p = xasprintf("%s/runs/%lu/undone", store, id);
	struct stat		 st;

	return stat(p, &st) == 0;
}

int
undo_mark_undone(const char *project, unsigned long id, char **cause)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	_cleanup_free_ char	*dir = undo_run_dir(store, id);
	_cleanup_free_ char	*path = xasprintf("%s/undone", dir);
	char			 buf[32];
	int			 n;

	n = snprintf(buf, sizeof buf, "%lld\n", (long long)time(NULL));
	return file_write_atomic(path, buf, (size_t)n, 0600, cause);
}

/* Remove a run's directory (its few known files). */
static void
undo_remove_run(const char *store, const char *id)
{
	static const char *const files[] = { "manifest.json", "blobs", "pid",
	    "undone", "pack", "request", NULL };
	_cleanup_free_ char	*dir = xasprintf("%s/runs/%s", store, id);

	for (size_t i = 0; files[i] != NULL; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, files[i]);

		(void)unlink(p);
	}
	(void)rmdir(dir);
}

/* Add the object names a run's blobs file lists to refs. */
static void
undo_run_refs(const char *store, const char *id, struct strv *refs)
{
	_cleanup_free_ char	*p = xasprintf("%s/runs/%s/blobs", store, id);
	_cleanup_free_ char	*text = undo_read_small(p, 1 << 28, NULL);
	char			*line, *save = NULL;

	if (text == NULL)
		return;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		strv_push(refs, line);
}

/* The size of a run's pack (0 when it has none). */
static uint64_t
undo_run_pack(const char *store, const char *id)
{
	_cleanup_free_ char	*p = xasprintf("%s/runs/%s/pack", store, id);
	struct stat		 st;

	return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Is the process that saves a run gone (or the run's pid unknown)? */
static bool
undo_run_abandoned(const char *store, const char *id)
{
	_cleanup_free_ char	*p = xasprintf("%s/runs/%s/pid", store, id);
	_cleanup_free_ char	*text = undo_read_small(p, 64, NULL);
	long			 pid;

	if (text == NULL)
		return true;
	pid = strtol(text, NULL, 10);
	return pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

/*
 * Prune: runs past the age limit, interrupted runs whose saver is gone,
 * then the oldest runs while the store holds more than total_max - room;
 * then every object no run refers to. Returns the bytes held after.
 */
uint64_t
undo_prune(const char *store, const struct undo_limits *l, uint64_t room,
    const char *keep)
{
	_cleanup_free_ char	*objdir = xasprintf("%s/objects", store);
	struct strv		 ids = STRV_INIT, refs = STRV_INIT;
	struct strv		 objs = STRV_INIT;
	uint64_t		*size = NULL, total = 0;
	uint64_t		 limit = l->total_max > room ?
				    l->total_max - room : 0;
	_cleanup_close_ int	 lock = undo_lock(store, LOCK_EX);
	DIR			*d;
	struct dirent		*de;
	struct stat		 st;
	time_t			 now = time(NULL);
	size_t			 n;

	undo_run_dirs(store, &ids);
	/* Age and interrupted runs. */
	for (size_t i = 0; i < ids.n; i++) {
		_cleanup_free_ char *m = xasprintf("%s/runs/%s/manifest.json",
		    store, ids.v[i]);
		_cleanup_free_ char *dir = xasprintf("%s/runs/%s", store,
		    ids.v[i]);

		if (keep != NULL && strcmp(ids.v[i], keep) == 0)
			continue;
		if (stat(m, &st) == 0 ? now - st.st_mtime > l->age_s :
		    (stat(dir, &st) != 0 || undo_run_abandoned(store,
		    ids.v[i]))) {
			undo_remove_run(store, ids.v[i]);
			free(ids.v[i]);
			ids.v[i] = xstrdup("");
		}
	}
	/* The objects and what each run holds. */
	if ((d = opendir(objdir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			_cleanup_free_ char *p = NULL;

			if (strlen(de->d_name) != SHA256_HEX_LEN)
				continue;
			p = xasprintf("%s/%s", objdir, de->d_name);
			if (stat(p, &st) != 0)
				continue;
			strv_push(&objs, de->d_name);
			size = xreallocarray(size, objs.n, sizeof *size);
			size[objs.n - 1] = (uint64_t)st.st_size;
			total += (uint64_t)st.st_size;
		}
		closedir(d);
	}
	for (size_t i = 0; i < ids.n; i++)
		if (*ids.v[i] != '\0')
			total += undo_run_pack(store, ids.v[i]);
	/* Oldest first while over the limit (never the run asking). */
	for (n = ids.n; n > 0 && total > limit; n--) {
		const char *id = ids.v[n - 1];

		if (*id == '\0' || (keep != NULL && strcmp(id, keep) == 0))
			continue;
		undo_remove_run(store, id);
		free(ids.v[n - 1]);
		ids.v[n - 1] = xstrdup("");
		/* Recount what the remaining runs hold. */
		strv_release(&refs);
		total = 0;
		for (size_t i = 0; i < ids.n; i++)
			if (*ids.v[i] != '\0') {
				undo_run_refs(store, ids.v[i], &refs);
				total += undo_run_pack(store, ids.v[i]);
			}
		for (size_t i = 0; i < objs.n; i++)
			if (strv_contains(&refs, objs.v[i]))
				total += size[i];
	}
	/* Objects no run refers to. */
	strv_release(&refs);
	total = 0;
	for (size_t i = 0; i < ids.n; i++)
		if (*ids.v[i] != '\0') {
			undo_run_refs(store, ids.v[i], &refs);
			total += undo_run_pack(store, ids.v[i]);
		}
	for (size_t i = 0; i < objs.n; i++) {
		if (strv_contains(&refs, objs.v[i])) {
			total += size[i];
			continue;
		}
		_cleanup_free_ char *p = xasprintf("%s/%s", objdir, objs.v[i]);
		(void)unlink(p);
	}
	free(size);
	strv_release(&ids);
	strv_release(&refs);
	strv_release(&objs);
	return total;
}

int
undo_lock(const char *store, int how)
{
	_cleanup_free_ char	*p = xasprintf("%s/lock", store);
	int			 fd;

	if ((fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0)
		return -1;
	if (flock(fd, how) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}
