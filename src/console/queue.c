/* queue: request records, their state machine and the run-order rule. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonutil.h"
#include "queue.h"
#include "xalloc.h"

static const char *request_state_names[] = {
	[REQUEST_PENDING] = "pending",
	[REQUEST_APPROVED] = "approved",
	[REQUEST_DENIED] = "denied",
	[REQUEST_RUNNING] = "running",
	[REQUEST_FINISHED] = "finished",
	[REQUEST_FAILED] = "failed",
	[REQUEST_KILLED] = "killed",
	[REQUEST_TIMED_OUT] = "timed-out",
	[REQUEST_WITHDRAWN] = "withdrawn",
};

static const char *request_by_names[] = {
	[BY_NOBODY] = "nobody",
	[BY_ALLOWLIST] = "allowlist",
	[BY_OPERATOR] = "operator",
	[BY_HEADLESS] = "headless",
	[BY_TIMEOUT] = "timeout",
	[BY_CONSOLE] = "console",
	[BY_AGENT] = "agent",
	[BY_SANDBOX] = "sandboxed",
};

/* Wall-clock milliseconds. */
int64_t
queue_wall_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A state's name. */
const char *
request_state_name(enum request_state s)
{
	if ((size_t)s < sizeof request_state_names / sizeof
	    *request_state_names)
		return request_state_names[s];
	return "unknown";
}

/* A decider's name. */
const char *
request_by_name(enum request_by b)
{
	if ((size_t)b < sizeof request_by_names / sizeof *request_by_names)
		return request_by_names[b];
	return "unknown";
}

/* Nothing more will happen to it. */
bool
request_ended(const struct request *r)
{
	switch (r->state) {
	case REQUEST_PENDING:
	case REQUEST_APPROVED:
	case REQUEST_RUNNING:
		return false;
	default:
		return true;
	}
}

/* Set up an empty queue. */
void
queue_init(struct queue *q)
{
	memset(q, 0, sizeof *q);
	TAILQ_INIT(&q->requests);
	q->next_id = 1;
	q->writers_alone = true;
}

/* Free one request. */
static void
request_free(struct request *r)
{
	free(r->agent);
	free(r->description);
	free(r->refused);
	free(r->tag);
	free(r->command);
	free(r->write_path);
	free(r->write_diff);
	strv_release(&r->argv);
	free(r->cwd);
	proto_mounts_release(&r->asked);
	proto_mounts_release(&r->edits);
	strv_release(&r->domains);
	free(r->wants);
	free(r->wants_class);
	strv_release(&r->wants_also);
	strv_release(&r->env);
	strv_release(&r->env_changed);
	strv_release(&r->shell_options);
	strv_release(&r->args);
	free(r->rule);
	free(r->reason);
	free(r->at_stake);
	free(r->needs);
	free(r->profile);
	free(r->op_profile);
	strv_release(&r->bwrap_argv);
	cJSON_Delete(r->mounts);
	cJSON_Delete(r->spec);
	cJSON_Delete(r->sources);
	free(r->host);
	free(r->who);
	free(r->note);
	cJSON_Delete(r->report);
	free(r->error);
	free(r);
}

/* Free every request. */
void
queue_release(struct queue *q)
{
	struct request	*r;

	while ((r = TAILQ_FIRST(&q->requests)) != NULL) {
		TAILQ_REMOVE(&q->requests, r, entry);
		request_free(r);
	}
	q->n = q->running = q->running_writers = 0;
}

/* Append a new pending request. */
struct request *
queue_add(struct queue *q)
{
	struct request	*r = xcalloc(1, sizeof *r);

	r->id = q->next_id++;
	if (q->next_id == 0)
		q->next_id = 1;
	r->submitted = queue_wall_ms();
	r->state = REQUEST_PENDING;
	r->verdict = VERDICT_ASK;
	r->asked = (struct proto_mounts)PROTO_MOUNTS_INIT;
	r->edits = (struct proto_mounts)PROTO_MOUNTS_INIT;
	r->exit_status = -1;
	TAILQ_INSERT_TAIL(&q->requests, r, entry);
	q->n++;
	return r;
}

/* Look a request up by id. */
struct request *
queue_find(const struct queue *q, uint32_t id)
{
	struct request	*r;

	TAILQ_FOREACH(r, &q->requests, entry)
		if (r->id == id)
			return r;
	return NULL;
}

