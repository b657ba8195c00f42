/*
 * netstack: the user-mode network of one network-enabled sandbox.
 *
 * The engine starts it once bwrap has reported the sandbox's first
 * process (--json-status-fd "child-pid") and before it releases the
 * command (--block-fd), so the command never runs without its network:
 *
 *	struct netstack *ns = netstack_start(child_pid, &cause);
 *	if (ns == NULL || netstack_wait_ready(ns, 10000, &cause) != 0) ...
 *	... the command runs ...
 *	netstack_stop(ns);
 */
#ifndef BWGATE_NETSTACK_H
#define BWGATE_NETSTACK_H

#include <sys/types.h>

struct netstack;

struct netstack	*netstack_start(pid_t pid, char **cause);
/* 0 when the network is up; -1 with cause (timeout or backend error). */
int		 netstack_wait_ready(struct netstack *, int timeout_ms,
		    char **cause);
/* Wait until bwrap has brought up the loopback of pid's namespace. */
int		 netstack_wait_loopback(pid_t pid, int timeout_ms,
		    char **cause);
/* Open pid's network namespace and the user namespace owning it. */
int		 netstack_namespaces(pid_t pid, int *userns, int *netns,
		    char **cause);
/* Stop the backend and reap it; NULL is fine. */
void		 netstack_stop(struct netstack *);

#endif
