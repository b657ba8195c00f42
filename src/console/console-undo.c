/*
 * console-undo: undo a finished request from the console (the `u` key or
 * the control socket): the plan for the preview, then the undo itself,
 * audited, and a notice the request's agent gets with its next result
 * ("your request #N was undone").
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "console-int.h"
#include "console.h"
#include "log.h"
#include "queue.h"
#include "remote.h"
#include "undo.h"
#include "xalloc.h"

/* Who hears of an undo: the request's agent by name; an agent that gave
   none is known by its connection's pid ("pid N"), a new one per
   `bwgate run`, so the next such request hears. */
static const char *
undo_agent_key(const struct request *r)
{
	if (r->agent == NULL || strncmp(r->agent, "pid ", 4) == 0)
		return "";
	return r->agent;
}

/* The undo id of a finished request, or 0 with cause. */
static unsigned long
undo_id_of(struct console *c, uint32_t id, struct request **rp, char **cause)
{
	struct request	*r;
	const cJSON	*u;
	const char	*why;

	if ((r = console_find(c, id, cause)) == NULL)
		return 0;
	*rp = r;
	if (!request_ended(r) || r->report == NULL) {
		*cause = xasprintf("#%u has no report: nothing to undo", id);
		return 0;
	}
	u = cJSON_GetObjectItem(r->report, "undo");
	if (!cJSON_IsTrue(cJSON_GetObjectItem(u, "possible"))) {
		why = cJSON_GetStringValue(cJSON_GetObjectItem(u, "why"));
		*cause = xasprintf("#%u cannot be undone: %s", id,
		    why != NULL ? why : "its report does not say");
		return 0;
	}
	return (unsigned long)cJSON_GetNumberValue(cJSON_GetObjectItem(u,
	    "id"));
}

int
console_undo_preview(struct console *c, uint32_t id, struct strv *lines,
    char **cause)
{
	struct request		*r = NULL;
	struct undo_plan	*p;
	const cJSON		*e;
	unsigned long		 uid;
	cJSON			*m;
	int			 n;

	/* Its undo record is on its own machine (remote.h). */
	if ((r = queue_find(&c->q, id)) != NULL && remote_is(r))
		return remote_undo_preview(r, lines, cause);
	if ((uid = undo_id_of(c, id, &r, cause)) == 0)
		return -1;
	if ((m = undo_manifest_read(c->project, uid, cause)) == NULL)
		return -1;
	if (undo_is_undone(c->project, uid)) {
		cJSON_Delete(m);
		*cause = xasprintf("#%u was undone already", id);
		return -1;
	}
	if ((p = undo_plan_new(c->project, m, cause)) == NULL) {
		cJSON_Delete(m);
		return -1;
	}
	strv_append_all(lines, undo_plan_lines(p));
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(m, "unsaved"))
		strv_pushf(lines, "undo will not restore %s (%s)",
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "path")) ?: "?",
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "why")) ?: "?");
	n = (int)undo_plan_conflicts(p);
	undo_plan_free(p);
	cJSON_Delete(m);
	return n;
}

int
console_undo(struct console *c, uint32_t id, const char *who, bool force,
    char **cause)
{
	struct request		*r = NULL;
	struct undo_plan	*p;
	const struct strv	*lines;
	unsigned long		 uid;
	cJSON			*m, *rec;
	int			 rc;

	if ((r = queue_find(&c->q, id)) != NULL && remote_is(r))
		return remote_undo(c, r, who, force, cause);
	if ((uid = undo_id_of(c, id, &r, cause)) == 0)
		return -1;
	if (undo_is_undone(c->project, uid)) {
		*cause = xasprintf("#%u was undone already", id);
		return -1;
	}
	if ((m = undo_manifest_read(c->project, uid, cause)) == NULL)
		return -1;
	if ((p = undo_plan_new(c->project, m, cause)) == NULL) {
		cJSON_Delete(m);
		return -1;
	}
	rc = undo_plan_apply(p, force, cause);
	lines = undo_plan_lines(p);
	rec = audit_record("undo", r);
	cJSON_AddNumberToObject(rec, "undo", (double)uid);
	if (who != NULL)
		cJSON_AddStringToObject(rec, "who", who);
	cJSON_AddBoolToObject(rec, "force", force);
	cJSON_AddItemToObject(rec, "actions", cJSON_CreateStringArray(
	    (const char *const *)lines->v, (int)lines->n));
	if (rc != 0)
		cJSON_AddStringToObject(rec, "error", *cause);
	console_audit(c, rec);
	if (rc == 0) {
		char *e = NULL;

		r->undone = true;
		console_emit_request(c, CONSOLE_EV_CHANGED, r);
		if (undo_mark_undone(c->project, uid, &e) != 0) {
			console_message(c, "%s", e);
			free(e);
		}
		/* Its agent hears with its next result (the mark). */
	}
	undo_plan_free(p);
	cJSON_Delete(m);
	return rc;
}

