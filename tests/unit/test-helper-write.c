/* test-helper-write: bwgate-helper --write (helper-write.c) applied in a
   scratch project: new files and directories, content byte-exact, the
   mode kept, a changed file or one that appeared refused (nothing
   written, no temporary file left), no way out through a symbolic link
   or "..", a bad message refused. */
#include "autoconf.h"

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
#include "filereq.h"
#include "helper-write.h"
#include "sha256.h"
#include "xalloc.h"

static char	 top[64];	/* holds proj/ and outside/ */
static int	 home = -1;	/* the directory to go back to */

/* Run the helper on a message in proj/; its exit status. */
static int
run(const char *msg, size_t len)
{
	FILE	*f = tmpfile();
	int	 rc;

	assert_non_null(f);
	assert_int_equal(fwrite(msg, 1, len, f), len);
	rewind(f);
	assert_int_equal(chdir("proj"), 0);
	rc = helper_write(fileno(f));
	assert_int_equal(chdir(".."), 0);
	fclose(f);
	return rc;
}

/* Write len bytes to rel; was NULL: a new file, else the old content. */
static int
write_file(const char *rel, const char *was, const char *content,
    size_t len)
{
	struct buf	 b = BUF_INIT;
	char		 hex[SHA256_HEX_LEN + 1];
	int		 rc;

	if (was != NULL)
		sha256_hex(was, strlen(was), hex);
	filereq_encode(rel, was != NULL ? hex : NULL, content, len, &b);
	rc = run(b.data, b.len);
	buf_release(&b);
	return rc;
}

/* A file's content (NULL: none). */
static char *
slurp(const char *path, size_t *len)
{
	struct buf	 b = BUF_INIT;
	int		 fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	assert_int_equal(buf_read_fd(&b, fd, 0), 0);
	close(fd);
	*len = b.len;
	if (b.data == NULL)
		buf_puts(&b, "");
	return buf_detach(&b);
}

static void
put(const char *path, const char *s, mode_t mode)
{
	int	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* No temporary file left in dir. */
static bool
no_temp(const char *dir)
{
	char	*cmd = xasprintf("ls -A '%s' | grep -q '^\\.bwgate-write'", dir);
	bool	 none = system(cmd) != 0;

	free(cmd);
	return none;
}

static int
setup(void **state)
{
	(void)state;
	home = open(".", O_RDONLY | O_DIRECTORY);
	strcpy(top, "/tmp/test-helper-write.XXXXXX");
	assert_non_null(mkdtemp(top));
	assert_int_equal(chdir(top), 0);
	assert_int_equal(mkdir("proj", 0700), 0);
	assert_int_equal(mkdir("outside", 0700), 0);
	assert_int_equal(symlink("../outside", "proj/lnk"), 0);
	assert_int_equal(symlink("../outside/f", "proj/sl"), 0);
	put("outside/f", "outside\n", 0600);
	return 0;
}

static int
teardown(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", top);

	(void)state;
	assert_int_equal(fchdir(home), 0);
	close(home);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

static void
test_new(void **state)
{
	char	*got;
	size_t	 n;
	struct stat st;
	mode_t	 um = umask(022);

	(void)state;
	assert_int_equal(write_file("a/b/c.bin", NULL, "x\0y\377\n", 5), 0);
	got = slurp("proj/a/b/c.bin", &n);
	assert_non_null(got);
	assert_int_equal(n, 5);
	assert_memory_equal(got, "x\0y\377\n", 5);
	free(got);
	assert_int_equal(stat("proj/a/b/c.bin", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_true(no_temp("proj/a/b"));
	/* It exists now: a second "new" write is a conflict. */
	assert_int_equal(write_file("a/b/c.bin", NULL, "z", 1),
	    WRITE_EXIT_CONFLICT);
	got = slurp("proj/a/b/c.bin", &n);
	assert_int_equal(n, 5);
	free(got);
	/* A literal name with shell syntax is just a name. */
	assert_int_equal(write_file("$(touch pwned)';x", NULL, "l", 1), 0);
	assert_int_equal(access("proj/$(touch pwned)';x", F_OK), 0);
	assert_int_not_equal(access("proj/pwned", F_OK), 0);
	umask(um);
}

static void
test_modify(void **state)
{
	char	*got;
	size_t	 n;
	struct stat st;

	(void)state;
	put("proj/run.sh", "#!/bin/sh\necho v1\n", 0750);
	assert_int_equal(write_file("run.sh", "#!/bin/sh\necho v1\n",
	    "#!/bin/sh\necho v2\n", 18), 0);
	got = slurp("proj/run.sh", &n);
	assert_string_equal(got, "#!/bin/sh\necho v2\n");
	free(got);
	assert_int_equal(stat("proj/run.sh", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	/* Changed since the diff: nothing written, nothing left. */
	assert_int_equal(write_file("run.sh", "#!/bin/sh\necho v1\n", "v3",
	    2), WRITE_EXIT_CONFLICT);
	got = slurp("proj/run.sh", &n);
	assert_string_equal(got, "#!/bin/sh\necho v2\n");
	free(got);
	assert_true(no_temp("proj"));
	/* Gone since the diff: a conflict too. */
	assert_int_equal(write_file("gone.txt", "old", "new", 3),
	    WRITE_EXIT_CONFLICT);
	assert_int_not_equal(access("proj/gone.txt", F_OK), 0);
}

static void
test_no_way_out(void **state)
{
	char	*got;
	size_t	 n;

	(void)state;
	assert_int_equal(write_file("lnk/x", NULL, "x", 1),
	    WRITE_EXIT_REFUSED);
	assert_int_equal(write_file("lnk/new/x", NULL, "x", 1),
	    WRITE_EXIT_REFUSED);
	assert_int_not_equal(access("outside/x", F_OK), 0);
	assert_int_not_equal(access("outside/new", F_OK), 0);
	assert_int_equal(write_file("sl", "outside\n", "pwned\n", 6),
	    WRITE_EXIT_CONFLICT);
	assert_int_equal(write_file("sl", NULL, "pwned\n", 6),
	    WRITE_EXIT_CONFLICT);
	assert_int_equal(write_file("../outside/f", "outside\n", "pwned\n",
	    6), WRITE_EXIT_REFUSED);
	assert_int_equal(write_file("/tmp/x", NULL, "x", 1),
	    WRITE_EXIT_REFUSED);
	got = slurp("outside/f", &n);
	assert_string_equal(got, "outside\n");
	free(got);
	assert_true(no_temp("outside"));
}

static void
test_bad_message(void **state)
{
	static const char *const bad[] = {
		"",
		"bwgate-write 2\npath 1\nx\nwas new\ncontent 0\n",
		"bwgate-write 1\npath 1\nx\nwas new\ncontent 5\nab",
		"bwgate-write 1\npath 01\nx\nwas new\ncontent 0\n",
		"bwgate-write 1\npath 0\n\nwas new\ncontent 0\n",
		"bwgate-write 1\npath 1\nx\nwas sha256 xyz\ncontent 0\n",
		"bwgate-write 1\npath 1\nx\nwas new\ncontent 0\nextra",
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(run(bad[i], strlen(bad[i])), WRITE_EXIT_BAD);
	assert_int_not_equal(access("proj/x", F_OK), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_modify),
		cmocka_unit_test(test_no_way_out),
		cmocka_unit_test(test_bad_message),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
