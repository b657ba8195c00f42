/*
 * fuzz-protocol: fuzz the console protocol decoder and line reader.
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer it is a libFuzzer
 * target. Built plainly (as 'make check' does) it runs a deterministic
 * mutation loop over a seed corpus, or decodes the files named on the
 * command line, and prints TAP.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "protocol.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Decode one input as a line, and feed it to a reader in pieces. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_msg	 m = PROTO_MSG_INIT;
	struct proto_reader	 rd = PROTO_READER_INIT;
	char			*cause = NULL, *line;
	size_t			 len, off = 0, step;

	if (proto_decode((const char *)data, size, &m, &cause) == 0) {
		if (m.type == PROTO_SUBMIT && m.command == NULL &&
		    m.argv.n == 0 && (m.write_path == NULL ||
		    m.write_content == NULL))
			abort();	/* a submit always has a command */
		if (cause != NULL)
			abort();
	} else if (cause == NULL || strchr(cause, '\n') != NULL)
		abort();		/* errors are one line */
	free(cause);
	proto_msg_release(&m);

	rd.max = 64;
	while (off < size) {
		step = 1 + (data[off] % 7);
		if (step > size - off)
			step = size - off;
		proto_reader_feed(&rd, data + off, step);
		off += step;
		while (proto_reader_next(&rd, &line, &len) != PROTO_LINE_NONE)
			;
	}
	proto_reader_release(&rd);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"{\"v\":1,\"type\":\"submit\",\"tag\":\"a\",\"command\":\"ls -l\","
	    "\"cwd\":\"/p\",\"timeout\":5,\"network\":true,\"rw\":[\"/x\"]}",
	"{\"type\":\"submit\",\"argv\":[\"echo\",\"h\\u00e9\"],\"agent\":\"b\"}",
	"{\"type\":\"approve\",\"id\":3,\"note\":\"ok\",\"hide\":[\"/s\"]}",
	"{\"type\":\"deny\",\"id\":1}\n{\"type\":\"list\"}\n",
	"{\"type\":\"cancel\",\"id\":4294967295,\"tag\":1e308}",
	"{\"type\":\"kill\",\"id\":[[[[[[[[[[1]]]]]]]]]]}",
	"{\"type\":\"submit\",\"write\":{\"path\":\"a/b\",\"content\":"
	    "\"x\\ny\"}}",
};

static const char *const tokens[] = { "\"", "{", "}", "[", "]", ",", ":",
	    "\\u0000", "\xff", "\xc3", "\xe2\x82", "null", "-1", "1e999",
	    "\"type\"", "\"id\"", "\n", "\\", "true", "\"write\"",
	    "\"path\"" };

static const struct fuzz_corpus corpus = {
	seeds, sizeof seeds / sizeof *seeds,
	tokens, sizeof tokens / sizeof *tokens
};

int
main(int argc, char **argv)
{
	long	 iterations = fuzz_run(argc, argv, &corpus, 200000,
		    LLVMFuzzerTestOneInput);

	if (iterations < 0)
		return 0;
	printf("ok 1 - %ld mutated inputs decoded without a crash\n",
	    iterations);
	return 0;
}
#endif
