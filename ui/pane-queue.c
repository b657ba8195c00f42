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

/* The queue's title: the project the console serves, then the counts
   and the machines linked.
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
	size_t		 down, hosts = console_machines(ui->c, &down);

	buf_printf(&b, "%s  %zu pending", name, pending);
	/* The machines linked (bwgate hosts): before what a narrow title
	   may cut. */
	if (hosts > 0)
		buf_printf(&b, "  %zu host%s", hosts, hosts == 1 ? "" : "s");
	if (down > 0)
		buf_printf(&b, " (%zu down)", down);
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
	{
		size_t ns = console_services(ui->c, NULL, 0);

		if (ns > 0)
			buf_printf(&b, narrow ? "  %zu svc" : "  %zu service%s",
			    ns, ns == 1 ? "" : "s");
	}
	if (ui->filter != NULL)
		buf_puts(&b, "  [filtered]");
	if (ui->agent != NULL)
		buf_puts(&b, narrow ? "  [@]" : "  [one agent: @]");
	return buf_detach(&b);
}

/* The queue's rows in order: with a filter (or the one-agent view), the
   requests waiting for the operator that it does not let through come
   first, a group of their own (*apart of them); then the requests it
   lets through. A filter never hides work that waits. The caller frees
   *rowsp (not the requests). */
size_t
ui_rows(struct ui *ui, struct request ***rowsp, size_t *apart)
{
	struct request	*r, **rows;
	size_t		 n = 0, a = 0, all = 0;

	TAILQ_FOREACH(r, &console_queue(ui->c)->requests, entry)
		all++;
	rows = xreallocarray(NULL, all > 0 ? all : 1, sizeof *rows);
	TAILQ_FOREACH(r, &console_queue(ui->c)->requests, entry) {
		if (!ui_matches(ui, r) && fmt_needs_operator(r))
			rows[a++] = r;
	}
	n = a;
	TAILQ_FOREACH(r, &console_queue(ui->c)->requests, entry) {
		if (ui_matches(ui, r))
			rows[n++] = r;
	}
	*rowsp = rows;
	*apart = a;
	return n;
}

/* A heading line inside the queue: what the rows below it are. */
static void
queue_heading(struct ui *ui, struct pane *p, int y, enum ui_color c,
    const char *text)
{
	wattrset(p->win, ui_attr(ui, c));
	mvwaddnstr(p->win, y, 1, text, p->w - 1);
	wattrset(p->win, A_NORMAL);
}

/* Keep index sel (-1: none) of n rows in a window of h starting at *top. */
static void
queue_scroll(int *top, int sel, int n, int h)
{
	if (sel >= 0) {
		if (sel < *top)
			*top = sel;
		if (sel >= *top + h)
			*top = sel - h + 1;
	}
	if (*top > n - h)
		*top = n - h;
	if (*top < 0)
		*top = 0;
}

/* Draw rows[0..n) from *top in h lines from line y; the requests waiting
   that are out of sight are added to *away. Returns the lines used. */
static int
queue_draw_rows(struct ui *ui, struct pane *p, int y, int h,
    struct request **rows, int n, int *top, size_t *away, int64_t now)
{
	int	sel = -1, i;

	for (i = 0; i < n; i++)
		if (rows[i]->id == ui->sel)
			sel = i;
	queue_scroll(top, sel, n, h);
	for (i = 0; i < h && *top + i < n; i++) {
		queue_draw_row(ui, p, y + i, rows[*top + i], *top + i == sel,
		    now);
		if (y + i - 1 < ui->nqrow)
			ui->qrow_id[y + i - 1] = rows[*top + i]->id;
	}
	for (int j = 0; j < n; j++)
		if ((j < *top || j >= *top + h) && fmt_needs_operator(rows[j]))
			(*away)++;
	return i;
}

/*
 * The project's services at the bottom of the queue (console-service.c):
 * a heading, then one line each, oldest first (at most three): the id of
 * the request that left it, its age, its command, its last line of
 * output. The lines used (0: none, or no room).
 */
