/*
 * console-service: the project's services (issue 41). A request whose
 * command ended with processes of it still running in the project's
 * shared world says so in its report ("service", engine.h); its `bwgate
 * exec` child then goes on serving them. The request finishes as any
 * other (its agent has its result), and the child becomes a service of
 * the console: listed (`bwgate list`, the console's services), its further
 * output kept (the last CONSOLE_SERVICE_KEEP bytes), stopped by the
 * operator (`bwgate stop ID`, the console's key: SIGTERM to exec, which
 * stops its cgroup, SIGKILL after the grace period), and stopped when the
 * console ends. A service is known by the id of the request that started
 * it. The audit log records "service-start" and "service-stop".
 *
 * Like the console's other helpers it calls only console-emit.c and the
 * layers below (doc/HACKING.md); a shutdown that waited for the last
 * service sees it gone through console_done().
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "console-int.h"
#include "console.h"
#include "jsonutil.h"
#include "log.h"
#include "proctree.h"
#include "xalloc.h"

static void	service_end_check(struct service *);
static void	service_events(struct service *, const char *, size_t);
static void	service_refused(struct service *, const cJSON *);
static void	service_stop(struct service *, const char *);

/* Find a service by its request's id. */
static struct service *
service_find(struct console *c, uint32_t id)
{
	struct service	*s;

	TAILQ_FOREACH(s, &c->services, entry)
		if (s->id == id)
			return s;
	return NULL;
}

/* What the observer refused the service after its request: audited
   ("service-refused") and said (the front end escapes the message). */
static void
service_refused(struct service *s, const cJSON *refused)
{
	const cJSON	*v;
	cJSON		*rec;

	cJSON_ArrayForEach(v, refused) {
		const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(v,
		    "path"));
		const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(v,
		    "operation"));
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(v,
		    "reason"));

		if (path == NULL || op == NULL)
			continue;
		rec = audit_record("service-refused", NULL);
		cJSON_AddNumberToObject(rec, "id", s->id);
		cJSON_AddItemToObject(rec, "violation", cJSON_Duplicate(v,
		    true));
		console_audit(s->c, rec);
		console_message(s->c, "service %u: refused %s %s (%s)", s->id,
		    op, path, why != NULL ? why : "?");
	}
}

/* exec's lines about the service: {"event":"service","ports":[...]}, the
   ports it listens on (engine-service.c). */
static void
service_events(struct service *s, const char *data, size_t len)
{
	char		*nl;
	cJSON		*j, *p;
	const cJSON	*a;

	buf_add(&s->evin, data, len);
	while ((nl = memchr(s->evin.data, '\n', s->evin.len)) != NULL) {
		j = cJSON_ParseWithLength(s->evin.data, (size_t)(nl -
		    s->evin.data));
		buf_consume(&s->evin, (size_t)(nl - s->evin.data) + 1);
		service_refused(s, cJSON_GetObjectItem(j, "refused"));
		/* A limit it reached ended it ("pids limit"). */
		if (cJSON_IsString(cJSON_GetObjectItem(j, "killed")) &&
		    s->stopped_by == NULL)
			s->stopped_by = xstrdup(cJSON_GetObjectItem(j,
			    "killed")->valuestring);
		a = cJSON_GetObjectItem(j, "ports");
		if (cJSON_IsArray(a) && cJSON_IsString(cJSON_GetObjectItem(j,
		    "event"))) {
			s->nports = 0;
			cJSON_ArrayForEach(p, a)
				if (cJSON_IsNumber(p) && s->nports <
				    sizeof s->ports / sizeof s->ports[0])
					s->ports[s->nports++] = p->valueint;
			console_emit(s->c, &(struct console_event){
			    .type = CONSOLE_EV_SERVICE });
		}
		cJSON_Delete(j);
	}
	/* A line never ends: drop it. */
	if (s->evin.len > 65536)
		buf_reset(&s->evin);
}

/* Its output: the last CONSOLE_SERVICE_KEEP bytes. */
static void
service_read(int fd, short revents, void *arg)
{
	struct service		*s = arg;
	struct console_event	 ev = { .type = CONSOLE_EV_SERVICE };
	char			 chunk[16384];
	ssize_t			 n;
	int			 i;

	for (i = 0; i < SERVICE_NFDS; i++)
		if (s->fds[i] == fd)
			break;
	if (i == SERVICE_NFDS)
		return;
	n = read(fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		loop_remove(s->c->loop, fd);
		close(fd);
		s->fds[i] = -1;
		service_end_check(s);
		return;
	}
	if (i == SERVICE_EVENTS) {
		service_events(s, chunk, (size_t)n);
		return;
	}
	buf_add(&s->out, chunk, (size_t)n);
	s->out_seen += (uint64_t)n;
	if (s->out.len > CONSOLE_SERVICE_KEEP)
		buf_consume(&s->out, s->out.len - CONSOLE_SERVICE_KEEP);
	ev.data = chunk;
	ev.len = (size_t)n;
	console_emit(s->c, &ev);
}

