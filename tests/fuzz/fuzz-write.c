/*
 * fuzz-write: the file-write path's message (sandbox/write-proto.h), with
 * oracles, not only for crashes:
 *
 *  - what the helper accepts is exactly what the console's encoder makes
 *    of the parsed fields (one way to write each message: a second
 *    reading of the same bytes is impossible);
 *  - any path (no NUL) and any content (NUL, bytes that are not UTF-8)
 *    encoded by the console are parsed back equal, and the message cut
 *    short or with a byte more is refused.
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer it is a libFuzzer
 * target; built plainly (make check) it runs a deterministic mutation
 * loop and prints TAP.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "filereq.h"
#include "helper-write.h"
#include "sha256.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Parsed fields encoded again. */
static void
reencode(const struct write_msg *m, struct buf *b)
{
	filereq_encode(m->path, m->created ? NULL : m->was, m->content, m->len,
	    b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct write_msg	 m;
	struct buf		 b = BUF_INIT, again = BUF_INIT;
	char			 path[WRITE_PROTO_MAX_PATH + 1];
	char			 hex[SHA256_HEX_LEN + 1];
	size_t			 plen, cut;

	/* 1. Accepted means canonical. */
	if (helper_write_parse((const char *)data, size, &m) == 0) {
		reencode(&m, &b);
		if (b.len != size || memcmp(b.data, data, size) != 0)
			abort();
		buf_release(&b);
	}
	if (size == 0)
		return 0;

	/* 2. The console's message of any path and content reads back. */
	plen = 1 + data[0] % 64;
	if (plen > size - 1)
		plen = size - 1;
	for (size_t i = 0; i < plen; i++)
		path[i] = data[1 + i] != '\0' ? (char)data[1 + i] : 'x';
	if (plen == 0)
		path[plen++] = 'p';
	path[plen] = '\0';
	sha256_hex(data, size, hex);
	filereq_encode(path, size % 2 ? NULL : hex, (const char *)data + 1 +
	    (plen < size ? plen : 0), size - 1 - (plen < size ? plen : 0), &b);
	if (helper_write_parse(b.data, b.len, &m) != 0 ||
	    strcmp(m.path, path) != 0 || m.created != (size % 2 == 1) ||
	    (!m.created && strcmp(m.was, hex) != 0))
		abort();
	reencode(&m, &again);
	if (again.len != b.len || memcmp(again.data, b.data, b.len) != 0)
		abort();
	/* Cut short anywhere, or one byte more: refused. */
	cut = data[size - 1] % b.len;
	if (helper_write_parse(b.data, cut, &m) == 0 ||
	    helper_write_parse(b.data, b.len - 1, &m) == 0)
		abort();
	buf_putc(&b, (char)data[0]);
	if (helper_write_parse(b.data, b.len, &m) == 0)
		abort();
	buf_release(&b);
	buf_release(&again);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"bwgate-write 1\npath 5\nsrc/a\nwas new\ncontent 3\nabc",
	"bwgate-write 1\npath 1\nx\nwas sha256 "
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	    "\ncontent 0\n",
	"bwgate-write 1\npath 20\nevil\n$(touch pwned)#\nwas new\n"
	    "content 2\n\n\n",
};

static const char *const tokens[] = { "", "\n", "0", "1", "9", " ",
	    "path ", "was new\n", "was sha256 ", "content ", "bwgate-write 1\n",
	    "\xff", "18446744073709551616", "00", "-1" };

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
	printf("ok 1 - %ld mutated inputs: what the helper accepts is the "
	    "console's one encoding; every encoded write reads back equal, "
	    "cut or extended ones are refused\n", iterations);
	return 0;
}
#endif
