/*
 * test-audit: the audit log is on disk before bwgate says so (audit.c).
 * fsync(2) is wrapped (-Wl,--wrap=fsync): every call is recorded with the
 * name of the file synced, and a sync can be made to fail. A commit that
 * skips its fsync, or ignores a failing one, is caught here (the integration
 * tests cannot see a missing fsync: the data reaches the page cache anyway).
 */
#include "autoconf.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "audit.h"
#include "xalloc.h"

int	__real_fsync(int);
int	__wrap_fsync(int);

static char	*dir, *logpath;
static int	 fsync_fail;		/* errno to fail the next syncs with */
static char	 synced[64][PATH_MAX];	/* the files synced, in order */
static int	 nsynced;

int
__wrap_fsync(int fd)
{
	char	link[64];
	ssize_t	n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if (nsynced < 64) {
		n = readlink(link, synced[nsynced], PATH_MAX - 1);
		synced[nsynced][n > 0 ? n : 0] = '\0';
		nsynced++;
	}
	if (fsync_fail != 0) {
		errno = fsync_fail;
		return -1;
	}
	return __real_fsync(fd);
}

/* How many syncs named the file path (or, with suffix, path+suffix)? */
static int
synced_count(const char *path, const char *suffix)
{
	char	want[PATH_MAX];
	int	n = 0;

	snprintf(want, sizeof want, "%s%s", path, suffix);
	for (int i = 0; i < nsynced && i < 64; i++)
		if (strcmp(synced[i], want) == 0)
			n++;
	return n;
}

static int
setup(void **state)
{
	char	tmpl[] = "/tmp/bwgate-test-audit.XXXXXX";
	char	real[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, real));
	dir = xstrdup(real);
	logpath = xasprintf("%s/audit.jsonl", dir);
	fsync_fail = 0;
	nsynced = 0;
	return 0;
}

static int
teardown(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(logpath);
	free(dir);
	return 0;
}

static cJSON *
record(const char *what)
{
	cJSON	*rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "record", what);
	return rec;
}

/* audit_write returns only once the record was fsync'd. */
static void
test_write_syncs(void **state)
{
	struct audit	*a;
	char		*cause = NULL;

	(void)state;
	assert_non_null(a = audit_open(logpath, &cause));
	nsynced = 0;
	assert_int_equal(audit_write(a, record("decision"), &cause), 0);
	assert_true(synced_count(logpath, "") >= 1);
	audit_close(a);
}

/* Group commit: appends do not sync, the commit does, once. */
static void
test_commit_syncs(void **state)
{
	struct audit	*a;
	char		*cause = NULL;

	(void)state;
	assert_non_null(a = audit_open(logpath, &cause));
	nsynced = 0;
	assert_int_equal(audit_append(a, record("queued"), &cause), 0);
	assert_int_equal(audit_append(a, record("started"), &cause), 0);
	assert_int_equal(synced_count(logpath, ""), 0);
	assert_int_equal(audit_sync(a, &cause), 0);
	assert_int_equal(synced_count(logpath, ""), 1);
	/* Nothing new appended: nothing to sync. */
	assert_int_equal(audit_sync(a, &cause), 0);
	assert_int_equal(synced_count(logpath, ""), 1);
	audit_close(a);
}

/* A failing fsync fails the commit, with the file named, and the next
   commit syncs again. */
static void
test_commit_sync_fails(void **state)
{
	struct audit	*a;
	char		*cause = NULL;

	(void)state;
	assert_non_null(a = audit_open(logpath, &cause));
	assert_int_equal(audit_append(a, record("decision"), &cause), 0);
	fsync_fail = EIO;
	assert_int_equal(audit_sync(a, &cause), -1);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "cannot sync"));
	assert_non_null(strstr(cause, logpath));
	free(cause);
	cause = NULL;
	assert_int_equal(audit_write(a, record("ended"), &cause), -1);
	free(cause);
	cause = NULL;
	fsync_fail = 0;
	nsynced = 0;
	assert_int_equal(audit_sync(a, &cause), 0);
	assert_int_equal(synced_count(logpath, ""), 1);
	audit_close(a);
}

/* Rotation: the new file's first record is synced before it takes the
   log's name, and the old file before it is renamed away. */
static void
test_rotation_syncs(void **state)
{
	struct audit	*a;
	char		*cause = NULL, first[PATH_MAX];

	(void)state;
	snprintf(first, sizeof first, "%s.1", logpath);
	assert_non_null(a = audit_open(logpath, &cause));
	audit_set_rotation(a, 200, 2);
	for (int i = 0; i < 4; i++)
		assert_int_equal(audit_write(a, record("decision-with-a-long-"
		    "name-to-fill-the-file-quickly-0123456789"), &cause), 0);
	nsynced = 0;
	assert_int_equal(audit_write(a, record("decision-with-a-long-"
	    "name-to-fill-the-file-quickly-0123456789"), &cause), 0);
	assert_true(synced_count(logpath, ".new") >= 1);
	assert_int_equal(access(first, F_OK), 0);
	audit_close(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_syncs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_commit_syncs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_commit_sync_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rotation_syncs, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
