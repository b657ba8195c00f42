/*
 * hostask: a running command's proxy asks about a host no rule allows
 * (run/netask.h is the other end, on `bwgate exec --ask-fd 6`).
 *
 * The question holds that one connection while the request's row says
 * "wants HOST:PORT". Connections of one command to several new hosts at
 * once are as many questions, each held and timed on its own: the row
 * shows the oldest, the list the others after it ("wants_also"), and
 * answers go to the oldest first. The operator answers allow once (this connection),
 * allow for this project (the operator's own rules for the project,
 * allowlist-hosts.c, never the project's file; this run and every later
 * one), or deny: from the console's keys or the control socket
 * ({"type":"host","id":N,"answer":"once"|"project"|"deny"}). The wait is
 * bounded by the approval timeout; a headless console with
 * --auto-allowlisted never allows a new host and denies at once, naming
 * the host and how to allow it. Every decision is an audit record
 * ("host").
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allowlist.h"
#include "console-int.h"
#include "console.h"
#include "domains.h"
#include "jsonutil.h"
#include "log.h"
#include "xalloc.h"

#define HOSTASK_LINE_MAX	1024
#define HOSTASK_MAX		32	/* questions out at once a request */

/* The request's row: its oldest question, and the others after it. */
static void
hostask_show(struct job *jb)
{
	struct request	*r = jb->r;
	struct hostq	*h = jb->askq;

	free(r->wants);
	r->wants = NULL;
	free(r->wants_class);
	r->wants_class = NULL;
	strv_release(&r->wants_also);
	if (h != NULL) {
		r->wants = xasprintf("%s:%d", h->host, h->port);
		r->wants_class = h->class != NULL ? xstrdup(h->class) : NULL;
		for (h = h->next; h != NULL; h = h->next)
			strv_pushf(&r->wants_also, "%s:%d", h->host, h->port);
	}
	console_emit_request(jb->c, CONSOLE_EV_CHANGED, r);
}

/* The answer to exec, the audit record; the question goes. */
static void
hostask_reply(struct hostq *hq, const char *answer, const char *decision,
    const char *by, const char *why)
{
	struct job	*jb = hq->jb;
	struct console	*c = jb->c;
	struct request	*r = jb->r;
	struct hostq	**pp;
	cJSON		*j = cJSON_CreateObject(), *rec;
	char		*s, *line;

	cJSON_AddNumberToObject(j, "q", hq->q);
	cJSON_AddStringToObject(j, "answer", answer);
	if (why != NULL)
		cJSON_AddStringToObject(j, "why", why);
	s = json_line(j);
	cJSON_Delete(j);
	line = xasprintf("%s\n", s);
	free(s);
	if (jb->ask_fd >= 0 && write_full(jb->ask_fd, line, strlen(line)) != 0)
		LOG("request %u: cannot answer the host question: %s", r->id,
		    strerror(errno));
	free(line);
	rec = audit_record("host", r);
	cJSON_AddStringToObject(rec, "host", hq->host);
	cJSON_AddNumberToObject(rec, "port", hq->port);
	if (hq->class != NULL)
		cJSON_AddStringToObject(rec, "resolves_to", hq->class);
	cJSON_AddStringToObject(rec, "decision", decision);
	cJSON_AddStringToObject(rec, "by", by);
	if (why != NULL)
		cJSON_AddStringToObject(rec, "why", why);
	console_audit(c, rec);
	if (hq->timer != 0)
		loop_cancel(c->loop, hq->timer);
	for (pp = &jb->askq; *pp != NULL; pp = &(*pp)->next)
		if (*pp == hq) {
			*pp = hq->next;
			break;
		}
	free(hq->host);
	free(hq->class);
	free(hq);
	hostask_show(jb);
}

/* Deny, saying who and why (the proxy adds how to allow the host, once:
   netproxy_hint()). */
static void
hostask_deny(struct hostq *hq, const char *by, const char *why)
{
	hostask_reply(hq, "deny", "deny", by, why);
}

/* No decision within the approval timeout. */
static void
hostask_timeout(void *arg)
{
	struct hostq	*hq = arg;
	char		*why;

	hq->timer = 0;
	why = xasprintf("no decision within %d seconds",
	    hq->jb->c->approval_timeout_s);
	hostask_deny(hq, "timeout", why);
	free(why);
}

