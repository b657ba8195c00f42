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

/* Draw the queue: the rows that fit around the selection. */
void
pane_queue_draw(struct ui *ui, struct pane *p)
{
	struct queue	*q = console_queue(ui->c);
	struct request	*r, **rows = NULL;
	size_t		 n = 0, cap = 0, pending, running, done, away = 0;
	int		 h = p->h - 1, sel = -1, i;
	int64_t		 now;
	char		*extra, *awaytext;

	/* Wall clock: ages are against submit times (ms since epoch). */
	now = ui_now();
	TAILQ_FOREACH(r, &q->requests, entry) {
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
	for (i = 0; i < (int)n; i++)
		if ((i < ui->qtop || i >= ui->qtop + h) &&
		    fmt_needs_operator(rows[i]))
			away++;
	if (n == 0) {
		wattrset(p->win, ui_attr(ui, UC_DIM));
		mvwaddnstr(p->win, 1, 1, ui->filter != NULL ?
		    "no request matches the filter" :
		    "no requests yet: agents run 'bwgate run -- CMD'",
		    p->w - 1);
		wattrset(p->win, A_NORMAL);
	}
	ui_counts(ui, &pending, &running, &done);
	awaytext = away > 0 ? xasprintf(" (%zu out of view: p)", away) :
	    xstrdup("");
	extra = xasprintf("%zu pending%s  %s  %zu running  %zu done%s%s",
	    pending, awaytext, ui_follow_label(ui), running, done,
	    ui->filter != NULL ? "  [filtered]" : "",
	    ui->agent != NULL ? "  [one agent: @]" : "");
	free(awaytext);
	p->total = (int)n;
	ui_draw_title(ui, p, extra);
	free(extra);
	free(rows);
}
