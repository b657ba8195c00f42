/*
 * netproxy-conn: one connection through the proxy (see netproxy.h).
 *
 * The client's first byte says the protocol: 0x05 is SOCKS5, anything
 * else an HTTP request. Then: the name and port it asked for, the
 * decision (a pattern, the ask callback, or a refusal naming the host),
 * resolution by the proxy (never the client's idea of the address), the
 * private-address check on every address, a connect with a deadline, the
 * answer, and bytes copied both ways until both sides are done. A plain
 * HTTP request is sent on in origin form with "Connection: close", so
 * the next request, perhaps for another host, comes on a new connection
 * and is decided again.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "domains.h"
#include "log.h"
#include "loop.h"
#include "netproxy.h"
#include "netproxy-int.h"
#include "testhook.h"
#include "xalloc.h"

#define CONN_HEADER_MAX		(32 * 1024)
#define CONN_HEADER_MS		30000
#define CONN_CONNECT_MS		15000
#define CONN_RELAY_BUF		(256 * 1024)
#define CONN_MAX_ADDRS		16

enum conn_kind { CONN_CONNECT, CONN_HTTP, CONN_SOCKS };

struct conn {
	struct netproxy	*np;
	int		 fd;		/* the sandbox's side */
	int		 up;		/* the host's side, or -1 */
	enum conn_kind	 kind;
	char		 host[DOMAINS_HOST_BUF];
	int		 port;
	struct buf	 head;		/* what was read of the request */
	size_t		 head_len;	/* bytes of the header in head */
	struct buf	 send;		/* bytes for the host before relaying */
	uint64_t	 out, in;
	/* The private addresses a person saw in the question and allowed
	   (once or for the run): only these, not whatever DNS says next. */
	struct sockaddr_storage asked[CONN_MAX_ADDRS];
	int		 nasked;
};

/* Wait for fd or the stop pipe; 1 ready, 0 timeout or stop. */
static int
conn_wait(struct conn *c, int fd, short ev, int64_t deadline)
{
	struct pollfd	pfd[2];

	for (;;) {
		int64_t left = deadline - loop_now_ms();

		if (left <= 0)
			return 0;
		pfd[0].fd = fd;
		pfd[0].events = ev;
		pfd[1].fd = c->np->stop_r;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (pfd[1].revents != 0)
			return 0;
		if (pfd[0].revents != 0)
			return 1;
	}
}

/* Write all of it (blocking socket). */
static int
conn_write(int fd, const void *p, size_t n)
{
	const char	*s = p;

	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read at least need bytes into head (more may come). */
static int
conn_read_more(struct conn *c, size_t need, int64_t deadline)
{
	char	chunk[4096];

	while (c->head.len < need) {
		ssize_t n;

		if (!conn_wait(c, c->fd, POLLIN, deadline))
			return -1;
		n = recv(c->fd, chunk, sizeof chunk, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf_add(&c->head, chunk, (size_t)n);
	}
	return 0;
}

/* The HTTP answer for a refusal or failure, then the end. */
static void
conn_http_error(struct conn *c, int code, const char *reason,
    const char *text)
{
	char	*msg;

	msg = xasprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n"
	    "X-Bwgate-Refused: %s\r\n\r\nbwgate: %s\n", code, reason,
	    strlen(text) + 9, reason, text);
	conn_write(c->fd, msg, strlen(msg));
	free(msg);
}

/* The SOCKS5 reply with code rep (0: success). */
static void
conn_socks_reply(struct conn *c, unsigned char rep)
{
	unsigned char	r[10] = { 5, rep, 0, 1, 0, 0, 0, 0, 0, 0 };

	conn_write(c->fd, r, sizeof r);
}

/* Refuse: tell the client, record host and why. */
static void
conn_refuse(struct conn *c, int code, const char *reason, const char *why)
{
	netproxy_refuse(c->np, c->host, c->port, why);
	if (c->kind == CONN_SOCKS)
		conn_socks_reply(c, code == 403 ? 2 : code == 504 ? 6 : 4);
	else
		conn_http_error(c, code, reason, why);
}

/* Split "host:port" or "[v6]:port" (port required unless def > 0). */
static int
conn_hostport(const char *s, size_t len, int def, char *host, size_t hsize,
    int *port)
{
	char		 tmp[DOMAINS_HOST_BUF];
	const char	*colon;
	char		*end;
	long		 p = def;

	if (len == 0 || len >= sizeof tmp)
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	if (tmp[0] == '[') {
		char *close = strchr(tmp, ']');

		if (close == NULL)
			return -1;
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] != '\0' && colon == NULL)
			return -1;
	} else
		colon = strrchr(tmp, ':');
	if (colon != NULL) {
		errno = 0;
		p = strtol(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || colon[1] == '\0' || p < 1 ||
		    p > 65535)
			return -1;
		*(char *)colon = '\0';
	}
	if (p <= 0)
		return -1;
	if (!domains_host_valid(tmp, host, hsize))
		return -1;
	*port = (int)p;
	return 0;
}

