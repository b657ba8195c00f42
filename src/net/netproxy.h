/*
 * netproxy: the one way out of a sandbox that may reach named hosts only.
 *
 * Folder src/net (libnet.a), the network layer: owns the proxy
 * (netproxy*.c), its questions to the operator (netask) and the
 * user-mode network stack (netstack). May call sandbox (domains, the
 * runner that starts the stack and the listener) and util; the engine
 * (run) starts it, never the other way (tests/build/layers.sh).
 *
 * The sandbox has a network namespace of its own with nothing but
 * loopback. Once bwrap has named the sandbox's first process, and before
 * the command is released, netproxy_start() has bwgate-netlisten open a
 * listening socket on 127.0.0.1:DOMAINS_PROXY_PORT inside that namespace
 * and hand it back; a thread of this process accepts on it. So the proxy
 * is reachable from that sandbox only (no other namespace has the
 * socket), and what it connects to is reached from the host's namespace.
 *
 * Each connection speaks HTTP (CONNECT, or a request with an absolute
 * http:// URI) or SOCKS5 (the first byte tells). The proxy decides on the
 * name the client asked for (domains.h), resolves it itself, refuses
 * loopback, private, link-local and metadata addresses unless the pattern
 * is "private:", connects, answers, and relays bytes both ways; TLS stays
 * end to end. A host no pattern allows goes to the ask callback, which
 * may hold the connection while someone decides; without one, or on
 * "deny", the client gets a refusal that names the host and how to allow
 * it. Every connection and refusal is counted for the report.
 *
 *	struct netproxy *np = netproxy_start(pid, &pol.domains, &ask, &cause);
 *	... the command runs ...
 *	netproxy_stop(np);		ends every connection
 *	cJSON *net = netproxy_report(np);
 *	netproxy_free(np);
 *
 * For tests only: BWGATE_NET_HOSTS names a hosts file ("ADDRESS NAME...")
 * the proxy resolves names with instead of the system's resolver; a name
 * it lacks does not resolve.
 */
#ifndef BWGATE_NETPROXY_H
#define BWGATE_NETPROXY_H

#include <cjson/cJSON.h>
#include <sys/types.h>

#include "strv.h"

enum netproxy_answer {
	NETPROXY_DENY,
	NETPROXY_ALLOW_ONCE,	/* this connection */
	NETPROXY_ALLOW_RUN,	/* every connection of this run to it */
};

/* A host no pattern allows: called on the connection's thread, may block
   (bounded by the caller's own timeout) but must return once stop_fd is
   readable (the run ends); *why (allocated) explains a denial. The proxy
   resolved the name first: addr_class is NULL when it leads to public
   addresses, else what they are ("a loopback address"), for the person
   deciding; allowing it then allows those. */
struct netproxy_ask {
	enum netproxy_answer (*fn)(void *arg, const char *host, int port,
	    const char *addr_class, int stop_fd, char **why);
	void	*arg;
};

struct netproxy;

struct netproxy	*netproxy_start(pid_t pid, const struct strv *domains,
		    const struct netproxy_ask *ask, char **cause);
/* Close the listener and end every connection; waits for them. */
void		 netproxy_stop(struct netproxy *);
/* {"proxy","domains":[],"hosts":[{"host","port","connections",
   "bytes_out","bytes_in"}],"refused":[{"host","port","why"}]} */
cJSON		*netproxy_report(struct netproxy *);
void		 netproxy_free(struct netproxy *);

/* The message a client gets for a host no pattern allows. */
char		*netproxy_hint(const char *host, int port, const char *why);

#endif
