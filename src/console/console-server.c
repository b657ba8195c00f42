/* console-server: connections and their messages, and accepting them
   (console-listen.c has the listening sockets and the FIFO). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allowlist.h"
#include "audit.h"
#include "cleanup.h"
#include "client.h"
#include "config.h"
#include "console-int.h"
#include "console.h"
#include "jsonutil.h"
#include "log.h"
#include "path.h"
#include "probe.h"
#include "remote.h"
#include "xalloc.h"

static void	conn_read(int, short, void *);
static void	conn_kill(struct conn *);
static void	conn_lines(struct conn *);

/* ---- connections ---- */

/* Send what the socket takes of a connection's output now. */
static void
conn_write_out(struct conn *cn)
{
	if (!cn->dead && buf_send(cn->fd, &cn->out) != 0) {
		conn_kill(cn);
		return;
	}
	if (cn->dead)
		return;
	if (cn->out.len == 0 && cn->closing) {
		conn_kill(cn);
		return;
	}
	loop_set_events(cn->c->loop, cn->fd, (cn->closing || cn->paused ? 0 :
	    POLLIN) | (cn->out.len > 0 ? POLLOUT : 0));
}

/* Handle the lines read while the connection was paused (from a timer,
   so a job's end never runs other messages in the middle of itself). */
static void
conn_resume(void *arg)
{
	struct conn	*cn = arg;

	cn->resume_timer = 0;
	if (!cn->dead && !cn->paused)
		conn_lines(cn);
}

/* Stop reading an agent while a job's stdin buffer is full, and go on
   (with the lines already read) once it drained. */
void
conn_pause(struct conn *cn, bool paused)
{
	if (cn == NULL || cn->dead || cn->paused == paused)
		return;
	cn->paused = paused;
	conn_flush(cn);
	if (!paused && cn->resume_timer == 0)
		cn->resume_timer = loop_timer(cn->c->loop, 0, conn_resume, cn);
}

/* Write what we can of a connection's output. */
void
conn_flush(struct conn *cn)
{
	/* Nothing reaches an agent before the audit records it depends on
	   are on disk (console_commit flushes once they are). The operator's
	   connections are answered at once, so `bwgate list` works while the
	   log cannot be written; what they decide still starts only once it
	   is recorded (console_schedule). */
	if (cn->c->audit_dirty && cn->kind == CONN_AGENT) {
		console_arm_commit(cn->c);
		return;
	}
	conn_write_out(cn);
}

/* Queue one message (frees j). */
static void
conn_send(struct conn *cn, cJSON *j)
{
	char	*line;

	if (cn == NULL || cn->dead) {
		cJSON_Delete(j);
		return;
	}
	line = proto_encode(j);
	buf_puts(&cn->out, line);
	free(line);
	if (cn->out.len > CONSOLE_MAX_OUTBUF) {
		console_message(cn->c, "client pid %ld is not reading its "
		    "replies: disconnected", (long)cn->pid);
		conn_kill(cn);
		return;
	}
	conn_flush(cn);
}

/* Send a message to a request's agent, if it is still connected. */
void
request_send(struct request *r, cJSON *j)
{
	struct job	*jb = r->owner;

	conn_send(jb != NULL ? jb->conn : NULL, j);
}

/* Close and free a connection now; its requests lose their agent. */
static void
conn_free(struct conn *cn)
{
	struct console	*c = cn->c;
	struct request	*r, *next;
	struct job	*jb;
	char		*cause = NULL;

	for (r = TAILQ_FIRST(&c->q.requests); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		jb = r->owner;
		if (jb == NULL || jb->conn != cn)
			continue;
		jb->conn = NULL;
		if (r->state == REQUEST_PENDING ||
		    r->state == REQUEST_APPROVED) {
			if (queue_withdraw(&c->q, r, BY_AGENT,
			    "the agent disconnected", &cause) != 0) {
				free(cause);
				cause = NULL;
				continue;
			}
			request_decided(c, r);
		} else if (r->state == REQUEST_RUNNING)
			job_kill(jb, BY_AGENT, "the agent disconnected");
	}
	if (proto_reader_pending(&cn->rd) != 0 && !cn->closing)
		LOG("client pid %ld left half a line (%zu bytes)",
		    (long)cn->pid, proto_reader_pending(&cn->rd));
	if (cn->resume_timer != 0)
		loop_cancel(c->loop, cn->resume_timer);
	loop_remove(c->loop, cn->fd);
	close(cn->fd);
	LIST_REMOVE(cn, entry);
	c->nconns--;
	proto_reader_release(&cn->rd);
	buf_release(&cn->out);
	free(cn);
	console_emit_request(c, CONSOLE_EV_CLIENTS, NULL);
	console_check_done(c);
}

