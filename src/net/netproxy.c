/*
 * netproxy: the listener inside the sandbox's namespace, the accepting
 * thread and the run's network story (see netproxy.h). One connection's
 * work is in netproxy-conn.c.
 *
 * Why bwgate's own proxy: the decision about each connection (match the
 * name, ask the operator while the connection waits, resolve and refuse
 * private addresses, count bytes for the report) must stay in bwgate's
 * hands, and the proxies one could run beside it (tinyproxy, squid,
 * microsocks) decide from their own configuration files, resolve
 * without the private-address check, and cannot hold a connection on a
 * question. What is left is small: a request line or a SOCKS5 greeting,
 * then bytes moved both ways (splice through a pipe: they never come up
 * to this process; read/write where splice cannot).
 *
 * Threads: one accepting, one per connection (bounded by
 * NETPROXY_MAX_CONNS), so a connection held on a question or a slow
 * resolver never stalls another. Each waits on the stop pipe too: closing
 * it ends them all.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "fdpass.h"
#include "domains.h"
#include "libexec.h"
#include "log.h"
#include "loop.h"
#include "netproxy.h"
#include "netproxy-int.h"
#include "netstack.h"
#include "runner.h"
#include "sandbox.h"
#include "testhook.h"
#include "xalloc.h"

/* Why a host is refused, and the advice, once (why: who decided, or
   NULL). */
char *
netproxy_hint(const char *host, int port, const char *why)
{
	char	*pat = domains_pattern(host, port, false);
	char	*s = xasprintf("%s is not among the hosts this command may "
		    "reach%s%s%s; ask the operator to allow it, or add --domain "
		    "%s (or \"domains\" in a profile of the rules)", pat,
		    why != NULL ? " (" : "", why != NULL ? why : "",
		    why != NULL ? ")" : "", pat);

	free(pat);
	return s;
}

/* Receive the listening socket bwgate-netlisten sends; -1 on failure. */
static int
netproxy_recv_fd(int sock, int timeout_ms)
{
	char		 byte;
	struct pollfd	 pfd = { .fd = sock, .events = POLLIN };
	int		 fd = -1;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	if (fdpass_recv(sock, &byte, 1, &fd, 1, 0) != 1 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Its first line of error output, or a generic cause. */
static char *
netproxy_spawn_error(struct runner *run)
{
	char	 chunk[512];
	ssize_t	 n;

	fcntl(run->err_fd, F_SETFL, 0);
	n = run->err_fd >= 0 ? read(run->err_fd, chunk, sizeof chunk - 1) : 0;
	if (n > 0) {
		char *nl;

		chunk[n] = '\0';
		if ((nl = strchr(chunk, '\n')) != NULL)
			*nl = '\0';
		return xasprintf("no network for the named hosts: %s", chunk);
	}
	return xstrdup("no network for the named hosts: bwgate-netlisten "
	    "failed");
}

/* The listening socket inside pid's network namespace. */
static int
netproxy_listen(pid_t pid, char **cause)
{
	struct runner	 run;
	struct strv	 av = STRV_INIT;
	char		*path = libexec_find("bwgate-netlisten",
			    testhook_name(TESTHOOK_NETLISTEN));
	int		 userns = -1, netns = -1, sp[2] = { -1, -1 };
	int		 fds[3], devnull = -1, fd = -1;

	memset(&run, 0, sizeof run);
	if (path == NULL) {
		*cause = xstrdup("no network for the named hosts: "
		    "bwgate-netlisten is not installed");
		return -1;
	}
	if (netstack_wait_loopback(pid, 30000, cause) != 0 ||
	    netstack_namespaces(pid, &userns, &netns, cause) != 0)
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0 ||
	    (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot start the proxy: %s",
		    strerror(errno));
		goto out;
	}
	fds[0] = userns;
	fds[1] = netns;
	fds[2] = sp[1];
	strv_push(&av, path);
	strv_pushf(&av, "%d", SANDBOX_FD_BASE);
	strv_pushf(&av, "%d", SANDBOX_FD_BASE + 1);
	strv_pushf(&av, "%d", SANDBOX_FD_BASE + 2);
	strv_pushf(&av, "%d", DOMAINS_PROXY_PORT);
	if (runner_spawn(&av, fds, 3, devnull, false, NULL, 0, NULL, 0, &run,
	    cause) != 0)
		goto out;
	close(sp[1]);
	sp[1] = -1;
	fd = netproxy_recv_fd(sp[0], 30000);
	runner_wait(&run);
	if (fd < 0 || !WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
		if (fd >= 0)
			close(fd);
		fd = -1;
		*cause = netproxy_spawn_error(&run);
	}
	runner_close(&run);
out:
	for (int i = 0; i < 2; i++)
		if (sp[i] >= 0)
			close(sp[i]);
	if (devnull >= 0)
		close(devnull);
	if (userns >= 0)
		close(userns);
	if (netns >= 0)
		close(netns);
	strv_release(&av);
	free(path);
	return fd;
}

/*
 * The accepting thread. Out of descriptors (EMFILE, ENFILE) or memory,
 * the waiting connection stays queued and the listener stays readable:
 * instead of spinning, it waits (on the stop pipe only) 10 ms, doubling
 * to NETPROXY_BACKOFF_MS while the shortage lasts, and logs it once.
 */
static void *
netproxy_accept_main(void *arg)
{
	struct netproxy	*np = arg;
	struct pollfd	 pfd[2];
	int		 backoff = 0;

	for (;;) {
		int fd;

		pfd[1].fd = np->stop_r;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		/* Short of descriptors: the stop pipe alone, for a while. */
		if (backoff > 0 && (poll(&pfd[1], 1, backoff) < 0 ?
		    errno != EINTR : pfd[1].revents != 0))
			break;
		pfd[0].fd = np->listen_fd;
		pfd[0].events = POLLIN;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents != 0)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(np->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)) {
			if (backoff == 0)
				LOG("accept: %s (waiting)", strerror(errno));
			backoff = backoff == 0 ? 10 : backoff * 2;
			if (backoff > NETPROXY_BACKOFF_MS)
				backoff = NETPROXY_BACKOFF_MS;
			continue;
		}
		backoff = 0;
		if (fd < 0)
			continue;
		pthread_mutex_lock(&np->mu);
		if (np->active >= NETPROXY_MAX_CONNS) {
			pthread_mutex_unlock(&np->mu);
			close(fd);
			netproxy_refuse(np, "", 0, "too many connections at "
			    "once");
			continue;
		}
		np->active++;
		pthread_mutex_unlock(&np->mu);
		netproxy_conn_start(np, fd);
	}
	return NULL;
}

