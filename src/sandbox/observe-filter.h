/*
 * observe-filter: the violation observer's seccomp program, built by
 * bwgate (with libseccomp) and carried to bwgate-helper in its hello
 * message, so the helper inside the sandbox links nothing but libc.
 *
 * The program returns SECCOMP_RET_USER_NOTIF for write-intent system calls
 * (and network ones with OBSERVE_F_NET) and allows everything else. It is
 * the same for every run with the same flags, so it is cached in the
 * runtime directory.
 *
 *	struct buf prog = BUF_INIT;
 *	observe_filter_build(OBSERVE_F_NET, &prog, &cause);
 *	... prog.data holds prog.len / 8 struct sock_filter ...
 */
#ifndef BWGATE_OBSERVE_FILTER_H
#define BWGATE_OBSERVE_FILTER_H

#include <stdint.h>

#include "buf.h"

/* Append the BPF program for these hello flags; -1 with cause. */
int	observe_filter_build(uint32_t flags, struct buf *prog, char **cause);

#endif
