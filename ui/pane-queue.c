/*
 * pane-queue: one line per request (id, agent, age, command, verdict
 * badge, state), the selection in reverse video, requests waiting for the
 * operator marked with '!' and drawn bold so they stand out even without
 * colour.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ui.h"
#include "xalloc.h"

/* The colour of a verdict badge. */
static enum ui_color
queue_badge_color(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return UC_ALLOW;
	case VERDICT_DENY:
		return UC_DENY;
	case VERDICT_DANGER:
		return UC_DANGER;
	default:
		return UC_ASK;
	}
}

/* The colour of a state. */
static enum ui_color
queue_state_color(const struct request *r)
{
	switch (r->state) {
	case REQUEST_PENDING:
		return UC_PENDING;
	case REQUEST_APPROVED:
	case REQUEST_RUNNING:
		return UC_RUNNING;
	case REQUEST_FINISHED:
		return r->exit_status == 0 ? UC_OK : UC_FAIL;
	case REQUEST_DENIED:
	case REQUEST_WITHDRAWN:
		return UC_DENIED;
	default:
		return UC_FAIL;
	}
}

/* Draw one row; the selected row is reversed as a whole. */
static void
queue_draw_row(struct ui *ui, struct pane *p, int y, const struct request *r,
    bool selected, int64_t now)
{
	struct fmt_row	row;
	int		base = selected ? ui_attr(ui, UC_SELECTED) : 0;

	if (fmt_needs_operator(r))
		base |= ui_attr(ui, UC_PENDING);
	fmt_queue_row(r, now, (size_t)p->w, &row);
	if (ui_marked(ui, r->id) && row.text[0] != '\0')
		row.text[0] = '*';	/* marked for a bulk approval */
	wattrset(p->win, base);
	mvwaddstr(p->win, y, 0, row.text);
	if (row.badge_len > 0) {
		wattrset(p->win, ui_attr(ui, queue_badge_color(r->verdict)) |
		    (selected ? A_REVERSE : 0));
		mvwaddnstr(p->win, y, (int)fmt_width_n(row.text,
		    row.badge_off), row.text + row.badge_off,
		    (int)row.badge_len);
	}
	if (row.state_len > 0) {
		wattrset(p->win, ui_attr(ui, queue_state_color(r)) |
		    (selected ? A_REVERSE : 0));
		mvwaddnstr(p->win, y, (int)fmt_width_n(row.text,
		    row.state_off), row.text + row.state_off,
		    (int)row.state_len);
	}
	wattrset(p->win, A_NORMAL);
	fmt_row_release(&row);
}

/* The queue's title: the project the console serves, then the counts.
   Narrow, the counts are short (the status line has them all). Requests
   that wait but do not match the filter are shown apart: counted here. */
static char *
queue_title(struct ui *ui, struct pane *p, size_t pending, size_t running,
    size_t done, size_t away, size_t apart)
{
	const char	*name = ui_project_name(ui);
	bool		 narrow = p->w < 64;
	bool		 filtered = ui->filter != NULL || ui->agent != NULL;
	struct buf	 b = BUF_INIT;

	buf_printf(&b, "%s  %zu pending", name, pending);
	if (filtered && apart > 0)
		buf_printf(&b, narrow ? " (%zu unfiltered)" :
		    " (%zu outside the filter)", apart);
	if (away > 0)
		buf_printf(&b, narrow ? " (+%zu: p)" : " (%zu out of view: p)",
		    away);
	if (narrow)
		buf_printf(&b, "  %s  %zu run", ui_follow_label(ui), running);
	else
		buf_printf(&b, "  %s  %zu running  %zu done",
		    ui_follow_label(ui), running, done);
	if (ui->filter != NULL)
		buf_puts(&b, "  [filtered]");
	if (ui->agent != NULL)
		buf_puts(&b, narrow ? "  [@]" : "  [one agent: @]");
	return buf_detach(&b);
}

/* Draw the queue: the rows that fit around the selection. */
void
pane_queue_draw(struct ui *ui, struct pane *p)
{
	struct queue	*q = console_queue(ui->c);
	struct request	*r, **rows = NULL;
	size_t		 n = 0, cap = 0, pending, running, done, away = 0;
	size_t		 apart = 0;
	int		 h = p->h - 1, sel = -1, i;
	int64_t		 now;
	char		*extra;

	/* Wall clock: ages are against submit times (ms since epoch). */
	now = ui_now();
	TAILQ_FOREACH(r, &q->requests, entry) {
		/* Waiting outside the filter, shown or not: counted. */
		if (fmt_needs_operator(r) && !ui_matches(ui, r))
			apart++;
		if (!ui_visible(ui, r))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			rows = xreallocarray(rows, cap, sizeof *rows);
		}
		if (r->id == ui->sel)
			sel = (int)n;
		rows[n++] = r;
	}
	/* Keep the selection on screen, a little context around it. */
	if (sel >= 0) {
		if (sel < ui->qtop)
			ui->qtop = sel;
		if (sel >= ui->qtop + h)
			ui->qtop = sel - h + 1;
	}
	if (ui->qtop > (int)n - h)
		ui->qtop = (int)n - h;
	if (ui->qtop < 0)
		ui->qtop = 0;
	for (i = 0; i < h && ui->qtop + i < (int)n; i++)
		queue_draw_row(ui, p, i + 1, rows[ui->qtop + i],
		    ui->qtop + i == sel, now);
	/* Pending requests scrolled out of view are counted in the title
	   (p jumps to them). */
	for (i = 0; i < (int)n; i++) {
		if ((i < ui->qtop || i >= ui->qtop + h) &&
		    fmt_needs_operator(rows[i]))
			away++;
	}
	if (n == 0) {
		wattrset(p->win, ui_attr(ui, UC_DIM));
		mvwaddnstr(p->win, 1, 1, ui->filter != NULL ?
		    "no request matches the filter" :
		    "no requests yet: agents run 'bwgate run -- CMD'",
		    p->w - 1);
		wattrset(p->win, A_NORMAL);
	}
	ui_counts(ui, &pending, &running, &done);
	extra = queue_title(ui, p, pending, running, done, away, apart);
	p->total = (int)n;
	ui_draw_title(ui, p, extra);
	free(extra);
	free(rows);
}
