/*
 * console: the console core: sockets, clients, the queue, exec children.
 *
 * Everything happens in handlers called from the one poll loop (loop.h):
 *
 *   listeners  accept -> SO_PEERCRED check -> a struct conn (agent or
 *              control) with a line reader and an output buffer;
 *   conn read  lines -> proto_decode -> submit/cancel (agent socket) or
 *              list/approve/deny/kill/rerun (control socket);
 *   submit     cwd check -> classify (allowlist) -> dry-run sandbox argv
 *              -> audit -> "queued" -> decision (allowlist, headless rule,
 *              or wait for the operator);
 *   schedule   queue_next() -> fork/exec `bwgate exec ... --json-fd 3
 *              --events-fd 4` with four pipes -> "started";
 *   job pipes  stdout/stderr -> "output", events -> "event", the JSON
 *              report is collected; when the child is reaped (SIGCHLD) and
 *              every pipe is closed -> audit -> "result" -> schedule again.
 *
 * Writes to clients never block: each conn has an output buffer flushed on
 * POLLOUT. A conn that breaks is only marked dead where it is found and
 * closed from a zero-delay timer, so no handler frees what a caller still
 * uses. Each request's console-side state (the child, its pipes, the kept
 * output) is a struct job hung on request->owner.
 */
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
#include "console.h"
#include "filereq.h"
#include "jsonutil.h"
#include "log.h"
#include "path.h"
#include "probe.h"
#include "xalloc.h"

#define CONSOLE_MAX_OUTBUF	(64 * 1024 * 1024)	/* unread replies */
#define CONSOLE_MAX_REPORT	(512 * 1024 * 1024)
#define CONSOLE_KILL_WAIT_MS	10000	/* SIGTERM -> SIGKILL of exec */
#define CONSOLE_DRAIN_MS	2000	/* pipes after the child exited */
#define CONSOLE_SHUTDOWN_MS	15000	/* longest orderly shutdown */
#define CONSOLE_EXIT_FAILED	125	/* bwgate failed before running it */

enum conn_kind {
	CONN_AGENT,
	CONN_CONTROL,
};

struct conn {
	struct console		*c;
	int			 fd;
	enum conn_kind		 kind;
	uid_t			 uid;
	pid_t			 pid;
	struct proto_reader	 rd;
	struct buf		 out;
	bool			 closing;	/* close once out is flushed */
	bool			 dead;		/* close at the next chance */
	LIST_ENTRY(conn)	 entry;
};
LIST_HEAD(conn_list, conn);

enum {
	JOB_OUT,
	JOB_ERR,
	JOB_JSON,
	JOB_EVENTS,
	JOB_NFDS
};

struct job {
	struct console		*c;
	struct request		*r;
	struct conn		*conn;		/* NULL: FIFO, rerun, gone */
	pid_t			 pid;
	int			 fds[JOB_NFDS];
	struct buf		 json;
	struct proto_reader	 evrd;
	char			 hold[2][4];	/* split UTF-8 sequences */
	size_t			 holdlen[2];
	bool			 exited;
	int			 wstatus;
	bool			 killing;
	int			 kill_timer;
	int			 drain_timer;
	int			 approval_timer;
	struct buf		 log;		/* kept output */
	cJSON			*events;	/* kept events */
};

struct console_sub {
	console_cb	 cb;
	void		*arg;
};

struct console {
	struct loop		*loop;
	char			*project;
	char			*socket_path;
	char			*control_path;
	char			*fifo_path;
	char			*exec_path;
	char			*config_file;
	bool			 headless;
	bool			 auto_allowlisted;
	int			 approval_timeout_s;
	uid_t			 uid;

	struct queue		 q;
	struct audit		*audit;
	struct config		 cfg;
	struct allowlist	*al;
	struct probe		 probe;

	int			 agent_fd;
	int			 control_fd;
	struct stat		 agent_st;
	struct stat		 control_st;
	int			 fifo_fd;
	bool			 fifo_created;
	struct proto_reader	 fiford;

	struct conn_list	 conns;
	size_t			 nconns;
	bool			 reap_armed;
	bool			 audit_dirty;	/* appended, not yet synced */
	bool			 commit_armed;

	struct console_sub	*subs;
	size_t			 nsubs;
	unsigned		 dirty;

	bool			 shutting_down;
	bool			 done;
	int			 shutdown_timer;
};

static void	conn_read(int, short, void *);
static void	console_message(struct console *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static void	conn_kill(struct conn *);
static void	conn_flush(struct conn *);
static void	console_schedule(struct console *);
static void	console_check_done(struct console *);
static void	job_kill(struct job *, enum request_by, const char *);
static void	job_check_done(struct job *);
static void	request_decided(struct console *, struct request *);
static void	request_ended_cleanup(struct console *, struct request *);

/* Tell subscribers and set the matching dirty bit. */
static void
console_emit(struct console *c, const struct console_event *ev)
{
	switch (ev->type) {
	case CONSOLE_EV_OUTPUT:
		c->dirty |= CONSOLE_DIRTY_OUTPUT;
		break;
	case CONSOLE_EV_FSEVENT:
		c->dirty |= CONSOLE_DIRTY_EVENTS;
		break;
	case CONSOLE_EV_MESSAGE:
	case CONSOLE_EV_CLIENTS:
	case CONSOLE_EV_QUIT:
		c->dirty |= CONSOLE_DIRTY_STATUS;
		break;
	default:
		c->dirty |= CONSOLE_DIRTY_QUEUE;
		break;
	}
	for (size_t i = 0; i < c->nsubs; i++)
		c->subs[i].cb(c, ev, c->subs[i].arg);
}

/* A request event with no data. */
static void
console_emit_request(struct console *c, enum console_event_type type,
    struct request *r)
{
	struct console_event	ev = { .type = type, .r = r };

	console_emit(c, &ev);
}

/* A line for the status area (and the debug log). */
static void __attribute__((format(printf, 2, 3)))
console_message(struct console *c, const char *fmt, ...)
{
	struct console_event	 ev = { .type = CONSOLE_EV_MESSAGE };
	va_list			 ap;
	char			*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	LOG("%s", s);
	ev.message = s;
	console_emit(c, &ev);
	free(s);
}

/*
 * Group commit: make the audit records of this loop pass durable with one
 * fsync, then let the replies that wait for them go out.
 */
static void
console_commit(void *arg)
{
	struct console	*c = arg;
	struct conn	*cn;
	char		*cause = NULL;

	c->commit_armed = false;
	if (c->audit_dirty && audit_sync(c->audit, &cause) != 0) {
		console_message(c, "audit log: %s", cause);
		free(cause);
	}
	c->audit_dirty = false;
	LIST_FOREACH(cn, &c->conns, entry)
		if (!cn->dead && cn->out.len > 0)
			conn_flush(cn);
}

/* Run console_commit at the end of this loop pass. */
static void
console_arm_commit(struct console *c)
{
	if (c->commit_armed)
		return;
	c->commit_armed = true;
	loop_timer(c->loop, 0, console_commit, c);
}

/* Append an audit record (synced before any reply leaves). */
static int
console_audit(struct console *c, cJSON *rec)
{
	char	*cause = NULL;

	if (audit_append(c->audit, rec, &cause) == 0) {
		c->audit_dirty = true;
		console_arm_commit(c);
		return 0;
	}
	console_message(c, "audit log: %s", cause);
	free(cause);
	return -1;
}

/* An audit record about a request. */
static cJSON *
audit_record(const char *what, const struct request *r)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "record", what);
	if (r != NULL)
		cJSON_AddNumberToObject(j, "id", r->id);
	return j;
}

/* ---- connections ---- */

