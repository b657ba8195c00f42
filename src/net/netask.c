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

/* A connection waiting for its answer (on its thread's stack). */
struct netask_wait {
	struct netask_wait	*next;
	unsigned		 q;
	bool			 done;
	enum netproxy_answer	 a;
	char			*why;
};

struct netask {
	int			 fd;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;		/* an answer came, or the end */
	struct netask_wait	*waits;		/* questions out */
	unsigned		 next_q;
	bool			 reading;	/* a waiter reads the socket */
	struct strv		 asking;	/* "host:port" out now */
	struct strv		 denied;	/* "host:port" denied in this run */
	struct strv		 allowed;	/* "host:port" allowed for it */
	bool			 gone;		/* the console closed its end */
	bool			 ended;		/* the run ended while asking */
};

struct netask *
netask_new(int fd)
{
	struct netask	*na = xcalloc(1, sizeof *na);

	na->fd = fd;
	pthread_mutex_init(&na->mu, NULL);
	pthread_cond_init(&na->cv, NULL);
	return na;
}

void
netask_free(struct netask *na)
{
	if (na == NULL)
		return;
	close(na->fd);
	strv_release(&na->asking);
	strv_release(&na->denied);
	strv_release(&na->allowed);
	pthread_cond_destroy(&na->cv);
	pthread_mutex_destroy(&na->mu);
	free(na);
}

/* Read one line (an answer): -1 when the run ended, -2 when the console
   went away (or broke the protocol). */
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
		if (n <= 0)
			return -2;
		if (c == '\n')
			return 0;
		if (line->len >= NETASK_LINE_MAX)
			return -2;
		buf_add(line, &c, 1);
	}
}

/* One answer line: to the question it names. Locked. */
static void
netask_answered(struct netask *na, const char *text)
{
	cJSON			*j = cJSON_Parse(text);
	const cJSON		*q = cJSON_GetObjectItemCaseSensitive(j, "q");
	const cJSON		*ans = cJSON_GetObjectItemCaseSensitive(j,
				    "answer");
	const cJSON		*w = cJSON_GetObjectItemCaseSensitive(j, "why");
	struct netask_wait	*wt;

	for (wt = na->waits; wt != NULL; wt = wt->next)
		if (cJSON_IsNumber(q) && !wt->done &&
		    q->valuedouble == (double)wt->q)
			break;
	if (wt == NULL) {
		LOG("an answer to no question out: ignored");
		cJSON_Delete(j);
		return;
	}
	wt->done = true;
	if (cJSON_IsString(ans) && strcmp(ans->valuestring, "once") == 0)
		wt->a = NETPROXY_ALLOW_ONCE;
	else if (cJSON_IsString(ans) && strcmp(ans->valuestring, "run") == 0)
		wt->a = NETPROXY_ALLOW_RUN;
	else {
		wt->a = NETPROXY_DENY;
		wt->why = xstrdup(cJSON_IsString(w) ? w->valuestring :
		    "denied by the console");
	}
	cJSON_Delete(j);
}

/* Drop one string from a set. */
static void
netask_drop(struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0) {
			free(sv->v[i]);
			sv->v[i] = sv->v[--sv->n];
			sv->v[sv->n] = NULL;
			return;
		}
}

/*
 * Several connections may ask at once, each its own question (numbered:
 * the console shows them all and answers each). Whichever of them finds
 * nobody reading the socket reads it, handing each answer to its
 * question, until its own comes; then another takes over. Connections to
 * a host:port already asked about wait for that answer instead of asking
 * again.
 */
enum netproxy_answer
netask_ask(void *arg, const char *host, int port, const char *addr_class,
    int stop_fd, char **why)
{
	struct netask		*na = arg;
	struct netask_wait	 me = { 0 }, **pp;
	struct buf		 line = BUF_INIT;
	cJSON			*q;
	char			*s, *key = xasprintf("%s:%d", host, port);

	pthread_mutex_lock(&na->mu);
	while (!na->gone && !na->ended && strv_contains(&na->asking, key))
		pthread_cond_wait(&na->cv, &na->mu);
	if (na->gone || na->ended || strv_contains(&na->denied, key)) {
		*why = xstrdup(na->gone ? "no console to ask" : na->ended ?
		    "the command ended" : "denied earlier in this run");
		goto out;
	}
	if (strv_contains(&na->allowed, key)) {
		me.a = NETPROXY_ALLOW_RUN;
		goto out;
	}
	me.q = ++na->next_q;
	q = cJSON_CreateObject();
	cJSON_AddStringToObject(q, "type", "host");
	cJSON_AddNumberToObject(q, "q", me.q);
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
	LOG("asking about %s (question %u)", key, me.q);
	if (write_full(na->fd, s, strlen(s)) != 0) {
		free(s);
		na->gone = true;
		pthread_cond_broadcast(&na->cv);
		*why = xstrdup("no console to ask");
		goto out;
	}
	free(s);
	strv_push(&na->asking, key);
	me.next = na->waits;
	na->waits = &me;
	while (!me.done && !na->gone && !na->ended) {
		int rc;

		if (na->reading) {
			pthread_cond_wait(&na->cv, &na->mu);
			continue;
		}
		na->reading = true;
		pthread_mutex_unlock(&na->mu);
		buf_reset(&line);
		rc = netask_read_line(na, stop_fd, &line);
		pthread_mutex_lock(&na->mu);
		na->reading = false;
		if (rc == -2)
			na->gone = true;
		else if (rc != 0)
			na->ended = true;
		else {
			buf_add(&line, "", 1);
			netask_answered(na, line.data);
		}
		pthread_cond_broadcast(&na->cv);
	}
	for (pp = &na->waits; *pp != NULL; pp = &(*pp)->next)
		if (*pp == &me) {
			*pp = me.next;
			break;
		}
	netask_drop(&na->asking, key);
	pthread_cond_broadcast(&na->cv);
	if (!me.done) {
		me.a = NETPROXY_DENY;
		*why = xstrdup(na->gone ? "the console went away" :
		    "the command ended");
	} else if (me.a == NETPROXY_DENY) {
		*why = me.why;
		me.why = NULL;
		strv_push(&na->denied, key);
	} else if (me.a == NETPROXY_ALLOW_RUN)
		strv_push(&na->allowed, key);
	LOG("%s: %s", key, me.a == NETPROXY_DENY ? "denied" : "allowed");
out:
	pthread_mutex_unlock(&na->mu);
	free(me.why);
	buf_release(&line);
	free(key);
	return me.a;
}