void
console_undo_tag(struct console *c, struct request *r)
{
	cJSON		*u = cJSON_GetObjectItem(r->report, "undo");
	const cJSON	*id = cJSON_GetObjectItem(u, "id");
	char		*cause = NULL;

	if (!cJSON_IsTrue(cJSON_GetObjectItem(u, "possible")) ||
	    !cJSON_IsNumber(id) || id->valuedouble < 1)
		return;
	if (undo_set_request(c->project, (unsigned long)id->valuedouble,
	    r->id, &cause) != 0) {
		/* `bwgate undo N` still finds it in the audit log. */
		LOG("request %u: %s", r->id, cause);
		free(cause);
	}
	cJSON_DeleteItemFromObject(u, "request");
	cJSON_AddNumberToObject(u, "request", (double)r->id);
}

void
console_undo_refresh(struct console *c)
{
	struct request	*q;
	const cJSON	*u;

	TAILQ_FOREACH(q, &c->q.requests, entry) {
		if (q->undone || q->report == NULL)
			continue;
		u = cJSON_GetObjectItem(q->report, "undo");
		if (!cJSON_IsTrue(cJSON_GetObjectItem(u, "possible")) ||
		    !undo_is_undone(c->project, (unsigned long)
		    cJSON_GetNumberValue(cJSON_GetObjectItem(u, "id"))))
			continue;
		q->undone = true;
		console_emit_request(c, CONSOLE_EV_CHANGED, q);
	}
}

#define CONSOLE_UNDO_WATCH_MS	2000

static void
console_undo_tick(void *arg)
{
	struct console	*c = arg;

	c->undo_timer = 0;
	console_undo_refresh(c);
	console_undo_watch(c, true);
}

void
console_undo_watch(struct console *c, bool on)
{
	if (on && c->undo_timer == 0 && !c->shutting_down)
		c->undo_timer = loop_timer(c->loop, CONSOLE_UNDO_WATCH_MS,
		    console_undo_tick, c);
	else if (!on && c->undo_timer != 0) {
		loop_cancel(c->loop, c->undo_timer);
		c->undo_timer = 0;
	}
}

/*
 * The agent hears with its next result: every request of the same agent
 * still in memory whose run was undone since (by the u key or by `bwgate
 * undo` on the command line: the store's mark says so) and not told yet.
 */
void
console_undo_notices(struct console *c, const struct request *r,
    cJSON *report)
{
	const char	*agent = undo_agent_key(r);
	struct request	*q;
	const cJSON	*u;
	cJSON		*w;
	char		*note;

	if (report == NULL)
		return;
	TAILQ_FOREACH(q, &c->q.requests, entry) {
		if (q == r || q->undo_told || q->report == NULL ||
		    strcmp(undo_agent_key(q), agent) != 0)
			continue;
		u = cJSON_GetObjectItem(q->report, "undo");
		if (!cJSON_IsTrue(cJSON_GetObjectItem(u, "possible")) ||
		    !undo_is_undone(c->project, (unsigned long)
		    cJSON_GetNumberValue(cJSON_GetObjectItem(u, "id"))))
			continue;
		q->undo_told = true;
		if ((w = cJSON_GetObjectItem(report, "warnings")) == NULL ||
		    !cJSON_IsArray(w))
			w = cJSON_AddArrayToObject(report, "warnings");
		note = xasprintf("your earlier request #%u (%s) was undone by "
		    "the operator: its changes to the project were put back",
		    q->id, q->command != NULL ? q->command : "");
		cJSON_AddItemToArray(w, cJSON_CreateString(note));
		/* The same, as data (the MCP tool result shows it). */
		if ((w = cJSON_GetObjectItem(report, "undone")) == NULL ||
		    !cJSON_IsArray(w))
			w = cJSON_AddArrayToObject(report, "undone");
		cJSON_AddItemToArray(w, cJSON_CreateString(note));
		free(note);
	}
}