/* Unlink and free a request. */
void
queue_remove(struct queue *q, struct request *r)
{
	if (r->state == REQUEST_RUNNING) {
		q->running--;
		if (r->writes)
			q->running_writers--;
	}
	TAILQ_REMOVE(&q->requests, r, entry);
	q->n--;
	request_free(r);
}

/* The error for a transition that is not allowed. */
static int
queue_bad_state(const struct request *r, const char *what, char **cause)
{
	*cause = xasprintf("cannot %s request %u: it is %s", what, r->id,
	    request_state_name(r->state));
	return -1;
}

/* Record who moved the request and why. */
static void
request_set_by(struct request *r, enum request_by by, const char *who,
    const char *note)
{
	r->by = by;
	free(r->who);
	r->who = who != NULL ? xstrdup(who) : NULL;
	if (note != NULL) {
		free(r->note);
		r->note = xstrdup(note);
	}
}

/* Approve or deny a pending request. */
int
queue_decide(struct queue *q, struct request *r, bool approve,
    enum request_by by, const char *who, const char *note, char **cause)
{
	if (r->state != REQUEST_PENDING)
		return queue_bad_state(r, approve ? "approve" : "deny", cause);
	r->state = approve ? REQUEST_APPROVED : REQUEST_DENIED;
	request_set_by(r, by, who, note);
	if (!approve)
		r->ended = queue_wall_ms();
	return 0;
}

/* Withdraw a request that has not started. */
int
queue_withdraw(struct queue *q, struct request *r, enum request_by by,
    const char *why, char **cause)
{
	if (r->state != REQUEST_PENDING && r->state != REQUEST_APPROVED)
		return queue_bad_state(r, "withdraw", cause);
	r->state = REQUEST_WITHDRAWN;
	request_set_by(r, by, NULL, why);
	r->ended = queue_wall_ms();
	return 0;
}

/*
 * The first approved request, if it may start now. Requests start in id
 * order; with writers_alone a writer needs the project to itself, a reader
 * only needs no writer running. Stopping at the first approved request that cannot
 * start keeps a writer from being starved by a stream of readers.
 */
struct request *
queue_next(const struct queue *q)
{
	struct request	*r;

	if (q->max_running != 0 && q->running >= q->max_running)
		return NULL;
	TAILQ_FOREACH(r, &q->requests, entry) {
		/* A mirror runs on its own machine, never here. */
		if (r->state != REQUEST_APPROVED || r->host != NULL)
			continue;
		if (!q->writers_alone)
			return r;
		if (r->writes)
			return q->running == 0 ? r : NULL;
		return q->running_writers == 0 ? r : NULL;
	}
	return NULL;
}

/* Mark an approved request running. */
int
queue_start(struct queue *q, struct request *r, char **cause)
{
	if (r->state != REQUEST_APPROVED)
		return queue_bad_state(r, "start", cause);
	if (queue_next(q) != r) {
		*cause = xasprintf("request %u must wait: %s", r->id,
		    q->max_running != 0 && q->running >= q->max_running ?
		    "as many commands as allowed are running" :
		    q->running_writers > 0 || r->writes ?
		    "a command that writes the project is running" :
		    "earlier requests go first");
		return -1;
	}
	r->state = REQUEST_RUNNING;
	r->started = queue_wall_ms();
	q->running++;
	if (r->writes)
		q->running_writers++;
	return 0;
}

/* Mark a running request ended. */
int
queue_finish(struct queue *q, struct request *r, enum request_state state,
    char **cause)
{
	if (state != REQUEST_FINISHED && state != REQUEST_FAILED &&
	    state != REQUEST_KILLED && state != REQUEST_TIMED_OUT) {
		*cause = xasprintf("'%s' is not an end state",
		    request_state_name(state));
		return -1;
	}
	if (r->state != REQUEST_RUNNING)
		return queue_bad_state(r, "finish", cause);
	r->state = state;
	r->ended = queue_wall_ms();
	q->running--;
	if (r->writes)
		q->running_writers--;
	return 0;
}

/* Add a string member unless it is NULL. */
static void
add_string(cJSON *j, const char *name, const char *s)
{
	if (s != NULL)
		cJSON_AddStringToObject(j, name, s);
}

