/*
 * test-undo-check: a manifest read back from the undo store is checked
 * before the readers convert its numbers (undo-check.c). Crafted ones:
 * each field missing, of the wrong kind, out of the range of the type it
 * becomes, a path that leaves the project, a blob that is not a digest;
 * then random changes to a valid one, with an oracle: whatever is
 * accepted converts to the readers' types without undefined behaviour.
 */
#include "autoconf.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "undo.h"
#include "xalloc.h"

static const char *valid =
    "{\"version\":1,\"id\":7,\"project\":\"/p\",\"command\":\"make\","
    "\"time\":1700000000,\"start_s\":1700000000,\"start_ns\":5,"
    "\"before\":[{\"path\":\"src/a.c\",\"type\":\"file\",\"mode\":420,"
    "\"size\":3,\"mtime_s\":1700000000,\"mtime_ns\":1,\"dev\":2049,"
    "\"ino\":12,\"nlink\":1,\"uid\":1000,\"gid\":1000,\"btime_s\":1,"
    "\"btime_ns\":2,\"blob\":\"" "0123456789abcdef0123456789abcdef"
    "0123456789abcdef0123456789abcdef\",\"pack_off\":0,\"pack_len\":3},"
    "{\"path\":\"l\",\"type\":\"link\",\"mode\":511,\"size\":1,"
    "\"mtime_s\":-2,\"mtime_ns\":-5,\"dev\":1,\"ino\":2,\"uid\":0,"
    "\"gid\":0,\"target\":\"x\",\"opaque\":false}],"
    "\"after\":[{\"path\":\"src\",\"type\":\"dir\",\"mode\":493,"
    "\"size\":0,\"mtime_s\":0,\"mtime_ns\":0,\"dev\":1,\"ino\":3,"
    "\"uid\":0,\"gid\":0}],"
    "\"unsaved\":[{\"path\":\"node_modules\",\"why\":\"excluded\"}],"
    "\"bytes\":3}";

/* Check the text; the cause, or NULL when accepted. */
static char *
check(cJSON *m)
{
	char	*cause = NULL;
	int	 rc = undo_manifest_check(m, &cause);

	assert_true((rc == 0) == (cause == NULL));
	return cause;
}

static cJSON *
parse(void)
{
	cJSON	*m = cJSON_Parse(valid);

	assert_non_null(m);
	return m;
}

static void
test_valid(void **state)
{
	cJSON	*m = parse();

	(void)state;
	assert_null(check(m));
	cJSON_Delete(m);
}

/* The object at "before[0]", "after[0]" or "" (the manifest). */
static cJSON *
at(cJSON *m, const char *where)
{
	if (*where == '\0')
		return m;
	return cJSON_GetArrayItem(cJSON_GetObjectItem(m, strncmp(where,
	    "before", 6) == 0 ? "before" : "after"), where[strlen(where) - 2] -
	    '0');
}

/* Change where.key to value (JSON text; NULL removes it): rejected with
   a cause naming the field and holding want. */
