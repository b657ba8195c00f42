/* test-filewrite: direct file writes: the rule table (filewrite.c), paths
   kept beneath the project (beneath.c), the console's diff, message for
   the helper and verdict (filereq.c) and the protocol's "write" submit. */
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "beneath.h"
#include "filereq.h"
#include "filewrite.h"
#include "jsonutil.h"
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
	/* Every entry at any depth (issue 36), globs included. */
	assert_int_equal(kind("sub/.husky/pre-commit", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind("a/b/my.code-workspace", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind("a/.config/lefthook.yml", NULL),
	    FILEWRITE_PROTECTED);
	assert_int_equal(kind("a/.config/other.yml", NULL), FILEWRITE_PLAIN);
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
	static const char *const names[] = { "d/f", "d/link", "d/p", "d/new/x",
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
	struct stat	 st;
	int		 dfd, fd, sub, pfd;

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
	/* One name below a directory (beneath_child): a link is never
	   followed, to a file or to a directory; no "..". */
	sub = beneath_open(dfd, "d", O_RDONLY | O_DIRECTORY, 0, &cause);
	assert_true(sub >= 0);
	fd = beneath_child(sub, "f", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(beneath_child(sub, "link", O_RDONLY), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(beneath_child(sub, "link", O_RDONLY | O_NONBLOCK),
	    -1);
	assert_int_equal(beneath_child(dfd, "lnk", O_RDONLY | O_DIRECTORY),
	    -1);
	assert_true(errno == ELOOP || errno == ENOTDIR);
	assert_int_equal(beneath_child(sub, "..", O_RDONLY), -1);
	assert_int_equal(errno, EINVAL);
	/* A file to read (beneath_open_regular): regular, bounded, never
	   blocking on a FIFO, never through a link. */
	fd = openat(sub, "f", O_WRONLY | O_CLOEXEC);
	assert_int_equal(write(fd, "xy", 2), 2);
	close(fd);
	fd = beneath_open_regular(dfd, "d/f", 2, &st, &cause);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(beneath_open_regular(dfd, "d/f", 1, &st, &cause), -1);
	assert_int_equal(errno, EFBIG);
	free(cause);
	assert_int_equal(beneath_open_regular(dfd, "d/link", 1 << 20, &st,
	    &cause), -1);
	assert_int_equal(errno, ELOOP);
	free(cause);
	/* (Held open for writing here, so that a blocking open could not
	   hang this test: door-rulefile.sh checks that none blocks.) */
	assert_int_equal(mkfifoat(sub, "p", 0600), 0);
	pfd = openat(sub, "p", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	assert_true(pfd >= 0);
	assert_int_equal(beneath_open_regular(dfd, "d/p", 1 << 20, &st,
	    &cause), -1);
	close(pfd);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(cause, "a FIFO"));
	free(cause);
	assert_int_equal(beneath_open_regular(dfd, "d", 1 << 20, &st,
	    &cause), -1);
	assert_non_null(strstr(cause, "a directory"));
	free(cause);
	close(sub);
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

/* beneath_dispose removes only what was born after the run began: a file
   older than 'since' stays, whatever it is (undo's proof, beneath.h). */
static void
test_dispose(void **state)
{
	char		 dir[64], *cause = NULL;
	struct timespec	 since;
	struct stat	 st;
	int		 dfd, sub;

	(void)state;
	dfd = scratch(dir);
	assert_true(dfd >= 0);
	sub = beneath_open(dfd, "d", O_RDONLY | O_DIRECTORY, 0, &cause);
	assert_true(sub >= 0);
	assert_int_equal(clock_gettime(CLOCK_REALTIME, &since), 0);
	assert_int_equal(beneath_dispose(sub, "f", &since), 1);
	assert_int_equal(fstatat(sub, "f", &st, AT_SYMLINK_NOFOLLOW), 0);
	/* Born before the epoch's start: everything counts as the run's. */
	since.tv_sec = 0;
	since.tv_nsec = 0;
	if (beneath_dispose(sub, "f", &since) == 0)
		assert_int_equal(fstatat(sub, "f", &st, AT_SYMLINK_NOFOLLOW),
		    -1);
	close(sub);
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
	char		 dir[64], *cause = NULL, *big;
	const char	*msg;
	int		 dfd;

	(void)state;
	dfd = scratch(dir);
	close(dfd);
	/* No helper, no write. */
	setenv("BWGATE_HELPER", "/nonexistent/bwgate-helper", 1);
	assert_int_equal(filereq_build(dir, "d/f", "x", 1, &fr, &cause), -1);
	assert_non_null(strstr(cause, "need bwgate-helper"));
	free(cause);
	filereq_release(&fr);
	big = xasprintf("%s/bwgate-helper", getenv("BWGATE_BUILDDIR") != NULL ?
	    getenv("BWGATE_BUILDDIR") : ".");
	setenv("BWGATE_HELPER", big, 1);
	free(big);
	/* A new file: "was new", the content as it is, no shell anywhere. */
	assert_int_equal(filereq_build(dir, "d/new2/x.txt", "it's\n", 5, &fr,
	    &cause), 0);
	assert_true(fr.created);
	assert_string_equal(fr.rel, "d/new2/x.txt");
	assert_string_equal(fr.title, "write 5 bytes to d/new2/x.txt");
	assert_string_equal(fr.diff, "new file\n@@ -1,0 +1,1 @@\n+it's\n");
	msg = "bwgate-write 1\npath 12\nd/new2/x.txt\nwas new\n"
	    "content 5\nit's\n";
	assert_int_equal(fr.message_len, strlen(msg));
	assert_memory_equal(fr.message, msg, strlen(msg));
	filereq_release(&fr);
	/* An existing file: the SHA-256 the diff was made from. NUL bytes
	   are carried exactly; the diff says binary. */
	assert_int_equal(filereq_build(dir, "d/f", "a\0b", 3, &fr, &cause), 0);
	assert_false(fr.created);
	msg = "bwgate-write 1\npath 3\nd/f\nwas sha256 "
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	    "\ncontent 3\na\0b";
	assert_int_equal(fr.message_len, strlen(msg) + 2);
	assert_memory_equal(fr.message, msg, strlen(msg) + 2);
	assert_non_null(strstr(fr.diff, "binary content: 0 bytes before, 3 "
	    "after"));
	filereq_release(&fr);
	/* A control character in the path is refused, so is the way out. */
	assert_int_equal(filereq_build(dir, "d/x\n# $(touch /tmp/pwn)", "x",
	    1, &fr, &cause), -1);
	assert_non_null(strstr(cause, "control character (byte 0x0a)"));
	free(cause);
	filereq_release(&fr);
	assert_int_equal(filereq_build(dir, "d/link", "x", 1, &fr, &cause),
	    -1);
	assert_non_null(strstr(cause, "symbolic link"));
	free(cause);
	filereq_release(&fr);
	assert_int_equal(filereq_build(dir, "../x", "x", 1, &fr, &cause), -1);
	free(cause);
	filereq_release(&fr);
	big = xcalloc(1, FILEREQ_MAX + 2);
	memset(big, 'a', FILEREQ_MAX + 1);
	assert_int_equal(filereq_build(dir, "d/big", big, FILEREQ_MAX + 1,
	    &fr, &cause), -1);
	assert_non_null(strstr(cause, "carry at most"));
	free(cause);
	free(big);
	filereq_release(&fr);
	scratch_remove(dir);
}

/* The verdict of a write, without the danger table. */
static enum verdict
write_verdict(const char *rel, bool exec, const char *attention,
    const char **reason)
{
	struct classification	 cl = CLASSIFICATION_INIT;
	struct strv		 prot = STRV_INIT, att = STRV_INIT;
	static char		 why[256];
	enum verdict		 v;

	if (attention != NULL)
		strv_push(&att, attention);
	strv_push(&prot, "secret/");
	filereq_classify(NULL, rel, exec, &prot, &att, &cl);
	v = cl.verdict;
	snprintf(why, sizeof why, "%s", cl.reason);
	assert_string_equal(cl.rule, "file-write");
	assert_string_equal(cl.profile, "project");
	classification_release(&cl);
	strv_release(&prot);
	strv_release(&att);
	*reason = why;
	return v;
}

static void
test_classify(void **state)
{
	const char	*why;

	(void)state;
	assert_int_equal(write_verdict("src/a.c", false, NULL, &why),
	    VERDICT_ALLOW);
	assert_int_equal(write_verdict("a/.git/config", false, NULL, &why),
	    VERDICT_DENY);
	assert_non_null(strstr(why, "read-only"));
	assert_int_equal(write_verdict(".claude/settings.json", false, NULL,
	    &why), VERDICT_DENY);
	assert_int_equal(write_verdict("secret/k", false, NULL, &why),
	    VERDICT_DENY);
	assert_int_equal(write_verdict(".github/workflows/ci.yml", false,
	    NULL, &why), VERDICT_ASK);
	assert_int_equal(write_verdict("docs/x.md", false, "docs/", &why),
	    VERDICT_ASK);
	assert_non_null(strstr(why, "attention (docs/)"));
	assert_int_equal(write_verdict("build.sh", true, NULL, &why),
	    VERDICT_ASK);
	assert_non_null(strstr(why, "execute bit"));
}

static void
test_protocol_write(void **state)
{
	struct proto_msg	 m = PROTO_MSG_INIT;
	char			*cause = NULL;
	const char		*ok = "{\"type\":\"submit\",\"write\":"
				    "{\"path\":\"a/b\",\"content\":\"x\\ny\"}}";
	const char		*b64 = "{\"type\":\"submit\",\"write\":"
				    "{\"path\":\"a\",\"content_base64\":"
				    "\"YQBiAGM=\"}}";
	char			*line;
	cJSON			*j;
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
		{ "{\"type\":\"submit\",\"write\":{\"path\":\"a\","
		  "\"content\":\"\",\"content_base64\":\"\"}}", "either" },
		{ "{\"type\":\"submit\",\"write\":{\"path\":\"a\","
		  "\"content_base64\":\"!!\"}}", "base64" },
	};

	(void)state;
	assert_int_equal(proto_decode(ok, strlen(ok), &m, &cause), 0);
	assert_string_equal(m.write_path, "a/b");
	assert_string_equal(m.write_content, "x\ny");
	assert_int_equal(m.write_len, 3);
	assert_null(m.command);
	proto_msg_release(&m);
	/* Bytes JSON text cannot hold come as base64, exactly; and go out
	   so again. */
	m = (struct proto_msg)PROTO_MSG_INIT;
	assert_int_equal(proto_decode(b64, strlen(b64), &m, &cause), 0);
	assert_int_equal(m.write_len, 5);
	assert_memory_equal(m.write_content, "a\0b\0c", 5);
	j = proto_msg_json(&m);
	line = json_line(j);
	assert_non_null(strstr(line, "\"content_base64\":\"YQBiAGM=\""));
	free(line);
	cJSON_Delete(j);
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
		cmocka_unit_test(test_dispose),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_protocol_write),
	};

	/* The shipped tables of the source tree. */
	setenv("BWGATE_DATADIR", SRCDATADIR, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
