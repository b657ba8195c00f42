/* strv: vectors of owned strings. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "strv.h"
#include "xalloc.h"

void
strv_push_owned(struct strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xreallocarray(sv->v, sv->cap, sizeof *sv->v);
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strv_push(struct strv *sv, const char *s)
{
	strv_push_owned(sv, xstrdup(s));
}

void
strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strv_push_owned(sv, s);
}

void
strv_pushv(struct strv *sv, const char *const *v)
{
	for (; v != NULL && *v != NULL; v++)
		strv_push(sv, *v);
}

void
strv_append_all(struct strv *dst, const struct strv *src)
{
	for (size_t i = 0; i < src->n; i++)
		strv_push(dst, src->v[i]);
}

bool
strv_contains(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void
strv_release(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

/* Characters that never need quoting in a POSIX shell word. */
static bool
shell_safe(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_-+=./:,@%", *s) == NULL)
			return false;
	return true;
}

/* Control characters would break a line: write them as $'...' escapes. */
static bool
has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static char *
ansi_c_quote(const char *s)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "$'");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			buf_puts(&b, "\\n");
		else if (c == '\t')
			buf_puts(&b, "\\t");
		else if (c == '\r')
			buf_puts(&b, "\\r");
		else if (c == '\\' || c == '\'')
			buf_printf(&b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\x%02x", c);
		else
			buf_putc(&b, (char)c);
	}
	buf_putc(&b, '\'');
	return buf_detach(&b);
}

char *
shell_quote(const char *s)
{
	if (shell_safe(s))
		return xstrdup(s);
	if (has_control(s))
		return ansi_c_quote(s);
	return shell_squote(s);
}

/* Single-quote s for any POSIX shell. */
char *
shell_squote(const char *s)
{
	struct buf b = BUF_INIT;

	buf_putc(&b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	return buf_detach(&b);
}

char *
strv_join(const struct strv *sv, const char *sep, bool quote)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < sv->n; i++) {
		if (i > 0)
			buf_puts(&b, sep);
		if (quote) {
			char *q = shell_quote(sv->v[i]);
			buf_puts(&b, q);
			free(q);
		} else
			buf_puts(&b, sv->v[i]);
	}
	return buf_detach(&b);
}