/* Take over a finished request's exec child (console-job.c calls this
   once its report says it serves; the job forgets the descriptors). */
void
service_adopt(struct console *c, struct job *jb, int processes)
{
	struct service	*s = xcalloc(1, sizeof *s);
	struct request	*r = jb->r;
	const int	 from[SERVICE_NFDS] = { JOB_OUT, JOB_ERR, JOB_EVENTS };
	cJSON		*rec;

	s->c = c;
	s->id = r->id;
	s->command = xstrdup(r->command != NULL ? r->command : "");
	s->agent = r->agent != NULL ? xstrdup(r->agent) : NULL;
	s->pid = jb->pid;
	s->processes = processes;
	s->started = time(NULL);
	s->out = (struct buf)BUF_INIT;
	s->evin = (struct buf)BUF_INIT;
	for (int i = 0; i < SERVICE_NFDS; i++) {
		s->fds[i] = jb->fds[from[i]];
		jb->fds[from[i]] = -1;
		if (s->fds[i] < 0)
			continue;
		loop_remove(c->loop, s->fds[i]);
		loop_add(c->loop, s->fds[i], POLLIN, service_read, s);
	}
	TAILQ_INSERT_TAIL(&c->services, s, entry);
	c->nservices++;
	rec = audit_record("service-start", r);
	cJSON_AddNumberToObject(rec, "pid", s->pid);
	cJSON_AddNumberToObject(rec, "processes", processes);
	cJSON_AddStringToObject(rec, "command", s->command);
	console_audit(c, rec);
	console_message(c, "request %u: %d background process%s kept as a "
	    "service (stop: bwgate stop %u)", s->id, processes,
	    processes == 1 ? "" : "es", s->id);
	console_emit(c, &(struct console_event){ .type = CONSOLE_EV_SERVICE });
	/* Its request ended as the console began to stop. */
	if (c->shutting_down)
		service_stop(s, "the console");
}

/* Gone: exec reaped and its pipes closed. */
static void
service_end_check(struct service *s)
{
	struct console	*c = s->c;
	cJSON		*rec;

	if (!s->exited)
		return;
	for (int i = 0; i < SERVICE_NFDS; i++)
		if (s->fds[i] >= 0)
			return;
	rec = audit_record("service-stop", NULL);
	cJSON_AddNumberToObject(rec, "id", s->id);
	cJSON_AddStringToObject(rec, "by", s->stopped_by != NULL ?
	    s->stopped_by : "itself");
	console_audit(c, rec);
	console_message(c, "service %u ended%s%s", s->id, s->stopped_by !=
	    NULL ? ": stopped by " : "", s->stopped_by != NULL ?
	    s->stopped_by : "");
	LOG("service %u ended", s->id);
	service_free(c, s);
	console_emit(c, &(struct console_event){ .type = CONSOLE_EV_SERVICE });
}

/* Exec's pipes long after it exited: give up on them. */
static void
service_drain_timeout(void *arg)
{
	struct service	*s = arg;

	s->drain_timer = 0;
	for (int i = 0; i < SERVICE_NFDS; i++) {
		if (s->fds[i] >= 0) {
			loop_remove(s->c->loop, s->fds[i]);
			close(s->fds[i]);
			s->fds[i] = -1;
		}
	}
	service_end_check(s);
}

/* Reap the services' exec children (console_sigchld). */
void
service_reap(struct console *c)
{
	struct service	*s, *next;
	int		 status;

	for (s = TAILQ_FIRST(&c->services); s != NULL; s = next) {
		next = TAILQ_NEXT(s, entry);
		if (s->exited || reap_session(s->pid, &status, false) !=
		    s->pid)
			continue;
		s->exited = true;
		if (s->kill_timer != 0)
			loop_cancel(c->loop, s->kill_timer);
		s->kill_timer = 0;
		s->drain_timer = loop_timer(c->loop, CONSOLE_DRAIN_MS,
		    service_drain_timeout, s);
		service_end_check(s);
	}
}

/* Still there after the grace period: SIGTERM again means SIGKILL to
   its processes (engine-service.c). */
static void
service_kill_timeout(void *arg)
{
	struct service	*s = arg;

	s->kill_timer = 0;
	if (!s->exited) {
		LOG("service %u: still running, killing it", s->id);
		kill(s->pid, SIGTERM);
	}
}

