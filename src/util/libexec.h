/*
 * libexec: find one of bwgate's own programs (the sandbox's helper, the
 * project watcher): $ENV when the caller names one and it is set, next to
 * the running binary (a build tree), ../libexec/bwgate from it (installed
 * under another prefix than configured), LIBEXECDIR.
 */
#ifndef BWGATE_LIBEXEC_H
#define BWGATE_LIBEXEC_H

/* The program's path (caller frees), or NULL when none can be run. */
char	*libexec_find(const char *name, const char *env);

#endif
