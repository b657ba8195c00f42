/*
 * fuzz-mcp: fuzz `bwgate mcp`'s message handling (cmd-mcp.c mcp_line and
 * the tools behind it) with mutated JSON-RPC lines. The project is a
 * scratch directory with a file and a symbolic link out; the console
 * socket does not exist, so runs and writes end in tool errors at once.
 * Replies go to /dev/null. Built plainly it runs a deterministic mutation
 * loop and prints TAP; with -DFUZZ_LIBFUZZER it is a libFuzzer target.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct mcp	 fuzz_m;
static char		 fuzz_dir[] = "/tmp/fuzz-mcp.XXXXXX";

/* The scratch project, stdout to /dev/null (once). */
static void
fuzz_setup(void)
{
	char	*p;
	int	 fd;

	if (fuzz_m.project != NULL)
		return;
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	p = xasprintf("%s/a.txt", fuzz_dir);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || write(fd, "one\ntwo\n", 8) != 8)
		abort();
	close(fd);
	free(p);
	p = xasprintf("%s/out", fuzz_dir);
	if (symlink("/etc", p) != 0)
		abort();
	free(p);
	fuzz_m.project = xstrdup(fuzz_dir);
	fuzz_m.project_fd = open(fuzz_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fuzz_m.agent = "fuzz";
	fuzz_m.socket = "/nonexistent/bwgate-fuzz.sock";
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || dup2(fd, 1) < 0)
		abort();
	close(fd);
}

/* Remove the scratch project. */
static void
fuzz_teardown(void)
{
	char	*p;

	p = xasprintf("%s/a.txt", fuzz_dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/out", fuzz_dir);
	unlink(p);
	free(p);
	rmdir(fuzz_dir);
}

/* One input, as one line. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	mcp_line(&fuzz_m, (const char *)data, size);
	if (fuzz_m.calls != NULL)
		abort();	/* no console: nothing may stay in flight */
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	    "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\","
	    "\"offset\":2,\"limit\":1}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"edit_file\",\"arguments\":{\"path\":\"a.txt\","
	    "\"old_text\":\"one\",\"new_text\":\"1\",\"replace_all\":true}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"write_file\",\"arguments\":{\"path\":\"out/x\","
	    "\"content\":\"\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"list_directory\",\"arguments\":{\"path\":\".\"}}}",
	"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
	    "{\"name\":\"run\",\"arguments\":{\"command\":\"ls\",\"cwd\":"
	    "\"../\",\"timeout\":5},\"_meta\":{\"progressToken\":7}}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	    "\"params\":{\"requestId\":6}}",
	"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}",
};

static const char *const tokens[] = { "\"", "{", "}", "[", "]", ",", ":",
	    "\\u0000", "\xff", "null", "-1", "1e999", "\"..\"", "\"/\"",
	    "\"id\"", "\"params\"", "\"arguments\"", "\"path\"", "true", "0" };

static const struct fuzz_corpus corpus = {
	seeds, sizeof seeds / sizeof *seeds,
	tokens, sizeof tokens / sizeof *tokens
};

/* The mutation loop, with TAP on the saved stdout. */
int
main(void)
{
	uint8_t	 buf[4096];
	long	 iterations = 20000;
	int	 tap;
	char	*env = getenv("FUZZ_ITERATIONS");

	if (env != NULL)
		iterations = atol(env);
	printf("1..1\n");
	fflush(stdout);
	if ((tap = dup(1)) < 0)
		abort();
	fuzz_setup();
	for (long i = 0; i < iterations; i++) {
		size_t n = fuzz_mutate(&corpus, (size_t)i, buf, sizeof buf);

		LLVMFuzzerTestOneInput(buf, n);
	}
	fuzz_teardown();
	/* stdout is /dev/null now: the TAP line goes to the saved one. */
	dprintf(tap, "ok 1 - %ld mutated JSON-RPC lines handled without a "
	    "crash\n", iterations);
	return 0;
}
#endif