/* Stop one: SIGTERM to exec (it stops the service's cgroup). */
static void
service_stop(struct service *s, const char *who)
{
	if (s->exited)
		return;
	if (s->stopped_by == NULL)
		s->stopped_by = xstrdup(who);
	kill(s->pid, SIGTERM);
	if (s->stopping)
		return;
	s->stopping = true;
	s->kill_timer = loop_timer(s->c->loop, CONSOLE_KILL_WAIT_MS,
	    service_kill_timeout, s);
	console_emit(s->c, &(struct console_event){
	    .type = CONSOLE_EV_SERVICE });
}

int
console_service_stop(struct console *c, uint32_t id, const char *who,
    char **cause)
{
	struct service	*s = service_find(c, id);
	cJSON		*rec;

	if (s == NULL) {
		*cause = xasprintf("no service %u (bwgate list shows them)",
		    id);
		return -1;
	}
	rec = audit_record("service-stop-asked", NULL);
	cJSON_AddNumberToObject(rec, "id", id);
	cJSON_AddStringToObject(rec, "by", who);
	console_audit(c, rec);
	service_stop(s, who);
	return 0;
}

/* The console ends: every service is stopped. */
void
service_stop_all(struct console *c, const char *who)
{
	struct service	*s;

	TAILQ_FOREACH(s, &c->services, entry)
		service_stop(s, who);
}

/* At the very end: whatever is left dies now. */
void
service_free_all(struct console *c)
{
	struct service	*s;

	cJSON		*rec;

	while ((s = TAILQ_FIRST(&c->services)) != NULL) {
		if (!s->exited) {
			kill(s->pid, SIGTERM);
			kill(s->pid, SIGTERM);	/* SIGKILL to its cgroup */
			reap_session(s->pid, NULL, true);
		}
		rec = audit_record("service-stop", NULL);
		cJSON_AddNumberToObject(rec, "id", s->id);
		cJSON_AddStringToObject(rec, "by", "the console");
		console_audit(c, rec);
		service_free(c, s);
	}
}

void
service_free(struct console *c, struct service *s)
{
	TAILQ_REMOVE(&c->services, s, entry);
	c->nservices--;
	for (int i = 0; i < SERVICE_NFDS; i++)
		if (s->fds[i] >= 0) {
			loop_remove(c->loop, s->fds[i]);
			close(s->fds[i]);
		}
	if (s->kill_timer != 0)
		loop_cancel(c->loop, s->kill_timer);
	if (s->drain_timer != 0)
		loop_cancel(c->loop, s->drain_timer);
	buf_release(&s->out);
	buf_release(&s->evin);
	free(s->command);
	free(s->agent);
	free(s->stopped_by);
	free(s);
}

/* One service as JSON (bwgate list): id, command, since, processes,
   stopping, the last lines of output. */
cJSON *
service_json(const struct service *s)
{
	cJSON		*j = cJSON_CreateObject(), *a;
	const char	*tail = service_tail(&s->out, CONSOLE_SERVICE_TAIL);

	cJSON_AddNumberToObject(j, "id", s->id);
	cJSON_AddStringToObject(j, "command", s->command);
	if (s->agent != NULL)
		cJSON_AddStringToObject(j, "agent", s->agent);
	cJSON_AddNumberToObject(j, "since", (double)s->started);
	cJSON_AddNumberToObject(j, "processes", s->processes);
	a = cJSON_AddArrayToObject(j, "ports");
	for (size_t i = 0; i < s->nports; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(s->ports[i]));
	cJSON_AddBoolToObject(j, "stopping", s->stopping);
	cJSON_AddNumberToObject(j, "output_bytes", (double)s->out_seen);
	cJSON_AddItemToObject(j, "output_tail", json_bytes(tail,
	    s->out.len - (size_t)(tail - (s->out.data != NULL ? s->out.data :
	    tail))));
	return j;
}

/* Every service, oldest first. */
cJSON *
console_services_json(struct console *c)
{
	cJSON		*a = cJSON_CreateArray();
	struct service	*s;

	TAILQ_FOREACH(s, &c->services, entry)
		cJSON_AddItemToArray(a, service_json(s));
	return a;
}

/* Where the last lines (at most n) of b begin. */
const char *
service_tail(const struct buf *b, int n)
{
	size_t	i = b->len;

	if (b->len == 0)
		return b->data != NULL ? b->data : "";
	if (b->data[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (b->data[i - 1] == '\n' && --n == 0)
			break;
		i--;
	}
	return b->data + i;
}

const struct service *
console_service(struct console *c, uint32_t id)
{
	return service_find(c, id);
}

size_t
console_services(struct console *c, const struct service **v, size_t max)
{
	struct service	*s;
	size_t		 n = 0;

	TAILQ_FOREACH(s, &c->services, entry)
		if (n < max)
			v[n++] = s;
	return c->nservices;
}
