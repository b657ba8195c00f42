/*
 * pane-report: the end of a request: how it ended, the change report
 * (created, modified, deleted, renamed, relative to the project) and the
 * violations with the hints the agent got, as bwgate exec, run and show
 * print them (report-text.c): a directory created with everything in it
 * is one line until x lists every path; for a denied request, who denied
 * it and the note.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ui.h"
#include "xalloc.h"

/* The colour of a report line, from its first character. */
static enum ui_color
report_color(const char *line)
{
	switch (line[0]) {
	case '+':
		return UC_CREATED;
	case '~':
		return UC_MODIFIED;
	case '-':
		return UC_DELETED;
	case '>':
		return UC_MOVED;
	case '!':	/* "! attention: ..." first, in its own colour */
		return strncmp(line, "! attention", 11) == 0 ?
		    UC_ATTENTION : UC_WARN;
	default:
		return UC_NORMAL;
	}
}

/* Build the pane's text for r. */
static void
report_text(struct ui *ui, struct request *r, size_t w, struct ui_text *t)
{
	struct strv	 lines = STRV_INIT;
	char		*s, *e;

	if (r->state == REQUEST_DENIED || r->state == REQUEST_WITHDRAWN) {
		e = fmt_escape(r->note != NULL ? r->note : "");
		/* Worded as the agent reads it: "denied by the operator". */
		s = xasprintf("%s by %s%s%s%s", request_state_name(r->state),
		    strcmp(request_by_name(r->by), "operator") == 0 ?
		    "the " : "", request_by_name(r->by), *e != '\0' ? ": " :
		    "", e);
		ui_text_wrap(t, UC_DENIED, s, w, 2);
		free(s);
		free(e);
		return;
	}
	if (!request_ended(r)) {
		ui_text_add(t, UC_DIM, r->state == REQUEST_RUNNING ?
		    " running: the change report comes when it ends" :
		    " the change report comes when it has run");
		return;
	}
	if (r->error != NULL) {
		e = fmt_escape(r->error);
		s = xasprintf("! %s", e);
		ui_text_wrap(t, UC_WARN, s, w, 2);
		free(s);
		free(e);
	}
	if (r->report == NULL)
		return;
	if (ui->undo_preview_id == r->id) {
		/* u: what the undo will do, before the question's answer. */
		ui_text_add(t, UC_LABEL, "undo will:");
		for (size_t i = 0; i < ui->undo_preview.n; i++) {
			const char *l = ui->undo_preview.v[i];

			e = fmt_escape(l);
			s = xasprintf("  %s", e);
			ui_text_wrap(t, strncmp(l, "conflict", 8) == 0 ||
			    strncmp(l, "cannot", 6) == 0 ||
			    strncmp(l, "undo will not", 13) == 0 ? UC_WARN :
			    strncmp(l, "remove", 6) == 0 ? UC_DELETED :
			    strncmp(l, "rename", 6) == 0 ? UC_MOVED :
			    UC_CREATED, s, w, 4);
			free(s);
			free(e);
		}
		ui_text_add(t, UC_NORMAL, "");
	}
	fmt_report_lines(r->report, ui->report_expand, &lines);
	for (size_t i = 0; i < lines.n; i++)
		ui_text_wrap(t, report_color(lines.v[i]), lines.v[i], w, 4);
	strv_release(&lines);
}

/* Draw the report pane. */
void
pane_report_draw(struct ui *ui, struct pane *p)
{
	struct ui_text	 t = UI_TEXT_INIT;
	struct request	*r = ui_selected(ui);
	char		*extra = NULL, *st;

	if (r != NULL) {
		report_text(ui, r, (size_t)p->w, &t);
		st = fmt_state(r, ui_now());
		extra = xasprintf("#%u  %s%s", r->id, st, ui->report_expand ?
		    "  every path (x: summary)" : "");
		free(st);
	} else
		ui_text_add(&t, UC_DIM, " nothing selected");
	ui_draw_text(ui, p, &t);
	ui_draw_title(ui, p, extra);
	free(extra);
	ui_text_release(&t);
}
