/*
 * fuzz-observe: fuzz the violation observer's parsers: error-output
 * inference (the command's own text), path normalisation and symlink
 * resolution (paths the command chose).
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer it is a libFuzzer
 * target. Built plainly (as 'make check' does) it runs a deterministic
 * mutation loop over a seed corpus, or reads the files named on the
 * command line, and prints TAP.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe.h"
#include "pathwalk.h"
#include "report.h"
#include "sandbox.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct sandbox_mount fuzz_mounts[] = {
	{ MOUNT_RO, "/usr", "system" },
	{ MOUNT_RO, "/etc", "system" },
	{ MOUNT_TMPFS, "/tmp", "tmp" },
	{ MOUNT_HIDDEN, "/home/u", "home" },
	{ MOUNT_RW, "/home/u/p", "project" },
	{ MOUNT_PROTECTED, "/home/u/p/.git", "protected" },
};

/* A normalised path: absolute, no empty, "." or ".." components. */
static void
check_normal(const char *p)
{
	if (p[0] != '/' || strstr(p, "//") != NULL ||
	    strstr(p, "/./") != NULL || strstr(p, "/../") != NULL)
		abort();
	if (strcmp(p, "/") != 0) {
		size_t n = strlen(p);

		if (p[n - 1] == '/' || (n >= 2 && strcmp(p + n - 2, "/.") == 0) ||
		    (n >= 3 && strcmp(p + n - 3, "/..") == 0))
			abort();
	}
}

/* Symlinks of a made-up sandbox: some loop, some point up or out. */
static ssize_t
fuzz_readlink(void *arg, const char *path, char *buf, size_t len)
{
	static const char *const links[][2] = {
		{ "/home/u/p/a", "../b" }, { "/home/u/b", "/etc" },
		{ "/l1", "/l2" }, { "/l2", "l1" }, { "/home/u/p/up", "../../.." },
		{ "/home/u/p/x", "x/../x" },
	};

	for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
		if (strcmp(path, links[i][0]) == 0) {
			size_t n = strlen(links[i][1]);

			n = n < len ? n : len;
			memcpy(buf, links[i][1], n);
			return (ssize_t)n;
		}
	}
	errno = strncmp(path, "/no", 3) == 0 ? ENOENT : EINVAL;
	return -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sandbox		 sb;
	struct violations	 vs = { NULL, 0 };
	char			*text, *p, *r;
	bool			 missing;

	memset(&sb, 0, sizeof sb);
	sb.mounts = fuzz_mounts;
	sb.nmounts = sizeof fuzz_mounts / sizeof *fuzz_mounts;
	text = xstrndup((const char *)data, size);

	observe_infer((const char *)data, size, &sb, "/home/u/p", false, &vs);
	for (size_t i = 0; i < vs.n; i++) {
		if (vs.v[i].path == NULL || vs.v[i].path[0] == '\0' ||
		    vs.v[i].count == 0 || vs.v[i].exact)
			abort();
		if (vs.v[i].reason != VIOLATION_NETWORK)
			check_normal(vs.v[i].path);
	}
	violations_release(&vs);

	/* The text as a path the command named. */
	p = pathwalk_normalise("/home/u/p", text);
	check_normal(p);
	r = pathwalk_resolve(p, size % 2 == 0, fuzz_readlink, NULL, &missing);
	check_normal(r);
	free(r);
	free(p);
	free(text);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"touch: cannot touch '/etc/x': Read-only file system\n",
	"mv: cannot move 'a' to \xe2\x80\x98/etc/b\xe2\x80\x99: "
	    "Read-only file system",
	"sh: 1: cannot create ../../etc/q: Read-only file system\n"
	    "curl: (6) Could not resolve host: example.com\n",
	"OSError: [Errno 30] Read-only file system: '/usr/x'\n"
	    "PermissionError: [Errno 13] Permission denied: \"\"",
	"a/../b/./c//d/..",
	"up/../../a/x/y",
	"/l1/z",
	"bash: line 1: : Read-only file system\n: No such file or directory",
	"cannot create directory '': Read-only file system",
};

static const char *const tokens[] = { "'", "\"", ": ", "/", "..", ".",
	    "//", "\n", "\xe2\x80\x98", "\xe2\x80\x99", "\xe2\x80", "\0",
	    "Read-only file system", "Permission denied", "cannot create ",
	    "No such file or directory", "Could not resolve host: ",
	    "[Errno 30] ", "(" };

static const struct fuzz_corpus corpus = {
	seeds, sizeof seeds / sizeof *seeds,
	tokens, sizeof tokens / sizeof *tokens
};

int
main(int argc, char **argv)
{
	long	 iterations = fuzz_run(argc, argv, &corpus, 100000,
		    LLVMFuzzerTestOneInput);

	if (iterations < 0)
		return 0;
	printf("ok 1 - %ld mutated inputs parsed and resolved without a "
	    "crash\n", iterations);
	return 0;
}
#endif
