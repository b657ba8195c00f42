/*
 * jsoncheck: the string tokens of JSON text checked before cJSON sees them
 * (a \u0000 it would cut at, a lone surrogate it would refuse, raw control
 * characters and invalid UTF-8 it would keep), with the member at fault
 * named; and the checks on decoded path and string members.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsoncheck.h"
#include "jsonutil.h"
#include "xalloc.h"

#define JC_DEPTH	32	/* levels named; deeper ones are "..." */
#define JC_KEY		64	/* bytes of a key kept for the name */

struct jc_frame {
	bool	 object;
	bool	 want_key;
	size_t	 index;
	char	 key[JC_KEY + 1];
};

struct jc_state {
	struct jc_frame	 f[JC_DEPTH];
	size_t		 depth;		/* may exceed JC_DEPTH */
};

/* Value of one hex digit, -1 if none. */
static int
jc_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The four hex digits at s (n bytes left); -1 if not four. */
static long
jc_u4(const char *s, size_t n)
{
	long	v = 0;

	if (n < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = jc_hex(s[i]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Keep a key for naming: printable ASCII and whole UTF-8 characters,
   anything else as '?', at most JC_KEY bytes. */
static void
jc_keep_key(struct jc_frame *f, const char *s, size_t n)
{
	size_t	o = 0, i = 0, l;

	while (i < n) {
		const unsigned char *u = (const unsigned char *)s + i;

		if (*u >= 0x20 && *u < 0x7f)
			l = 1;
		else if (*u >= 0x80 && (l = utf8_seq(u, n - i)) != 0)
			;
		else {
			if (o + 1 > JC_KEY)
				break;
			f->key[o++] = '?';
			i++;
			continue;
		}
		if (o + l > JC_KEY)
			break;
		memcpy(f->key + o, u, l);
		o += l;
		i += l;
	}
	f->key[o] = '\0';
}

/* The name of the member being read: "a.b[2].c"; a key itself is named
   as "key in a.b". */
static char *
jc_name(const struct jc_state *st, bool in_key)
{
	struct buf	b = BUF_INIT;
	size_t		n = st->depth < JC_DEPTH ? st->depth : JC_DEPTH;

	for (size_t i = 0; i < n; i++) {
		const struct jc_frame *f = &st->f[i];

		if (i + 1 == n && in_key)
			break;
		if (f->object)
			buf_printf(&b, "%s%s", b.len > 0 ? "." : "", f->key);
		else
			buf_printf(&b, "[%zu]", f->index);
	}
	if (st->depth > JC_DEPTH)
		buf_puts(&b, "...");
	if (in_key) {
		char *s = xasprintf("a key in '%s'", b.len > 0 ? b.data :
		    "the top-level object");

		buf_release(&b);
		return s;
	}
	if (b.len == 0)
		buf_puts(&b, "(top level)");
	return buf_detach(&b);
}

/* Set *cause once (the first flaw is the one named). */
static void
jc_flaw(const struct jc_state *st, bool in_key, char **cause,
    const char *what)
{
	char	*name;

	if (*cause != NULL)
		return;
	name = jc_name(st, in_key);
	if (in_key)
		*cause = xasprintf("%s holds %s", name, what);
	else
		*cause = xasprintf("field '%s' holds %s", name, what);
	free(name);
}

/* One string token starting after its opening quote at text[*i]; *i ends
   after the closing quote. Flaws go to *cause and are mended in m. */
static void
jc_string(const char *text, size_t len, size_t *i, char *m,
    struct jc_state *st, bool in_key, char **cause)
{
	size_t	start = *i, j = *i;

	while (j < len && text[j] != '"') {
		unsigned char	c = (unsigned char)text[j];
		size_t		l;

		if (c == '\\') {
			long u, lo;

			if (j + 1 >= len)
				break;
			if (text[j + 1] != 'u') {
				j += 2;
				continue;
			}
			if ((u = jc_u4(text + j + 2, len - j - 2)) < 0) {
				j += 2;
				continue;	/* cJSON refuses it */
			}
			if (u == 0) {
				jc_flaw(st, in_key, cause, "a NUL "
				    "character (\\u0000): refused, not cut "
				    "short");
				if (m != NULL)
					memcpy(m + j, "\\ufffd", 6);
			} else if (u >= 0xd800 && u <= 0xdbff &&
			    j + 12 <= len && text[j + 6] == '\\' &&
			    text[j + 7] == 'u' &&
			    (lo = jc_u4(text + j + 8, len - j - 8)) >= 0xdc00 &&
			    lo <= 0xdfff) {
				j += 12;	/* a pair: one character */
				continue;
			} else if (u >= 0xd800 && u <= 0xdfff) {
				jc_flaw(st, in_key, cause, "a lone "
				    "UTF-16 surrogate (\\ud800-\\udfff), "
				    "which is no character");
				if (m != NULL)
					memcpy(m + j, "\\ufffd", 6);
			}
			j += 6;
			continue;
		}
		if (c < 0x20) {
			jc_flaw(st, in_key, cause, c == 0 ? "a raw NUL "
			    "byte" : "a raw control character (JSON needs "
			    "it escaped)");
			if (m != NULL)
				m[j] = ' ';
			j++;
			continue;
		}
		if (c < 0x80) {
			j++;
			continue;
		}
		if ((l = utf8_seq((const unsigned char *)text + j,
		    len - j)) == 0) {
			jc_flaw(st, in_key, cause, "invalid UTF-8");
			if (m != NULL)
				m[j] = '?';
			l = 1;
		}
		j += l;
	}
	if (in_key && st->depth > 0 && st->depth <= JC_DEPTH)
		jc_keep_key(&st->f[st->depth - 1], text + start, j - start);
	*i = j < len ? j + 1 : j;
}

int
jsoncheck_text(const char *text, size_t len, char **mended, char **cause)
{
	struct jc_state	 st;
	char		*m = NULL;
	size_t		 i = 0;

	*cause = NULL;
	memset(&st, 0, sizeof st);
	if (mended != NULL) {
		m = xmalloc(len + 1);
		memcpy(m, text, len);
		m[len] = '\0';
		*mended = m;
	}
	while (i < len) {
		struct jc_frame	*top = st.depth > 0 && st.depth <= JC_DEPTH ?
				    &st.f[st.depth - 1] : NULL;
		unsigned char	 c = (unsigned char)text[i];

		switch (c) {
		case '{':
		case '[':
			if (st.depth < JC_DEPTH) {
				struct jc_frame *f = &st.f[st.depth];

				memset(f, 0, sizeof *f);
				f->object = c == '{';
				f->want_key = c == '{';
			}
			st.depth++;
			i++;
			break;
		case '}':
		case ']':
			if (st.depth > 0)
				st.depth--;
			i++;
			break;
		case ',':
			if (top != NULL && top->object)
				top->want_key = true;
			else if (top != NULL)
				top->index++;
			i++;
			break;
		case ':':
			if (top != NULL)
				top->want_key = false;
			i++;
			break;
		case '"':
			i++;
			jc_string(text, len, &i, m, &st, top != NULL &&
			    top->object && top->want_key, cause);
			break;
		case '\0':
			if (*cause == NULL)
				*cause = xasprintf("the JSON text holds a NUL "
				    "byte at byte %zu", i);
			if (m != NULL)
				m[i] = ' ';
			i++;
			break;
		default:
			if (c >= 0x80 && *cause == NULL)
				*cause = xasprintf("the JSON text is not valid "
				    "JSON at byte %zu", i);
			i++;
			break;
		}
	}
	return *cause != NULL ? -1 : 0;
}

long
jsoncheck_control(const char *s, size_t len)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i = 0, l;

	while (i < len) {
		if (u[i] < 0x20 || u[i] == 0x7f)
			return (long)i;
		/* C1: U+0080..U+009F, encoded c2 80..c2 9f */
		if (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f)
			return (long)i;
		l = u[i] < 0x80 ? 1 : utf8_seq(u + i, len - i);
		i += l > 0 ? l : 1;
	}
	return -1;
}

/* The first invalid UTF-8 byte, -1 if none. */
static long
jc_utf8_bad(const char *s, size_t len)
{
	size_t	i = 0, l;

	while (i < len) {
		if ((l = utf8_seq((const unsigned char *)s + i, len - i)) == 0)
			return (long)i;
		i += l;
	}
	return -1;
}

int
jsoncheck_string(const char *field, const char *s, size_t max, char **cause)
{
	size_t	len = strlen(s);
	long	bad;

	if (len > max) {
		*cause = xasprintf("field '%s' is longer than %zu bytes (%zu)",
		    field, max, len);
		return -1;
	}
	if ((bad = jc_utf8_bad(s, len)) >= 0) {
		*cause = xasprintf("field '%s' is not valid UTF-8 (byte %ld)",
		    field, bad);
		return -1;
	}
	return 0;
}

int
jsoncheck_path(const char *field, const char *s, char **cause)
{
	long	at;

	if (jsoncheck_string(field, s, JSONCHECK_PATH_MAX, cause) != 0)
		return -1;
	if ((at = jsoncheck_control(s, strlen(s))) >= 0) {
		const unsigned char *u = (const unsigned char *)s + at;

		*cause = xasprintf("field '%s' holds a control character "
		    "(U+%04X at byte %ld); paths with control characters are "
		    "refused", field, u[0] == 0xc2 ? u[1] : u[0], at);
		return -1;
	}
	return 0;
}