static int
queue_services(struct ui *ui, struct pane *p, int64_t now)
{
	const struct service	*v[3];
	size_t			 n = console_services(ui->c, v, 3), shown;
	int			 lines, y;
	char			*s, *t, *age, *cmd;
	struct buf		 last = BUF_INIT, pbuf = BUF_INIT;

	if (n == 0 || p->h < 8)
		return 0;
	shown = n < 3 ? n : 3;
	lines = (int)shown + 1;
	y = p->h - lines;
	s = xasprintf("%zu service%s: background processes kept after their "
	    "request (S on its request stops it)%s", n, n == 1 ? "" : "s",
	    n > shown ? "; bwgate list shows all" : "");
	queue_heading(ui, p, y++, UC_RUNNING, s);
	free(s);
	for (size_t i = 0; i < shown; i++, y++) {
		const char	*tail = service_tail(&v[i]->out, 1);
		size_t		 tlen = v[i]->out.len - (size_t)(tail -
				    (v[i]->out.data != NULL ? v[i]->out.data :
				    tail));

		buf_reset(&last);
		if (tlen > 0 && tail[tlen - 1] == '\n')
			tlen--;
		fmt_output_line(&last, tail, tlen);
		age = fmt_age(now - (int64_t)v[i]->started * 1000);
		cmd = fmt_escape(v[i]->command);
		buf_reset(&pbuf);
		for (size_t k = 0; k < v[i]->nports; k++)
			buf_printf(&pbuf, "%s%d", k > 0 ? "," : ":",
			    v[i]->ports[k]);
		if (pbuf.len > 0)
			buf_putc(&pbuf, ' ');
		s = xasprintf(" %3u %-4s %s%s%s%s%s", v[i]->id, age,
		    pbuf.len > 0 ? pbuf.data : "", cmd,
		    v[i]->stopping ? " (stopping)" : "",
		    last.len > 0 ? "  | " : "", last.len > 0 ? last.data : "");
		t = fmt_trim(s, (size_t)(p->w > 1 ? p->w - 1 : 1), true);
		wattrset(p->win, (ui->sel == v[i]->id ?
		    ui_attr(ui, UC_SELECTED) : 0));
		mvwaddstr(p->win, y, 0, t);
		wattrset(p->win, A_NORMAL);
		free(age);
		free(cmd);
		free(s);
		free(t);
	}
	buf_release(&last);
	buf_release(&pbuf);
	return lines;
}

/* Draw the queue: the rows that fit around the selection. With a filter,
   the requests waiting outside it first, under a heading of their own
   (a third of the pane at most, scrolled to the selection; p and j reach
   every one), then those the filter lets through. */
void
pane_queue_draw(struct ui *ui, struct pane *p)
{
	struct request	**rows;
	size_t		 n, apart, pending, running, done, away = 0, unseen = 0;
	int		 h = p->h - 1, y = 1, g, heads;
	bool		 narrow = p->w < 64;
	int64_t		 now;
	char		*extra, *s;

	/* Wall clock: ages are against submit times (ms since epoch). */
	now = ui_now();
	h -= queue_services(ui, p, now);
	n = ui_rows(ui, &rows, &apart);
	if (ui->nqrow != (h > 0 ? h : 0)) {
		ui->nqrow = h > 0 ? h : 0;
		ui->qrow_id = xreallocarray(ui->qrow_id,
		    ui->nqrow > 0 ? (size_t)ui->nqrow : 1, sizeof *ui->qrow_id);
	}
	memset(ui->qrow_id, 0, (size_t)ui->nqrow * sizeof *ui->qrow_id);
	if (apart > 0 && h > 0) {
		heads = h >= 5 ? 2 : 0;
		g = h / 3 < 1 ? 1 : h / 3;
		if (g > (int)apart)
			g = (int)apart;
		if (g > h - heads)
			g = h - heads;
		if (heads > 0) {
			s = xasprintf(narrow ? "%zu waiting outside the filter" :
			    "%zu waiting outside the filter (p: the next)",
			    apart);
			queue_heading(ui, p, y++, UC_PENDING, s);
			free(s);
		}
		/* Their count is in the heading, not counted again. */
		y += queue_draw_rows(ui, p, y, g, rows, (int)apart,
		    &ui->qgtop, &unseen, now);
		if (heads > 0)
			queue_heading(ui, p, y++, UC_DIM, narrow ? "matching" :
			    "matching the filter");
	}
	if (n > apart && y <= h)
		queue_draw_rows(ui, p, y, h - y + 1, rows + apart,
		    (int)(n - apart), &ui->qtop, &away, now);
	else if (n == apart && y <= h)
		queue_heading(ui, p, y, UC_DIM, apart > 0 || ui->filter != NULL ||
		    ui->agent != NULL ? "no request matches the filter" :
		    "no requests yet: agents run 'bwgate run -- CMD'");
	ui_counts(ui, &pending, &running, &done);
	extra = queue_title(ui, p, pending, running, done, away, apart);
	p->total = (int)n;
	ui_draw_title(ui, p, extra);
	free(extra);
	free(rows);
}