/* Drop the proxy's own headers and any Connection header; close after. */
static void
conn_http_headers(const char *h, const char *end, struct buf *out)
{
	static const char *const drop[] = { "proxy-connection",
	    "proxy-authorization", "connection", "keep-alive", NULL };

	while (h < end) {
		const char	*eol = memchr(h, '\n', (size_t)(end - h));
		size_t		 n = eol != NULL ? (size_t)(eol - h) + 1 :
				    (size_t)(end - h);
		bool		 skip = false;

		for (const char *const *d = drop; *d != NULL; d++) {
			size_t dl = strlen(*d);

			if (n > dl && strncasecmp(h, *d, dl) == 0 &&
			    h[dl] == ':')
				skip = true;
		}
		if (n > 0 && h[0] != '\r' && h[0] != '\n' && !skip)
			buf_add(out, h, n);
		h += n;
	}
	buf_puts(out, "Connection: close\r\n\r\n");
}

/*
 * Read an HTTP request header: CONNECT host:port, or METHOD http://...
 * For the latter, the request goes on in origin form.
 */
static int
conn_http_parse(struct conn *c, int64_t deadline)
{
	char		*end, *sp1, *sp2, *eol, *target, *path, *auth;
	size_t		 tl;

	for (;;) {
		buf_add(&c->head, "", 1);
		c->head.len--;
		if ((end = strstr(c->head.data, "\r\n\r\n")) != NULL)
			break;
		if (c->head.len > CONN_HEADER_MAX) {
			conn_http_error(c, 431, "Request Header Fields Too "
			    "Large", "the request's header is too large");
			return -1;
		}
		if (conn_read_more(c, c->head.len + 1, deadline) != 0)
			return -1;
	}
	c->head_len = (size_t)(end - c->head.data) + 4;
	eol = strstr(c->head.data, "\r\n");
	if ((sp1 = memchr(c->head.data, ' ', (size_t)(eol - c->head.data))) ==
	    NULL || (sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1))) ==
	    NULL) {
		conn_http_error(c, 400, "Bad Request", "not an HTTP request");
		return -1;
	}
	target = sp1 + 1;
	tl = (size_t)(sp2 - target);
	if ((size_t)(sp1 - c->head.data) == 7 &&
	    strncmp(c->head.data, "CONNECT", 7) == 0) {
		c->kind = CONN_CONNECT;
		if (conn_hostport(target, tl, 0, c->host, sizeof c->host,
		    &c->port) != 0) {
			conn_http_error(c, 400, "Bad Request", "CONNECT needs "
			    "HOST:PORT");
			return -1;
		}
		/* Bytes after the header (a client hello) go on as sent. */
		buf_add(&c->send, c->head.data + c->head_len,
		    c->head.len - c->head_len);
		return 0;
	}
	c->kind = CONN_HTTP;
	if (tl < 8 || strncasecmp(target, "http://", 7) != 0) {
		conn_http_error(c, 400, "Bad Request", tl >= 8 &&
		    strncasecmp(target, "https://", 8) == 0 ? "https goes "
		    "through CONNECT" : "a proxy request needs an absolute "
		    "http:// URI");
		return -1;
	}
	auth = target + 7;
	path = memchr(auth, '/', (size_t)(sp2 - auth));
	if (path == NULL)
		path = sp2;
	if (memchr(auth, '@', (size_t)(path - auth)) != NULL ||
	    conn_hostport(auth, (size_t)(path - auth), 80, c->host,
	    sizeof c->host, &c->port) != 0) {
		conn_http_error(c, 400, "Bad Request", "no host in the URI");
		return -1;
	}
	/* METHOD SP origin-form SP VERSION CRLF, headers, body. */
	buf_add(&c->send, c->head.data, (size_t)(sp1 - c->head.data) + 1);
	if (path == sp2)
		buf_add(&c->send, "/", 1);
	else
		buf_add(&c->send, path, (size_t)(sp2 - path));
	buf_add(&c->send, sp2, (size_t)(eol - sp2) + 2);
	conn_http_headers(eol + 2, end + 2, &c->send);
	buf_add(&c->send, c->head.data + c->head_len,
	    c->head.len - c->head_len);
	return 0;
}