/* Free every connection marked dead (from a zero-delay timer). */
static void
console_reap_conns(void *arg)
{
	struct console	*c = arg;
	struct conn	*cn, *next;

	c->reap_armed = false;
	for (cn = LIST_FIRST(&c->conns); cn != NULL; cn = next) {
		next = LIST_NEXT(cn, entry);
		if (cn->dead)
			conn_free(cn);
	}
}

/* Mark a connection dead; it is closed once the current handler ends. */
static void
conn_kill(struct conn *cn)
{
	struct console	*c = cn->c;

	if (cn->dead)
		return;
	cn->dead = true;
	loop_set_events(c->loop, cn->fd, 0);
	if (!c->reap_armed) {
		c->reap_armed = true;
		loop_timer(c->loop, 0, console_reap_conns, c);
	}
}

/* Reply with an error. */
static void
conn_error(struct conn *cn, uint32_t id, const char *tag, const char *code,
    const char *message)
{
	conn_send(cn, proto_error_new(id, tag, code, message));
}

/* A refusal, which depends on no audit record: sent even while the
   replies that do wait for the log. */
static void
conn_error_now(struct conn *cn, uint32_t id, const char *tag,
    const char *code, const char *message)
{
	char	*line;

	struct request	*r;
	struct job	*jb;

	/* What is queued before it may be a reply that waits for the log:
	   only a connection with no request of its own (its greeting) can
	   have it all sent now. */
	TAILQ_FOREACH(r, &cn->c->q.requests, entry) {
		jb = r->owner;
		if (jb != NULL && jb->conn == cn) {
			conn_error(cn, id, tag, code, message);
			return;
		}
	}
	if (cn->dead) {
		conn_error(cn, id, tag, code, message);
		return;
	}
	line = proto_encode(proto_error_new(id, tag, code, message));
	buf_puts(&cn->out, line);
	free(line);
	conn_write_out(cn);
}

/* Who a control connection is, for decisions. */
static char *
conn_who(const struct conn *cn)
{
	return xasprintf("uid %u pid %ld (control socket)",
	    (unsigned)cn->uid, (long)cn->pid);
}

/* ---- incoming messages ---- */

/* A message on the agent socket. */
static void
conn_agent_msg(struct conn *cn, struct proto_msg *m)
{
	struct console	*c = cn->c;
	struct request	*r;
	struct job	*jb;
	char		*cause = NULL, *agent;

	switch (m->type) {
	case PROTO_SUBMIT:
		agent = xasprintf("pid %ld", (long)cn->pid);
		if (console_submit_msg(c, cn, m, agent, &cause) == 0) {
			conn_error_now(cn, 0, m->tag, c->shutting_down ?
			    "shutdown" : c->audit_failing != NULL ? "audit" :
			    m->write_path != NULL ? "write" : "cwd", cause);
			free(cause);
		}
		free(agent);
		return;
	case PROTO_CANCEL:
		r = queue_find(&c->q, m->id);
		jb = r != NULL ? r->owner : NULL;
		if (jb == NULL || jb->conn != cn) {
			cause = xasprintf("no request %u of yours", m->id);
			conn_error(cn, m->id, m->tag, "unknown-id", cause);
			free(cause);
			return;
		}
		if (r->state == REQUEST_RUNNING) {
			job_kill(jb, BY_AGENT, "cancelled by the agent");
			return;
		}
		if (queue_withdraw(&c->q, r, BY_AGENT,
		    "cancelled by the agent", &cause) != 0) {
			conn_error(cn, m->id, m->tag, "state", cause);
			free(cause);
			return;
		}
		request_decided(c, r);
		return;
	case PROTO_INPUT:
	case PROTO_INPUT_END:
		r = queue_find(&c->q, m->id);
		jb = r != NULL ? r->owner : NULL;
		if (jb == NULL || jb->conn != cn || !r->stdin_stream) {
			cause = xasprintf("no request %u of yours that takes "
			    "stdin (submit with \"stdin\":true)", m->id);
			conn_error(cn, m->id, m->tag, "unknown-id", cause);
			free(cause);
			return;
		}
		job_input(jb, m->data.data, m->data.len,
		    m->type == PROTO_INPUT_END);
		return;
	default:
		cause = xasprintf("'%s' is not accepted on the agent socket: "
		    "decisions come only from the operator (the terminal or "
		    "the control socket)", proto_type_name(m->type));
		conn_error(cn, m->id, m->tag, "forbidden", cause);
		free(cause);
		return;
	}
}

