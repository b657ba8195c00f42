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
 *
 * Files: console.c (the state's owner: the group commit, operator
 * actions, accessors), console-emit.c (events to front ends, messages,
 * audit records: it calls nothing of the console's above it),
 * console-server.c (connections, messages, FIFO, sockets),
 * console-request.c (classify, decide, submit), console-job.c (the exec
 * children), console-lifecycle.c (new, shutdown, free); console-int.h holds
 * the structures they share.
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
#include "console-int.h"
#include "console.h"
#include "jsonutil.h"
#include "history.h"
#include "log.h"
#include "path.h"
#include "probe.h"
#include "remote.h"
#include "xalloc.h"

/*
 * Group commit: make the audit records of this loop pass durable with one
 * fsync, then let the replies that wait for them go out and start what was
 * approved. While the log cannot be written (a full disk, an I/O error),
 * nothing is sent that depends on a record and nothing starts: the records
 * wait in memory (audit.h) and this retries every CONSOLE_AUDIT_RETRY_MS
 * until they are on disk.
 */
void
console_commit(void *arg)
{
	struct console	*c = arg;
	struct conn	*cn;
	char		*cause = NULL;

	c->commit_armed = false;
	if (c->audit_dirty && audit_sync(c->audit, &cause) != 0) {
		if (c->audit_failing == NULL)
			console_message(c, "audit log: %s; nothing starts "
			    "until it can be written", cause);
		free(c->audit_failing);
		c->audit_failing = cause;
		console_arm_commit(c);
		return;
	}
	c->audit_dirty = false;
	/* The ids given out, so the next console of the project goes on
	   from there (history.h). */
	if (c->q.next_id - 1 > c->ids_saved) {
		if (history_set_last_id(c->project, c->q.next_id - 1,
		    &cause) != 0) {
			LOG("request ids: %s", cause);
			free(cause);
			cause = NULL;
		}
		c->ids_saved = c->q.next_id - 1;
	}
	if (c->audit_failing != NULL) {
		free(c->audit_failing);
		c->audit_failing = NULL;
		console_message(c, "audit log: written again; nothing "
		    "recorded was lost");
	}
	LIST_FOREACH(cn, &c->conns, entry)
		if (!cn->dead && cn->out.len > 0)
			conn_flush(cn);
	console_schedule(c);
}

/* Is the orderly shutdown complete? */
void
console_check_done(struct console *c)
{
	if (c->shutting_down && c->q.running == 0 && c->nservices == 0)
		c->done = true;
}

/* ---- operator actions ---- */

/* A mirror's decision goes to its executor (remote.h): nothing of it is
   done here. */
static int
console_remote(struct console *c, struct request *r, enum proto_type t,
    const char *who, const char *note, const char *answer, bool danger,
    char **cause)
{
	struct proto_msg	m = PROTO_MSG_INIT;
	int			rc;

	m.type = t;
	m.note = note != NULL && *note != '\0' ? xstrdup(note) : NULL;
	m.answer = answer != NULL ? xstrdup(answer) : NULL;
	m.danger = danger;
	rc = remote_decide(c, r, &m, who != NULL ? who : "terminal", cause);
	proto_msg_release(&m);
	return rc;
}

/* The answer to a request's host question (hostask.c); an answer that
   adds the host to the project's rules reloads them. */
int
console_host_answer(struct console *c, uint32_t id, const char *answer,
    const char *who, const char *note, char **cause)
{
	bool		 reload = false;
	char		*why;
	struct request	*r = queue_find(&c->q, id);

	if (r != NULL && remote_is(r))
		return console_remote(c, r, PROTO_HOST, who, note, answer,
		    false, cause);
	if (hostask_answer(c, id, answer, who, note, &reload, cause) != 0)
		return -1;
	/* Later requests see it. */
	if (reload && console_reload(c, who, &why) != 0) {
		console_message(c, "%s", why);
		free(why);
	}
	return 0;
}

/* Approve a pending request; a danger verdict only when confirmed. */
static int
console_approve_as(struct console *c, uint32_t id, const char *who,
    const char *note, bool danger, char **cause)
{
	struct request	*r = console_find(c, id, cause);

	if (r == NULL)
		return -1;
	if (r->state == REQUEST_PENDING && r->verdict == VERDICT_DANGER &&
	    !danger) {
		*cause = xasprintf("request %u is danger (%s): confirm it "
		    "deliberately (the console asks; bwgate approve --danger)",
		    id, r->at_stake != NULL ? r->at_stake : r->reason);
		return -1;
	}
	if (r->state == REQUEST_PENDING && r->error != NULL) {
		*cause = xasprintf("cannot approve request %u: %s", id,
		    r->error);
		return -1;
	}
	if (remote_is(r))
		return console_remote(c, r, PROTO_APPROVE, who, note, NULL,
		    danger, cause);
	if (queue_decide(&c->q, r, true, BY_OPERATOR, who, note, cause) != 0)
		return -1;
	request_decided(c, r);
	return 0;
}

int
console_approve(struct console *c, uint32_t id, const char *who,
    const char *note, char **cause)
{
	return console_approve_as(c, id, who, note, false, cause);
}

int
console_approve_danger(struct console *c, uint32_t id, const char *who,
    const char *note, char **cause)
{
	return console_approve_as(c, id, who, note, true, cause);
}

/* Deny a pending request. */
int
console_deny(struct console *c, uint32_t id, const char *who,
    const char *note, char **cause)
{
	struct request	*r = console_find(c, id, cause);

	if (r == NULL)
		return -1;
	if (remote_is(r))
		return console_remote(c, r, PROTO_DENY, who, note, NULL,
		    false, cause);
	if (queue_decide(&c->q, r, false, BY_OPERATOR, who,
	    note != NULL && *note != '\0' ? note : NULL, cause) != 0)
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
	if (remote_is(r))
		return console_remote(c, r, PROTO_KILL, who, NULL, NULL,
		    false, cause);
	free(r->who);
	r->who = xstrdup(who);
	why = xasprintf("killed by %s", who);
	job_kill(r->owner, BY_OPERATOR, why);
	free(why);
	return 0;
}

/*
 * Queue an ended request again as a new request, classified afresh: an
 * ask waits for a decision again, a deny rule denies it, an allow rule
 * runs it only where allowlisted commands run at once. Network and extra
 * paths carry over only from a request that was approved; those of a
 * denied or withdrawn one are dropped (the operator can grant them again
 * while the new request waits).
 */
uint32_t
console_rerun(struct console *c, uint32_t id, const char *who, char **cause)
{
	struct request	*old = console_find(c, id, cause), *r;
	bool		 approved;

	if (old == NULL)
		return 0;
	if (!request_ended(old)) {
		*cause = xasprintf("cannot re-run request %u: it is %s", id,
		    request_state_name(old->state));
		return 0;
	}
	/* Its command would run here, not where its files are. */
	if (remote_is(old)) {
		*cause = xasprintf("request %u ran on %s: re-run it there "
		    "(the agent asks again)", id, old->host);
		return 0;
	}
	if (c->shutting_down) {
		*cause = xstrdup("the console is shutting down");
		return 0;
	}
	/* Its content went to the helper once and is not kept: the agent
	   asks again (against the file as it is then). */
	if (old->file_write) {
		*cause = xasprintf("request %u is a file write: it cannot be "
		    "re-run (ask the agent to write the file again)", id);
		return 0;
	}
	approved = old->state != REQUEST_DENIED &&
	    old->state != REQUEST_WITHDRAWN;
	r = queue_add(&c->q);
	job_new(c, r, NULL);
	r->rerun_of = old->id;
	r->agent = xstrdup(old->agent);
	r->command = xstrdup(old->command);
	r->is_argv = old->is_argv;
	strv_append_all(&r->argv, &old->argv);
	r->cwd = xstrdup(old->cwd);
	r->timeout_s = old->timeout_s;
	r->memory = old->memory;
	r->pids = old->pids;
	r->cpu_s = old->cpu_s;
	if (approved) {
		proto_mounts_copy(&r->asked, &old->asked);
		r->edited = old->edited;
		proto_mounts_copy(&r->edits, &old->edits);
	}
	LOG("request %u re-runs %u for %s%s", r->id, old->id,
	    who != NULL ? who : "the terminal",
	    approved ? "" : " (its extras dropped: it was not approved)");
	r->has_env = old->has_env;
	strv_append_all(&r->env, &old->env);
	strv_append_all(&r->shell_options, &old->shell_options);
	strv_append_all(&r->args, &old->args);
	request_classify(c, r);
	if (request_announce(c, r) != 0) {
		request_auto_deny(c, r, BY_CONSOLE,
		    "cannot write the audit log");
		return r->id;
	}
	/* Never approved by the rerun itself: decided like any request. */
	request_first_decision(c, r, NULL);
	return r->id;
}

/* Run a pending request with another sandbox profile (the operator's
   choice survives re-classification; the audit log records it). */
int
console_set_profile(struct console *c, uint32_t id, const char *profile,
    char **cause)
{
	struct request		*r = console_find(c, id, cause);
	struct sandbox_policy	 pol;
	char			*old;
	cJSON			*rec;

	if (r == NULL)
		return -1;
	if (r->state != REQUEST_PENDING) {
		*cause = xasprintf("cannot change the profile of request %u: "
		    "it is %s", id, request_state_name(r->state));
		return -1;
	}
	/* Its executor checks and applies it with the approval. */
	if (remote_is(r))
		return remote_set_profile(r, profile);
	if (r->file_write && strcmp(profile, "project") != 0) {
		*cause = xasprintf("request %u is a file write: it runs with "
		    "the 'project' profile only", id);
		return -1;
	}
	sandbox_policy_init(&pol);
	if (allowlist_profile_apply(c->al, profile, &pol, cause) != 0) {
		sandbox_policy_release(&pol);
		return -1;
	}
	sandbox_policy_release(&pol);
	old = r->op_profile;
	r->op_profile = xstrdup(profile);
	request_classify(c, r);
	if (r->error != NULL) {
		*cause = xasprintf("request %u with profile '%s': %s", id,
		    profile, r->error);
		free(r->op_profile);
		r->op_profile = old;
		request_classify(c, r);
		return -1;
	}
	free(old);
	rec = audit_record("profile", r);
	cJSON_AddStringToObject(rec, "profile", profile);
	console_audit(c, rec);
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	return 0;
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
	if (remote_is(r))
		return remote_set_mounts(r, mo);
	{
		struct proto_mounts	old = PROTO_MOUNTS_INIT;
		bool			was = r->edited;

		proto_mounts_copy(&old, &r->edits);
		proto_mounts_release(&r->edits);
		proto_mounts_copy(&r->edits, mo);
		r->edited = true;
		request_classify(c, r);
		if (r->error != NULL) {
			/* Refused (e.g. a writable path under a protected
			   one): say so, keep what was there. */
			*cause = xasprintf("request %u: %s", id, r->error);
			proto_mounts_release(&r->edits);
			r->edits = old;
			r->edited = was;
			request_classify(c, r);
			return -1;
		}
		proto_mounts_release(&old);
	}
	if (r->verdict == VERDICT_ALLOW && !proto_mounts_empty(mo))
		r->verdict = VERDICT_ASK;
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	return 0;
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

/* The settings in force (the front end reads the "console" section). */
const struct config *
console_config(const struct console *c)
{
	return &c->cfg;
}

size_t
console_clients(const struct console *c)
{
	return c->nconns;
}

const struct buf *
console_output(struct console *c, const struct request *r)
{
	const struct job	*jb = r->owner;

	if (remote_is(r))
		return remote_output(r);
	if (jb != NULL && jb->log_spooled)
		return spool_output(c, jb);
	return jb != NULL ? &jb->log : NULL;
}

const cJSON *
console_events(const struct console *c, const struct request *r)
{
	const struct job	*jb = r->owner;

	if (remote_is(r))
		return remote_events(r);
	return jb != NULL ? jb->events : NULL;
}

/* What the kept output and events leave out. */
void
console_kept(const struct console *c, const struct request *r,
    struct console_kept *k)
{
	const struct job	*jb = r->owner;
	uint64_t		 n;

	memset(k, 0, sizeof *k);
	if (jb == NULL)
		return;
	k->out_seen = jb->out_seen;
	n = jb->log_spooled ? jb->log_len : jb->log.len;
	k->out_dropped = jb->out_seen > n ? jb->out_seen - n : 0;
	n = (uint64_t)cJSON_GetArraySize(jb->events);
	k->ev_lines = jb->ev_lines;
	k->ev_dropped = jb->ev_lines > n ? jb->ev_lines - n : 0;
	k->ev_count = jb->ev_count;
}

/* ---- for the terminal UI (ui/) ---- */

/* Why the project's rule file does not count (it widens), or NULL. */
const char *
console_rules_problem(const struct console *c)
{
	return allowlist_project_error(c->al);
}

/*
 * Read the configuration and the rule files again (the operator's key,
 * `bwgate reload`, SIGHUP when headless). Requests already queued keep the
 * verdict and sandbox they were shown; new ones get the new rules. If
 * anything fails to load, the old configuration and rules stay, and the
 * audit log and the status line say why.
 */
int
console_reload(struct console *c, const char *who, char **cause)
{
	struct config		 cfg;
	struct allowlist	*al = NULL;
	cJSON			*rec;

	config_init(&cfg);
	if (config_load(&cfg, c->config_file, cause) != 0 ||
	    (al = allowlist_load(c->project, cause)) == NULL) {
		config_release(&cfg);
		rec = audit_record("reload", NULL);
		cJSON_AddStringToObject(rec, "by", who);
		cJSON_AddBoolToObject(rec, "ok", false);
		cJSON_AddStringToObject(rec, "error", *cause);
		console_audit(c, rec);
		console_message(c, "reload failed, the old configuration and "
		    "rules stay: %s", *cause);
		return -1;
	}
	config_release(&c->cfg);
	c->cfg = cfg;
	allowlist_free(c->al);
	c->al = al;
	audit_set_rotation(c->audit, c->cfg.audit_max_bytes,
	    c->cfg.audit_keep);
	rec = audit_record("reload", NULL);
	cJSON_AddStringToObject(rec, "by", who);
	cJSON_AddBoolToObject(rec, "ok", true);
	cJSON_AddItemToObject(rec, "files", json_strv(&c->cfg.files));
	console_audit(c, rec);
	if (allowlist_project_error(al) != NULL)
		console_message(c, "configuration and rules loaded again; %s",
		    allowlist_project_error(al));
	else
		console_message(c, "configuration and rules loaded again");
	return 0;
}
