/* netproxy internals shared by netproxy.c and netproxy-conn.c. */
#ifndef BWGATE_NETPROXY_INT_H
#define BWGATE_NETPROXY_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "netproxy.h"
#include "strv.h"

/* Bounds: what one run may hold in memory and threads. */
#define NETPROXY_MAX_CONNS	256
#define NETPROXY_MAX_HOSTS	256
#define NETPROXY_MAX_REFUSED	100
/* Longest wait between accepts while descriptors are short (EMFILE). */
#define NETPROXY_BACKOFF_MS	1000
/* A relay with no byte either way for this long is closed. */
#define NETPROXY_IDLE_MS	(15 * 60 * 1000)

struct netproxy_host {
	char		*host;
	int		 port;
	unsigned	 connections;
	uint64_t	 bytes_out;	/* from the sandbox */
	uint64_t	 bytes_in;	/* to the sandbox */
};

struct netproxy_refusal {
	char		*host;
	int		 port;
	char		*why;
};

struct netproxy {
	int			 listen_fd;
	int			 stop_r, stop_w;	/* closed: stop */
	pthread_t		 acceptor;
	bool			 started;
	struct netproxy_ask	 ask;
	pthread_mutex_t		 mu;
	pthread_cond_t		 idle;
	struct strv		 domains;	/* grows with ALLOW_RUN */
	struct strv		 approved;	/* "HOST:PORT ADDRESS": private
						   addresses a person allowed
						   for the run, each alone */
	unsigned		 active;
	struct netproxy_host	*hosts;
	size_t			 nhosts;
	struct netproxy_refusal	*refused;
	size_t			 nrefused;
	size_t			 refused_more;	/* beyond the bound */
	unsigned		 connections;
	int64_t			 idle_ms;	/* NETPROXY_IDLE_MS, or the
						   tests' BWGATE_NET_IDLE_MS */
};

/* One accepted connection (netproxy-conn.c); takes fd, runs detached. */
void	netproxy_conn_start(struct netproxy *, int fd);
/* Record a connection's end or a refusal (locks). */
void	netproxy_count(struct netproxy *, const char *host, int port,
	    uint64_t out, uint64_t in);
void	netproxy_refuse(struct netproxy *, const char *host, int port,
	    const char *why);

#endif