/* Write what we can of a connection's output. */
static void
conn_flush(struct conn *cn)
{
	ssize_t	n;

	/* Nothing leaves before the audit records it depends on are on
	   disk (console_commit flushes once they are). */
	if (cn->c->audit_dirty) {
		console_arm_commit(cn->c);
		return;
	}
	while (cn->out.len > 0 && !cn->dead) {
		n = send(cn->fd, cn->out.data, cn->out.len,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_kill(cn);
			return;
		}
		buf_consume(&cn->out, (size_t)n);
	}
	if (cn->dead)
		return;
	if (cn->out.len == 0 && cn->closing) {
		conn_kill(cn);
		return;
	}
	loop_set_events(cn->c->loop, cn->fd, (cn->closing ? 0 : POLLIN) |
	    (cn->out.len > 0 ? POLLOUT : 0));
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
static void
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

/* Who a control connection is, for decisions. */
static char *
conn_who(const struct conn *cn)
{
	return xasprintf("uid %u pid %ld (control socket)",
	    (unsigned)cn->uid, (long)cn->pid);
}

/* ---- requests ---- */

/* The mounts a request runs with. */
const struct proto_mounts *
console_mounts(const struct request *r)
{
	return r->edited ? &r->edits : &r->asked;
}

/* Classify a request's command and build its dry-run sandbox argv. */
static void
request_classify(struct console *c, struct request *r)
{
	struct classification	 cl = CLASSIFICATION_INIT;
	struct sandbox_policy	 pol;
	struct sandbox		 sb = SANDBOX_INIT;
	const struct proto_mounts *m = console_mounts(r);
	char			*cause = NULL;

	/* A file write was classified by the file-write rules when it was
	   built (console_submit_msg); its script is not for the allowlist. */
	if (!r->file_write) {
		if (r->is_argv)
			allowlist_classify_argv(c->al, &r->argv, &cl);
		else
			allowlist_classify(c->al, r->command, &cl);
		r->verdict = cl.verdict;
		free(r->rule);
		r->rule = cl.rule != NULL ? xstrdup(cl.rule) : NULL;
		free(r->reason);
		r->reason = xstrdup(cl.reason != NULL ? cl.reason : "");
		free(r->profile);
		r->profile = cl.profile != NULL ? xstrdup(cl.profile) : NULL;
		classification_release(&cl);
	}

	/* More than the profile gives always needs a person. */
	if (r->verdict == VERDICT_ALLOW && !proto_mounts_empty(&r->asked)) {
		char *s = xasprintf("%s; but the request asks for network "
		    "or extra paths, which needs an operator", r->reason);

		free(r->reason);
		r->reason = s;
		r->verdict = VERDICT_ASK;
	}

	sandbox_policy_init(&pol);
	free(r->error);
	r->error = NULL;
	if (sandbox_policy_set_dirs(&pol, c->project, r->cwd, &cause) != 0)
		goto fail;
	config_apply(&c->cfg, &pol);
	if (r->profile != NULL && allowlist_profile_apply(c->al, r->profile,
	    &pol, &cause) != 0)
		goto fail;
	if (m->network != -1)
		pol.network = pol.network || m->network == 1;
	for (size_t i = 0; i < m->rw.n; i++)
		strv_push(&pol.rw_paths, m->rw.v[i]);
	for (size_t i = 0; i < m->ro.n; i++)
		strv_push(&pol.ro_paths, m->ro.v[i]);
	for (size_t i = 0; i < m->hide.n; i++)
		strv_push(&pol.hide_paths, m->hide.v[i]);
	if (sandbox_build(&pol, &c->probe, SANDBOX_DRY, &sb, &cause) != 0)
		goto fail;
	r->writes = !pol.project_readonly;
	strv_release(&r->bwrap_argv);
	strv_copy(&r->bwrap_argv, &sb.argv);
	for (size_t i = 0; i < r->argv.n; i++)
		strv_push(&r->bwrap_argv, r->argv.v[i]);
	cJSON_Delete(r->mounts);
	r->mounts = sandbox_mounts_json(&sb);
	sandbox_release(&sb);
	sandbox_policy_release(&pol);
	return;
fail:
	r->error = xasprintf("cannot build the sandbox: %s", cause);
	r->writes = true;
	free(cause);
	sandbox_release(&sb);
	sandbox_policy_release(&pol);
}

/* The "queued" message. */
static cJSON *
request_queued_json(const struct request *r)
{
	cJSON	*j = proto_reply_new("queued", r->id, r->tag);

	cJSON_AddStringToObject(j, "command", r->command);
	cJSON_AddStringToObject(j, "cwd", r->cwd);
	cJSON_AddStringToObject(j, "verdict", verdict_name(r->verdict));
	if (r->rule != NULL)
		cJSON_AddStringToObject(j, "rule", r->rule);
	cJSON_AddStringToObject(j, "reason", r->reason);
	if (r->profile != NULL)
		cJSON_AddStringToObject(j, "profile", r->profile);
	cJSON_AddBoolToObject(j, "writes_project", r->writes);
	cJSON_AddItemToObject(j, "bwrap_argv", json_strv(&r->bwrap_argv));
	if (r->mounts != NULL)
		cJSON_AddItemToObject(j, "mounts",
		    cJSON_Duplicate(r->mounts, 1));
	if (r->error != NULL)
		cJSON_AddStringToObject(j, "error", r->error);
	return j;
}

/* Audit, tell the agent and the front end about a new request. */
static int
request_announce(struct console *c, struct request *r)
{
	cJSON	*rec = audit_record("request", r);

	cJSON_AddItemToObject(rec, "request", request_json(r));
	cJSON_AddItemToObject(rec, "bwrap_argv", json_strv(&r->bwrap_argv));
	if (console_audit(c, rec) != 0)
		return -1;
	request_send(r, request_queued_json(r));
	console_emit_request(c, CONSOLE_EV_ADDED, r);
	return 0;
}

/* Deny a pending request without a person (rule, headless, console). */
static void
request_auto_deny(struct console *c, struct request *r, enum request_by by,
    const char *note)
{
	char	*cause = NULL;

	if (queue_decide(&c->q, r, false, by, NULL, note, &cause) != 0) {
		free(cause);
		return;
	}
	request_decided(c, r);
}

/* Deny a pending request after its approval timeout. */
static void
request_approval_timeout(void *arg)
{
	struct request	*r = arg;
	struct job	*jb = r->owner;
	char		*note;

	jb->approval_timer = 0;
	if (r->state != REQUEST_PENDING)
		return;
	note = xasprintf("no decision within %d seconds",
	    jb->c->approval_timeout_s);
	request_auto_deny(jb->c, r, BY_TIMEOUT, note);
	free(note);
}

/* The first decision: by rule, by the headless rule, or wait. */
static void
request_first_decision(struct console *c, struct request *r,
    const char *operator)
{
	struct job	*jb = r->owner;
	char		*cause = NULL;

	if (c->shutting_down) {
		request_auto_deny(c, r, BY_CONSOLE,
		    "the console is shutting down");
		return;
	}
	if (r->error != NULL) {
		request_auto_deny(c, r, BY_CONSOLE, r->error);
		return;
	}
	if (r->verdict == VERDICT_DENY) {
		request_auto_deny(c, r, BY_ALLOWLIST, r->reason);
		return;
	}
	if (operator != NULL) {
		if (queue_decide(&c->q, r, true, BY_OPERATOR, operator,
		    NULL, &cause) == 0)
			request_decided(c, r);
		free(cause);
		return;
	}
	if (r->verdict == VERDICT_ALLOW && c->auto_allowlisted) {
		if (queue_decide(&c->q, r, true, BY_ALLOWLIST, r->rule, NULL,
		    &cause) == 0)
			request_decided(c, r);
		free(cause);
		return;
	}
	if (c->headless && c->auto_allowlisted) {
		request_auto_deny(c, r, BY_HEADLESS, "the command needs an "
		    "operator's approval and this console runs headless "
		    "with --auto-allowlisted (only allowlisted commands run)");
		return;
	}
	if (c->approval_timeout_s > 0)
		jb->approval_timer = loop_timer(c->loop,
		    (int64_t)c->approval_timeout_s * 1000,
		    request_approval_timeout, r);
	/* It waits for the operator. */
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
}

/* A new job record for a request. */
static struct job *
job_new(struct console *c, struct request *r, struct conn *cn)
{
	struct job	*jb = xcalloc(1, sizeof *jb);

	jb->c = c;
	jb->r = r;
	jb->conn = cn;
	jb->pid = -1;
	for (int i = 0; i < JOB_NFDS; i++)
		jb->fds[i] = -1;
	jb->evrd = (struct proto_reader)PROTO_READER_INIT;
	jb->events = cJSON_CreateArray();
	r->owner = jb;
	return jb;
}

/* Close a job's pipes and cancel its timers (the record stays). */
static void
job_stop_io(struct job *jb)
{
	struct loop	*l = jb->c->loop;

	for (int i = 0; i < JOB_NFDS; i++) {
		if (jb->fds[i] != -1) {
			loop_remove(l, jb->fds[i]);
			close(jb->fds[i]);
			jb->fds[i] = -1;
		}
	}
	if (jb->kill_timer != 0)
		loop_cancel(l, jb->kill_timer);
	if (jb->drain_timer != 0)
		loop_cancel(l, jb->drain_timer);
	if (jb->approval_timer != 0)
		loop_cancel(l, jb->approval_timer);
	jb->kill_timer = jb->drain_timer = jb->approval_timer = 0;
	buf_release(&jb->json);
	proto_reader_release(&jb->evrd);
}

/* Free a job entirely. */
static void
job_free(struct job *jb)
{
	if (jb == NULL)
		return;
	job_stop_io(jb);
	buf_release(&jb->log);
	cJSON_Delete(jb->events);
	jb->r->owner = NULL;
	free(jb);
}

/* Forget the oldest ended requests. */
static void
console_prune(struct console *c)
{
	struct request	*r, *next;
	size_t		 ended = 0;

	TAILQ_FOREACH(r, &c->q.requests, entry)
		if (request_ended(r))
			ended++;
	for (r = TAILQ_FIRST(&c->q.requests);
	    r != NULL && ended > CONSOLE_HISTORY_KEEP; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (!request_ended(r))
			continue;
		console_emit_request(c, CONSOLE_EV_REMOVED, r);
		job_free(r->owner);
		queue_remove(&c->q, r);
		ended--;
	}
}

/* After a request ended: release what it held. */
static void
request_ended_cleanup(struct console *c, struct request *r)
{
	struct job	*jb = r->owner;

	if (jb != NULL) {
		job_stop_io(jb);
		jb->conn = NULL;
	}
	console_prune(c);
}

/* A decision (or withdrawal) was made: audit, tell, go on. */
static void
request_decided(struct console *c, struct request *r)
{
	struct job	*jb = r->owner;
	cJSON		*rec, *j;
	bool		 withdrawn = r->state == REQUEST_WITHDRAWN;

	if (jb != NULL && jb->approval_timer != 0) {
		loop_cancel(c->loop, jb->approval_timer);
		jb->approval_timer = 0;
	}
	rec = audit_record(withdrawn ? "withdrawn" : "decision", r);
	cJSON_AddStringToObject(rec, "decision",
	    request_state_name(r->state));
	cJSON_AddStringToObject(rec, "by", request_by_name(r->by));
	if (r->who != NULL)
		cJSON_AddStringToObject(rec, "who", r->who);
	if (r->note != NULL)
		cJSON_AddStringToObject(rec, "note", r->note);
	if (r->edited) {
		cJSON_AddItemToObject(rec, "edits",
		    proto_mounts_json(&r->edits));
		cJSON_AddItemToObject(rec, "bwrap_argv",
		    json_strv(&r->bwrap_argv));
	}
	console_audit(c, rec);

	if (withdrawn) {
		j = proto_reply_new("withdrawn", r->id, r->tag);
		cJSON_AddStringToObject(j, "by", request_by_name(r->by));
		if (r->note != NULL)
			cJSON_AddStringToObject(j, "note", r->note);
	} else {
		j = proto_reply_new("decided", r->id, r->tag);
		cJSON_AddStringToObject(j, "decision",
		    request_state_name(r->state));
		cJSON_AddStringToObject(j, "by", request_by_name(r->by));
		if (r->who != NULL)
			cJSON_AddStringToObject(j, "who", r->who);
		if (r->note != NULL)
			cJSON_AddStringToObject(j, "note", r->note);
		if (r->edited) {
			cJSON_AddItemToObject(j, "edits",
			    proto_mounts_json(&r->edits));
			cJSON_AddItemToObject(j, "bwrap_argv",
			    json_strv(&r->bwrap_argv));
		}
	}
	request_send(r, j);
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	if (request_ended(r))
		request_ended_cleanup(c, r);
	else
		console_schedule(c);
}

/* Make a request from a decoded submit (conn NULL: FIFO or front end). */
static uint32_t
console_submit_msg(struct console *c, struct conn *cn, struct proto_msg *m,
    const char *agent, char **cause)
{
	_cleanup_free_ char	*cwd = NULL;
	struct filereq		 fr = FILEREQ_INIT;
	struct request		*r;
	struct stat		 st;
	const char		*shell;

	if (c->shutting_down) {
		*cause = xstrdup("the console is shutting down");
		return 0;
	}
	/* A file write runs its script at the project root. */
	if (m->write_path != NULL && filereq_build(c->project, m->write_path,
	    m->write_content, &c->cfg.protected, &fr, cause) != 0) {
		filereq_release(&fr);
		return 0;
	}
	cwd = path_canonical(m->cwd != NULL && m->write_path == NULL ?
	    m->cwd : c->project, cause);
	if (cwd == NULL)
		return 0;
	if (stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("cwd '%s' is not a directory", m->cwd);
		return 0;
	}
	if (!path_is_under(cwd, c->project)) {
		*cause = xasprintf("cwd '%s' is outside the project '%s'",
		    m->cwd, c->project);
		return 0;
	}

	r = queue_add(&c->q);
	job_new(c, r, cn);
	r->agent = xstrdup(m->agent != NULL ? m->agent : agent);
	r->tag = m->tag != NULL ? xstrdup(m->tag) : NULL;
	r->cwd = steal_pointer(&cwd);
	r->timeout_s = m->timeout_s;
	proto_mounts_copy(&r->asked, &m->mounts);
	shell = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
	if (m->write_path != NULL) {
		r->file_write = true;
		r->command = steal_pointer(&fr.command);
		strv_push(&r->argv, shell);
		strv_push(&r->argv, "-c");
		strv_push(&r->argv, r->command);
		r->verdict = fr.verdict;
		r->reason = steal_pointer(&fr.reason);
		r->rule = xstrdup("file-write");
		r->profile = xstrdup("project");
		filereq_release(&fr);
	} else if (m->command != NULL) {
		r->command = xstrdup(m->command);
		strv_push(&r->argv, shell);
		strv_push(&r->argv, "-c");
		strv_push(&r->argv, m->command);
	} else {
		r->is_argv = true;
		strv_copy(&r->argv, &m->argv);
		r->command = strv_join(&m->argv, " ", true);
	}
	request_classify(c, r);
	if (request_announce(c, r) != 0) {
		/* Never run what the audit log does not show. */
		request_auto_deny(c, r, BY_CONSOLE,
		    "cannot write the audit log");
		return r->id;
	}
	request_first_decision(c, r, NULL);
	return r->id;
}

/* Submit a command string from a front end (like a FIFO line). */
uint32_t
console_submit(struct console *c, const char *command, const char *agent,
    char **cause)
{
	struct proto_msg	m = PROTO_MSG_INIT;
	uint32_t		id;

	m.command = xstrdup(command);
	id = console_submit_msg(c, NULL, &m, agent != NULL ? agent :
	    "console", cause);
	proto_msg_release(&m);
	return id;
}

/* ---- running ---- */

/* Record and report the end of a run. */
static void
job_finish(struct job *jb)
{
	struct console	*c = jb->c;
	struct request	*r = jb->r;
	enum request_state state;
	cJSON		*report = NULL, *rec, *j, *copy;
	const cJSON	*f;
	char		*cause = NULL;
	int		 code;

	if (jb->json.len > 0)
		report = cJSON_ParseWithLength(jb->json.data, jb->json.len);
	if (WIFEXITED(jb->wstatus))
		code = WEXITSTATUS(jb->wstatus);
	else
		code = 128 + WTERMSIG(jb->wstatus);
	if (report == NULL) {
		state = jb->killing ? REQUEST_KILLED : REQUEST_FAILED;
		if (r->error == NULL)
			r->error = xasprintf("bwgate exec ended with status "
			    "%d and wrote no report", code);
	} else if (cJSON_IsTrue(cJSON_GetObjectItem(report, "timed_out")))
		state = REQUEST_TIMED_OUT;
	else if (jb->killing ||
	    cJSON_IsTrue(cJSON_GetObjectItem(report, "killed")))
		state = REQUEST_KILLED;
	else if (!cJSON_IsTrue(cJSON_GetObjectItem(report, "started")) &&
	    cJSON_IsString(f = cJSON_GetObjectItem(report, "error"))) {
		state = REQUEST_FAILED;
		if (r->error == NULL)
			r->error = xstrdup(f->valuestring);
	} else
		state = REQUEST_FINISHED;
	if (queue_finish(&c->q, r, state, &cause) != 0) {
		console_message(c, "request %u: %s", r->id, cause);
		free(cause);
	}
	r->exit_status = code;
	cJSON_Delete(r->report);
	r->report = report;

	/* The audit copy leaves out the output itself. */
	rec = audit_record("result", r);
	cJSON_AddStringToObject(rec, "state", request_state_name(state));
	cJSON_AddNumberToObject(rec, "exit_status", code);
	if (jb->killing)
		cJSON_AddStringToObject(rec, "by", request_by_name(r->by));
	if (r->note != NULL && jb->killing)
		cJSON_AddStringToObject(rec, "note", r->note);
	if (r->error != NULL)
		cJSON_AddStringToObject(rec, "error", r->error);
	if (report != NULL) {
		copy = cJSON_Duplicate(report, 1);
		cJSON_DeleteItemFromObject(copy, "stdout");
		cJSON_DeleteItemFromObject(copy, "stderr");
		cJSON_AddItemToObject(rec, "report", copy);
	}
	console_audit(c, rec);

	j = proto_reply_new("result", r->id, r->tag);
	cJSON_AddStringToObject(j, "state", request_state_name(state));
	cJSON_AddNumberToObject(j, "exit_status", code);
	if (jb->killing && r->note != NULL)
		cJSON_AddStringToObject(j, "note", r->note);
	if (r->error != NULL)
		cJSON_AddStringToObject(j, "error", r->error);
	if (report != NULL)
		cJSON_AddItemToObject(j, "report", cJSON_Duplicate(report, 1));
	request_send(r, j);
	LOG("request %u %s, status %d", r->id, request_state_name(state),
	    code);
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	request_ended_cleanup(c, r);
	console_schedule(c);
	console_check_done(c);
}

/* Finish once the child is reaped and its pipes are drained. */
static void
job_check_done(struct job *jb)
{
	if (!jb->exited || jb->r->state != REQUEST_RUNNING)
		return;
	for (int i = 0; i < JOB_NFDS; i++)
		if (jb->fds[i] != -1)
			return;
	job_finish(jb);
}

/* Pipes still open long after the child exited: give up on them. */
static void
job_drain_timeout(void *arg)
{
	struct job	*jb = arg;

	jb->drain_timer = 0;
	for (int i = 0; i < JOB_NFDS; i++) {
		if (jb->fds[i] != -1) {
			loop_remove(jb->c->loop, jb->fds[i]);
			close(jb->fds[i]);
			jb->fds[i] = -1;
		}
	}
	job_check_done(jb);
}

/* Forward a chunk of stdout or stderr. */
static void
job_output(struct job *jb, int which, const char *data, size_t len,
    bool eof)
{
	struct console		*c = jb->c;
	struct console_event	 ev = { .type = CONSOLE_EV_OUTPUT, .r = jb->r };
	struct buf		 b = BUF_INIT;
	const char		*stream = which == JOB_OUT ? "stdout" :
				    "stderr";
	size_t			 keep;
	cJSON			*j;
	char			*s;

	buf_add(&b, jb->hold[which], jb->holdlen[which]);
	buf_add(&b, data, len);
	jb->holdlen[which] = 0;
	keep = eof ? b.len : proto_utf8_complete(b.data, b.len);
	if (keep < b.len) {
		jb->holdlen[which] = b.len - keep;
		memcpy(jb->hold[which], b.data + keep, b.len - keep);
	}
	if (keep == 0) {
		buf_release(&b);
		return;
	}
	j = proto_reply_new("output", jb->r->id, jb->r->tag);
	cJSON_AddStringToObject(j, "stream", stream);
	if (proto_utf8_valid(b.data, keep, NULL) &&
	    memchr(b.data, '\0', keep) == NULL) {
		b.data[keep] = '\0';
		cJSON_AddStringToObject(j, "data", b.data);
	} else {
		s = proto_base64_encode(b.data, keep);
		cJSON_AddStringToObject(j, "data_base64", s);
		free(s);
	}
	request_send(jb->r, j);

	buf_add(&jb->log, b.data, keep);
	if (jb->log.len > CONSOLE_OUTPUT_KEEP)
		buf_consume(&jb->log, jb->log.len - CONSOLE_OUTPUT_KEEP / 2);
	ev.stream = stream;
	ev.data = b.data;
	ev.len = keep;
	console_emit(c, &ev);
	buf_release(&b);
}

/* Forward complete lines of live filesystem events. */
static void
job_events(struct job *jb)
{
	struct console_event	 ev = { .type = CONSOLE_EV_FSEVENT, .r = jb->r };
	char			*line;
	size_t			 len;
	enum proto_line		 rc;
	cJSON			*e, *j;

	while ((rc = proto_reader_next(&jb->evrd, &line, &len)) !=
	    PROTO_LINE_NONE) {
		if (rc != PROTO_LINE_OK)
			continue;
		e = cJSON_ParseWithLength(line, len);
		if (e == NULL || !cJSON_IsObject(e)) {
			cJSON_Delete(e);
			continue;
		}
		j = proto_reply_new("event", jb->r->id, jb->r->tag);
		cJSON_AddItemToObject(j, "event", cJSON_Duplicate(e, 1));
		request_send(jb->r, j);
		ev.json = e;
		console_emit(jb->c, &ev);
		cJSON_AddItemToArray(jb->events, e);
		if (cJSON_GetArraySize(jb->events) > CONSOLE_EVENTS_KEEP)
			cJSON_DeleteItemFromArray(jb->events, 0);
	}
}

/* One of a job's pipes is readable (or closed). */
static void
job_read(int fd, short revents, void *arg)
{
	struct job	*jb = arg;
	char		 buf[65536];
	ssize_t		 n;
	int		 which;

	for (which = 0; which < JOB_NFDS; which++)
		if (jb->fds[which] == fd)
			break;
	if (which == JOB_NFDS)
		return;
	n = read(fd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		switch (which) {
		case JOB_OUT:
		case JOB_ERR:
			job_output(jb, which, buf, (size_t)n, false);
			break;
		case JOB_JSON:
			if (jb->json.len < CONSOLE_MAX_REPORT)
				buf_add(&jb->json, buf, (size_t)n);
			break;
		case JOB_EVENTS:
			proto_reader_feed(&jb->evrd, buf, (size_t)n);
			job_events(jb);
			break;
		}
		return;
	}
	/* End of file (or an error: treat alike). */
	if ((which == JOB_OUT || which == JOB_ERR) && jb->holdlen[which] > 0)
		job_output(jb, which, "", 0, true);
	loop_remove(jb->c->loop, fd);
	close(fd);
	jb->fds[which] = -1;
	job_check_done(jb);
}

/* Escalate: the exec child did not stop after SIGTERM. */
static void
job_kill_timeout(void *arg)
{
	struct job	*jb = arg;

	jb->kill_timer = 0;
	if (jb->pid > 0 && !jb->exited) {
		LOG("request %u: exec pid %ld ignored SIGTERM, killing",
		    jb->r->id, (long)jb->pid);
		kill(jb->pid, SIGKILL);
	}
}

/* Stop a running request (the exec child kills its sandbox). */
static void
job_kill(struct job *jb, enum request_by by, const char *why)
{
	struct request	*r = jb->r;

	if (r->state != REQUEST_RUNNING || jb->exited)
		return;
	if (jb->killing) {
		kill(jb->pid, SIGKILL);
		return;
	}
	jb->killing = true;
	r->by = by;
	free(r->note);
	r->note = xstrdup(why);
	kill(jb->pid, SIGTERM);
	jb->kill_timer = loop_timer(jb->c->loop, CONSOLE_KILL_WAIT_MS,
	    job_kill_timeout, jb);
	console_emit_request(jb->c, CONSOLE_EV_CHANGED, r);
}

/* Move fd to a number >= 10 (so dup2 to 1..4 in the child is safe). */
static int
fd_high(int fd)
{
	int	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	close(fd);
	return nfd;
}

/* The `bwgate exec` command line for a request. */
static void
job_argv(struct console *c, struct request *r, struct strv *av)
{
	const struct proto_mounts *m = console_mounts(r);

	strv_push(av, c->exec_path);
	strv_push(av, "exec");
	strv_push(av, "--project");
	strv_push(av, c->project);
	strv_push(av, "--cwd");
	strv_push(av, r->cwd);
	if (c->config_file != NULL) {
		strv_push(av, "--config");
		strv_push(av, c->config_file);
	}
	if (r->profile != NULL) {
		strv_push(av, "--profile");
		strv_push(av, r->profile);
	}
	if (m->network == 1)
		strv_push(av, "--network");
	else if (m->network == 0)
		strv_push(av, "--no-network");	/* even if the profile has it */
	for (size_t i = 0; i < m->rw.n; i++) {
		strv_push(av, "--rw");
		strv_push(av, m->rw.v[i]);
	}
	for (size_t i = 0; i < m->ro.n; i++) {
		strv_push(av, "--ro");
		strv_push(av, m->ro.v[i]);
	}
	for (size_t i = 0; i < m->hide.n; i++) {
		strv_push(av, "--hide");
		strv_push(av, m->hide.v[i]);
	}
	if (r->timeout_s > 0) {
		strv_push(av, "--timeout");
		strv_pushf(av, "%d", r->timeout_s);
	}
	strv_push(av, "--json-fd");
	strv_push(av, "3");
	strv_push(av, "--events-fd");
	strv_push(av, "4");
	strv_push(av, "--quiet");
	if (!r->is_argv) {
		strv_push(av, "--command");
		strv_push(av, r->command);
	}
	strv_push(av, "--");
	for (size_t i = 0; i < r->argv.n; i++)
		strv_push(av, r->argv.v[i]);
}

/* Start `bwgate exec` for an approved request. */
static int
job_spawn(struct job *jb, char **cause)
{
	struct console	*c = jb->c;
	struct strv	 av = STRV_INIT;
	int		 p[JOB_NFDS][2], ep[2] = { -1, -1 }, child[JOB_NFDS];
	int		 devnull, err = 0, i, made = 0;
	ssize_t		 n;
	pid_t		 pid;
	cJSON		*rec;

	for (i = 0; i < JOB_NFDS; i++)
		p[i][0] = p[i][1] = -1;
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		goto syserr;
	devnull = fd_high(devnull);
	for (i = 0; i < JOB_NFDS; i++, made++) {
		if (pipe2(p[i], O_CLOEXEC) != 0)
			goto syserr;
		if ((p[i][1] = fd_high(p[i][1])) < 0)
			goto syserr;
		child[i] = p[i][1];
	}
	if (pipe2(ep, O_CLOEXEC) != 0)
		goto syserr;
	job_argv(c, jb->r, &av);

	pid = fork();
	if (pid < 0)
		goto syserr;
	if (pid == 0) {
		/* Only async-signal-safe calls from here on. */
		sigset_t	none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);	/* terminal ^C goes to the console only */
		if (dup2(devnull, 0) < 0 || dup2(child[JOB_OUT], 1) < 0 ||
		    dup2(child[JOB_ERR], 2) < 0 ||
		    dup2(child[JOB_JSON], 3) < 0 ||
		    dup2(child[JOB_EVENTS], 4) < 0)
			goto child_fail;
		execv(av.v[0], av.v);
child_fail:
		err = errno;
		(void)!write(ep[1], &err, sizeof err);
		_exit(127);
	}
	close(ep[1]);
	ep[1] = -1;
	do
		n = read(ep[0], &err, sizeof err);
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	close(devnull);
	for (i = 0; i < JOB_NFDS; i++)
		close(p[i][1]);
	if (n == (ssize_t)sizeof err) {
		waitpid(pid, NULL, 0);
		for (i = 0; i < JOB_NFDS; i++)
			close(p[i][0]);
		*cause = xasprintf("cannot run '%s': %s", av.v[0],
		    strerror(err));
		strv_release(&av);
		return -1;
	}
	jb->pid = pid;
	for (i = 0; i < JOB_NFDS; i++) {
		jb->fds[i] = p[i][0];
		fcntl(jb->fds[i], F_SETFL, O_NONBLOCK);
		loop_add(c->loop, jb->fds[i], POLLIN, job_read, jb);
	}
	rec = audit_record("start", jb->r);
	cJSON_AddNumberToObject(rec, "pid", pid);
	cJSON_AddItemToObject(rec, "exec_argv", json_strv(&av));
	console_audit(c, rec);
	strv_release(&av);
	return 0;

syserr:
	*cause = xasprintf("cannot start bwgate exec: %s", strerror(errno));
	if (devnull >= 0)
		close(devnull);
	for (i = 0; i < JOB_NFDS; i++) {
		if (p[i][0] >= 0)
			close(p[i][0]);
		if (p[i][1] >= 0)
			close(p[i][1]);
	}
	if (ep[0] >= 0)
		close(ep[0]);
	if (ep[1] >= 0)
		close(ep[1]);
	strv_release(&av);
	return -1;
}