struct netproxy *
netproxy_start(pid_t pid, const struct strv *domains,
    const struct netproxy_ask *ask, char **cause)
{
	struct netproxy	*np;
	int		 sp[2];
	const char	*idle;

	np = xcalloc(1, sizeof *np);
	np->listen_fd = np->stop_r = np->stop_w = -1;
	pthread_mutex_init(&np->mu, NULL);
	pthread_cond_init(&np->idle, NULL);
	strv_append_all(&np->domains, domains);
	np->idle_ms = NETPROXY_IDLE_MS;
	if ((idle = testhook_get(TESTHOOK_NET_IDLE_MS)) != NULL &&
	    *idle != '\0')
		np->idle_ms = strtoll(idle, NULL, 10) > 0 ?
		    strtoll(idle, NULL, 10) : NETPROXY_IDLE_MS;
	if (ask != NULL)
		np->ask = *ask;
	if ((np->listen_fd = netproxy_listen(pid, cause)) < 0)
		goto fail;
	if (pipe2(sp, O_CLOEXEC) != 0) {
		*cause = xasprintf("cannot start the proxy: %s",
		    strerror(errno));
		goto fail;
	}
	np->stop_r = sp[0];
	np->stop_w = sp[1];
	if (pthread_create(&np->acceptor, NULL, netproxy_accept_main,
	    np) != 0) {
		*cause = xstrdup("cannot start the proxy's thread");
		goto fail;
	}
	np->started = true;
	LOG("proxy for pid %d on %s", (int)pid, DOMAINS_PROXY_URL);
	return np;
fail:
	netproxy_free(np);
	return NULL;
}

void
netproxy_stop(struct netproxy *np)
{
	if (np == NULL || np->stop_w < 0)
		return;
	close(np->stop_w);
	np->stop_w = -1;
	if (np->started)
		pthread_join(np->acceptor, NULL);
	np->started = false;
	pthread_mutex_lock(&np->mu);
	while (np->active > 0)
		pthread_cond_wait(&np->idle, &np->mu);
	pthread_mutex_unlock(&np->mu);
}

