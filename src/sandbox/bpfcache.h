/*
 * bpfcache: compiled seccomp programs kept in the runtime directory.
 *
 * libseccomp takes about a millisecond to compile a filter, on every run,
 * for a program that only changes with its inputs and the libseccomp
 * version. bwgate compiles each program once and keeps it, per user, in
 * the 0700 runtime directory (where sandboxed commands cannot reach).
 *
 *	struct buf prog = BUF_INIT;
 *	bpf_cache_get("deny-3", build_deny, &flags, &prog, &cause);
 */
#ifndef BWGATE_BPFCACHE_H
#define BWGATE_BPFCACHE_H

#include "buf.h"

/* Compile a program into out (appending); -1 with cause. */
typedef int (*bpf_build_fn)(void *arg, struct buf *out, char **cause);

/* Append the program called name to out, compiling it when not cached. */
int	bpf_cache_get(const char *name, bpf_build_fn, void *arg,
	    struct buf *out, char **cause);
/* Compile with libseccomp: export ctx's program into out. */
int	bpf_export(void *ctx, struct buf *out, char **cause);

#endif