/* One question from exec. */
static void
hostask_question(struct job *jb, const char *line)
{
	struct console	*c = jb->c;
	cJSON		*j = cJSON_Parse(line);
	const cJSON	*q = cJSON_GetObjectItemCaseSensitive(j, "q");
	const cJSON	*h = cJSON_GetObjectItemCaseSensitive(j, "host");
	const cJSON	*p = cJSON_GetObjectItemCaseSensitive(j, "port");
	const cJSON	*k = cJSON_GetObjectItemCaseSensitive(j, "resolves_to");
	struct hostq	*hq, **tail;
	size_t		 n = 0;
	char		 norm[DOMAINS_HOST_BUF];

	for (tail = &jb->askq; *tail != NULL; tail = &(*tail)->next)
		n++;
	if (!cJSON_IsNumber(q) || q->valuedouble < 1 ||
	    q->valuedouble > 4294967295.0) {
		/* Nothing to answer it by: exec's end is broken. */
		cJSON_Delete(j);
		hostask_close(jb);
		return;
	}
	if (n >= HOSTASK_MAX || !cJSON_IsString(h) ||
	    !cJSON_IsNumber(p) || p->valuedouble < 1 ||
	    p->valuedouble > 65535 || !domains_host_valid(h->valuestring,
	    norm, sizeof norm)) {
		/* Not a question we can show: no. */
		char *no = xasprintf("{\"q\":%.0f,\"answer\":\"deny\",\"why\":"
		    "\"%s\"}\n", q->valuedouble, n >= HOSTASK_MAX ?
		    "too many questions at once" :
		    "a question the console cannot read");

		(void)write_full(jb->ask_fd, no, strlen(no));
		free(no);
		cJSON_Delete(j);
		return;
	}
	hq = xcalloc(1, sizeof *hq);
	hq->jb = jb;
	hq->q = q->valuedouble;
	hq->host = xstrdup(norm);
	hq->port = (int)p->valuedouble;
	/* Only the proxy's own words ("a loopback address"), bounded. */
	if (cJSON_IsString(k) && strncmp(k->valuestring, "a", 1) == 0 &&
	    strlen(k->valuestring) < 64 &&
	    strspn(k->valuestring, "abcdefghijklmnopqrstuvwxyz ()-") ==
	    strlen(k->valuestring))
		hq->class = xstrdup(k->valuestring);
	cJSON_Delete(j);
	*tail = hq;
	LOG("request %u wants %s:%d", jb->r->id, hq->host, hq->port);
	if (c->shutting_down) {
		hostask_deny(hq, "console", "the console is shutting down");
		return;
	}
	/* --unlisted wait (and an executor, whose operator is a linked
	   console): the question waits like the rest. */
	if (c->headless && c->auto_allowlisted && !c->unlisted_wait) {
		hostask_deny(hq, "headless", "no rule allows this host and "
		    "this console runs headless with --auto-allowlisted, "
		    "which never allows a new host");
		return;
	}
	if (c->approval_timeout_s > 0)
		hq->timer = loop_timer(c->loop,
		    (int64_t)c->approval_timeout_s * 1000, hostask_timeout,
		    hq);
	if (hq == jb->askq)
		console_message(c, "#%u wants %s:%d: a once, A project, "
		    "d deny%s%s%s", jb->r->id,
		    hq->host, hq->port, hq->class != NULL ?
		    " (it resolves to " : "", hq->class != NULL ?
		    hq->class : "", hq->class != NULL ? ")" : "");
	else
		console_message(c, "#%u also wants %s:%d; a/A/d answer "
		    "%s:%d first", jb->r->id, hq->host, hq->port,
		    jb->askq->host, jb->askq->port);
	hostask_show(jb);
}

/* Lines from exec's end of the socket. */
static void
hostask_read(int fd, short revents, void *arg)
{
	struct job	*jb = arg;
	char		 chunk[512], *nl;
	ssize_t		 n;

	(void)revents;
	n = read(fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		hostask_close(jb);
		return;
	}
	buf_add(&jb->ask_in, chunk, (size_t)n);
	while (jb->ask_in.len > 0 && (nl = memchr(jb->ask_in.data, '\n',
	    jb->ask_in.len)) != NULL) {
		size_t used = (size_t)(nl - jb->ask_in.data) + 1;

		*nl = '\0';
		hostask_question(jb, jb->ask_in.data);
		if (jb->ask_fd < 0)	/* closed: a broken question */
			return;
		buf_consume(&jb->ask_in, used);
	}
	if (jb->ask_in.len > HOSTASK_LINE_MAX)
		hostask_close(jb);
}

void
hostask_open(struct job *jb, int fd)
{
	jb->ask_fd = fd;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	loop_add(jb->c->loop, fd, POLLIN, hostask_read, jb);
}

void
hostask_close(struct job *jb)
{
	while (jb->askq != NULL)
		hostask_deny(jb->askq, "console", "the request ended");
	if (jb->ask_fd >= 0) {
		loop_remove(jb->c->loop, jb->ask_fd);
		close(jb->ask_fd);
		jb->ask_fd = -1;
	}
	buf_release(&jb->ask_in);
}

/* The operator's answer to a request's host question; *reload when the
   project's rules changed (console_host_answer reloads them). */
int
hostask_answer(struct console *c, uint32_t id, const char *answer,
    const char *who, const char *note, bool *reload, char **cause)
{
	struct request	*r = console_find(c, id, cause);
	struct job	*jb;
	struct hostq	*hq;
	char		*pattern, *path = NULL, *why;

	if (r == NULL)
		return -1;
	jb = r->owner;
	if (jb == NULL || (hq = jb->askq) == NULL) {
		*cause = xasprintf("request %u asks about no host", id);
		return -1;
	}
	if (strcmp(answer, "once") == 0) {
		hostask_reply(hq, "once", "allow-once", who, note);
		return 0;
	}
	if (strcmp(answer, "deny") == 0) {
		why = xasprintf("denied by %s%s%s", who, note != NULL ?
		    ": " : "", note != NULL ? note : "");
		hostask_deny(hq, who, why);
		free(why);
		return 0;
	}
	if (strcmp(answer, "project") != 0) {
		*cause = xasprintf("answer '%s': want once, project or deny",
		    answer);
		return -1;
	}
	pattern = domains_pattern(hq->host, hq->port, hq->class != NULL);
	if (allowlist_add_project_host(c->project, pattern, &path,
	    cause) != 0) {
		free(pattern);
		return -1;
	}
	console_message(c, "%s allowed for this project (in '%s')", pattern,
	    path);
	hostask_reply(hq, "run", "allow-project", who, note);
	free(pattern);
	free(path);
	*reload = true;		/* later requests see it */
	return 0;
}