/* Start whatever may start now. */
static void
console_schedule(struct console *c)
{
	struct request	*r;
	struct job	*jb;
	char		*cause = NULL;
	cJSON		*j;

	if (c->shutting_down)
		return;
	while ((r = queue_next(&c->q)) != NULL) {
		jb = r->owner;
		if (queue_start(&c->q, r, &cause) != 0) {
			console_message(c, "%s", cause);
			free(cause);
			return;
		}
		if (job_spawn(jb, &cause) != 0) {
			r->error = cause;
			cause = NULL;
			jb->exited = true;
			jb->wstatus = CONSOLE_EXIT_FAILED << 8;
			job_finish(jb);
			continue;
		}
		j = proto_reply_new("started", r->id, r->tag);
		cJSON_AddNumberToObject(j, "pid", jb->pid);
		request_send(r, j);
		console_emit_request(c, CONSOLE_EV_CHANGED, r);
	}
}

/* Reap exec children. */
static void
console_sigchld(int signo, void *arg)
{
	struct console	*c = arg;
	struct request	*r;
	struct job	*jb;
	pid_t		 pid;
	int		 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		TAILQ_FOREACH(r, &c->q.requests, entry) {
			jb = r->owner;
			if (jb == NULL || jb->pid != pid || jb->exited ||
			    r->state != REQUEST_RUNNING)
				continue;
			jb->exited = true;
			jb->wstatus = status;
			if (jb->kill_timer != 0) {
				loop_cancel(c->loop, jb->kill_timer);
				jb->kill_timer = 0;
			}
			jb->drain_timer = loop_timer(c->loop,
			    CONSOLE_DRAIN_MS, job_drain_timeout, jb);
			job_check_done(jb);
			break;
		}
	}
}

