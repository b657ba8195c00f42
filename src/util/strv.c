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

char *
strv_join(const struct strv *sv, const char *sep, bool quote)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < sv->n; i++) {
		if (i > 0)
			buf_puts(&b, sep);
		if (quote) {
			char *q = i == 0 ? shell_quote_first(sv->v[i]) :
			    shell_quote(sv->v[i]);
			buf_puts(&b, q);
			free(q);
		} else
			buf_puts(&b, sv->v[i]);
	}
	return buf_detach(&b);
}
