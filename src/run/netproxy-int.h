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
	unsigned		 active;
	struct netproxy_host	*hosts;
	size_t			 nhosts;
	struct netproxy_refusal	*refused;
	size_t			 nrefused;
	size_t			 refused_more;	/* beyond the bound */
	unsigned		 connections;
};

/* One accepted connection (netproxy-conn.c); takes fd, runs detached. */
void	netproxy_conn_start(struct netproxy *, int fd);
/* Record a connection's end or a refusal (locks). */
void	netproxy_count(struct netproxy *, const char *host, int port,
	    uint64_t out, uint64_t in);
void	netproxy_refuse(struct netproxy *, const char *host, int port,
	    const char *why);

#endif