/* A message on the control socket. */
static void
conn_control_msg(struct conn *cn, struct proto_msg *m)
{
	struct console	*c = cn->c;
	struct request	*r;
	char		*cause = NULL, *who = conn_who(cn);
	cJSON		*a;
	int		 rc = 0, nconns;
	uint32_t	 id = m->id;

	switch (m->type) {
	case PROTO_LIST:
		console_undo_refresh(c);
		a = cJSON_CreateArray();
		TAILQ_FOREACH(r, &c->q.requests, entry) {
			cJSON			*rj = request_json(r);
			const struct service	*sv = console_service(c, r->id);

			/* The service it left running (bwgate list --json). */
			if (sv != NULL)
				cJSON_AddItemToObject(rj, "service",
				    service_json(sv));
			cJSON_AddItemToArray(a, rj);
		}
		nconns = (int)c->nconns;
		{
			cJSON *sv = console_services_json(c);

			conn_send(cn, proto_out_json(&(struct proto_out){
			    .type = PROTO_R_LIST, .tag = m->tag,
			    .project = c->project, .clients = &nconns,
			    .requests = a, .services = sv }));
			cJSON_Delete(sv);
		}
		cJSON_Delete(a);
		free(who);
		return;
	case PROTO_HOSTS:
		a = remote_hosts(c);
		conn_send(cn, proto_out_json(&(struct proto_out){
		    .type = PROTO_R_HOSTS, .tag = m->tag, .hosts = a }));
		cJSON_Delete(a);
		free(who);
		return;
	case PROTO_SHOW:
		if ((r = console_find(c, m->id, &cause)) == NULL)
			break;
		console_undo_refresh(c);
		a = request_json(r);
		if (console_service(c, r->id) != NULL)
			cJSON_AddItemToObject(a, "service",
			    service_json(console_service(c, r->id)));
		{
			/* Its streams come back from disk (spool.c). */
			cJSON *rep = spool_report(c, r);

			conn_send(cn, proto_out_json(&(struct proto_out){
			    .type = PROTO_R_SHOW, .id = r->id, .tag = m->tag,
			    .request = a, .report = rep != NULL ? rep :
			    r->report }));
			cJSON_Delete(rep);
		}
		cJSON_Delete(a);
		free(who);
		return;
	case PROTO_APPROVE:
		if (m->profile != NULL)
			rc = console_set_profile(c, m->id, m->profile, &cause);
		if (rc == 0 && !proto_mounts_empty(&m->mounts))
			rc = console_set_mounts(c, m->id, &m->mounts, &cause);
		if (rc == 0)
			rc = (m->danger ? console_approve_danger :
			    console_approve)(c, m->id, who, m->note, &cause);
		break;
	case PROTO_DENY:
		rc = console_deny(c, m->id, who, m->note, &cause);
		break;
	case PROTO_HOST:
		rc = console_host_answer(c, m->id, m->answer, who, m->note,
		    &cause);
		break;
	case PROTO_KILL:
		rc = console_kill(c, m->id, who, &cause);
		break;
	case PROTO_STOP:
		rc = console_service_stop(c, m->id, who, &cause);
		break;
	case PROTO_RERUN:
		id = console_rerun(c, m->id, who, &cause);
		rc = id == 0 ? -1 : 0;
		break;
	case PROTO_RELOAD:
		rc = console_reload(c, who, &cause);
		break;
	default:
		cause = xasprintf("'%s' is not accepted on the control "
		    "socket (agents use the agent socket)",
		    proto_type_name(m->type));
		conn_error(cn, m->id, m->tag, "forbidden", cause);
		free(cause);
		free(who);
		return;
	}
	if (rc != 0)
		conn_error(cn, m->id, m->tag, "refused", cause);
	else {
		conn_send(cn, proto_out_json(&(struct proto_out){
		    .type = PROTO_R_OK, .id = id, .tag = m->tag,
		    .action = proto_type_name(m->type) }));
	}
	free(cause);
	free(who);
}

/* Is a line only spaces? A NUL byte is no space: such a line gets its
   refusal (proto_decode), never silence. */
static bool
conn_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			return false;
	return true;
}

/* Handle every complete line a connection sent. */
static void
conn_lines(struct conn *cn)
{
	struct proto_msg	 m;
	char			*line, *cause = NULL, *msg;
	size_t			 len;
	enum proto_line		 rc;

	while (!cn->dead && !cn->closing && !cn->paused &&
	    (rc = proto_reader_next(&cn->rd, &line, &len)) !=
	    PROTO_LINE_NONE) {
		if (rc == PROTO_LINE_TOO_LONG) {
			msg = xasprintf("line longer than %d bytes: ignored "
			    "up to its end", PROTO_MAX_LINE);
			conn_error(cn, 0, NULL, "too-long", msg);
			free(msg);
			continue;
		}
		if (conn_blank(line, len))
			continue;
		m = (struct proto_msg)PROTO_MSG_INIT;
		if (proto_decode(line, len, &m, &cause) != 0) {
			conn_error(cn, 0, m.tag, "invalid", cause);
			free(cause);
			cause = NULL;
		} else if (cn->kind == CONN_AGENT)
			conn_agent_msg(cn, &m);
		else
			conn_control_msg(cn, &m);
		proto_msg_release(&m);
	}
}

