/*
 * netbackend: which user-mode network stack gives a sandbox its network.
 *
 * With network on, the sandbox never shares the host's network namespace
 * (that would expose host loopback services and abstract Unix sockets).
 * bwrap gives it a namespace of its own and slirp4netns, started by the
 * engine (run/netstack.h), attaches a TAP device to it with NAT to the
 * outside and no route to the host's loopback. Without slirp4netns a
 * network-enabled command is refused; there is no fallback.
 */
#ifndef BWGATE_NETBACKEND_H
#define BWGATE_NETBACKEND_H

#include "strv.h"

/* The backend's name, for reports and `bwgate doctor`. */
#define NETBACKEND_NAME		"slirp4netns"

/* Absolute path of the backend, or NULL when none is installed (caller
   frees). BWGATE_SLIRP4NETNS overrides the search (tests). */
char	*netbackend_find(void);
/* The message for a host without a backend. */
const char *netbackend_missing(void);
/* The backend's argv for a sandbox's network namespace (netns_fd) and the
   user namespace that owns it (userns_fd), as numbered in the backend; it
   writes to ready_fd when the network is up and exits when exit_fd is
   readable. */
void	 netbackend_argv(struct strv *, const char *path, int userns_fd,
	    int netns_fd, int ready_fd, int exit_fd);

#endif
