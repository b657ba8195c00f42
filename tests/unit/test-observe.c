/* test-observe: the pure parts of the violation observer (observe.c). */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <cmocka.h>

#include "observe.h"
#include "pathwalk.h"
#include "report.h"
#include "sandbox.h"
#include "xalloc.h"

/* A made-up sandbox: enough of a mount table for the decisions. */
static struct sandbox_mount test_mounts[] = {
	{ MOUNT_RO, "/usr", "system" },
	{ MOUNT_SYMLINK, "/bin", "usr-merge" },
	{ MOUNT_RO, "/etc", "system" },
	{ MOUNT_DEV, "/dev", "dev" },
	{ MOUNT_PROC, "/proc", "proc" },
	{ MOUNT_TMPFS, "/tmp", "tmp" },
	{ MOUNT_HIDDEN, "/home/u", "home" },
	{ MOUNT_RW, "/home/u/proj", "project" },
	{ MOUNT_PROTECTED, "/home/u/proj/.git", "protected" },
	{ MOUNT_PROTECTED, "/home/u/proj/.bwgate.json", "protected" },
};

static void
test_sandbox(struct sandbox *sb)
{
	memset(sb, 0, sizeof *sb);
	sb->mounts = test_mounts;
	sb->nmounts = sizeof test_mounts / sizeof *test_mounts;
}

static void
check_norm(const char *base, const char *path, const char *want)
{
	char	*got = pathwalk_normalise(base, path);

	assert_string_equal(got, want);
	free(got);
}

static void
test_normalise(void **state)
{
	check_norm("/a/b", "c/../d", "/a/b/d");
	check_norm("/x", "/etc//passwd", "/etc/passwd");
	check_norm("/", "..", "/");
	check_norm("/a", "../../..", "/");
	check_norm("/a", "./b/./c/", "/a/b/c");
	check_norm("/proj", ".", "/proj");
	check_norm(NULL, "rel", "/rel");
	check_norm("/p", "", "/p");
}

/* A fake sandbox view: a table of symlinks, and some missing paths. */
static const char *const test_links[][2] = {
	{ "/home/u/proj/out", "/etc/passwd" },
	{ "/home/u/proj/up", "../.." },
	{ "/home/u/proj/rel", "sub/file" },
	{ "/home/u/proj/dangling", "/etc/newfile" },
	{ "/bin", "usr/bin" },
	{ "/loop", "/loop" },
	{ "/home/u/proj/chain", "out" },
};

static ssize_t
fake_readlink(void *arg, const char *path, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof test_links / sizeof *test_links; i++) {
		if (strcmp(path, test_links[i][0]) == 0) {
			size_t n = strlen(test_links[i][1]);

			memcpy(buf, test_links[i][1], n < len ? n : len);
			return (ssize_t)(n < len ? n : len);
		}
	}
	if (strncmp(path, "/nonexistent", 12) == 0 ||
	    strcmp(path, "/home/u/proj/missing") == 0) {
		errno = ENOENT;
		return -1;
	}
	errno = EINVAL;
	return -1;
}

static void
check_resolve(const char *path, bool follow, const char *want,
    bool want_missing)
{
	bool	 missing;
	char	*got = pathwalk_resolve(path, follow, fake_readlink, NULL,
		    &missing);

	assert_string_equal(got, want);
	assert_int_equal(missing, want_missing);
	free(got);
}

static void
test_resolve(void **state)
{
	check_resolve("/home/u/proj/a.c", true, "/home/u/proj/a.c", false);
	/* A link in the project that points out is judged where it lands. */
	check_resolve("/home/u/proj/out", true, "/etc/passwd", false);
	check_resolve("/home/u/proj/chain", true, "/etc/passwd", false);
	/* ... unless the call does not follow the last component. */
	check_resolve("/home/u/proj/out", false, "/home/u/proj/out", false);
	check_resolve("/home/u/proj/dangling", true, "/etc/newfile", false);
	/* ".." after a link is taken from where the link led. */
	check_resolve("/home/u/proj/up/x", true, "/home/x", false);
	check_resolve("/home/u/proj/rel", true, "/home/u/proj/sub/file",
	    false);
	check_resolve("/bin/sh", true, "/usr/bin/sh", false);
	check_resolve("/bin", false, "/bin", false);
	/* A missing directory on the way, and a missing last name. */
	check_resolve("/nonexistent/dir/f", true, "/nonexistent/dir/f", true);
	check_resolve("/home/u/proj/missing", true, "/home/u/proj/missing",
	    false);
	/* Too many links: the call fails with ELOOP anyway. */
	check_resolve("/loop/x", true, "/loop/x", true);
}