/* A connection is readable or writable. */
static void
conn_read(int fd, short revents, void *arg)
{
	struct conn	*cn = arg;
	char		 buf[65536];
	ssize_t		 n;

	if (cn->dead)
		return;
	if (revents & POLLOUT)
		conn_flush(cn);
	if (cn->dead || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	if (cn->closing) {
		if (revents & (POLLHUP | POLLERR))
			conn_kill(cn);
		return;
	}
	n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		conn_kill(cn);
		return;
	}
	proto_reader_feed(&cn->rd, buf, (size_t)n);
	conn_lines(cn);
}

/* May this uid use this socket? */
static bool
console_uid_allowed(struct console *c, enum conn_kind kind, uid_t uid)
{
	if (uid == c->uid)
		return true;
	if (kind == CONN_CONTROL)
		return false;
	for (size_t i = 0; i < c->cfg.nallowed_uids; i++)
		if (c->cfg.allowed_uids[i] == uid)
			return true;
	return false;
}

/* Listen again after a pause for descriptor exhaustion. */
static void
console_accept_resume(void *arg)
{
	struct console	*c = arg;

	if (c->agent_fd >= 0)
		loop_set_events(c->loop, c->agent_fd, POLLIN);
	if (c->control_fd >= 0)
		loop_set_events(c->loop, c->control_fd, POLLIN);
}

/*
 * Out of descriptors (or memory): the pending connection stays in the
 * backlog and poll would report it again at once, so stop listening for a
 * while (doubling up to 2 s) instead of spinning; the connections we have
 * keep being served. Said once per episode, not once per attempt.
 */
static void
console_accept_pause(struct console *c, int err)
{
	if (c->accept_backoff_ms == 0)
		console_message(c, "accept: %s: not accepting new clients for "
		    "now", strerror(err));
	c->accept_backoff_ms = c->accept_backoff_ms == 0 ? 100 :
	    c->accept_backoff_ms * 2;
	if (c->accept_backoff_ms > 2000)
		c->accept_backoff_ms = 2000;
	if (c->agent_fd >= 0)
		loop_set_events(c->loop, c->agent_fd, 0);
	if (c->control_fd >= 0)
		loop_set_events(c->loop, c->control_fd, 0);
	loop_timer(c->loop, c->accept_backoff_ms, console_accept_resume, c);
}

/* Accept clients on a listening socket. */
void
console_accept(int lfd, short revents, void *arg)
{
	struct console	*c = arg;
	enum conn_kind	 kind = lfd == c->agent_fd ? CONN_AGENT : CONN_CONTROL;
	struct ucred	 cred;
	socklen_t	 len;
	struct conn	*cn;
	cJSON		*rec;
	char		*msg;
	int		 fd;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				console_accept_pause(c, errno);
			else if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				console_message(c, "accept: %s",
				    strerror(errno));
			return;
		}
		if (c->accept_backoff_ms > 0) {
			console_message(c, "accepting new clients again");
			c->accept_backoff_ms = 0;
		}
		len = sizeof cred;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
			close(fd);
			continue;
		}
		cn = xcalloc(1, sizeof *cn);
		cn->c = c;
		cn->fd = fd;
		cn->kind = kind;
		cn->uid = cred.uid;
		cn->pid = cred.pid;
		cn->rd = (struct proto_reader)PROTO_READER_INIT;
		LIST_INSERT_HEAD(&c->conns, cn, entry);
		c->nconns++;
		loop_add(c->loop, fd, POLLIN, conn_read, cn);

		if (!console_uid_allowed(c, kind, cred.uid)) {
			msg = xasprintf("uid %u may not use this console "
			    "(it runs as uid %u)", (unsigned)cred.uid,
			    (unsigned)c->uid);
			console_message(c, "refused %s client pid %ld: %s",
			    kind == CONN_AGENT ? "agent" : "control",
			    (long)cred.pid, msg);
			rec = audit_record("refused", NULL);
			cJSON_AddNumberToObject(rec, "uid", cred.uid);
			cJSON_AddNumberToObject(rec, "pid", cred.pid);
			cJSON_AddStringToObject(rec, "socket", kind ==
			    CONN_AGENT ? "agent" : "control");
			console_audit(c, rec);
			conn_error(cn, 0, NULL, "forbidden", msg);
			free(msg);
			cn->closing = true;
			conn_flush(cn);
			continue;
		}
		conn_send(cn, proto_out_json(&(struct proto_out){
		    .type = PROTO_R_HELLO, .console = "bwgate " PACKAGE_VERSION,
		    .project = c->project,
		    .socket = kind == CONN_AGENT ? "agent" : "control" }));
		console_emit_request(c, CONSOLE_EV_CLIENTS, NULL);
	}
}