void
netproxy_count(struct netproxy *np, const char *host, int port,
    uint64_t out, uint64_t in)
{
	struct netproxy_host	*h = NULL;

	pthread_mutex_lock(&np->mu);
	np->connections++;
	for (size_t i = 0; i < np->nhosts; i++)
		if (np->hosts[i].port == port &&
		    strcmp(np->hosts[i].host, host) == 0)
			h = &np->hosts[i];
	if (h == NULL && np->nhosts < NETPROXY_MAX_HOSTS) {
		np->hosts = xreallocarray(np->hosts, np->nhosts + 1,
		    sizeof *np->hosts);
		h = &np->hosts[np->nhosts++];
		memset(h, 0, sizeof *h);
		h->host = xstrdup(host);
		h->port = port;
	}
	if (h != NULL) {
		h->connections++;
		h->bytes_out += out;
		h->bytes_in += in;
	}
	pthread_mutex_unlock(&np->mu);
}

void
netproxy_refuse(struct netproxy *np, const char *host, int port,
    const char *why)
{
	LOG("refused %s:%d: %s", host, port, why);
	pthread_mutex_lock(&np->mu);
	/* The same refusal once. */
	for (size_t i = 0; i < np->nrefused; i++) {
		struct netproxy_refusal *r = &np->refused[i];

		if (r->port == port && strcmp(r->host, host) == 0 &&
		    strcmp(r->why, why) == 0) {
			pthread_mutex_unlock(&np->mu);
			return;
		}
	}
	if (np->nrefused < NETPROXY_MAX_REFUSED) {
		np->refused = xreallocarray(np->refused, np->nrefused + 1,
		    sizeof *np->refused);
		np->refused[np->nrefused].host = xstrdup(host);
		np->refused[np->nrefused].port = port;
		np->refused[np->nrefused].why = xstrdup(why);
		np->nrefused++;
	} else
		np->refused_more++;
	pthread_mutex_unlock(&np->mu);
}

cJSON *
netproxy_report(struct netproxy *np)
{
	cJSON	*j = cJSON_CreateObject(), *a;

	pthread_mutex_lock(&np->mu);
	cJSON_AddStringToObject(j, "proxy", DOMAINS_PROXY_URL);
	cJSON_AddNumberToObject(j, "connections", np->connections);
	a = cJSON_AddArrayToObject(j, "hosts");
	for (size_t i = 0; i < np->nhosts; i++) {
		cJSON *h = cJSON_CreateObject();

		cJSON_AddStringToObject(h, "host", np->hosts[i].host);
		cJSON_AddNumberToObject(h, "port", np->hosts[i].port);
		cJSON_AddNumberToObject(h, "connections",
		    np->hosts[i].connections);
		cJSON_AddNumberToObject(h, "bytes_out",
		    (double)np->hosts[i].bytes_out);
		cJSON_AddNumberToObject(h, "bytes_in",
		    (double)np->hosts[i].bytes_in);
		cJSON_AddItemToArray(a, h);
	}
	a = cJSON_AddArrayToObject(j, "refused");
	for (size_t i = 0; i < np->nrefused; i++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddStringToObject(r, "host", np->refused[i].host);
		cJSON_AddNumberToObject(r, "port", np->refused[i].port);
		cJSON_AddStringToObject(r, "why", np->refused[i].why);
		cJSON_AddItemToArray(a, r);
	}
	if (np->refused_more > 0)
		cJSON_AddNumberToObject(j, "refused_more",
		    (double)np->refused_more);
	pthread_mutex_unlock(&np->mu);
	return j;
}

void
netproxy_free(struct netproxy *np)
{
	if (np == NULL)
		return;
	netproxy_stop(np);
	if (np->listen_fd >= 0)
		close(np->listen_fd);
	if (np->stop_r >= 0)
		close(np->stop_r);
	for (size_t i = 0; i < np->nhosts; i++)
		free(np->hosts[i].host);
	free(np->hosts);
	for (size_t i = 0; i < np->nrefused; i++) {
		free(np->refused[i].host);
		free(np->refused[i].why);
	}
	free(np->refused);
	strv_release(&np->domains);
	strv_release(&np->approved);
	pthread_mutex_destroy(&np->mu);
	pthread_cond_destroy(&np->idle);
	free(np);
}