/* The SOCKS5 greeting (no authentication) and CONNECT request. */
static int
conn_socks_parse(struct conn *c, int64_t deadline)
{
	const unsigned char	*p;
	size_t			 need, off;
	unsigned char		 ok[2] = { 5, 0 }, no[2] = { 5, 0xff };
	bool			 noauth = false;

	c->kind = CONN_SOCKS;
	if (conn_read_more(c, 2, deadline) != 0)
		return -1;
	p = (const unsigned char *)c->head.data;
	need = 2 + (size_t)p[1];
	if (conn_read_more(c, need, deadline) != 0)
		return -1;
	p = (const unsigned char *)c->head.data;
	for (size_t i = 2; i < need; i++)
		noauth = noauth || p[i] == 0;
	if (!noauth) {
		conn_write(c->fd, no, 2);
		return -1;
	}
	if (conn_write(c->fd, ok, 2) != 0)
		return -1;
	off = need;
	if (conn_read_more(c, off + 5, deadline) != 0)
		return -1;
	p = (const unsigned char *)c->head.data + off;
	if (p[0] != 5 || p[1] != 1) {
		conn_socks_reply(c, 7);		/* command not supported */
		return -1;
	}
	if (p[3] == 1)
		need = off + 4 + 4 + 2;
	else if (p[3] == 4)
		need = off + 4 + 16 + 2;
	else if (p[3] == 3)
		need = off + 5 + p[4] + 2;
	else {
		conn_socks_reply(c, 8);		/* address type */
		return -1;
	}
	if (conn_read_more(c, need, deadline) != 0)
		return -1;
	p = (const unsigned char *)c->head.data + off;
	if (p[3] == 1)
		inet_ntop(AF_INET, p + 4, c->host, sizeof c->host);
	else if (p[3] == 4)
		inet_ntop(AF_INET6, p + 4, c->host, sizeof c->host);
	else {
		char name[256];

		memcpy(name, p + 5, p[4]);
		name[p[4]] = '\0';
		if (p[4] == 0 || memchr(name, '\0', p[4]) != NULL ||
		    !domains_host_valid(name, c->host, sizeof c->host)) {
			conn_socks_reply(c, 8);
			return -1;
		}
	}
	c->port = (int)((unsigned)p[need - off - 2] << 8 |
	    p[need - off - 1]);
	if (c->port == 0) {
		conn_socks_reply(c, 8);
		return -1;
	}
	buf_add(&c->send, c->head.data + need, c->head.len - need);
	return 0;
}

/* Resolve with the test's hosts file (BWGATE_NET_HOSTS); count found. */
static int
conn_hosts_file(const char *file, const char *host, int port,
    struct sockaddr_storage *out, socklen_t *lens, int max)
{
	FILE	*f = fopen(file, "re");
	char	 line[1024];
	int	 n = 0;

	if (f == NULL)
		return 0;
	while (n < max && fgets(line, sizeof line, f) != NULL) {
		char	*save, *addr = strtok_r(line, " \t\r\n", &save), *name;
		bool	 hit = false;

		if (addr == NULL || addr[0] == '#')
			continue;
		while ((name = strtok_r(NULL, " \t\r\n", &save)) != NULL)
			hit = hit || strcasecmp(name, host) == 0;
		if (!hit)
			continue;
		memset(&out[n], 0, sizeof out[n]);
		if (strchr(addr, ':') != NULL) {
			struct sockaddr_in6 *s6 = (void *)&out[n];

			if (inet_pton(AF_INET6, addr, &s6->sin6_addr) != 1)
				continue;
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((unsigned short)port);
			lens[n++] = sizeof *s6;
		} else {
			struct sockaddr_in *s4 = (void *)&out[n];

			if (inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
				continue;
			s4->sin_family = AF_INET;
			s4->sin_port = htons((unsigned short)port);
			lens[n++] = sizeof *s4;
		}
	}
	fclose(f);
	return n;
}

/* The addresses of host (the proxy resolves, never the client). */
static int
conn_resolve(struct conn *c, struct sockaddr_storage *out, socklen_t *lens,
    int max)
{
	const char	*file = testhook_get(TESTHOOK_NET_HOSTS);
	struct addrinfo	 hints, *res = NULL, *ai;
	char		 port[8];
	int		 n = 0;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof port, "%d", c->port);
	if (file != NULL && file[0] != '\0') {
		/* Literal addresses still work; names only from the file. */
		hints.ai_flags = AI_NUMERICHOST;
		if (getaddrinfo(c->host, port, &hints, &res) != 0)
			return conn_hosts_file(file, c->host, c->port, out,
			    lens, max);
	} else if (getaddrinfo(c->host, port, &hints, &res) != 0)
		return 0;
	for (ai = res; ai != NULL && n < max; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof out[n])
			continue;
		memcpy(&out[n], ai->ai_addr, ai->ai_addrlen);
		lens[n++] = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	return n;
}

