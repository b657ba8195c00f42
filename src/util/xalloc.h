/*
 * xalloc: allocation that never returns NULL.
 *
 * bwgate treats running out of memory as fatal: every function here prints
 * one line and exits with status 125 instead of returning NULL.
 */
#ifndef BWGATE_XALLOC_H
#define BWGATE_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));
/* Run fn before exiting on out-of-memory (the UI restores the terminal). */
void	 xalloc_on_fatal(void (*fn)(void));

#endif