/* ---- operator actions ---- */

/* Find a request or say there is none. */
static struct request *
console_find(struct console *c, uint32_t id, char **cause)
{
	struct request	*r = queue_find(&c->q, id);

	if (r == NULL)
		*cause = xasprintf("no request %u", id);
	return r;
}

/* Approve a pending request. */
int
console_approve(struct console *c, uint32_t id, const char *who,
    const char *note, char **cause)
{
	struct request	*r = console_find(c, id, cause);

	if (r == NULL)
		return -1;
	if (r->state == REQUEST_PENDING && r->error != NULL) {
		*cause = xasprintf("cannot approve request %u: %s", id,
		    r->error);
		return -1;
	}
	if (queue_decide(&c->q, r, true, BY_OPERATOR, who, note, cause) != 0)
		return -1;
	request_decided(c, r);
	return 0;
}

/* Deny a pending request. */
int
console_deny(struct console *c, uint32_t id, const char *who,
    const char *note, char **cause)
{
	struct request	*r = console_find(c, id, cause);

	if (r == NULL)
		return -1;
	if (queue_decide(&c->q, r, false, BY_OPERATOR, who,
	    note != NULL ? note : "denied by the operator", cause) != 0)
		return -1;
	request_decided(c, r);
	return 0;
}

/* Kill a running request. */
int
console_kill(struct console *c, uint32_t id, const char *who, char **cause)
{
	struct request	*r = console_find(c, id, cause);
	char		*why;

	if (r == NULL)
		return -1;
	if (r->state != REQUEST_RUNNING) {
		*cause = xasprintf("cannot kill request %u: it is %s", id,
		    request_state_name(r->state));
		return -1;
	}
	free(r->who);
	r->who = xstrdup(who);
	why = xasprintf("killed by %s", who);
	job_kill(r->owner, BY_OPERATOR, why);
	free(why);
	return 0;
}

