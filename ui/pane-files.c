/*
 * pane-files: the live filesystem events of the selected request as they
 * happen (created green, modified yellow, deleted red, moved blue), newest
 * at the bottom, with a warning when the monitor lost events. Only what the
 * request's own processes did (the recorded calls say so); what no running
 * request did follows in a section of its own.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ui.h"
#include "xalloc.h"

/* The colour of an event kind (fmt_fsevent). */
static enum ui_color
files_color(char kind)
{
	switch (kind) {
	case 'c':
		return UC_CREATED;
	case 'm':
		return UC_MODIFIED;
	case 'd':
		return UC_DELETED;
	case 'r':
		return UC_MOVED;
	default:
		return UC_WARN;
	}
}

/* Warnings from the report that concern the live stream. */
static void
files_lossy(const struct request *r, size_t w, struct ui_text *t)
{
	const cJSON	*rep = r->report, *ws, *e;
	char		*s;

	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep,
	    "events_lossy")))
		return;
	ws = cJSON_GetObjectItemCaseSensitive(rep, "warnings");
	cJSON_ArrayForEach(e, ws) {
		if (!cJSON_IsString(e) ||
		    strstr(e->valuestring, "live events") == NULL)
			continue;
		s = fmt_escape(e->valuestring);
		ui_text_wrap(t, UC_WARN, s, w, 2);
		free(s);
		return;
	}
	ui_text_add(t, UC_WARN, "! live events incomplete; the change report "
	    "is still exact");
}

/* Newest outside-any-request events the pane shows. */
#define FILES_OUTSIDE_SHOWN	5

/* The events no running request made: a section of their own, under no
   request (console-outside.c). */
static void
files_outside(struct ui *ui, size_t w, struct ui_text *t)
{
	uint64_t	 count;
	const cJSON	*evs = console_outside(ui->c, &count), *e;
	int		 n = cJSON_GetArraySize(evs), skip, i = 0;
	char		*s, kind;

	if (n == 0)
		return;
	ui_text_add(t, UC_DIM, "");
	s = xasprintf("changed outside any request (%llu)",
	    (unsigned long long)count);
	ui_text_wrap(t, UC_WARN, s, w, 2);
	free(s);
	skip = n > FILES_OUTSIDE_SHOWN ? n - FILES_OUTSIDE_SHOWN : 0;
	if (count > (uint64_t)(n - skip)) {
		s = xasprintf("... %llu earlier",
		    (unsigned long long)(count - (uint64_t)(n - skip)));
		ui_text_add(t, UC_DIM, s);
		free(s);
	}
	cJSON_ArrayForEach(e, evs) {
		if (i++ < skip)
			continue;
		s = fmt_fsevent(e, &kind);
		ui_text_wrap(t, files_color(kind), s, w, 4);
		free(s);
	}
}

/* Draw the live files pane. */
void
pane_files_draw(struct ui *ui, struct pane *p)
{
	struct ui_text	 t = UI_TEXT_INIT;
	struct request	*r = ui_selected(ui);
	const cJSON	*evs = NULL, *e;
	struct console_kept k;
	char		*s, kind, *extra = NULL;
	int		 n = 0;
	bool		 uncertain = false;

	p->pos[0] = '\0';
	memset(&k, 0, sizeof k);
	if (r != NULL) {
		evs = console_events(ui->c, r);
		console_kept(ui->c, r, &k);
	}
	if (k.ev_dropped > 0) {
		s = xasprintf("... %llu earlier line%s not kept (the change "
		    "report has every path: bwgate show %u --report)",
		    (unsigned long long)k.ev_dropped, k.ev_dropped == 1 ? "" :
		    "s", r->id);
		ui_text_wrap(&t, UC_WARN, s, (size_t)p->w, 4);
		free(s);
	}
	cJSON_ArrayForEach(e, evs) {
		const cJSON *by = cJSON_GetObjectItemCaseSensitive(e, "by");

		if (cJSON_IsString(by) &&
		    strcmp(by->valuestring, "uncertain") == 0)
			uncertain = true;
		s = fmt_fsevent(e, &kind);
		ui_text_wrap(&t, files_color(kind), s, (size_t)p->w, 4);
		free(s);
		n++;
	}
	if (uncertain)
		ui_text_wrap(&t, UC_WARN, "? not every call of this request "
		    "was recorded: an (uncertain) event may be another's",
		    (size_t)p->w, 2);
	if (r != NULL)
		files_lossy(r, (size_t)p->w, &t);
	if (n == 0 && t.lines.n == 0)
		ui_text_add(&t, UC_DIM, r == NULL ? " nothing selected" :
		    r->state == REQUEST_RUNNING ? " no file changes yet" :
		    request_ended(r) ? " no file events" :
		    " file changes show here while it runs");
	files_outside(ui, (size_t)p->w, &t);
	/* Events seen, repeats counted, not the lines kept. */
	if (n > 0)
		extra = xasprintf("#%u  %llu event%s", r->id,
		    (unsigned long long)k.ev_count, k.ev_count == 1 ? "" :
		    "s");
	ui_draw_text(ui, p, &t);
	ui_draw_title(ui, p, extra);
	free(extra);
	ui_text_release(&t);
}
