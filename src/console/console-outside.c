/*
 * console-outside: live events no running request made.
 *
 * Every running exec watches the whole project, and says of each event
 * whether its own sandbox's recorded calls named the path ("by":
 * "request"), none did ("outside": another request, or something on the
 * host), or it cannot tell ("uncertain": no recorded calls, or some were
 * not resolved). An "outside" event stays off its request's pane; it goes
 * to the console's own list unless another running request claimed the
 * same path. The execs' streams are read in no particular order, so it is
 * held for OUTSIDE_HOLD_MS first (the author's own line usually comes
 * within it), and a claim that comes later still takes it out of the list.
 * Each change is kept once, not once per exec that saw it. While a running
 * request cannot tell what it did, the entry names it as a possible author
 * ("maybe"), whichever of the two streams comes first. A claim matches by
 * path within OUTSIDE_SAME_MS: a host change to a path a request changed
 * at the same moment shows under that request, never nowhere.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "console-int.h"
#include "loop.h"
#include "queue.h"

/* Two reports of one change by two watchers are this close in time. */
#define OUTSIDE_SAME_MS	2000
/* How long an outside line waits for its author's claim. */
#define OUTSIDE_HOLD_MS	500
/* Lines held at most (a flood publishes the oldest at once). */
#define OUTSIDE_HELD_MAX	1024