/* Queue an ended request again, approved by the operator. */
uint32_t
console_rerun(struct console *c, uint32_t id, const char *who, char **cause)
{
	struct request	*old = console_find(c, id, cause), *r;

	if (old == NULL)
		return 0;
	if (!request_ended(old)) {
		*cause = xasprintf("cannot re-run request %u: it is %s", id,
		    request_state_name(old->state));
		return 0;
	}
	if (c->shutting_down) {
		*cause = xstrdup("the console is shutting down");
		return 0;
	}
	r = queue_add(&c->q);
	job_new(c, r, NULL);
	r->rerun_of = old->id;
	r->agent = xstrdup(old->agent);
	r->command = xstrdup(old->command);
	r->is_argv = old->is_argv;
	strv_copy(&r->argv, &old->argv);
	r->cwd = xstrdup(old->cwd);
	r->timeout_s = old->timeout_s;
	proto_mounts_copy(&r->asked, &old->asked);
	r->edited = old->edited;
	proto_mounts_copy(&r->edits, &old->edits);
	request_classify(c, r);
	if (request_announce(c, r) != 0) {
		request_auto_deny(c, r, BY_CONSOLE,
		    "cannot write the audit log");
		return r->id;
	}
	request_first_decision(c, r, who);
	return r->id;
}

