/*
 * display: escape untrusted text for a terminal (see display.h).
 *
 * The UTF-8 decoder is strict (no overlong forms, no surrogates, nothing
 * above U+10FFFF) so that what the escaper lets through is exactly what
 * the terminal will decode; everything else is escaped byte by byte.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "display.h"
#include "xalloc.h"

/* Decode one UTF-8 character at s; its length (1-4), or 0 if invalid. */
size_t
display_utf8_decode(const char *str, size_t len, uint32_t *cp)
{
	const unsigned char	*s = (const unsigned char *)str;
	size_t			 n, i;
	uint32_t		 c, min;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * Code points that act on a terminal or hide or reorder the text around
 * them (Trojan Source, CVE-2021-42574): controls, bidirectional marks,
 * overrides and isolates, zero-width and other invisible format
 * characters, variation selectors, line separators, tag characters, and
 * the spaces that look like a plain space but are not one.
 */
bool
display_is_hidden(uint32_t c)
{
	return c < 0x20 || c == 0x7f ||
	    (c >= 0x80 && c <= 0xa0) ||			/* C1, no-break space */
	    c == 0xad ||				/* soft hyphen */
	    c == 0x034f || c == 0x061c || c == 0x115f || c == 0x1160 ||
	    c == 0x1680 || c == 0x17b4 || c == 0x17b5 ||
	    (c >= 0x180b && c <= 0x180f) ||		/* Mongolian FVS */
	    (c >= 0x2000 && c <= 0x200f) ||		/* spaces, zero width */
	    (c >= 0x2028 && c <= 0x202f) ||		/* separators, bidi */
	    (c >= 0x205f && c <= 0x206f) ||		/* joiners, isolates */
	    c == 0x2800 || c == 0x3000 || c == 0x3164 ||
	    (c >= 0xfe00 && c <= 0xfe0f) ||		/* variation sel. */
	    c == 0xfeff || c == 0xffa0 ||
	    (c >= 0xfff0 && c <= 0xfffb) ||		/* annotations */
	    (c >= 0x13430 && c <= 0x1343f) ||		/* hieroglyph fmt */
	    (c >= 0x1bca0 && c <= 0x1bca3) ||		/* shorthand fmt */
	    (c >= 0x1d173 && c <= 0x1d17a) ||		/* musical fmt */
	    (c >= 0xe0000 && c <= 0xe0fff);		/* tags, var. sel. */
}

static bool	display_needs_escape(uint32_t, int);

/* Append one escaped character (a hidden or unprintable code point). */
static void
display_escape_cp(struct buf *b, uint32_t c)
{
	switch (c) {
	case '\\':
		buf_puts(b, "\\\\");
		return;
	case 0x1b:
		buf_puts(b, "\\e");
		return;
	case '\n':
		buf_puts(b, "\\n");
		return;
	case '\r':
		buf_puts(b, "\\r");
		return;
	case '\t':
		buf_puts(b, "\\t");
		return;
	}
	if (c < 0x80)
		buf_printf(b, "\\x%02x", (unsigned)c);
	else
		buf_printf(b, "\\u{%x}", (unsigned)c);
}

/* Append s[0..len) to b with everything a terminal must not see escaped. */
void
display_escape_buf(struct buf *b, const char *s, size_t len, int flags)
{
	size_t		i = 0, n;
	uint32_t	c;

	buf_grow(b, len);
	while (i < len) {
		n = display_utf8_decode(s + i, len - i, &c);
		if (n == 0) {
			buf_printf(b, "\\x%02x", (unsigned char)s[i]);
			i++;
			continue;
		}
		if (c == '\\' || display_needs_escape(c, flags))
			display_escape_cp(b, c);
		else
			buf_add(b, s + i, n);
		i += n;
	}
}

/* Escape len bytes of s with flags, as a new string. */
char *
display_escape_n(const char *s, size_t len, int flags)
{
	struct buf	b = BUF_INIT;

	display_escape_buf(&b, s != NULL ? s : "", s != NULL ? len : 0, flags);
	if (b.data == NULL)
		return xstrdup("");
	return buf_detach(&b);
}

/* Escape a string for a terminal, as a new string. */
char *
display_escape(const char *s)
{
	return display_escape_n(s, s != NULL ? strlen(s) : 0, 0);
}

/* Escape into the next buffer of a per-thread ring, for printf. */
const char *
display_str(const char *s)
{
	static __thread struct buf	ring[DISPLAY_RING];
	static __thread unsigned	next;
	struct buf			*b = &ring[next++ % DISPLAY_RING];

	buf_reset(b);
	if (s != NULL)
		display_escape_buf(b, s, strlen(s), 0);
	return b->data != NULL ? b->data : "";
}

/* Write s escaped to a stream. */
void
display_fputs(const char *s, FILE *f)
{
	struct buf	b = BUF_INIT;

	if (s == NULL)
		return;
	display_escape_buf(&b, s, strlen(s), 0);
	if (b.len > 0)
		fwrite(b.data, 1, b.len, f);
	buf_release(&b);
}

/* Does c need an escape under flags (or a backslash at all)? */
static bool
display_needs_escape(uint32_t c, int flags)
{
	return display_is_hidden(c) ||
	    (c >= 0x80 && (flags & DISPLAY_ASCII)) ||
	    (c >= 0x80 && (flags & DISPLAY_WIDTH) &&
	    wcwidth((wchar_t)c) < 0);
}

/* Would escaping change nothing? */
bool
display_is_clean(const char *s, size_t len)
{
	size_t		i = 0, n;
	uint32_t	c;

	while (i < len) {
		n = display_utf8_decode(s + i, len - i, &c);
		if (n == 0 || c == '\\' || display_is_hidden(c))
			return false;
		i += n;
	}
	return true;
}

/* Is s safe to print as it is (what display_escape_buf() makes)? */
bool
display_is_safe(const char *s, size_t len, int flags)
{
	size_t		i = 0, n;
	uint32_t	c;

	while (i < len) {
		n = display_utf8_decode(s + i, len - i, &c);
		if (n == 0 || display_needs_escape(c, flags))
			return false;
		i += n;
	}
	return true;
}
