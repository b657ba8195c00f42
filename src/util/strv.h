/*
 * strv: a growable, NULL-terminated vector of owned strings (an argv).
 *
 *	struct strv v = STRV_INIT;
 *	strv_push(&v, "bwrap");
 *	strv_pushf(&v, "%d", fd);
 *	execv(v.v[0], v.v);
 *	strv_release(&v);
 *
 * v.v is always NULL-terminated once anything was pushed; v.n counts entries.
 */
#ifndef BWGATE_STRV_H
#define BWGATE_STRV_H

#include <stdbool.h>
#include <stddef.h>

#include "shquote.h"	/* shell_quote(), used by strv_join() */

struct strv {
	char	**v;
	size_t	  n;
	size_t	  cap;
};
#define STRV_INIT { NULL, 0, 0 }

void	 strv_push(struct strv *, const char *);
void	 strv_push_owned(struct strv *, char *);
void	 strv_pushf(struct strv *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 strv_pushv(struct strv *, const char *const *);
void	 strv_append_all(struct strv *, const struct strv *);
bool	 strv_contains(const struct strv *, const char *);
void	 strv_release(struct strv *);
/* Join with sep, shell-quoting each entry (shell_quote(), shquote.h)
   when quote is true. */
char	*strv_join(const struct strv *, const char *sep, bool quote);

#endif