/* Replace a pending request's extra mounts. */
int
console_set_mounts(struct console *c, uint32_t id,
    const struct proto_mounts *mo, char **cause)
{
	struct request	*r = console_find(c, id, cause);

	if (r == NULL)
		return -1;
	if (r->state != REQUEST_PENDING) {
		*cause = xasprintf("cannot change the mounts of request %u: "
		    "it is %s", id, request_state_name(r->state));
		return -1;
	}
	proto_mounts_release(&r->edits);
	proto_mounts_copy(&r->edits, mo);
	r->edited = true;
	request_classify(c, r);
	if (r->verdict == VERDICT_ALLOW && !proto_mounts_empty(mo))
		r->verdict = VERDICT_ASK;
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	return 0;
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
			conn_error(cn, 0, m->tag, c->shutting_down ?
			    "shutdown" : m->write_path != NULL ? "write" :
			    "cwd", cause);
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
	cJSON		*j, *a;
	int		 rc = 0;
	uint32_t	 id = m->id;

	switch (m->type) {
	case PROTO_LIST:
		j = proto_reply_new("list", 0, m->tag);
		cJSON_AddStringToObject(j, "project", c->project);
		cJSON_AddNumberToObject(j, "clients", (double)c->nconns);
		a = cJSON_AddArrayToObject(j, "requests");
		TAILQ_FOREACH(r, &c->q.requests, entry)
			cJSON_AddItemToArray(a, request_json(r));
		conn_send(cn, j);
		free(who);
		return;
	case PROTO_APPROVE:
		if (!proto_mounts_empty(&m->mounts))
			rc = console_set_mounts(c, m->id, &m->mounts, &cause);
		if (rc == 0)
			rc = console_approve(c, m->id, who, m->note, &cause);
		break;
	case PROTO_DENY:
		rc = console_deny(c, m->id, who, m->note, &cause);
		break;
	case PROTO_KILL:
		rc = console_kill(c, m->id, who, &cause);
		break;
	case PROTO_RERUN:
		id = console_rerun(c, m->id, who, &cause);
		rc = id == 0 ? -1 : 0;
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
		j = proto_reply_new("ok", id, m->tag);
		cJSON_AddStringToObject(j, "action", proto_type_name(m->type));
		conn_send(cn, j);
	}
	free(cause);
	free(who);
}

