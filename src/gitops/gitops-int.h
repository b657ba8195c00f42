/* gitops-int: the hardened git run of gitops (gitops-git.c). */
#ifndef BWGATE_GITOPS_INT_H
#define BWGATE_GITOPS_INT_H

#include <stddef.h>

struct buf;

#define GITOPS_FULL	1000	/* the output reached max: git was stopped */

/* Run `git ARGS` on project/.git (gitops.h says how it is kept from
   running anything), input (may be NULL) on its stdin, its stdout into
   out up to max bytes. Its exit status, GITOPS_FULL, or -1 with *cause
   (a timeout, a signal, no git). */
int	gitops_git(const char *project, const char *const *args,
	    const char *input, size_t inlen, struct buf *out, size_t max,
	    char **cause);

#endif
