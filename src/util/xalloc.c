/* xalloc: allocation wrappers that exit on failure. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

static void oom(void) __attribute__((noreturn));

static void	(*fatal_hook)(void);

void
xalloc_on_fatal(void (*fn)(void))
{
	fatal_hook = fn;
}

/* Out of memory: nothing sensible can continue. */
static void
oom(void)
{
	static const char msg[] = "bwgate: out of memory\n";
	void		(*hook)(void) = fatal_hook;

	fatal_hook = NULL;	/* once, even if the hook runs out too */
	if (hook != NULL)
		hook();
	(void)!write(2, msg, sizeof msg - 1);
	_exit(125);
}

void *
xmalloc(size_t n)
{
	void	*p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > (size_t)-1 / size)
		oom();
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	char	*p = strdup(s);

	if (p == NULL)
		oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p = strndup(s, n);

	if (p == NULL)
		oom();
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
