/*
 * fdpass: open descriptors handed over a unix socket (SCM_RIGHTS), the
 * one way bwgate's processes pass files to each other: the observer's
 * listener and the delegate's socket (bwgate-helper), the delegate's
 * requests and answers (observe-act.c, helper-act.c), a FIFO opened by a
 * waiting child, the proxy's listening socket (bwgate-netlisten).
 *
 *	int fds[2] = { listener, delegate };
 *	if (fdpass_send(sock, &reply, sizeof reply, fds, 2) != 0) ...
 *
 *	int got[2];
 *	n = fdpass_recv(sock, &reply, sizeof reply, got, 2, 0);
 *
 * A message always carries at least one byte. Received descriptors are
 * close-on-exec and belong to the caller; slots with nothing are -1, and
 * descriptors beyond the slots asked for are closed, never leaked.
 */
#ifndef BWGATE_FDPASS_H
#define BWGATE_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/* The most descriptors one message carries. */
#define FDPASS_MAX	5

/* Send len bytes of buf with nfds (0 to FDPASS_MAX) descriptors, in one
   message (EINTR retried, no SIGPIPE): 0, or -1 with errno. */
int	fdpass_send(int sock, const void *buf, size_t len, const int *fds,
	    size_t nfds);
/* Receive one message: at most len bytes into buf, its descriptors into
   fds[0 .. nfds - 1] (the rest -1). flags: 0 or MSG_DONTWAIT. The byte
   count (0: the peer is gone), or -1 with errno (no descriptor kept). */
ssize_t	fdpass_recv(int sock, void *buf, size_t len, int *fds, size_t nfds,
	    int flags);

#endif
