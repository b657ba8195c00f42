/*
 * netask: the proxy's questions about new hosts, sent to the console that
 * started this exec (bwgate exec --ask-fd) and answered there.
 *
 * One JSON line each way on a stream socket:
 *	exec -> console	{"type":"host","q":N,"host":"pypi.org","port":443,
 *			 "resolves_to":"a private address"}  (when not public)
 *	console -> exec	{"q":N,"answer":"once"|"run"|"deny","why":"..."}
 * Several questions may be out at once (one per connection that needs
 * one, numbered; answers come in any order); connections to a host:port
 * already asked about wait for that answer. A host denied once in a run
 * is not asked about again in it, one allowed for the run not again
 * either. When the console goes away, or the run ends, the answer is
 * "deny".
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