/* The request as JSON (everything but the exec report). */
cJSON *
request_json(const struct request *r)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "id", r->id);
	add_string(j, "host", r->host);
	if (r->rerun_of != 0)
		cJSON_AddNumberToObject(j, "rerun_of", r->rerun_of);
	add_string(j, "agent", r->agent);
	add_string(j, "description", r->description);
	add_string(j, "refused", r->refused);
	add_string(j, "tag", r->tag);
	cJSON_AddNumberToObject(j, "submitted_ms", (double)r->submitted);
	if (r->started != 0)
		cJSON_AddNumberToObject(j, "started_ms", (double)r->started);
	if (r->ended != 0)
		cJSON_AddNumberToObject(j, "ended_ms", (double)r->ended);
	add_string(j, "command", r->command);
	if (r->is_argv)
		cJSON_AddItemToObject(j, "argv", json_strv(&r->argv));
	add_string(j, "cwd", r->cwd);
	if (r->timeout_s != 0)
		cJSON_AddNumberToObject(j, "timeout", r->timeout_s);
	if (r->memory > 0)
		cJSON_AddNumberToObject(j, "memory", r->memory);
	if (r->pids > 0)
		cJSON_AddNumberToObject(j, "pids", r->pids);
	if (r->cpu_s > 0)
		cJSON_AddNumberToObject(j, "cpu", r->cpu_s);
	if (!proto_mounts_empty(&r->asked))
		cJSON_AddItemToObject(j, "asked", proto_mounts_json(&r->asked));
	if (r->domains.n > 0)
		cJSON_AddItemToObject(j, "domains", json_strv(&r->domains));
	if (r->wants != NULL)
		cJSON_AddStringToObject(j, "wants", r->wants);
	if (r->wants_class != NULL)
		cJSON_AddStringToObject(j, "wants_resolves_to", r->wants_class);
	if (r->wants_also.n > 0)
		cJSON_AddItemToObject(j, "wants_also", json_strv(&r->wants_also));
	if (r->edited)
		cJSON_AddItemToObject(j, "edits", proto_mounts_json(&r->edits));
	if (r->shell_options.n > 0)
		cJSON_AddItemToObject(j, "shell_options",
		    json_strv(&r->shell_options));
	if (r->args.n > 0)
		cJSON_AddItemToObject(j, "args", json_strv(&r->args));
	if (r->file_write) {
		cJSON	*w = cJSON_AddObjectToObject(j, "write");

		add_string(w, "path", r->write_path);
		cJSON_AddNumberToObject(w, "bytes", (double)r->write_bytes);
		add_string(w, "diff", r->write_diff);
	} else if (r->stdin_stream)
		cJSON_AddBoolToObject(j, "stdin", true);
	if (r->merge_output)
		cJSON_AddBoolToObject(j, "merge_output", true);
	if (r->env_changed.n > 0) {
		cJSON	*e = cJSON_AddObjectToObject(j, "env_changed");

		for (size_t i = 0; i < r->env_changed.n; i++) {
			const char *kv = r->env_changed.v[i];
			const char *eq = strchr(kv, '=');
			char *name = xstrndup(kv, (size_t)(eq - kv));

			cJSON_AddStringToObject(e, name, eq + 1);
			free(name);
		}
	}
	cJSON_AddStringToObject(j, "verdict", verdict_name(r->verdict));
	add_string(j, "rule", r->rule);
	add_string(j, "reason", r->reason);
	add_string(j, "at_stake", r->at_stake);
	add_string(j, "needs", r->needs);
	add_string(j, "profile", r->profile);
	cJSON_AddBoolToObject(j, "writes_project", r->writes);
	cJSON_AddStringToObject(j, "state", request_state_name(r->state));
	if (r->by != BY_NOBODY)
		cJSON_AddStringToObject(j, "by", request_by_name(r->by));
	add_string(j, "who", r->who);
	add_string(j, "note", r->note);
	if (r->exit_status >= 0)
		cJSON_AddNumberToObject(j, "exit_status", r->exit_status);
	if (r->undone)
		cJSON_AddBoolToObject(j, "undone", true);
	add_string(j, "error", r->error);
	return j;
}
