/*
 * undo-check: a manifest read back from the undo store is checked whole
 * before anything uses it (undo_manifest_read). Every field the readers
 * convert to an integer must be there, be an integer and fit the type it
 * becomes (a missing number is NaN, and converting NaN or an
 * out-of-range double is undefined behaviour); a path is relative with
 * no ".." in it; a blob names an object by its sha256. The first problem
 * found is the error: "before[3].mode: missing".
 */
#include "autoconf.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "undo-int.h"
#include "undo.h"
#include "xalloc.h"

/* Integers a double holds exactly; and 2^64 (dev and ino are uint64). */
#define EXACT	9007199254740992.0
#define U64	18446744073709551616.0
/* Seconds whose nanoseconds still fit an int64_t. */
#define SECS	9000000000.0

/* The name of field key of the object at at ("before[3].mode"). */
static char *
where(const char *at, const char *key)
{
	return xasprintf("%s%s%s", at, *at != '\0' ? "." : "", key);
}

/* Field key of o: an integer in [lo, hi] (hi excluded when open);
   absent only when optional. false with cause otherwise. */
static bool
check_int(const cJSON *o, const char *at, const char *key, double lo,
    double hi, bool open, bool optional, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);
	char		*w;
	double		 d;

	if (v == NULL && optional)
		return true;
	w = where(at, key);
	if (v == NULL)
		*cause = xasprintf("%s: missing", w);
	else if (!cJSON_IsNumber(v) || !isfinite(d = v->valuedouble) ||
	    floor(d) != d)
		*cause = xasprintf("%s: not an integer", w);
	else if (d < lo || d > hi || (open && d == hi))
		*cause = xasprintf("%s: %.0f is out of range", w, d);
	free(w);
	return *cause == NULL;
}

static bool
check_string(const cJSON *o, const char *at, const char *key, bool optional,
    char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);
	char		*w;

	if ((v == NULL && optional) || cJSON_IsString(v))
		return true;
	w = where(at, key);
	*cause = xasprintf("%s: %s", w, v == NULL ? "missing" :
	    "not a string");
	free(w);
	return false;
}

/* A path below the project: relative, no empty, "." or ".." part. */
static bool
path_ok(const char *p)
{
	const char	*s = p, *e;

	if (*p == '\0' || *p == '/')
		return false;
	for (;; s = e + 1) {
		e = strchr(s, '/');
		size_t n = e != NULL ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (e == NULL)
			return true;
	}
}

static bool
sha_ok(const char *s)
{
	size_t	n = strspn(s, "0123456789abcdef");

	return n == 64 && s[n] == '\0';
}

/* Seconds and nanoseconds of one time (s*1e9 + ns fits an int64_t). */
static bool
check_time(const cJSON *e, const char *at, const char *s, const char *ns,
    bool optional, char **cause)
{
	if (optional && cJSON_GetObjectItemCaseSensitive(e, s) == NULL &&
	    cJSON_GetObjectItemCaseSensitive(e, ns) == NULL)
		return true;
	return check_int(e, at, s, -SECS, SECS, false, false, cause) &&
	    check_int(e, at, ns, -999999999, 999999999, false, false, cause);
}

