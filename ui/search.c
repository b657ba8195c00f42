/*
 * search: finding things. `/` in a content pane (detail, files, output,
 * report) searches what the pane shows, as it is typed; n and N go to the
 * next and previous match, every match is highlighted, the title says
 * which match of how many; Esc ends it. `/` in the queue filters it (live,
 * starting empty), as does f from anywhere; @ shows only the selected
 * request's agent. z shows the focused pane on the whole screen. With
 * "console": {"mouse": true} a click focuses a pane or selects a request
 * and the wheel scrolls.
 *
 * Matching is case-insensitive on the text as drawn (escaped), so what is
 * found is what is seen.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ui.h"
#include "xalloc.h"

#define SEARCH_HINT	"n: next match, N: previous, Esc: end the search"

/* Is a search on in this pane? */
bool
ui_search_active(const struct ui *ui, enum pane_id id)
{
	return ui->search.text != NULL && *ui->search.text != '\0' &&
	    ui->search.pane == id;
}

/* End the search. */
void
ui_search_clear(struct ui *ui)
{
	/* Its hint ("n: next match ...") would offer keys that now do
	   nothing. */
	if (ui->search.text != NULL && ui->message != NULL &&
	    strncmp(ui->message, SEARCH_HINT, strlen(SEARCH_HINT)) == 0) {
		free(ui->message);
		ui->message = NULL;
		ui->dirty_status = true;
	}
	free(ui->search.text);
	ui->search.text = NULL;
	ui->search.cur = -1;
	ui_dirty_panes(ui);
}

/* The search text changed (live) or the prompt ended. */
static void
search_changed(struct ui *ui, const char *text)
{
	free(ui->search.text);
	ui->search.text = xstrdup(text);
	ui->search.jump = SEARCH_FIRST;
	ui->search.cur = -1;
	ui->panes[ui->search.pane].dirty = true;
}

/* Enter keeps the search, Esc ends it. */
static void
search_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	if (!ok || *text == '\0') {
		ui_search_clear(ui);
		return;
	}
	search_changed(ui, text);
	ui_message(ui, false, "%s", SEARCH_HINT);
}

/* The queue filter changed (live) or the prompt ended. */
static void
filter_changed(struct ui *ui, const char *text)
{
	free(ui->filter);
	ui->filter = *text != '\0' ? xstrdup(text) : NULL;
	ui->qtop = ui->qgtop = 0;
	if (ui->sel != 0 && ui_selected(ui) != NULL &&
	    !ui_visible(ui, ui_selected(ui)))
		ui->follow_paused = false;
	ui_follow(ui);
	ui_dirty_panes(ui);
}

/* Enter keeps the filter, Esc drops it. */
static void
filter_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	filter_changed(ui, ok ? text : "");
}

/* f, or / in the queue: filter the queue, starting empty. */
void
ui_filter_start(struct ui *ui)
{
	filter_changed(ui, "");
	prompt_line_live(ui, "filter the queue (Enter: keep, Esc: all)", "",
	    0, filter_done, filter_changed);
}

/* /: search the focused pane, or filter the queue. */
void
ui_search_start(struct ui *ui)
{
	char	*label;

	if (ui->focus == PANE_QUEUE) {
		ui_filter_start(ui);
		return;
	}
	free(ui->search.text);
	ui->search.text = NULL;
	ui->search.pane = ui->focus;
	ui->search.cur = -1;
	label = xasprintf("search %s (Enter: keep, Esc: end)",
	    ui->panes[ui->focus].name);
	prompt_line_live(ui, label, "", 0, search_done, search_changed);
	free(label);
}

/* n, N: the next or previous match; false when no search is on in the
   focused pane. */
bool
ui_search_next(struct ui *ui, int dir)
{
	if (!ui_search_active(ui, ui->focus))
		return false;
	/* Keys typed faster than the screen draws all count. */
	if (ui->search.jump == SEARCH_FIRST)
		ui->search.jump = 0;
	ui->search.jump += dir > 0 ? SEARCH_NEXT : SEARCH_PREV;
	ui->panes[ui->focus].dirty = true;
	return true;
}

/* Before a pane's text is drawn: find the matches, move to the one asked
   for, keep it on screen. */
