/* test-file: mkdir_p and file_write_atomic (file.c), file digests kept
   while unchanged (digestcache.c). */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "digestcache.h"
#include "file.h"
#include "stake.h"
#include "units.h"
#include "xalloc.h"

static char	*dir;

static int
setup(void **state)
{
	char	tmpl[] = "/tmp/bwgate-test-file.XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	return 0;
}

static int
teardown(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir);
	return 0;
}

/* Entries in a directory. */
static int
entries(const char *d)
{
	DIR		*dp = opendir(d);
	struct dirent	*de;
	int		 n = 0;

	assert_non_null(dp);
	while ((de = readdir(dp)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(dp);
	return n;
}

static void
test_mkdir_p(void **state)
{
	char		*d = xasprintf("%s/a/b/c", dir), *f, *cause = NULL;
	struct stat	 st;

	(void)state;
	assert_int_equal(mkdir_p(d, 0700, &cause), 0);
	assert_int_equal(stat(d, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(mkdir_p(d, 0700, &cause), 0);	/* exists: fine */
	f = xasprintf("%s/file", dir);
	assert_int_equal(file_write_atomic(f, "x", 1, 0600, &cause), 0);
	free(d);
	d = xasprintf("%s/sub", f);
	assert_int_equal(mkdir_p(d, 0700, &cause), -1);
	assert_non_null(strstr(cause, "cannot create '"));
	assert_non_null(strstr(cause, "Not a directory"));
	free(cause);
	free(d);
	free(f);
}

static void
test_write_atomic(void **state)
{
	char		*f = xasprintf("%s/out.json", dir), *cause = NULL;
	char		*bad = xasprintf("%s/missing/x", dir);
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	FILE		*fp;

	(void)state;
	assert_int_equal(file_write_atomic(f, "old\n", 4, 0600, &cause), 0);
	assert_int_equal(file_write_atomic(f, "new\n", 4, 0600, &cause), 0);
	assert_non_null(fp = fopen(f, "r"));
	buf_read_fd(&b, fileno(fp), 0);
	fclose(fp);
	assert_string_equal(b.data, "new\n");
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(entries(dir), 1);	/* no temporary left */
	assert_int_equal(file_write_atomic(bad, "x", 1, 0600, &cause), -1);
	assert_non_null(strstr(cause, "cannot write '"));
	free(cause);
	buf_release(&b);
	free(bad);
	free(f);
}

/* Put text in a file in place (same inode, so likely the same times). */
static void
put(const char *f, const char *text)
{
	FILE	*fp = fopen(f, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

/* A digest follows every change, even two in one tick of the file
   clock with the same size; an old file's digest is the file's. */
static void
test_digestcache(void **state)
{
	struct digestcache	*dc = digestcache_new();
	char			*f = xasprintf("%s/rules.json", dir);
	char			 a[SHA256_HEX_LEN + 1], b[SHA256_HEX_LEN + 1];
	char			 want[SHA256_HEX_LEN + 1];

	(void)state;
	put(f, "aaaa");
	assert_int_equal(digestcache_file(dc, f, a), 0);
	assert_int_equal(sha256_file(f, want), 0);
	assert_string_equal(a, want);
	for (int i = 0; i < 20; i++) {
		put(f, i % 2 ? "aaaa" : "bbbb");
		assert_int_equal(digestcache_file(dc, f, b), 0);
		assert_int_equal(sha256_file(f, want), 0);
		assert_string_equal(b, want);
	}
	assert_string_equal(b, a);	/* back to "aaaa" */
	/* A settled file (changed long ago) is remembered and still right. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(digestcache_file(dc, "/etc/passwd", b), 0);
		assert_int_equal(sha256_file("/etc/passwd", want), 0);
		assert_string_equal(b, want);
	}
	assert_int_equal(unlink(f), 0);
	errno = 0;
	assert_int_equal(digestcache_file(dc, f, b), -1);
	assert_int_equal(errno, ENOENT);
	digestcache_free(dc);
	free(f);
}

/* One unit system for sizes (issue 37): binary, everywhere; the danger's
   stake says the same as the report. */
static void
test_size_text(void **state)
{
	char	s[SIZE_TEXT_MAX], *d, *p;
	struct strv t = STRV_INIT;
	int	fd;
	bool	keep;

	(void)state;
	assert_string_equal(size_text(0, s), "0 B");
	assert_string_equal(size_text(1023, s), "1023 B");
	assert_string_equal(size_text(1024, s), "1.0 KiB");
	assert_string_equal(size_text(16000, s), "15.6 KiB");
	assert_string_equal(size_text(3u << 20, s), "3.0 MiB");
	assert_string_equal(size_text(5ULL << 40, s), "5.0 TiB");
	/* A delete's stake, counted in a directory of 16000 bytes. */
	d = xstrdup("/tmp/bwgate-units-XXXXXX");
	assert_non_null(mkdtemp(d));
	p = xasprintf("%s/big", d);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/big/f", d);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 16000), 0);
	close(fd);
	strv_push(&t, "big");
	free(p);
	p = stake_judge(d, d, "delete", &t, false, &keep);
	assert_non_null(p);
	assert_non_null(strstr(p, "15.6 KiB"));
	assert_null(strstr(p, "kB"));
	free(p);
	strv_release(&t);
	p = xasprintf("rm -rf '%s'", d);
	assert_int_equal(system(p), 0);
	free(p);
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mkdir_p, setup, teardown),
		cmocka_unit_test(test_size_text),
		cmocka_unit_test_setup_teardown(test_write_atomic, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_digestcache, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
