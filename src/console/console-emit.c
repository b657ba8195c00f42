/*
 * console-emit: what every part of the console calls to tell: events to
 * the front ends (console_emit), status lines (console_message), audit
 * records (console_audit, which arms the group commit through c->commit
 * and so calls nothing of the console's above it), and console_find.
 * The helpers around the core (console-outside.c, console-undo.c) call
 * only this and the layers below (doc/HACKING.md, the console's circle).
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "audit.h"
#include "console-int.h"
#include "console.h"
#include "jsonutil.h"
#include "log.h"
#include "xalloc.h"

/* Tell subscribers and set the matching dirty bit. */
void
console_emit(struct console *c, const struct console_event *ev)
{
	switch (ev->type) {
	case CONSOLE_EV_OUTPUT:
		c->dirty |= CONSOLE_DIRTY_OUTPUT;
		break;
	case CONSOLE_EV_FSEVENT:
	case CONSOLE_EV_OUTSIDE:
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
void
console_emit_request(struct console *c, enum console_event_type type,
    struct request *r)
{
	struct console_event	ev = { .type = type, .r = r };

	console_emit(c, &ev);
}

/* A line for the status area (and the debug log). */
void
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

/* Run the group commit (c->commit: console_commit) at the end of this
   loop pass (later while the log cannot be written). */
void
console_arm_commit(struct console *c)
{
	if (c->commit_armed)
		return;
	c->commit_armed = true;
	loop_timer(c->loop, c->audit_failing ? CONSOLE_AUDIT_RETRY_MS : 0,
	    c->commit, c);
}

/* Append an audit record (synced before any reply leaves); -1 only when
   the record is lost (audit.h). */
int
console_audit(struct console *c, cJSON *rec)
{
	char	*cause = NULL;

	/* Request ids restart with each console: the console id joins a
	   request's records across restarts. */
	if (c->console_id != NULL &&
	    cJSON_GetObjectItem(rec, "console") == NULL)
		cJSON_AddStringToObject(rec, "console", c->console_id);
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
cJSON *
audit_record(const char *what, const struct request *r)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "record", what);
	if (r != NULL)
		cJSON_AddNumberToObject(j, "id", r->id);
	return j;
}

/* Find a request or say there is none. */
struct request *
console_find(struct console *c, uint32_t id, char **cause)
{
	struct request	*r = queue_find(&c->q, id);

	if (r == NULL)
		*cause = xasprintf("no request %u", id);
	return r;
}