void
ui_search_apply(struct ui *ui, struct pane *p, const struct ui_text *t)
{
	struct ui_search *s = &ui->search;
	int		 h = p->h - 1, total = (int)t->lines.n, max, first;
	int		 ref, i, found = -1, n = 0;

	if (!ui_search_active(ui, p->id))
		return;
	max = total > h ? total - h : 0;
	first = p->from_bottom ? max - p->scroll : p->scroll;
	ref = s->cur >= 0 ? s->cur : first;
	for (i = 0; i < total; i++)
		if (strcasestr(t->lines.v[i], s->text) != NULL)
			n++;
	s->count = n;
	if (n == 0) {
		s->cur = -1;
		s->jump = 0;
		return;
	}
	if (s->jump != 0) {
		/* SEARCH_FIRST: at or after the top; else steps of one. */
		int steps = s->jump == SEARCH_FIRST ? 1 : abs(s->jump);
		int dir = s->jump < 0 ? -1 : 1;

		found = ref;
		if (s->jump == SEARCH_FIRST)
			found = ref - 1;
		for (; steps > 0; steps--) {
			int at = found;

			found = -1;
			for (int k = 1; k <= total && found < 0; k++) {
				i = ((at + dir * k) % total + total) % total;
				if (strcasestr(t->lines.v[i], s->text) != NULL)
					found = i;
			}
		}
		s->cur = found;
		s->jump = 0;
		/* Bring it into view, a third from the top. */
		if (found >= 0 && (found < first || found >= first + h)) {
			first = found - h / 3;
			if (first > max)
				first = max;
			if (first < 0)
				first = 0;
			p->scroll = p->from_bottom ? max - first : first;
		}
	}
	s->index = 0;
	for (i = 0; i <= s->cur && i < total; i++)
		if (strcasestr(t->lines.v[i], s->text) != NULL)
			s->index++;
}

/* After a row is drawn: the matches in it in reverse video. */
void
ui_search_highlight(struct ui *ui, struct pane *p, int y, const char *row,
    size_t n)
{
	const char	*text = ui->search.text, *m, *from = row;
	size_t		 len;
	char		*low;

	if (!ui_search_active(ui, p->id))
		return;
	len = strlen(text);
	while ((m = strcasestr(from, text)) != NULL &&
	    (size_t)(m - row) + len <= n) {
		low = xstrndup(row, (size_t)(m - row));
		wattron(p->win, A_REVERSE);
		mvwaddnstr(p->win, y, (int)fmt_width(low), m, (int)len);
		wattroff(p->win, A_REVERSE);
		free(low);
		from = m + len;
	}
}

/* The title's part: "/text 3/17" or "/text: not found". */
char *
ui_search_title(const struct ui *ui, enum pane_id id)
{
	char	*e, *s;

	if (!ui_search_active(ui, id))
		return NULL;
	e = fmt_typed(ui->search.text);
	if (ui->search.count == 0)
		s = xasprintf("/%s not found", e);
	else
		s = xasprintf("/%s %d/%d", e, ui->search.index,
		    ui->search.count);
	free(e);
	return s;
}

/* @: only the selected request's agent, or every agent again. */
void
ui_agent_filter(struct ui *ui)
{
	struct request	*r = ui_selected(ui);

	if (ui->agent != NULL) {
		free(ui->agent);
		ui->agent = NULL;
		ui_message(ui, false, "every agent");
	} else if (r == NULL || r->agent == NULL)
		ui_message(ui, true, "no request with an agent selected");
	else {
		ui->agent = xstrdup(r->agent);
		ui_message(ui, false, "only this agent's requests (@: all)");
	}
	ui->qtop = ui->qgtop = 0;
	ui_dirty_panes(ui);
}

/* z: the focused pane on the whole screen, or the layout again. */
void
ui_zoom(struct ui *ui)
{
	ui->zoom = !ui->zoom;
	ui_layout(ui);
}

/* The request on row y of the queue pane, as last drawn, or NULL. */
static struct request *
search_queue_row(struct ui *ui, int y)
{
	int	row = y - ui->panes[PANE_QUEUE].y - 1;

	if (row < 0 || row >= ui->nqrow || ui->qrow_id[row] == 0)
		return NULL;
	return queue_find(console_queue(ui->c), ui->qrow_id[row]);
}

/* A mouse event. */
void
ui_mouse(struct ui *ui)
{
	MEVENT		 ev;
	struct pane	*p = NULL;
	struct request	*r;

	if (getmouse(&ev) != OK)
		return;
	for (int i = 0; i < PANE_COUNT; i++)
		if (ui->panes[i].win != NULL &&
		    wenclose(ui->panes[i].win, ev.y, ev.x))
			p = &ui->panes[i];
	if (p == NULL)
		return;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		if (p->id == PANE_QUEUE)
			ui_move(ui, ev.bstate & BUTTON4_PRESSED ? -3 : 3);
		else
			ui_scroll(ui, p, ev.bstate & BUTTON4_PRESSED ? -3 : 3);
		return;
	}
	if (!(ev.bstate & BUTTON1_PRESSED))
		return;
	ui->focus = p->id;
	if (p->id == PANE_QUEUE && (r = search_queue_row(ui, ev.y)) != NULL)
		ui_select(ui, r->id, true);
	ui_dirty_panes(ui);
}
