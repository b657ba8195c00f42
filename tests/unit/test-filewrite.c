/* test-filewrite: direct file writes: the rule table (filewrite.c), paths
   kept beneath the project (beneath.c), the console's diff and script
   (filereq.c) and the protocol's "write" submit. */
#include "autoconf.h"

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

#include "beneath.h"
#include "filereq.h"
#include "filewrite.h"
#include "protocol.h"
#include "strv.h"
#include "xalloc.h"

/* The kind of a path, with an optional extra protected entry. */
static enum filewrite_kind
kind(const char *rel, const char *extra)
{
	struct strv		 sv = STRV_INIT;
	struct filewrite_match	 fm;

	if (extra != NULL)
		strv_push(&sv, extra);
	filewrite_classify(rel, &sv, &fm);
	strv_release(&sv);
	return fm.kind;
}

static void
test_rules(void **state)
{
	(void)state;
	assert_int_equal(kind("src/a.c", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind(".git", NULL), FILEWRITE_PROTECTED);
	assert_int_equal(kind(".git/hooks/pre-commit", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind("vendor/lib/.git/config", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind(".gitignore", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind("a/.gitx/b", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind(".bwgate.json", NULL), FILEWRITE_PROTECTED);
	assert_int_equal(kind("sub/.bwgate.json", NULL), FILEWRITE_PLAIN);
	/* The agents' and editors' configuration (agent-config.json). */
	assert_int_equal(kind("sub/.envrc", NULL), FILEWRITE_PROTECTED);
	assert_int_equal(kind(".vscode/tasks.json", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind(".vscode/tasks.json", "!.vscode/"),
	    FILEWRITE_PLAIN);
	assert_int_equal(kind(".claude/settings.local.json", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind("a/b/.claude", NULL), FILEWRITE_PROTECTED);
	assert_int_equal(kind("a/.codex/config.toml", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind(".mcp.json", NULL), FILEWRITE_PROTECTED);
	assert_int_equal(kind(".mcp.jsonx", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind("x.claude/a", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind("sub/.husky/pre-commit", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind(".husky/pre-commit", NULL), FILEWRITE_PROTECTED);
	assert_int_equal(kind("AGENTS.md", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind(".github/workflows/ci.yml", NULL),
	    FILEWRITE_ATTENTION);
	assert_int_equal(kind(".github/CODEOWNERS", NULL), FILEWRITE_PLAIN);
	assert_int_equal(kind("secrets/key", "secrets/"), FILEWRITE_PROTECTED);
	assert_int_equal(kind("secrets", "secrets"), FILEWRITE_PROTECTED);
	assert_int_equal(kind("secretsx", "secrets"), FILEWRITE_PLAIN);
}

/* beneath_relative's answer (or "ERR"). */
static char *
rel(const char *root, const char *path)
{
	char	*cause = NULL, *r = beneath_relative(root, path, &cause);

	if (r == NULL) {
		free(cause);
		return xstrdup("ERR");
	}
	return r;
}

static void
test_relative(void **state)
{
	static const char *const cases[][3] = {
		{ "/p", "a/b", "a/b" },
		{ "/p", "./a//b/", "a/b" },
		{ "/p", ".", "." },
		{ "/p", "/p", "." },
		{ "/p", "/p/a", "a" },
		{ "/p", "/pa/b", "ERR" },
		{ "/p", "/etc/passwd", "ERR" },
		{ "/p", "..", "ERR" },
		{ "/p", "a/../b", "ERR" },
		{ "/p", "/p/../etc", "ERR" },
		{ "/p", "", "ERR" },
		{ "/p", "a/..b", "a/..b" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *r = rel(cases[i][0], cases[i][1]);

		if (strcmp(r, cases[i][2]) != 0)
			fail_msg("%s in %s: got %s, want %s", cases[i][1],
			    cases[i][0], r, cases[i][2]);
		free(r);
	}
}

/* A scratch tree: d/f, d/link -> /etc, lnk -> d, out -> .. */
static int
scratch(char *dir)
{
	char	*p;

	strcpy(dir, "/tmp/test-filewrite.XXXXXX");
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/d", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/d/f", dir);
	close(open(p, O_CREAT | O_WRONLY, 0600));
	free(p);
	p = xasprintf("%s/d/link", dir);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	free(p);
	p = xasprintf("%s/lnk", dir);
	assert_int_equal(symlink("d", p), 0);
	free(p);
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* rm -r of the scratch tree. */
static void
scratch_remove(const char *dir)
{
	static const char *const names[] = { "d/f", "d/link", "d/new/x",
	    "d/new", "lnk", "d", NULL };
	char	*p;

	for (size_t i = 0; names[i] != NULL; i++) {
		p = xasprintf("%s/%s", dir, names[i]);
		if (unlink(p) != 0)
			rmdir(p);
		free(p);
	}
	rmdir(dir);
}

static void
test_open_beneath(void **state)
{
	char		 dir[64], *cause = NULL;
	const char	*name;
	int		 dfd, fd;

	(void)state;
	dfd = scratch(dir);
	assert_true(dfd >= 0);
	fd = beneath_open(dfd, "d/f", O_RDONLY, 0, &cause);
	assert_true(fd >= 0);
	close(fd);
	/* A link to a file outside, a link on the way, a missing file. */
	assert_int_equal(beneath_open(dfd, "d/link", O_RDONLY, 0, &cause), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(cause, "symbolic link"));
	free(cause);
	assert_int_equal(beneath_open(dfd, "lnk/f", O_RDONLY, 0, &cause), -1);
	assert_int_equal(errno, ELOOP);
	free(cause);
	assert_int_equal(beneath_open(dfd, "d/none", O_RDONLY, 0, &cause), -1);
	assert_int_equal(errno, ENOENT);
	free(cause);
	/* Parents: through a link refused, missing ones created. */
	assert_int_equal(beneath_parent(dfd, "lnk/x", true, &name, &cause),
	    -1);
	free(cause);
	fd = beneath_parent(dfd, "d/new/x", true, &name, &cause);
	assert_true(fd >= 0);
	assert_string_equal(name, "x");
	close(fd);
	close(dfd);
	scratch_remove(dir);
}

static void
test_diff(void **state)
{
	char	*d;

	(void)state;
	d = filereq_diff("a\nb\nc\n", "a\nB\nc\n", 100);
	assert_string_equal(d, "@@ -2,1 +2,1 @@\n-b\n+B\n");
	free(d);
	d = filereq_diff("a\nc\n", "a\nb\nc\n", 100);
	assert_string_equal(d, "@@ -2,0 +2,1 @@\n+b\n");
	free(d);
	d = filereq_diff("", "x\ny", 100);
	assert_string_equal(d, "@@ -1,0 +1,2 @@\n+x\n+y\n");
	free(d);
	d = filereq_diff("same\n", "same\n", 100);
	assert_string_equal(d, "(no change)\n");
	free(d);
	d = filereq_diff("x", "x\n", 100);
	assert_string_equal(d, "(only the final newline changes)\n");
	free(d);
	d = filereq_diff("", "1\n2\n3\n4\n", 2);
	assert_string_equal(d, "@@ -1,0 +1,4 @@\n+1\n+2\n+... 2 more lines\n");
	free(d);
}

static void
test_build(void **state)
{
	struct filereq	 fr = FILEREQ_INIT;
	struct strv	 prot = STRV_INIT;
	char		 dir[64], *cause = NULL, *big;
	int		 dfd;

	(void)state;
	dfd = scratch(dir);
	close(dfd);
	/* A new file in a new directory: allow, mkdir, noclobber. */
	assert_int_equal(filereq_build(dir, "d/new2/x.txt", "it's\n", &prot,
	    &fr, &cause), 0);
	assert_int_equal(fr.verdict, VERDICT_ALLOW);
	assert_true(fr.created);
	assert_non_null(strstr(fr.command, "# bwgate: write_file "
	    "'d/new2/x.txt' (new file)\n# new file\n# @@ -1,0 +1,1 @@\n"
	    "# +it's\n"));
	assert_non_null(strstr(fr.command, "mkdir -p -- 'd/new2'"));
	assert_non_null(strstr(fr.command, "set -C\n"));
	assert_non_null(strstr(fr.command, "printf '%s' 'it'\\''s\n' > "));
	filereq_release(&fr);
	/* An existing file: its hash is checked before the write. */
	assert_int_equal(filereq_build(dir, "d/f", "x", &prot, &fr, &cause),
	    0);
	assert_false(fr.created);
	assert_non_null(strstr(fr.command, "[ \"$(sha256sum < \"$f\")\" = "
	    "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	    "  -' ]"));
	filereq_release(&fr);
	/* Protected and attention paths ask; the way out is refused. */
	assert_int_equal(filereq_build(dir, "d/.git/config", "x", &prot, &fr,
	    &cause), 0);
	assert_int_equal(fr.verdict, VERDICT_ASK);
	assert_non_null(strstr(fr.reason, "is protected"));
	filereq_release(&fr);
	assert_int_equal(filereq_build(dir, "d/link", "x", &prot, &fr,
	    &cause), -1);
	assert_non_null(strstr(cause, "symbolic link"));
	free(cause);
	filereq_release(&fr);
	assert_int_equal(filereq_build(dir, "../x", "x", &prot, &fr, &cause),
	    -1);
	free(cause);
	filereq_release(&fr);
	big = xcalloc(1, FILEREQ_MAX + 2);
	memset(big, 'a', FILEREQ_MAX + 1);
	assert_int_equal(filereq_build(dir, "d/big", big, &prot, &fr, &cause),
	    -1);
	assert_non_null(strstr(cause, "limited to"));
	free(cause);
	free(big);
	filereq_release(&fr);
	scratch_remove(dir);
}

static void
test_protocol_write(void **state)
{
	struct proto_msg	 m = PROTO_MSG_INIT;
	char			*cause = NULL;
	const char		*ok = "{\"type\":\"submit\",\"write\":"
				    "{\"path\":\"a/b\",\"content\":\"x\\ny\"}}";
	static const char *const bad[][2] = {
		{ "{\"type\":\"submit\",\"write\":\"a\"}",
		  "must be an object" },
		{ "{\"type\":\"submit\",\"write\":{\"content\":\"x\"}}",
		  "missing field 'path'" },
		{ "{\"type\":\"submit\",\"write\":{\"path\":\"a\"}}",
		  "missing field 'content'" },
		{ "{\"type\":\"submit\",\"write\":{\"path\":\"\","
		  "\"content\":\"\"}}", "must not be empty" },
		{ "{\"type\":\"submit\",\"command\":\"ls\",\"write\":"
		  "{\"path\":\"a\",\"content\":\"\"}}", "one of" },
	};

	(void)state;
	assert_int_equal(proto_decode(ok, strlen(ok), &m, &cause), 0);
	assert_string_equal(m.write_path, "a/b");
	assert_string_equal(m.write_content, "x\ny");
	assert_null(m.command);
	proto_msg_release(&m);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		m = (struct proto_msg)PROTO_MSG_INIT;
		cause = NULL;
		if (proto_decode(bad[i][0], strlen(bad[i][0]), &m, &cause) ==
		    0)
			fail_msg("accepted: %s", bad[i][0]);
		if (strstr(cause, bad[i][1]) == NULL)
			fail_msg("%s: '%s' lacks '%s'", bad[i][0], cause,
			    bad[i][1]);
		free(cause);
		proto_msg_release(&m);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_relative),
		cmocka_unit_test(test_open_beneath),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_protocol_write),
	};

	/* The shipped tables of the source tree. */
	setenv("BWGATE_DATADIR", SRCDATADIR, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
