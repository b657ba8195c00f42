/*
 * bpfcache: compiled seccomp programs kept in the runtime directory.
 *
 * libseccomp takes about a millisecond to compile a filter, on every run,
 * for a program that only changes with its inputs and the libseccomp
 * version. bwgate compiles each program once and keeps it, per user, in
 * the 0700 runtime directory (where sandboxed commands cannot reach),
 * written atomically and synced, under a name derived from bwgate's
 * version, the identity of the code that builds the filters (the binary's
 * build id) and the libseccomp version: a program cached by any other
 * build is never read.
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
/* Longest code identity (hex). */
#define BPF_CODE_ID_MAX	80
/* The identity of the code that builds the filters (static string). */
const char *bpf_code_id(void);
/* The cache file for a program (caller frees). */
char	*bpf_cache_path(const char *dir, const char *name,
	    const char *version, const char *code_id);
/* Compile with libseccomp: export ctx's program into out. */
int	bpf_export(void *ctx, struct buf *out, char **cause);

#endif