static void
check_join(const char *base, const char *path, const char *want)
{
	char	*got = pathwalk_join(base, path);

	assert_string_equal(got, want);
	free(got);
}

/* The observer joins without collapsing "..": it is applied by the
   resolution, after the link before it (issue 25: "sl/../motd"). */
static void
test_join(void **state)
{
	char	*joined, *got;
	bool	 missing;

	check_join("/a/b", "c/../d", "/a/b/c/../d");
	check_join("/x", "/etc//./passwd", "/etc/passwd");
	check_join("/proj", ".", "/proj");
	check_join(NULL, "rel", "/rel");
	/* up -> ../.. (that is /home), so up/.. is / and up/../x is /x. */
	joined = pathwalk_join("/home/u/proj", "up/../x");
	got = pathwalk_resolve(joined, true, fake_readlink, NULL, &missing);
	assert_string_equal(got, "/x");
	free(got);
	free(joined);
	/* The lexical form would have said the project's own "x". */
	got = pathwalk_normalise("/home/u/proj", "up/../x");
	assert_string_equal(got, "/home/u/proj/x");
	free(got);
}

static int
decide(const char *path, enum observe_kind kind, bool exists,
    bool parent_exists, bool writes, enum violation_reason *reason)
{
	struct sandbox		sb;
	struct observe_target	t = { exists, parent_exists, writes };

	test_sandbox(&sb);
	return observe_decide(sandbox_mount_for(&sb, path), kind, &t, reason);
}

static void
test_decide(void **state)
{
	enum violation_reason	r;

	/* Writable places never count. */
	assert_int_equal(decide("/home/u/proj/a", OBSERVE_CREATE, false, true,
	    true, &r), 0);
	assert_int_equal(decide("/tmp/x", OBSERVE_CREATE, false, true, true,
	    &r), 0);
	/* ... but reaching below the private /tmp for a directory it does
	   not have fails (where the host may have one: never looked at). */
	assert_int_equal(decide("/tmp/hostdir/f", OBSERVE_CREATE, false, false,
	    true, &r), 1);
	assert_int_equal(r, VIOLATION_NOT_VISIBLE);
	assert_int_equal(decide("/tmp/nowhere/f", OBSERVE_CREATE, false, false,
	    true, &r), 1);
	/* A file the private /tmp does not have: ENOENT, as anywhere. */
	assert_int_equal(decide("/tmp/hostfile", OBSERVE_WRITE, false, true,
	    false, &r), 0);
	assert_int_equal(decide("/tmp/gone", OBSERVE_DELETE, false, true,
	    false, &r), 0);
	assert_int_equal(decide("/dev/null", OBSERVE_WRITE, true, true, true,
	    &r), 0);

	/* Read-only system paths. */
	assert_int_equal(decide("/etc/x", OBSERVE_CREATE, false, true, true,
	    &r), 1);
	assert_int_equal(r, VIOLATION_READ_ONLY);
	assert_int_equal(decide("/etc/passwd", OBSERVE_WRITE, true, true, true,
	    &r), 1);
	assert_int_equal(r, VIOLATION_READ_ONLY);
	/* O_CREAT on an existing file without write access: succeeds. */
	assert_int_equal(decide("/etc/passwd", OBSERVE_CREATE, true, true,
	    false, &r), 0);
	/* mkdir -p of an existing directory: EEXIST, not the sandbox. */
	assert_int_equal(decide("/etc", OBSERVE_CREATE_EXCL, true, true, false,
	    &r), 0);
	/* Creating below a missing directory: ENOENT, its own error. */
	assert_int_equal(decide("/etc/nodir/x", OBSERVE_CREATE, false, false,
	    true, &r), 0);
	/* chmod of something missing: ENOENT. */
	assert_int_equal(decide("/etc/nothing", OBSERVE_WRITE, false, true,
	    false, &r), 0);
	/* unlink on a read-only mount fails even if the name is missing. */
	assert_int_equal(decide("/etc/nothing", OBSERVE_DELETE, false, true,
	    false, &r), 1);
	assert_int_equal(r, VIOLATION_READ_ONLY);

	/* Protected paths in the project. */
	assert_int_equal(decide("/home/u/proj/.git/hooks/pre-commit",
	    OBSERVE_CREATE, false, true, true, &r), 1);
	assert_int_equal(r, VIOLATION_PROTECTED);
	assert_int_equal(decide("/home/u/proj/.bwgate.json", OBSERVE_WRITE,
	    true, true, true, &r), 1);
	assert_int_equal(r, VIOLATION_PROTECTED);
	assert_int_equal(decide("/home/u/proj/.git", OBSERVE_DELETE, true,
	    true, false, &r), 1);
	assert_int_equal(r, VIOLATION_PROTECTED);

	/* Hidden home: every write attempt counts, whatever the host has
	   there (a refusal never tells which host files exist). */
	assert_int_equal(decide("/home/u/.bashrc", OBSERVE_CREATE, false, true,
	    true, &r), 1);
	assert_int_equal(r, VIOLATION_NOT_VISIBLE);
	assert_int_equal(decide("/home/u/.cache/new/f", OBSERVE_CREATE, false,
	    false, true, &r), 1);
	assert_int_equal(decide("/home/u/.cache", OBSERVE_CREATE_EXCL, false,
	    true, false, &r), 1);
	assert_int_equal(decide("/home/u/newdir", OBSERVE_CREATE_EXCL, false,
	    true, false, &r), 1);
	assert_int_equal(r, VIOLATION_NOT_VISIBLE);
	assert_int_equal(decide("/home/u/gone", OBSERVE_DELETE, false, true,
	    false, &r), 1);
	/* What the sandbox itself shows there: O_CREAT without writing. */
	assert_int_equal(decide("/home/u/.bashrc", OBSERVE_CREATE, true, true,
	    false, &r), 0);

	/* A usr-merge link itself lives in the sandbox's throw-away root. */
	assert_int_equal(decide("/bin", OBSERVE_DELETE, true, true, false,
	    &r), 1);
	assert_int_equal(r, VIOLATION_NOT_VISIBLE);

	/* Under no mount at all (the sandbox's own root). */
	assert_int_equal(decide("/srv/data/x", OBSERVE_CREATE, false, false,
	    true, &r), 1);
	assert_int_equal(r, VIOLATION_NOT_VISIBLE);
	assert_int_equal(decide("/nowhere/x", OBSERVE_CREATE, false, false,
	    true, &r), 1);
}