/* Connect to the first address that answers; -1 with errno. */
static int
conn_connect(struct conn *c, const struct sockaddr_storage *a,
    const socklen_t *lens, int n)
{
	int	err = EHOSTUNREACH;

	for (int i = 0; i < n; i++) {
		int		fd, soerr = 0, one = 1;
		socklen_t	sl = sizeof soerr;

		fd = socket(a[i].ss_family, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (connect(fd, (const struct sockaddr *)&a[i], lens[i]) != 0 &&
		    errno != EINPROGRESS) {
			err = errno;
			close(fd);
			continue;
		}
		if (!conn_wait(c, fd, POLLOUT, loop_now_ms() +
		    CONN_CONNECT_MS)) {
			err = ETIMEDOUT;
			close(fd);
			continue;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (soerr != 0) {
			err = soerr;
			close(fd);
			continue;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		return fd;
	}
	errno = err;
	return -1;
}

static int conn_resolve(struct conn *, struct sockaddr_storage *,
    socklen_t *, int);

/*
 * What host's addresses are when none is public, else NULL; the private
 * ones are kept in c->asked (what the question shows).
 */
static const char *
conn_private_class(struct conn *c)
{
	socklen_t		 lens[CONN_MAX_ADDRS];
	const char		*cls = NULL;
	int			 n = conn_resolve(c, c->asked, lens,
				    CONN_MAX_ADDRS);

	c->nasked = 0;
	for (int i = 0; i < n; i++) {
		const char *k = domains_addr_class((struct sockaddr *)
		    &c->asked[i], lens[i]);

		if (k == NULL)
			return NULL;
		cls = k;
	}
	c->nasked = n;
	return cls;
}

/* "HOST:PORT ADDRESS", the key of a private address allowed for a run. */
static char *
conn_approved_key(const struct conn *c, const struct sockaddr *sa)
{
	char	 addr[INET6_ADDRSTRLEN] = "?";
	const void *p = sa->sa_family == AF_INET6 ?
	    (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->
	    sin6_addr : (const void *)&((const struct sockaddr_in *)
	    (const void *)sa)->sin_addr;

	inet_ntop(sa->sa_family, p, addr, sizeof addr);
	return xasprintf("%s:%d %s", c->host, c->port, addr);
}

/* Did a person allow this private address of the host (here or for the
   run)? */
static bool
conn_approved(struct conn *c, const struct sockaddr *sa)
{
	char	*key;
	bool	 found = false;

	for (int i = 0; i < c->nasked; i++)
		if (domains_addr_same((const struct sockaddr *)&c->asked[i],
		    sa))
			return true;
	key = conn_approved_key(c, sa);
	pthread_mutex_lock(&c->np->mu);
	for (size_t i = 0; i < c->np->approved.n && !found; i++)
		found = strcmp(c->np->approved.v[i], key) == 0;
	pthread_mutex_unlock(&c->np->mu);
	free(key);
	return found;
}

/*
 * Is this host allowed? A pattern, else the question; 1 allowed (with
 * *private_ok), 0 refused (answered).
 */
static int
conn_decide(struct conn *c, bool *private_ok)
{
	struct netproxy		*np = c->np;
	enum netproxy_answer	 a;
	char			*why = NULL, *hint;
	int			 i;

	pthread_mutex_lock(&np->mu);
	i = domains_match(&np->domains, c->host, c->port, private_ok);
	pthread_mutex_unlock(&np->mu);
	if (i >= 0)
		return 1;
	*private_ok = false;
	if (np->ask.fn != NULL) {
		const char *cls = conn_private_class(c);

		a = np->ask.fn(np->ask.arg, c->host, c->port, cls, np->stop_r,
		    &why);
		if (a == NETPROXY_ALLOW_RUN) {
			/* The host for the run; its private addresses only
			   those the person saw (conn_approved). */
			pthread_mutex_lock(&np->mu);
			strv_push_owned(&np->domains,
			    domains_pattern(c->host, c->port, false));
			for (int k = 0; cls != NULL && k < c->nasked; k++) {
				char *key = conn_approved_key(c,
				    (struct sockaddr *)&c->asked[k]);

				strv_push(&np->approved, key);
				free(key);
			}
			pthread_mutex_unlock(&np->mu);
		}
		if (a != NETPROXY_DENY) {
			free(why);
			return 1;
		}
		c->nasked = 0;
	}
	hint = netproxy_hint(c->host, c->port, why);
	conn_refuse(c, 403, "Forbidden", hint);
	free(hint);
	free(why);
	return 0;
}

/*
 * Move what one side has to the other through a pipe (splice: the bytes
 * never come up to this process); the number moved, 0 at end of stream,
 * -1 on error, -2 when nothing was there, -3 when these descriptors
 * cannot splice (nothing moved: copy instead).
 */
static ssize_t
conn_splice(int from, int to, const int *pp)
{
	ssize_t	n, w;
	size_t	left;

	n = splice(from, NULL, pp[1], NULL, CONN_RELAY_BUF,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? -2 :
		    errno == EINVAL ? -3 : -1;
	for (left = (size_t)n; left > 0; left -= (size_t)w) {
		w = splice(pp[0], NULL, to, NULL, left, SPLICE_F_MOVE);
		if (w < 0 && errno == EINTR) {
			w = 0;
			continue;
		}
		if (w <= 0)
			return -1;
	}
	return n;
}

/* Copy bytes both ways until both directions have ended, or until no
   byte has moved either way for np->idle_ms (NETPROXY_IDLE_MS). */
static void
conn_relay(struct conn *c)
{
	char		*b = xmalloc(CONN_RELAY_BUF);
	struct pollfd	 pfd[3];
	bool		 open_out = true, open_in = true;
	int		 pipes[2][2] = { { -1, -1 }, { -1, -1 } };
	bool		 zero_copy = true;
	int64_t		 left;
	int		 r;
	int64_t		 idle_end = loop_now_ms() + c->np->idle_ms;

	for (int k = 0; k < 2 && zero_copy; k++) {
		if (pipe2(pipes[k], O_CLOEXEC) != 0)
			zero_copy = false;
		else
			fcntl(pipes[k][1], F_SETPIPE_SZ, CONN_RELAY_BUF);
	}

	while (open_out || open_in) {
		pfd[0].fd = open_out ? c->fd : -1;
		pfd[0].events = POLLIN;
		pfd[1].fd = open_in ? c->up : -1;
		pfd[1].events = POLLIN;
		pfd[2].fd = c->np->stop_r;
		pfd[2].events = POLLIN;
		left = idle_end - loop_now_ms();
		if (left <= 0) {
			LOG("%s:%d idle for %lld ms: closed", c->host, c->port,
			    (long long)c->np->idle_ms);
			break;
		}
		if ((r = poll(pfd, 3, (int)(left > INT32_MAX ? INT32_MAX :
		    left))) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[2].revents != 0)
			break;
		if (r == 0)
			continue;
		for (int k = 0; k < 2; k++) {
			int		 from = k == 0 ? c->fd : c->up;
			int		 to = k == 0 ? c->up : c->fd;
			bool		*open = k == 0 ? &open_out : &open_in;
			uint64_t	*count = k == 0 ? &c->out : &c->in;
			ssize_t		 n;

			if (pfd[k].revents == 0)
				continue;
			if (zero_copy) {
				n = conn_splice(from, to, pipes[k]);
				if (n == -2)
					continue;
				if (n == -3) {
					/* No splice here: copy instead. */
					zero_copy = false;
					continue;
				}
			} else {
				n = recv(from, b, CONN_RELAY_BUF, MSG_DONTWAIT);
				if (n < 0 && (errno == EINTR ||
				    errno == EAGAIN))
					continue;
				if (n > 0 && conn_write(to, b, (size_t)n) != 0)
					n = -1;
			}
			if (n <= 0) {
				*open = false;
				shutdown(to, SHUT_WR);
				if (n < 0)	/* reset: end both */
					open_out = open_in = false;
				continue;
			}
			*count += (uint64_t)n;
			idle_end = loop_now_ms() + c->np->idle_ms;
		}
	}
	for (int k = 0; k < 2; k++)
		for (int e = 0; e < 2; e++)
			if (pipes[k][e] >= 0)
				close(pipes[k][e]);
	free(b);
}

/* Resolve, check, connect, answer, relay. */
static void
conn_forward(struct conn *c, bool private_ok)
{
	struct sockaddr_storage	 a[CONN_MAX_ADDRS], ok[CONN_MAX_ADDRS];
	socklen_t		 lens[CONN_MAX_ADDRS], oklens[CONN_MAX_ADDRS];
	const char		*cls = NULL;
	int			 n, nok = 0;
	char			*why;

	if ((n = conn_resolve(c, a, lens, CONN_MAX_ADDRS)) == 0) {
		why = xasprintf("%s does not resolve", c->host);
		conn_refuse(c, 502, "Bad Gateway", why);
		free(why);
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *k = domains_addr_class((struct sockaddr *)&a[i],
		    lens[i]);

		if (k != NULL && !private_ok &&
		    !conn_approved(c, (struct sockaddr *)&a[i])) {
			cls = k;
			continue;
		}
		ok[nok] = a[i];
		oklens[nok++] = lens[i];
	}
	if (nok == 0) {
		char *pat = domains_pattern(c->host, c->port, true);

		why = xasprintf("%s resolves to %s; only a pattern written "
		    "%s may reach it", c->host, cls, pat);
		conn_refuse(c, 403, "Forbidden", why);
		free(pat);
		free(why);
		return;
	}
	if ((c->up = conn_connect(c, ok, oklens, nok)) < 0) {
		why = xasprintf("cannot connect to %s:%d: %s", c->host,
		    c->port, strerror(errno));
		conn_refuse(c, errno == ETIMEDOUT ? 504 : 502, errno ==
		    ETIMEDOUT ? "Gateway Timeout" : "Bad Gateway", why);
		free(why);
		return;
	}
	if (c->kind == CONN_CONNECT) {
		static const char est[] =
		    "HTTP/1.1 200 Connection established\r\n\r\n";

		if (conn_write(c->fd, est, sizeof est - 1) != 0)
			return;
	} else if (c->kind == CONN_SOCKS)
		conn_socks_reply(c, 0);
	if (c->send.len > 0) {
		if (conn_write(c->up, c->send.data, c->send.len) != 0)
			return;
		c->out += c->send.len;
	}
	conn_relay(c);
	netproxy_count(c->np, c->host, c->port, c->out, c->in);
}

/* The connection's thread. */
static void *
conn_main(void *arg)
{
	struct conn	*c = arg;
	struct netproxy	*np = c->np;
	int64_t		 deadline = loop_now_ms() + CONN_HEADER_MS;
	bool		 private_ok = false;
	int		 r;

	if (conn_read_more(c, 1, deadline) == 0) {
		if ((unsigned char)c->head.data[0] == 5)
			r = conn_socks_parse(c, deadline);
		else
			r = conn_http_parse(c, deadline);
		if (r == 0 && conn_decide(c, &private_ok) == 1)
			conn_forward(c, private_ok);
	}
	if (c->up >= 0)
		close(c->up);
	close(c->fd);
	buf_release(&c->head);
	buf_release(&c->send);
	free(c);
	pthread_mutex_lock(&np->mu);
	if (--np->active == 0)
		pthread_cond_broadcast(&np->idle);
	pthread_mutex_unlock(&np->mu);
	return NULL;
}

void
netproxy_conn_start(struct netproxy *np, int fd)
{
	struct conn	*c = xcalloc(1, sizeof *c);
	pthread_attr_t	 attr;
	pthread_t	 t;

	c->np = np;
	c->fd = fd;
	c->up = -1;
	c->head = (struct buf)BUF_INIT;
	c->send = (struct buf)BUF_INIT;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&t, &attr, conn_main, c) != 0) {
		close(fd);
		free(c);
		pthread_mutex_lock(&np->mu);
		if (--np->active == 0)
			pthread_cond_broadcast(&np->idle);
		pthread_mutex_unlock(&np->mu);
	}
	pthread_attr_destroy(&attr);
}