static void
rejected(const char *where, const char *key, const char *value,
    const char *want)
{
	cJSON	*m = parse(), *o = at(m, where);
	char	*cause, *name;

	if (value == NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	else
		cJSON_ReplaceItemInObjectCaseSensitive(o, key,
		    cJSON_Parse(value));
	cause = check(m);
	name = xasprintf("%s%s%s", where, *where != '\0' ? "." : "", key);
	if (cause == NULL || strstr(cause, name) == NULL ||
	    strstr(cause, want) == NULL)
		fail_msg("%s = %s: expected an error on %s (%s); saw %s", name,
		    value != NULL ? value : "(missing)", name, want,
		    cause != NULL ? cause : "accepted");
	free(name);
	free(cause);
	cJSON_Delete(m);
}

static void
test_missing(void **state)
{
	static const char *const top[] = { "version", "id", "command",
		"start_s", "start_ns", "before", "after", NULL };
	static const char *const entry[] = { "path", "type", "mode", "size",
		"mtime_s", "mtime_ns", "dev", "ino", "uid", "gid", NULL };

	(void)state;
	for (size_t i = 0; top[i] != NULL; i++)
		rejected("", top[i], NULL, "missing");
	for (size_t i = 0; entry[i] != NULL; i++) {
		rejected("before[0]", entry[i], NULL, "missing");
		rejected("after[0]", entry[i], NULL, "missing");
	}
	/* Half a pair: the other is missing. */
	rejected("before[0]", "btime_ns", NULL, "missing");
	rejected("before[0]", "pack_len", NULL, "missing");
}

static void
test_range(void **state)
{
	(void)state;
	rejected("", "version", "2", "out of range");
	rejected("", "id", "-1", "out of range");
	rejected("", "id", "1e300", "out of range");
	rejected("", "start_s", "\"1\"", "not an integer");
	rejected("", "start_ns", "1000000000", "out of range");
	rejected("", "start_ns", "0.5", "not an integer");
	rejected("", "before", "{}", "not an array");
	rejected("", "unsaved", "[1]", "not an object");
	rejected("before[0]", "mode", "4096", "out of range");
	rejected("before[0]", "mode", "null", "not an integer");
	rejected("before[0]", "size", "-1", "out of range");
	rejected("before[0]", "size", "1e20", "out of range");
	rejected("before[0]", "mtime_s", "1e19", "out of range");
	rejected("before[0]", "mtime_ns", "1000000000", "out of range");
	rejected("before[0]", "mtime_ns", "-1000000000", "out of range");
	rejected("before[0]", "dev", "18446744073709551616", "out of range");
	rejected("before[0]", "ino", "1.5", "not an integer");
	rejected("before[0]", "uid", "4294967296", "out of range");
	rejected("before[0]", "gid", "-1", "out of range");
	rejected("before[0]", "btime_s", "true", "not an integer");
	rejected("before[0]", "pack_off", "-1", "out of range");
	rejected("before[0]", "pack_len", "1e300", "out of range");
	rejected("before[0]", "type", "\"fifo\"", "unknown type");
	rejected("before[1]", "opaque", "1", "not true or false");
	rejected("before[1]", "target", "7", "not a string");
}

static void
test_paths(void **state)
{
	static const char *const bad[] = { "\"\"", "\"/etc/passwd\"",
		"\"..\"", "\"../x\"", "\"a/../../x\"", "\"a//b\"", "\"a/\"",
		"\"./a\"", "\"a/.\"", "3", NULL };

	(void)state;
	for (size_t i = 0; bad[i] != NULL; i++)
		rejected("before[0]", "path", bad[i], "path");
	rejected("before[0]", "blob", "\"../../../etc/passwd\"",
	    "not a sha256");
	rejected("before[0]", "blob", "\"0123\"", "not a sha256");
	/* A place in the pack with no blob. */
	rejected("before[0]", "blob", NULL, "missing");
}

/* The oracle: every number the readers convert (undo-apply.c ue_parse,
   undo_plan_new, undo_manifest_bytes) is an integer the type holds. */
static bool
fits(const cJSON *o, const char *key, double lo, double hi, bool optional)
{
	const cJSON	*v = cJSON_GetObjectItem(o, key);

	if (v == NULL)
		return optional;
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	    v->valuedouble >= lo && v->valuedouble <= hi &&
	    floor(v->valuedouble) == v->valuedouble;
}

static bool
convertible(const cJSON *m)
{
	const char	*arr[] = { "before", "after" };
	const cJSON	*e;

	if (!fits(m, "start_s", 0, 1e10, false) ||
	    !fits(m, "start_ns", 0, 999999999, false))
		return false;
	for (size_t i = 0; i < 2; i++) {
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(m, arr[i])) {
			bool bt = cJSON_GetObjectItem(e, "btime_s") != NULL;

			if (!cJSON_IsString(cJSON_GetObjectItem(e, "path")) ||
			    !fits(e, "mode", 0, 07777, false) ||
			    !fits(e, "size", 0, 1.8e19, false) ||
			    !fits(e, "mtime_s", -9.2e9, 9.2e9, false) ||
			    !fits(e, "mtime_ns", -1e9, 1e9, false) ||
			    !fits(e, "dev", 0, 1.8e19, false) ||
			    !fits(e, "ino", 0, 1.8e19, false) ||
			    !fits(e, "uid", 0, 4294967295.0, false) ||
			    !fits(e, "gid", 0, 4294967295.0, false) ||
			    !fits(e, "btime_s", -9.2e9, 9.2e9, !bt) ||
			    !fits(e, "btime_ns", -1e9, 1e9, !bt) ||
			    !fits(e, "pack_off", 0, 9.2e18, true) ||
			    !fits(e, "pack_len", 0, 1.8e19, true))
				return false;
		}
	}
	return true;
}

/* Replace or remove one field of a random object with a random value. */
static void
mutate(cJSON *m, unsigned *seed)
{
	static const char *const values[] = { "null", "true", "\"x\"",
		"-1", "0", "0.5", "1e300", "-1e300", "4096", "1e9",
		"999999999", "18446744073709551616", "4294967296", "[]", "{}",
		"-9e9", "9.1e9", "\"..\"", NULL };
	const char	*arrs[] = { "before", "after", "unsaved" };
	cJSON		*o = m, *a, *f;
	int		 n, k;

	if (rand_r(seed) % 3 != 0) {
		a = cJSON_GetObjectItem(m, arrs[rand_r(seed) % 3]);
		if ((n = cJSON_GetArraySize(a)) > 0)
			o = cJSON_GetArrayItem(a, rand_r(seed) % n);
	}
	if (!cJSON_IsObject(o) || (n = cJSON_GetArraySize(o)) == 0)
		return;
	f = cJSON_GetArrayItem(o, rand_r(seed) % n);
	k = rand_r(seed) % 20;
	if (k >= 18)
		cJSON_DeleteItemFromObjectCaseSensitive(o, f->string);
	else
		cJSON_ReplaceItemInObjectCaseSensitive(o, f->string,
		    cJSON_Parse(values[k % 18]));
}

static void
test_random(void **state)
{
	unsigned	seed = 36;
	int		accepted = 0, refused = 0;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		cJSON	*m = parse();
		char	*cause;

		for (int k = 1 + rand_r(&seed) % 3; k > 0; k--)
			mutate(m, &seed);
		cause = check(m);
		if (cause == NULL) {
			accepted++;
			if (!convertible(m))
				fail_msg("accepted, not convertible: %s",
				    cJSON_PrintUnformatted(m));
		} else
			refused++;
		free(cause);
		cJSON_Delete(m);
	}
	/* Both sides were reached. */
	assert_true(accepted > 100);
	assert_true(refused > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