static void
test_sockaddr(void **state)
{
	struct sockaddr_in	in;
	struct sockaddr_in6	in6;
	struct sockaddr_un	un;
	char			*what;
	bool			 lo;
	unsigned		 port;

	memset(&in, 0, sizeof in);
	in.sin_family = AF_INET;
	in.sin_port = htons(8080);
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	assert_int_equal(observe_sockaddr((void *)&in, sizeof in, &what, &lo,
	    &port), 1);
	assert_string_equal(what, "127.0.0.1:8080");
	assert_true(lo);
	assert_int_equal(port, 8080);
	free(what);

	inet_pton(AF_INET, "192.0.2.7", &in.sin_addr);
	in.sin_port = htons(443);
	assert_int_equal(observe_sockaddr((void *)&in, sizeof in, &what, &lo,
	    &port), 1);
	assert_string_equal(what, "192.0.2.7:443");
	assert_false(lo);
	free(what);
	/* Too short to be an address. */
	assert_int_equal(observe_sockaddr((void *)&in, 4, &what, &lo, &port),
	    0);

	memset(&in6, 0, sizeof in6);
	in6.sin6_family = AF_INET6;
	in6.sin6_port = htons(53);
	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	assert_int_equal(observe_sockaddr((void *)&in6, sizeof in6, &what, &lo,
	    &port), 1);
	assert_string_equal(what, "[::1]:53");
	assert_true(lo);
	free(what);
	inet_pton(AF_INET6, "::ffff:127.0.0.5", &in6.sin6_addr);
	assert_int_equal(observe_sockaddr((void *)&in6, sizeof in6, &what, &lo,
	    &port), 1);
	assert_true(lo);
	free(what);
	inet_pton(AF_INET6, "2001:db8::1", &in6.sin6_addr);
	assert_int_equal(observe_sockaddr((void *)&in6, sizeof in6, &what, &lo,
	    &port), 1);
	assert_false(lo);
	free(what);

	memset(&un, 0, sizeof un);
	un.sun_family = AF_UNIX;
	strcpy(un.sun_path, "/run/x.sock");
	assert_int_equal(observe_sockaddr((void *)&un, sizeof un, &what, &lo,
	    &port), 0);
}

static void
check_line(const char *line, bool network, int want, const char *path,
    const char *op)
{
	char		*got;
	const char	*gop, *cause;

	assert_int_equal(observe_parse_line(line, network, &got, &gop, &cause),
	    want);
	if (want) {
		assert_string_equal(got, path);
		assert_string_equal(gop, op);
	} else
		assert_null(got);
	free(got);
}