/* Handle every complete line a connection sent. */
static void
conn_lines(struct conn *cn)
{
	struct proto_msg	 m;
	char			*line, *cause = NULL, *msg;
	size_t			 len;
	enum proto_line		 rc;

	while (!cn->dead && !cn->closing &&
	    (rc = proto_reader_next(&cn->rd, &line, &len)) !=
	    PROTO_LINE_NONE) {
		if (rc == PROTO_LINE_TOO_LONG) {
			msg = xasprintf("line longer than %d bytes: ignored "
			    "up to its end", PROTO_MAX_LINE);
			conn_error(cn, 0, NULL, "too-long", msg);
			free(msg);
			continue;
		}
		if (len == 0 || line[strspn(line, " \t\r")] == '\0')
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

/* Accept clients on a listening socket. */
static void
console_accept(int lfd, short revents, void *arg)
{
	struct console	*c = arg;
	enum conn_kind	 kind = lfd == c->agent_fd ? CONN_AGENT : CONN_CONTROL;
	struct ucred	 cred;
	socklen_t	 len;
	struct conn	*cn;
	cJSON		*j, *rec;
	char		*msg;
	int		 fd;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				console_message(c, "accept: %s",
				    strerror(errno));
			return;
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
		j = proto_reply_new("hello", 0, NULL);
		cJSON_AddStringToObject(j, "console", "bwgate " PACKAGE_VERSION);
		cJSON_AddStringToObject(j, "project", c->project);
		cJSON_AddStringToObject(j, "socket", kind == CONN_AGENT ?
		    "agent" : "control");
		conn_send(cn, j);
		console_emit_request(c, CONSOLE_EV_CLIENTS, NULL);
	}
}

/* ---- the FIFO ---- */

/* One line from the FIFO: a JSON submit or a plain command. */
static void
console_fifo_line(struct console *c, const char *line, size_t len)
{
	struct proto_msg	 m = PROTO_MSG_INIT;
	char			*cause = NULL;
	const char		*p = line + strspn(line, " \t");
	cJSON			*rec;

	if (*p == '\0')
		return;
	if (*p == '{') {
		if (proto_decode(line, len, &m, &cause) == 0 &&
		    m.type != PROTO_SUBMIT)
			cause = xasprintf("the FIFO takes only submit, not "
			    "'%s'", proto_type_name(m.type));
	} else if (!proto_utf8_valid(line, len, NULL))
		cause = xstrdup("invalid UTF-8");
	else
		m.command = xstrdup(line);
	if (cause == NULL)
		console_submit_msg(c, NULL, &m, "fifo", &cause);
	if (cause != NULL) {
		console_message(c, "FIFO: %s", cause);
		rec = audit_record("fifo-error", NULL);
		cJSON_AddStringToObject(rec, "error", cause);
		console_audit(c, rec);
		free(cause);
	}
	proto_msg_release(&m);
}

/* The FIFO is readable. */
static void
console_fifo_read(int fd, short revents, void *arg)
{
	struct console	*c = arg;
	char		 buf[65536], *line;
	size_t		 len;
	ssize_t		 n;
	enum proto_line	 rc;

	n = read(fd, buf, sizeof buf);
	if (n <= 0)
		return;
	proto_reader_feed(&c->fiford, buf, (size_t)n);
	while ((rc = proto_reader_next(&c->fiford, &line, &len)) !=
	    PROTO_LINE_NONE) {
		if (rc == PROTO_LINE_TOO_LONG)
			console_message(c, "FIFO: line longer than %d bytes "
			    "ignored", PROTO_MAX_LINE);
		else
			console_fifo_line(c, line, len);
	}
}

/* Create (or reuse) and open the FIFO. */
static int
console_open_fifo(struct console *c, char **cause)
{
	struct stat	st;

	if (lstat(c->fifo_path, &st) == 0) {
		if (!S_ISFIFO(st.st_mode) || st.st_uid != c->uid) {
			*cause = xasprintf("'%s' exists and is not a FIFO of "
			    "ours", c->fifo_path);
			return -1;
		}
	} else if (mkfifo(c->fifo_path, 0600) != 0) {
		*cause = xasprintf("cannot create '%s': %s", c->fifo_path,
		    strerror(errno));
		return -1;
	} else
		c->fifo_created = true;
	/* Read-write, so the FIFO never reports end of file. */
	c->fifo_fd = open(c->fifo_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fifo_fd < 0) {
		*cause = xasprintf("cannot open '%s': %s", c->fifo_path,
		    strerror(errno));
		return -1;
	}
	c->fiford = (struct proto_reader)PROTO_READER_INIT;
	loop_add(c->loop, c->fifo_fd, POLLIN, console_fifo_read, c);
	return 0;
}

/* ---- sockets ---- */

/* Bind a listening socket, replacing a stale one, never a live one. */
static int
console_listen(const char *path, struct stat *stp, char **cause)
{
	struct sockaddr_un	sun;
	struct stat		st;
	mode_t			old;
	int			fd, probe;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		*cause = xasprintf("socket path '%s' is too long", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			*cause = xasprintf("'%s' exists and is not a socket",
			    path);
			return -1;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&sun,
		    sizeof sun) == 0) {
			close(probe);
			*cause = xasprintf("a console is already listening on "
			    "'%s'", path);
			return -1;
		}
		if (probe >= 0)
			close(probe);
		if (errno != ECONNREFUSED) {
			*cause = xasprintf("cannot check '%s': %s", path,
			    strerror(errno));
			return -1;
		}
		if (unlink(path) != 0) {
			*cause = xasprintf("cannot remove stale '%s': %s",
			    path, strerror(errno));
			return -1;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*cause = xasprintf("cannot create a socket: %s",
		    strerror(errno));
		return -1;
	}
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		umask(old);
		*cause = xasprintf("cannot bind '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (chmod(path, 0600) != 0 || listen(fd, SOMAXCONN) != 0 ||
	    stat(path, stp) != 0) {
		*cause = xasprintf("cannot listen on '%s': %s", path,
		    strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/* Remove a socket file if it is still the one we made. */
static void
console_unlink(const char *path, const struct stat *mine)
{
	struct stat	st;

	if (path != NULL && lstat(path, &st) == 0 &&
	    st.st_ino == mine->st_ino && st.st_dev == mine->st_dev)
		unlink(path);
}

/* Stop listening and remove the socket files and the FIFO. */
static void
console_close_listeners(struct console *c)
{
	if (c->agent_fd != -1) {
		loop_remove(c->loop, c->agent_fd);
		close(c->agent_fd);
		c->agent_fd = -1;
		console_unlink(c->socket_path, &c->agent_st);
	}
	if (c->control_fd != -1) {
		loop_remove(c->loop, c->control_fd);
		close(c->control_fd);
		c->control_fd = -1;
		console_unlink(c->control_path, &c->control_st);
	}
	if (c->fifo_fd != -1) {
		loop_remove(c->loop, c->fifo_fd);
		close(c->fifo_fd);
		c->fifo_fd = -1;
		if (c->fifo_created)
			unlink(c->fifo_path);
		proto_reader_release(&c->fiford);
	}
}

/* ---- lifecycle ---- */

/* SIGINT, SIGTERM, SIGHUP: shut down in order (twice: hurry). */
static void
console_sigterm(int signo, void *arg)
{
	struct console	*c = arg;
	char		*why = xasprintf("signal %s", strsignal(signo));

	console_shutdown(c, why);
	free(why);
}

/* The shutdown took too long: kill what is left and stop. */
static void
console_shutdown_timeout(void *arg)
{
	struct console	*c = arg;
	struct request	*r;
	struct job	*jb;

	c->shutdown_timer = 0;
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		jb = r->owner;
		if (r->state == REQUEST_RUNNING && jb != NULL && !jb->exited)
			kill(jb->pid, SIGKILL);
	}
	c->done = true;
}

/* Is the orderly shutdown complete? */
static void
console_check_done(struct console *c)
{
	if (c->shutting_down && c->q.running == 0)
		c->done = true;
}

/* Begin shutting down. */
void
console_shutdown(struct console *c, const char *why)
{
	struct request	*r, *next;
	struct job	*jb;
	struct console_event ev = { .type = CONSOLE_EV_QUIT };
	char		*note, *cause = NULL;

	if (c->shutting_down) {
		/* Asked again: do not wait for anyone. */
		console_shutdown_timeout(c);
		return;
	}
	c->shutting_down = true;
	note = xasprintf("the console is shutting down (%s)", why);
	ev.message = note;
	console_emit(c, &ev);
	LOG("%s", note);
	console_close_listeners(c);
	for (r = TAILQ_FIRST(&c->q.requests); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		jb = r->owner;
		if (r->state == REQUEST_PENDING) {
			if (queue_decide(&c->q, r, false, BY_CONSOLE, NULL,
			    note, &cause) == 0)
				request_decided(c, r);
		} else if (r->state == REQUEST_APPROVED) {
			if (queue_withdraw(&c->q, r, BY_CONSOLE, note,
			    &cause) == 0)
				request_decided(c, r);
		} else if (r->state == REQUEST_RUNNING && jb != NULL)
			job_kill(jb, BY_CONSOLE, note);
		free(cause);
		cause = NULL;
	}
	free(note);
	c->shutdown_timer = loop_timer(c->loop, CONSOLE_SHUTDOWN_MS,
	    console_shutdown_timeout, c);
	console_check_done(c);
}

/* Has the shutdown finished? */
bool
console_done(const struct console *c)
{
	return c->done;
}

/* The project root this console serves (as bwgate exec finds it). */
static char *
console_find_project(const char *opt, char **cause)
{
	_cleanup_free_ char	*cwd = NULL;
	char			*top;

	if (opt != NULL)
		return path_canonical(opt, cause);
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		*cause = xasprintf("cannot get the current directory: %s",
		    strerror(errno));
		return NULL;
	}
	if ((top = path_git_toplevel(cwd)) != NULL)
		return top;
	return path_canonical(cwd, cause);
}

/* Set the console up. */
struct console *
console_new(const struct console_opts *o, struct loop *l, char **cause)
{
	struct console	*c = xcalloc(1, sizeof *c);
	struct stat	 st;
	char		 exe[PATH_MAX];
	char		*dir = NULL;
	ssize_t		 n;
	cJSON		*rec;

	c->loop = l;
	c->agent_fd = c->control_fd = c->fifo_fd = -1;
	c->uid = getuid();
	c->headless = o->headless;
	c->auto_allowlisted = o->auto_allowlisted;
	c->approval_timeout_s = o->approval_timeout_s;
	queue_init(&c->q);
	c->q.max_running = o->max_running != 0 ? o->max_running :
	    CONSOLE_MAX_RUNNING;
	LIST_INIT(&c->conns);
	config_init(&c->cfg);
	probe_init(&c->probe);

	if ((c->project = console_find_project(o->project, cause)) == NULL)
		goto fail;
	if (stat(c->project, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("project '%s' is not a directory",
		    c->project);
		goto fail;
	}
	if (o->exec_path != NULL)
		c->exec_path = xstrdup(o->exec_path);
	else {
		n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0) {
			*cause = xasprintf("cannot find the bwgate binary "
			    "(/proc/self/exe): %s", strerror(errno));
			goto fail;
		}
		exe[n] = '\0';
		c->exec_path = xstrdup(exe);
	}
	if (o->config_file != NULL)
		c->config_file = xstrdup(o->config_file);
	if (config_load(&c->cfg, o->config_file, cause) != 0)
		goto fail;
	if ((c->al = allowlist_load(c->project, cause)) == NULL)
		goto fail;
	probe_host(&c->probe, true);
	if (!c->probe.userns_ok && c->probe.error != NULL)
		LOG("no sandbox possible: %s", c->probe.error);
	if ((c->audit = audit_open(o->audit_file, cause)) == NULL)
		goto fail;

	/* Sockets: the default directory is made private; explicit paths
	   are the user's choice. */
	if (o->socket == NULL && getenv("BWGATE_SOCKET") == NULL &&
	    (dir = rundir_get(true, cause)) == NULL)
		goto fail;
	free(dir);
	if ((c->socket_path = client_socket_path(o->socket, cause)) == NULL)
		goto fail;
	c->control_path = client_control_path(c->socket_path);
	c->agent_fd = console_listen(c->socket_path, &c->agent_st, cause);
	if (c->agent_fd < 0)
		goto fail;
	c->control_fd = console_listen(c->control_path, &c->control_st,
	    cause);
	if (c->control_fd < 0)
		goto fail;
	loop_add(l, c->agent_fd, POLLIN, console_accept, c);
	loop_add(l, c->control_fd, POLLIN, console_accept, c);
	if (o->fifo != NULL) {
		c->fifo_path = xstrdup(o->fifo);
		if (console_open_fifo(c, cause) != 0)
			goto fail;
	}
	loop_signal(l, SIGCHLD, console_sigchld, c);
	loop_signal(l, SIGINT, console_sigterm, c);
	loop_signal(l, SIGTERM, console_sigterm, c);
	loop_signal(l, SIGHUP, console_sigterm, c);

	rec = audit_record("console-start", NULL);
	cJSON_AddStringToObject(rec, "project", c->project);
	cJSON_AddStringToObject(rec, "socket", c->socket_path);
	cJSON_AddStringToObject(rec, "control", c->control_path);
	if (c->fifo_path != NULL)
		cJSON_AddStringToObject(rec, "fifo", c->fifo_path);
	cJSON_AddNumberToObject(rec, "pid", getpid());
	cJSON_AddNumberToObject(rec, "uid", c->uid);
	cJSON_AddBoolToObject(rec, "headless", c->headless);
	cJSON_AddBoolToObject(rec, "auto_allowlisted", c->auto_allowlisted);
	cJSON_AddStringToObject(rec, "version", PACKAGE_VERSION);
	if (audit_write(c->audit, rec, cause) != 0)
		goto fail;
	return c;
fail:
	console_free(c);
	return NULL;
}

/* Try for a short while to deliver what clients have not read yet. */
static void
console_flush_all(struct console *c)
{
	int64_t		 deadline = loop_now_ms() + 1000;
	struct conn	*cn;
	bool		 left = true;
	char		*cause = NULL;

	if (c->audit != NULL && audit_sync(c->audit, &cause) != 0)
		free(cause);
	c->audit_dirty = false;

	while (left && loop_now_ms() < deadline) {
		left = false;
		LIST_FOREACH(cn, &c->conns, entry) {
			if (cn->dead || cn->out.len == 0)
				continue;
			conn_flush(cn);
			if (!cn->dead && cn->out.len > 0)
				left = true;
		}
		if (left)
			poll(NULL, 0, 10);
	}
}

/* Tear everything down. */
void
console_free(struct console *c)
{
	struct request	*r;
	struct conn	*cn;
	struct job	*jb;
	cJSON		*rec;

	if (c == NULL)
		return;
	/* Whatever still runs dies now (exec kills its sandbox). */
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		jb = r->owner;
		if (jb != NULL && jb->pid > 0 && !jb->exited) {
			kill(jb->pid, SIGTERM);
			waitpid(jb->pid, NULL, 0);
			jb->exited = true;
		}
	}
	console_flush_all(c);
	while ((cn = LIST_FIRST(&c->conns)) != NULL) {
		cn->dead = true;
		/* No request may point at a freed connection. */
		TAILQ_FOREACH(r, &c->q.requests, entry)
			if (r->owner != NULL &&
			    ((struct job *)r->owner)->conn == cn)
				((struct job *)r->owner)->conn = NULL;
		loop_remove(c->loop, cn->fd);
		close(cn->fd);
		LIST_REMOVE(cn, entry);
		proto_reader_release(&cn->rd);
		buf_release(&cn->out);
		free(cn);
	}
	console_close_listeners(c);
	if (c->shutdown_timer != 0)
		loop_cancel(c->loop, c->shutdown_timer);
	if (c->audit != NULL) {
		rec = audit_record("console-stop", NULL);
		cJSON_AddNumberToObject(rec, "requests", c->q.next_id - 1);
		console_audit(c, rec);
		audit_close(c->audit);
	}
	while ((r = TAILQ_FIRST(&c->q.requests)) != NULL) {
		job_free(r->owner);
		queue_remove(&c->q, r);
	}
	queue_release(&c->q);
	allowlist_free(c->al);
	config_release(&c->cfg);
	probe_release(&c->probe);
	free(c->project);
	free(c->socket_path);
	free(c->control_path);
	free(c->fifo_path);
	free(c->exec_path);
	free(c->config_file);
	free(c->subs);
	free(c);
}

