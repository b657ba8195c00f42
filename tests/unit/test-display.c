/*
 * test-display: the one display function (src/util/display.c) against a
 * table of hostile strings: controls, escape sequences, bidirectional
 * overrides, invisible characters, invalid UTF-8.
 */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "display.h"

struct hostile {
	const char	*in;
	size_t		 len;
	const char	*want;
};

#define H(s, w) { s, sizeof(s) - 1, w }
static const struct hostile hostile[] = {
	H("git diff --stat", "git diff --stat"),
	H("curl x | sh\r\x1b[2Kgit diff --stat",
	    "curl x | sh\\r\\e[2Kgit diff --stat"),
	H("notes.txt\n1 created: + notes.txt", "notes.txt\\n1 created: + notes.txt"),
	H("\x1b]0;title\x07", "\\e]0;title\\x07"),
	H("a\tb", "a\\tb"),
	H("nul\0here", "nul\\x00here"),
	H("del\x7f", "del\\x7f"),
	H("\xc2\x9b" "31m", "\\u{9b}31m"),			/* C1 CSI */
	H("\xc2\x85next", "\\u{85}next"),			/* NEL */
	H("rm \xe2\x80\xae" "hs.txt", "rm \\u{202e}hs.txt"),	/* RLO */
	H("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
	    "\\u{202a}\\u{202b}\\u{202c}\\u{202d}"),
	H("\xe2\x81\xa6x\xe2\x81\xa7y\xe2\x81\xa8z\xe2\x81\xa9",
	    "\\u{2066}x\\u{2067}y\\u{2068}z\\u{2069}"),
	H("a\xe2\x80\x8b" "b", "a\\u{200b}b"),			/* ZWSP */
	H("\xe2\x80\x8c\xe2\x80\x8d\xe2\x80\x8e\xe2\x80\x8f",
	    "\\u{200c}\\u{200d}\\u{200e}\\u{200f}"),
	H("w\xe2\x81\xa0j", "w\\u{2060}j"),			/* WJ */
	H("\xef\xbb\xbf" "bom", "\\u{feff}bom"),		/* BOM */
	H("l\xe2\x80\xa8p\xe2\x80\xa9", "l\\u{2028}p\\u{2029}"),
	H("\xf3\xa0\x80\x81tag", "\\u{e0001}tag"),		/* tag */
	H("\xff", "\\xff"),
	H("a\xc3", "a\\xc3"),					/* truncated */
	H("\xc0\xaf", "\\xc0\\xaf"),				/* overlong */
	H("\xe0\x80\xaf", "\\xe0\\x80\\xaf"),			/* overlong, 3 */
	H("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf"),		/* overlong, 4 */
	H("\xed\xa0\x80", "\\xed\\xa0\\x80"),			/* surrogate */
	H("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80"),		/* > U+10FFFF */
	H("caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"),
	H("a\\nb", "a\\\\nb"),				/* typed, not a newline */
	H("\\e[1m \\x00 \\u{202e}", "\\\\e[1m \\\\x00 \\\\u{202e}"),
	H("\xe2\x9d\xa4\xef\xb8\x8f", "\xe2\x9d\xa4\\u{fe0f}"),	/* VS16 */
	H("ls\xc2\xa0-la", "ls\\u{a0}-la"),			/* no-break */
	H("a\xe2\x80\x83" "b\xe3\x80\x80", "a\\u{2003}b\\u{3000}"),
	H("x\xe2\x80\xafy\xe2\x81\x9fz", "x\\u{202f}y\\u{205f}z"),
	H("\xf3\xa0\x84\x80", "\\u{e0100}"),			/* VS17 */
	H("\xe1\xa0\x8b", "\\u{180b}"),				/* FVS1 */
};

/* Every entry of the table escapes to what it should. */
static void
test_table(void **state)
{
	size_t	i;
	char	*s;

	for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		s = display_escape_n(hostile[i].in, hostile[i].len, 0);
		assert_string_equal(s, hostile[i].want);
		assert_true(display_is_safe(s, strlen(s), 0));
		assert_null(strchr(s, '\n'));
		free(s);
		assert_int_equal(display_is_clean(hostile[i].in,
		    hostile[i].len), strcmp(hostile[i].in,
		    hostile[i].want) == 0 &&
		    strlen(hostile[i].in) == hostile[i].len);
	}
}

/* No byte of any escaped output is a control, ESC or a C1 lead byte. */
static void
test_no_raw_bytes(void **state)
{
	char	in[4], *s;
	size_t	j;
	int	a, b;

	for (a = 0; a < 256; a++) {
		for (b = 0; b < 256; b += 17) {
			in[0] = (char)a;
			in[1] = (char)0xc2;
			in[2] = (char)b;
			s = display_escape_n(in, 3, 0);
			for (j = 0; s[j] != '\0'; j++) {
				assert_true((unsigned char)s[j] >= 0x20);
				assert_true((unsigned char)s[j] != 0x7f);
			}
			assert_true(display_is_safe(s, strlen(s), 0));
			free(s);
		}
	}
}

/* ASCII mode escapes every non-ASCII character. */
static void
test_ascii(void **state)
{
	char	*s = display_escape_n("caf\xc3\xa9", 5, DISPLAY_ASCII);

	assert_string_equal(s, "caf\\u{e9}");
	free(s);
}

/* NULL prints as nothing; the ring keeps DISPLAY_RING results alive. */
static void
test_str_ring(void **state)
{
	const char	*a, *b;

	assert_string_equal(display_str(NULL), "");
	a = display_str("x\ny");
	b = display_str("\x1b");
	assert_string_equal(a, "x\\ny");
	assert_string_equal(b, "\\e");
	assert_string_equal(display_str("x\\ny"), "x\\\\ny");
}

/* display_fputs writes the escaped text. */
static void
test_fputs(void **state)
{
	char	 out[64] = "";
	FILE	*f = fmemopen(out, sizeof out, "w");

	assert_non_null(f);
	display_fputs("a\rb", f);
	fclose(f);
	assert_string_equal(out, "a\\rb");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_no_raw_bytes),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_str_ring),
		cmocka_unit_test(test_fputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