static void
test_parse_line(void **state)
{
	check_line("touch: cannot touch '/etc/x': Read-only file system",
	    false, 1, "/etc/x", "create");
	check_line("touch: cannot touch \xe2\x80\x98/etc/y\xe2\x80\x99: "
	    "Read-only file system", false, 1, "/etc/y", "create");
	check_line("mkdir: cannot create directory '/etc/d': Read-only file "
	    "system", false, 1, "/etc/d", "mkdir");
	check_line("rm: cannot remove '/etc/passwd': Read-only file system",
	    false, 1, "/etc/passwd", "delete");
	check_line("mv: cannot move 'a' to '/etc/b': Read-only file system",
	    false, 1, "/etc/b", "rename");
	check_line("bash: line 1: /etc/z: Read-only file system", false, 1,
	    "/etc/z", "write");
	check_line("sh: 1: cannot create /etc/q: Read-only file system", false,
	    1, "/etc/q", "create");
	check_line("chmod: changing permissions of '/etc/hosts': Read-only "
	    "file system", false, 1, "/etc/hosts", "chmod");
	check_line("OSError: [Errno 30] Read-only file system: '/usr/x'",
	    false, 1, "/usr/x", "write");
	check_line("PermissionError: [Errno 13] Permission denied: '/root/f'",
	    false, 1, "/root/f", "write");
	check_line("error: could not lock config file .git/config: Read-only "
	    "file system", false, 1, ".git/config", "write");
	check_line("fatal: Unable to create '/p/.git/index.lock': Read-only "
	    "file system.", false, 1, "/p/.git/index.lock", "create");
	check_line("/usr/bin/ld: cannot open output file /etc/a.out: "
	    "Read-only file system", false, 1, "/etc/a.out", "write");
	check_line("tee: /etc/t: Read-only file system", false, 1, "/etc/t",
	    "write");
	/* Reading something missing is not a refusal; creating can be. */
	check_line("cat: /home/u/.bashrc: No such file or directory", false,
	    0, NULL, NULL);
	check_line("touch: cannot touch '/srv/d/x': No such file or "
	    "directory", false, 1, "/srv/d/x", "create");
	/* Network errors count only while the network is off. */
	check_line("curl: (6) Could not resolve host: example.com", false, 1,
	    "example.com", "connect");
	check_line("curl: (6) Could not resolve host: example.com", true, 0,
	    NULL, NULL);
	check_line("ssh: Could not resolve hostname git.example: Temporary "
	    "failure in name resolution", false, 1, "git.example", "connect");
	check_line("ping: connect: Network is unreachable", false, 1,
	    "network", "connect");
	/* Ordinary failures. */
	check_line("make: *** [Makefile:3: all] Error 1", false, 0, NULL,
	    NULL);
	check_line("", false, 0, NULL, NULL);
	check_line("error: expected ';' before '}' token", false, 0, NULL,
	    NULL);
}

static void
test_infer(void **state)
{
	struct sandbox		sb;
	struct violations	vs = { NULL, 0 };
	const char		*err =
	    "touch: cannot touch '/etc/x': Read-only file system\n"
	    "touch: cannot touch '/etc/x': Read-only file system\n"
	    "error: could not lock config file .git/config: Read-only file "
	    "system\n"
	    "mkdir: cannot create directory 'build': Permission denied\n"
	    "cp: cannot create regular file '/usr/y': Permission denied\n"
	    "curl: (6) Could not resolve host: example.com\n"
	    "main.c:3: error: unknown type name 'foo'\n"
	    "touch: cannot touch '/tmp/z': No such file or directory\n"
	    "tee: /etc/w: Read-only file system";

	test_sandbox(&sb);
	observe_infer(err, strlen(err), &sb, "/home/u/proj", false, &vs);
	assert_int_equal(vs.n, 5);
	assert_string_equal(vs.v[0].path, "/etc/x");
	assert_string_equal(vs.v[0].operation, "create");
	assert_int_equal(vs.v[0].reason, VIOLATION_READ_ONLY);
	assert_int_equal(vs.v[0].count, 2);
	assert_false(vs.v[0].exact);
	assert_string_equal(vs.v[1].path, "/home/u/proj/.git/config");
	assert_int_equal(vs.v[1].reason, VIOLATION_PROTECTED);
	/* "Permission denied" in the writable project is its own problem. */
	assert_string_equal(vs.v[2].path, "/usr/y");
	assert_int_equal(vs.v[2].reason, VIOLATION_READ_ONLY);
	assert_string_equal(vs.v[3].path, "example.com");
	assert_int_equal(vs.v[3].reason, VIOLATION_NETWORK);
	/* The last line needs no newline. */
	assert_string_equal(vs.v[4].path, "/etc/w");
	violations_release(&vs);

	/* Network on: resolver errors are the command's own. */
	observe_infer(err, strlen(err), &sb, "/home/u/proj", true, &vs);
	assert_int_equal(vs.n, 4);
	violations_release(&vs);

	/* A plain failure has none. */
	observe_infer("boom\n", 5, &sb, "/home/u/proj", false, &vs);
	assert_int_equal(vs.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_sockaddr),
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_infer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