/* ---- accessors for front ends ---- */

void
console_subscribe(struct console *c, console_cb cb, void *arg)
{
	c->subs = xreallocarray(c->subs, c->nsubs + 1, sizeof *c->subs);
	c->subs[c->nsubs++] = (struct console_sub){ cb, arg };
}

unsigned
console_dirty(const struct console *c)
{
	return c->dirty;
}

void
console_clear_dirty(struct console *c)
{
	c->dirty = 0;
}

struct queue *
console_queue(struct console *c)
{
	return &c->q;
}

struct loop *
console_loop(struct console *c)
{
	return c->loop;
}

const char *
console_project(const struct console *c)
{
	return c->project;
}

const char *
console_socket_path(const struct console *c)
{
	return c->socket_path;
}

const char *
console_control_path(const struct console *c)
{
	return c->control_path;
}

const char *
console_audit_path(const struct console *c)
{
	return audit_path(c->audit);
}

size_t
console_clients(const struct console *c)
{
	return c->nconns;
}

const struct buf *
console_output(const struct console *c, const struct request *r)
{
	const struct job	*jb = r->owner;

	return jb != NULL ? &jb->log : NULL;
}

const cJSON *
console_events(const struct console *c, const struct request *r)
{
	const struct job	*jb = r->owner;

	return jb != NULL ? jb->events : NULL;
}

/* ---- added for the terminal UI (ui/, issue 6) ---- */

/* Load the rule files again; keep the old ones if that fails. */
int
console_reload_allowlist(struct console *c, char **cause)
{
	struct allowlist	*al = allowlist_load(c->project, cause);
	cJSON			*rec;

	if (al == NULL)
		return -1;
	allowlist_free(c->al);
	c->al = al;
	rec = audit_record("allowlist-reload", NULL);
	console_audit(c, rec);
	console_message(c, "rule files loaded again");
	return 0;
}