/* One entry of before or after. */
static bool
check_entry(const cJSON *e, const char *at, char **cause)
{
	const char	*t;
	const cJSON	*v;

	if (!cJSON_IsObject(e)) {
		*cause = xasprintf("%s: not an object", at);
		return false;
	}
	if (!check_string(e, at, "path", false, cause) ||
	    !check_string(e, at, "type", false, cause) ||
	    !check_string(e, at, "blob", true, cause) ||
	    !check_string(e, at, "target", true, cause))
		return false;
	if (!path_ok(cJSON_GetObjectItemCaseSensitive(e, "path")->valuestring)) {
		*cause = xasprintf("%s.path: not a relative path below the "
		    "project", at);
		return false;
	}
	t = cJSON_GetObjectItemCaseSensitive(e, "type")->valuestring;
	if (strcmp(t, "file") != 0 && strcmp(t, "dir") != 0 &&
	    strcmp(t, "link") != 0 && strcmp(t, "other") != 0) {
		*cause = xasprintf("%s.type: unknown type", at);
		return false;
	}
	v = cJSON_GetObjectItemCaseSensitive(e, "blob");
	if (v != NULL && !sha_ok(v->valuestring)) {
		*cause = xasprintf("%s.blob: not a sha256", at);
		return false;
	}
	v = cJSON_GetObjectItemCaseSensitive(e, "opaque");
	if (v != NULL && !cJSON_IsBool(v)) {
		*cause = xasprintf("%s.opaque: not true or false", at);
		return false;
	}
	if (!check_int(e, at, "mode", 0, 07777, false, false, cause) ||
	    !check_int(e, at, "size", 0, EXACT, false, false, cause) ||
	    !check_time(e, at, "mtime_s", "mtime_ns", false, cause) ||
	    !check_int(e, at, "dev", 0, U64, true, false, cause) ||
	    !check_int(e, at, "ino", 0, U64, true, false, cause) ||
	    !check_int(e, at, "nlink", 0, EXACT, false, true, cause) ||
	    !check_int(e, at, "uid", 0, 4294967295.0, false, false, cause) ||
	    !check_int(e, at, "gid", 0, 4294967295.0, false, false, cause) ||
	    !check_time(e, at, "btime_s", "btime_ns", true, cause))
		return false;
	/* A place in the run's pack: both numbers, and what is there. */
	if (cJSON_GetObjectItemCaseSensitive(e, "pack_off") == NULL &&
	    cJSON_GetObjectItemCaseSensitive(e, "pack_len") == NULL)
		return true;
	if (!check_int(e, at, "pack_off", 0, EXACT, false, false, cause) ||
	    !check_int(e, at, "pack_len", 0, EXACT, false, false, cause))
		return false;
	if (cJSON_GetObjectItemCaseSensitive(e, "blob") == NULL) {
		*cause = xasprintf("%s.blob: missing (pack_off names its "
		    "place in the pack)", at);
		return false;
	}
	return true;
}

static bool
check_array(const cJSON *m, const char *key, bool entries, char **cause)
{
	const cJSON	*a = cJSON_GetObjectItemCaseSensitive(m, key), *e;
	char		*at;
	int		 i = 0;
	bool		 ok = true;

	if (!cJSON_IsArray(a)) {
		*cause = xasprintf("%s: %s", key, a == NULL ? "missing" :
		    "not an array");
		return false;
	}
	cJSON_ArrayForEach(e, a) {
		at = xasprintf("%s[%d]", key, i++);
		if (entries)
			ok = check_entry(e, at, cause);
		else if (!cJSON_IsObject(e)) {
			*cause = xasprintf("%s: not an object", at);
			ok = false;
		} else
			ok = check_string(e, at, "path", false, cause) &&
			    check_string(e, at, "why", false, cause);
		free(at);
		if (!ok)
			return false;
	}
	return true;
}

int
undo_manifest_check(const cJSON *m, char **cause)
{
	*cause = NULL;
	if (!cJSON_IsObject(m)) {
		*cause = xstrdup("not an object");
		return -1;
	}
	if (check_int(m, "", "version", 1, UNDO_MANIFEST_VERSION, false,
	    false, cause) &&
	    check_int(m, "", "id", 0, EXACT, false, false, cause) &&
	    check_string(m, "", "command", false, cause) &&
	    check_int(m, "", "start_s", 0, SECS, false, false, cause) &&
	    check_int(m, "", "start_ns", 0, 999999999, false, false, cause) &&
	    check_int(m, "", "time", 0, EXACT, false, true, cause) &&
	    check_int(m, "", "bytes", 0, EXACT, false, true, cause) &&
	    check_array(m, "before", true, cause) &&
	    check_array(m, "after", true, cause) &&
	    (cJSON_GetObjectItemCaseSensitive(m, "unsaved") == NULL ||
	    check_array(m, "unsaved", false, cause)))
		return 0;
	return -1;
}
