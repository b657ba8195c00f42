/* netask: the proxy's questions to the console (see netask.h). */
#include "autoconf.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "jsonutil.h"
#include "log.h"
#include "netask.h"
#include "strv.h"
#include "xalloc.h"

#define NETASK_LINE_MAX	4096

struct netask {
	int		 fd;
	pthread_mutex_t	 mu;		/* one question at a time */
	struct strv	 denied;	/* "host:port" denied in this run */
	bool		 gone;		/* the console closed its end */
};

struct netask *
netask_new(int fd)
{
	struct netask	*na = xcalloc(1, sizeof *na);

	na->fd = fd;
	pthread_mutex_init(&na->mu, NULL);
	return na;
}

void
netask_free(struct netask *na)
{
	if (na == NULL)
		return;
	close(na->fd);
	strv_release(&na->denied);
	pthread_mutex_destroy(&na->mu);
	free(na);
}

/* Read one line (the answer); -1 when the console or the run ended. */
static int
netask_read_line(struct netask *na, int stop_fd, struct buf *line)
{
	struct pollfd	pfd[2];
	char		c;

	for (;;) {
		ssize_t n;

		pfd[0].fd = na->fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = stop_fd;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pfd[1].revents != 0)
			return -1;
		/* A byte at a time: answers are short and rare. */
		n = read(na->fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			na->gone = true;
			return -1;
		}
		if (c == '\n')
			return 0;
		if (line->len >= NETASK_LINE_MAX)
			return -1;
		buf_add(line, &c, 1);
	}
}

enum netproxy_answer
netask_ask(void *arg, const char *host, int port, const char *addr_class,
    int stop_fd, char **why)
{
	struct netask		*na = arg;
	enum netproxy_answer	 a = NETPROXY_DENY;
	struct buf		 line = BUF_INIT;
	cJSON			*q, *j = NULL;
	const cJSON		*ans, *w;
	char			*s, *key = xasprintf("%s:%d", host, port);

	pthread_mutex_lock(&na->mu);
	if (na->gone || strv_contains(&na->denied, key)) {
		*why = xstrdup(na->gone ? "no console to ask" :
		    "denied earlier in this run");
		goto out;
	}
	q = cJSON_CreateObject();
	cJSON_AddStringToObject(q, "type", "host");
	cJSON_AddStringToObject(q, "host", host);
	cJSON_AddNumberToObject(q, "port", port);
	if (addr_class != NULL)
		cJSON_AddStringToObject(q, "resolves_to", addr_class);
	s = json_line(q);
	cJSON_Delete(q);
	{
		char *nl = xasprintf("%s\n", s);

		free(s);
		s = nl;
	}
	LOG("asking about %s", key);
	if (write_full(na->fd, s, strlen(s)) != 0) {
		free(s);
		na->gone = true;
		*why = xstrdup("no console to ask");
		goto out;
	}
	free(s);
	if (netask_read_line(na, stop_fd, &line) != 0) {
		*why = xstrdup(na->gone ? "the console went away" :
		    "the command ended");
		goto out;
	}
	buf_add(&line, "", 1);
	j = cJSON_Parse(line.data);
	ans = cJSON_GetObjectItemCaseSensitive(j, "answer");
	w = cJSON_GetObjectItemCaseSensitive(j, "why");
	if (cJSON_IsString(ans) && strcmp(ans->valuestring, "once") == 0)
		a = NETPROXY_ALLOW_ONCE;
	else if (cJSON_IsString(ans) && strcmp(ans->valuestring, "run") == 0)
		a = NETPROXY_ALLOW_RUN;
	else {
		*why = xstrdup(cJSON_IsString(w) ? w->valuestring :
		    "denied by the console");
		strv_push(&na->denied, key);
	}
	LOG("%s: %s", key, a == NETPROXY_DENY ? "denied" : "allowed");
out:
	pthread_mutex_unlock(&na->mu);
	cJSON_Delete(j);
	buf_release(&line);
	free(key);
	return a;
}