static const char *
ev_str(const cJSON *e, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(e, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double
ev_time(const cJSON *e)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(e, "time_ms");

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static bool
str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Does event a name path (either end of a move)? */
static bool
ev_names(const cJSON *a, const char *path)
{
	return str_eq(ev_str(a, "path"), path) || str_eq(ev_str(a, "to"), path);
}

/* Do two events share a path, close in time? */
static bool
ev_near(const cJSON *a, const cJSON *b)
{
	double	d = ev_time(a) - ev_time(b);

	if (d < -OUTSIDE_SAME_MS || d > OUTSIDE_SAME_MS)
		return false;
	return ev_names(a, ev_str(b, "path")) ||
	    (ev_str(b, "to") != NULL && ev_names(a, ev_str(b, "to")));
}

/* Did a running request other than jb claim the change e? */
static bool
outside_claimed(struct console *c, const struct job *jb, const cJSON *e)
{
	struct request	*r;
	const cJSON	*o;

	TAILQ_FOREACH(r, &c->q.requests, entry) {
		const struct job *oj = r->owner;

		if (oj == NULL || oj == jb || oj->events == NULL)
			continue;
		/* Newest first: a claim is recent when it matters. */
		for (o = oj->events->child != NULL ? oj->events->child->prev :
		    NULL; o != NULL; o = o == oj->events->child ? NULL :
		    o->prev) {
			if (ev_near(o, e) &&
			    str_eq(ev_str(o, "by"), "request"))
				return true;
			if (ev_time(e) - ev_time(o) > OUTSIDE_SAME_MS)
				break;
		}
	}
	return false;
}

/* Publish a held line: running requests that cannot tell what they did
   may have made it. */
static void
outside_publish(struct console *c, cJSON *e)
{
	struct console_event	 ev = { .type = CONSOLE_EV_OUTSIDE };
	struct request		*r;
	const cJSON		*id;
	cJSON			*maybe;
	bool			 named;

	cJSON_DeleteItemFromObjectCaseSensitive(e, "held_ms");
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		const struct job *oj = r->owner;

		if (oj == NULL || !oj->ev_uncertain ||
		    r->state != REQUEST_RUNNING)
			continue;
		if ((maybe = cJSON_GetObjectItemCaseSensitive(e,
		    "maybe")) == NULL)
			maybe = cJSON_AddArrayToObject(e, "maybe");
		named = false;
		cJSON_ArrayForEach(id, maybe)
			named |= cJSON_IsNumber(id) && id->valuedouble == r->id;
		if (!named)
			cJSON_AddItemToArray(maybe, cJSON_CreateNumber(r->id));
	}
	cJSON_AddItemToArray(c->outside, e);
	c->outside_count++;
	if (cJSON_GetArraySize(c->outside) > CONSOLE_OUTSIDE_KEEP)
		cJSON_DeleteItemFromArray(c->outside, 0);
	ev.json = e;
	console_emit(c, &ev);
}

/* The hold is over for the oldest lines. */
static void
outside_flush(void *arg)
{
	struct console	*c = arg;
	cJSON		*o;
	const cJSON	*at;
	int64_t		 now = loop_now_ms();

	c->outside_timer = 0;
	while ((o = c->outside_held->child) != NULL) {
		at = cJSON_GetObjectItemCaseSensitive(o, "held_ms");
		if (cJSON_IsNumber(at) && (int64_t)at->valuedouble +
		    OUTSIDE_HOLD_MS > now)
			break;
		outside_publish(c, cJSON_DetachItemViaPointer(c->outside_held,
		    o));
	}
	if (c->outside_held->child != NULL)
		c->outside_timer = loop_timer(c->loop, OUTSIDE_HOLD_MS / 5,
		    outside_flush, c);
}

/* Is the change already kept (another watcher's line for it)? */
static bool
outside_known(const cJSON *list, const cJSON *e)
{
	const cJSON	*o;

	cJSON_ArrayForEach(o, list) {
		if (ev_near(o, e) && str_eq(ev_str(o, "event"),
		    ev_str(e, "event")))
			return true;
	}
	return false;
}

/* An exec's "outside" event (takes e). */
void
outside_event(struct console *c, struct job *jb, cJSON *e)
{
	if (outside_claimed(c, jb, e) || outside_known(c->outside, e) ||
	    outside_known(c->outside_held, e)) {
		cJSON_Delete(e);
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(e, "by");
	cJSON_AddNumberToObject(e, "held_ms", (double)loop_now_ms());
	cJSON_AddItemToArray(c->outside_held, e);
	if (cJSON_GetArraySize(c->outside_held) > OUTSIDE_HELD_MAX)
		outside_publish(c, cJSON_DetachItemViaPointer(c->outside_held,
		    c->outside_held->child));
	if (c->outside_timer == 0 && c->outside_held->child != NULL)
		c->outside_timer = loop_timer(c->loop, OUTSIDE_HOLD_MS,
		    outside_flush, c);
}

/* A request's own event: it is not outside any request after all. */
void
outside_claim(struct console *c, const cJSON *e)
{
	struct console_event	 ev = { .type = CONSOLE_EV_OUTSIDE };
	cJSON			*o, *next;
	bool			 gone = false;

	for (o = c->outside_held->child; o != NULL; o = next) {
		next = o->next;
		if (ev_near(o, e))
			cJSON_Delete(cJSON_DetachItemViaPointer(c->outside_held,
			    o));
	}
	for (o = c->outside->child; o != NULL; o = next) {
		next = o->next;
		if (!ev_near(o, e))
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(c->outside, o));
		c->outside_count--;
		gone = true;
	}
	if (gone)
		console_emit(c, &ev);
}

/* A request's uncertain event (it may have made it): an outside entry
   for the same change names it as a possible author. */
void
outside_maybe(struct console *c, const struct request *r, const cJSON *e)
{
	struct console_event	 ev = { .type = CONSOLE_EV_OUTSIDE };
	cJSON			*o, *maybe, *id;
	bool			 named;

	cJSON_ArrayForEach(o, c->outside) {
		if (!ev_near(o, e))
			continue;
		if ((maybe = cJSON_GetObjectItemCaseSensitive(o,
		    "maybe")) == NULL)
			maybe = cJSON_AddArrayToObject(o, "maybe");
		named = false;
		cJSON_ArrayForEach(id, maybe)
			named |= cJSON_IsNumber(id) && id->valuedouble == r->id;
		if (!named) {
			cJSON_AddItemToArray(maybe, cJSON_CreateNumber(r->id));
			console_emit(c, &ev);
		}
	}
}

const cJSON *
console_outside(const struct console *c, uint64_t *count)
{
	if (count != NULL)
		*count = c->outside_count;
	return c->outside;
}
