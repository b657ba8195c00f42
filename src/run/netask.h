/*
 * netask: the proxy's questions about new hosts, sent to the console that
 * started this exec (bwgate exec --ask-fd) and answered there.
 *
 * One JSON line each way on a stream socket:
 *	exec -> console	{"type":"host","host":"pypi.org","port":443,
 *			 "resolves_to":"a private address"}  (when not public)
 *	console -> exec	{"answer":"once"|"run"|"deny","why":"..."}
 * One question at a time (connections that need one wait their turn);
 * a host denied once in a run is not asked about again in it. When the
 * console goes away, or the run ends, the answer is "deny".
 *
 *	struct netask *na = netask_new(fd);
 *	struct netproxy_ask ask = { netask_ask, na };
 *	... netproxy_start(pid, &domains, &ask, &cause) ...
 *	netask_free(na);
 */
#ifndef BWGATE_NETASK_H
#define BWGATE_NETASK_H

#include "netproxy.h"

struct netask;

/* Takes the descriptor. */
struct netask		*netask_new(int fd);
enum netproxy_answer	 netask_ask(void *netask, const char *host, int port,
			    const char *addr_class, int stop_fd, char **why);
void			 netask_free(struct netask *);

#endif
