/*
 * layout: where the panes go, their title lines, and drawing scrollable
 * text into them.
 *
 * Three layouts, picked from the terminal size on start and on every
 * resize (the table below):
 *
 *   wide   (>= 120 columns): queue over detail on the left, files, output
 *          and report stacked on the right;
 *   tall   (a narrow but tall tmux side pane, ~50x40): queue, detail, and
 *          one tabbed pane (files / output / report) below;
 *   small  (80x24 and less): queue, and one tabbed pane (detail / files /
 *          output / report) below.
 *
 * Tab moves the focus through every pane; in a tabbed area the focused
 * pane is the one shown, so nothing is out of reach in any layout.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "log.h"
#include "ui.h"
#include "xalloc.h"

/* The panes: name, scroll direction, drawing function. */
static const struct {
	const char	*name;
	bool		 from_bottom;
	void		(*draw)(struct ui *, struct pane *);
} pane_table[PANE_COUNT] = {
	[PANE_QUEUE] =	{ "queue", false, pane_queue_draw },
	[PANE_DETAIL] =	{ "detail", false, pane_detail_draw },
	[PANE_FILES] =	{ "files", true, pane_files_draw },
	[PANE_OUTPUT] =	{ "output", true, pane_output_draw },
	[PANE_REPORT] =	{ "report", false, pane_report_draw },
};

/* Which layout for a size: the first row that fits. */
static const struct {
	enum layout_kind kind;
	int		 min_cols;
	int		 min_lines;
	enum pane_id	 first_tab;	/* first pane of the tabbed area */
} layout_table[] = {
	{ LAYOUT_WIDE, 120, 16, PANE_COUNT },
	{ LAYOUT_TALL, 0, 34, PANE_FILES },
	{ LAYOUT_SMALL, 0, 0, PANE_DETAIL },
};

/* First pane of the tabbed area in the current layout. */
static enum pane_id
layout_first_tab(const struct ui *ui)
{
	for (size_t i = 0; i < sizeof layout_table / sizeof *layout_table;
	    i++)
		if (layout_table[i].kind == ui->layout)
			return layout_table[i].first_tab;
	return PANE_DETAIL;
}

/* Is this pane in the tabbed area? */
static bool
layout_tabbed(const struct ui *ui, enum pane_id id)
{
	return id >= layout_first_tab(ui);
}

/* Is the pane on screen now? */
bool
ui_pane_visible(const struct ui *ui, enum pane_id id)
{
	return !layout_tabbed(ui, id) || ui->tab == id;
}

/* Give a pane its place (h 0: hidden). */
static void
layout_place(struct ui *ui, enum pane_id id, int y, int x, int h, int w)
{
	struct pane	*p = &ui->panes[id];

	if (p->win != NULL) {
		delwin(p->win);
		p->win = NULL;
	}
	p->y = y;
	p->x = x;
	p->h = h;
	p->w = w;
	p->dirty = true;
	if (h >= 2 && w >= 1)
		p->win = newwin(h, w, y, x);
	LOG("%s at %d,%d size %dx%d", p->name != NULL ? p->name : "?", y, x,
	    w, h);
}

/* Work out the layout for the current size and make the windows. */
void
ui_layout(struct ui *ui)
{
	int		body, lw, qh, dh, th, fh, oh;
	size_t		i;
	enum pane_id	first;

	getmaxyx(stdscr, ui->lines, ui->cols);
	for (i = 0; i < PANE_COUNT; i++) {
		ui->panes[i].id = (enum pane_id)i;
		ui->panes[i].name = pane_table[i].name;
		ui->panes[i].from_bottom = pane_table[i].from_bottom;
		ui->panes[i].draw = pane_table[i].draw;
	}
	body = ui->lines - 1;
	for (i = 0; i < sizeof layout_table / sizeof *layout_table; i++)
		if (ui->cols >= layout_table[i].min_cols &&
		    body >= layout_table[i].min_lines)
			break;
	if (ui->layout != layout_table[i].kind)
		ui->tab = PANE_COUNT;	/* a new layout: its first tab */
	ui->layout = layout_table[i].kind;
	first = layout_first_tab(ui);
	if (first < PANE_COUNT && (ui->tab < first || ui->tab >= PANE_COUNT))
		ui->tab = first;
	if (layout_tabbed(ui, ui->focus))
		ui->tab = ui->focus;

	if (ui->zoom) {
		/* z: the focused pane alone. */
		for (i = 0; i < PANE_COUNT; i++)
			layout_place(ui, (enum pane_id)i, 0, 0,
			    i == ui->focus ? body : 0, ui->cols);
		ui->tab = layout_tabbed(ui, ui->focus) ? ui->focus : ui->tab;
	} else switch (ui->layout) {
	case LAYOUT_WIDE:
		lw = ui->cols / 2;
		qh = body * 2 / 5;
		layout_place(ui, PANE_QUEUE, 0, 0, qh, lw);
		layout_place(ui, PANE_DETAIL, qh, 0, body - qh, lw);
		fh = body / 3;
		oh = body / 3;
		layout_place(ui, PANE_FILES, 0, lw + 1, fh, ui->cols - lw - 1);
		layout_place(ui, PANE_OUTPUT, fh, lw + 1, oh,
		    ui->cols - lw - 1);
		layout_place(ui, PANE_REPORT, fh + oh, lw + 1, body - fh - oh,
		    ui->cols - lw - 1);
		break;
	case LAYOUT_TALL:
		qh = body / 4;
		dh = (body - qh) / 2;
		th = body - qh - dh;
		layout_place(ui, PANE_QUEUE, 0, 0, qh, ui->cols);
		layout_place(ui, PANE_DETAIL, qh, 0, dh, ui->cols);
		for (i = PANE_FILES; i < PANE_COUNT; i++)
			layout_place(ui, (enum pane_id)i, qh + dh, 0,
			    ui->tab == i ? th : 0, ui->cols);
		break;
	case LAYOUT_SMALL:
		qh = body / 3 < 3 ? (body < 3 ? body : 3) : body / 3;
		th = body - qh;
		layout_place(ui, PANE_QUEUE, 0, 0, qh, ui->cols);
		for (i = PANE_DETAIL; i < PANE_COUNT; i++)
			layout_place(ui, (enum pane_id)i, qh, 0,
			    ui->tab == i ? th : 0, ui->cols);
		break;
	}
	if (ui->status != NULL)
		delwin(ui->status);
	ui->status = newwin(1, ui->cols, ui->lines - 1, 0);
	if (ui->overlay != NULL) {
		delwin(ui->overlay);
		ui->overlay = NULL;
	}
	ui->dirty_all = true;
	ui_dirty_panes(ui);
}

/* Tab / shift-Tab: move the focus; a tabbed pane comes to the front. */
void
ui_focus(struct ui *ui, int delta)
{
	int	f = ((int)ui->focus + delta + PANE_COUNT) % PANE_COUNT;

	ui->focus = (enum pane_id)f;
	if (ui->zoom)
		ui_layout(ui);
	else if (layout_tabbed(ui, ui->focus) && ui->tab != ui->focus) {
		ui->tab = ui->focus;
		ui_layout(ui);
	}
	ui_dirty_panes(ui);
}

/* The title line: name (or tabs), extra text, scroll position. */
void
ui_draw_title(struct ui *ui, struct pane *p, const char *extra)
{
	struct buf	 b = BUF_INIT;
	char		*line, *sr, pos[48] = "";
	int		 attr = ui_attr(ui, ui->focus == p->id ?
			    UC_TITLE_FOCUS : UC_TITLE);
	int		 h = p->h - 1;
	size_t		 pw;

	if (layout_tabbed(ui, p->id)) {
		for (int i = layout_first_tab(ui); i < PANE_COUNT; i++)
			buf_printf(&b, i == (int)p->id ? "[%s]" : " %s ",
			    pane_table[i].name);
	} else
		buf_printf(&b, " %s", p->name);
	if (ui->zoom)
		buf_printf(&b, "  [zoom: z]");
	if ((sr = ui_search_title(ui, p->id)) != NULL) {
		buf_printf(&b, " %s", sr);
		free(sr);
	}
	if (extra != NULL && *extra != '\0') {
		buf_puts(&b, "  ");
		fmt_escape_buf(&b, extra, strlen(extra));
	}
	if (p->pos[0] != '\0')
		snprintf(pos, sizeof pos, "%s", p->pos);
	else if (p->id != PANE_QUEUE && p->total > h && h > 0) {
		int first = p->from_bottom ? p->total - h - p->scroll :
		    p->scroll;

		snprintf(pos, sizeof pos, " %d-%d/%d ", first + 1, first + h,
		    p->total);
	}
	pw = strlen(pos);
	line = fmt_trim(b.data, (size_t)p->w > pw ? (size_t)p->w - pw : 0,
	    true);
	wattrset(p->win, attr);
	mvwaddstr(p->win, 0, 0, line);
	if (pw > 0 && (size_t)p->w > pw)
		waddstr(p->win, pos);
	wattrset(p->win, A_NORMAL);
	free(line);
	buf_release(&b);
}

/* Append a line (already escaped) with a colour. */
void
ui_text_add(struct ui_text *t, enum ui_color c, const char *s)
{
	if (t->lines.n + 1 > t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->colors = xreallocarray(t->colors, t->cap,
		    sizeof *t->colors);
		t->labels = xreallocarray(t->labels, t->cap,
		    sizeof *t->labels);
	}
	t->colors[t->lines.n] = c;
	t->labels[t->lines.n] = 0;
	/* Lines are escaped already: never escape them twice (a \\ would
	   show as \\\\). One built by mistake from raw text that is not
	   safe to draw is escaped here, so it stays harmless. */
	strv_push_owned(&t->lines, fmt_is_safe(s) ? xstrdup(s) :
	    fmt_escape(s));
}

/* printf-style ui_text_add. */
void
ui_text_addf(struct ui_text *t, enum ui_color c, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	ui_text_add(t, c, s);
	free(s);
}

/* Append an escaped string wrapped to cols. */
void
ui_text_wrap(struct ui_text *t, enum ui_color c, const char *s, size_t cols,
    size_t indent)
{
	struct strv	l = STRV_INIT;

	fmt_wrap(s, cols, indent, &l);
	for (size_t i = 0; i < l.n; i++)
		ui_text_add(t, c, l.v[i]);
	strv_release(&l);
}

/* A label and its value, wrapped under the value. */
void
ui_text_kv(struct ui_text *t, enum ui_color c, const char *label,
    const char *value, size_t cols)
{
	size_t	first = t->lines.n, lw = fmt_width(label) + 1;
	char	*s = xasprintf("%s %s", label, value);

	ui_text_wrap(t, c, s, cols, lw < cols / 2 ? lw : 2);
	if (t->lines.n > first && strlen(t->lines.v[first]) >= strlen(label))
		t->labels[first] = strlen(label);
	free(s);
}

/* Free the lines. */
void
ui_text_release(struct ui_text *t)
{
	strv_release(&t->lines);
	free(t->colors);
	free(t->labels);
	t->labels = NULL;
	t->colors = NULL;
	t->cap = 0;
}

/* Draw text into a pane's content area at its scroll position. */
void
ui_draw_text(struct ui *ui, struct pane *p, struct ui_text *t)
{
	int	h = p->h - 1, total = (int)t->lines.n, max, first;
	size_t	n;

	max = total > h ? total - h : 0;
	ui_search_apply(ui, p, t);
	if (p->scroll > max)
		p->scroll = max;
	if (p->scroll < 0)
		p->scroll = 0;
	first = p->from_bottom ? max - p->scroll : p->scroll;
	p->total = total;
	for (int row = 0; row < h && first + row < total; row++) {
		const char *s = t->lines.v[first + row];

		size_t lb = t->labels[first + row];

		n = fmt_fit(s, (size_t)p->w, NULL);
		if (lb > n)
			lb = n;
		wattrset(p->win, ui_attr(ui, UC_LABEL));
		mvwaddnstr(p->win, row + 1, 0, s, (int)lb);
		wattrset(p->win, ui_attr(ui, (enum ui_color)
		    t->colors[first + row]));
		waddnstr(p->win, s + lb, (int)(n - lb));
		ui_search_highlight(ui, p, row + 1, s, n);
	}
	wattrset(p->win, A_NORMAL);
}

/* Scroll a content pane by delta lines (positive: further down). */
void
ui_scroll(struct ui *ui, struct pane *p, int delta)
{
	p->scroll += p->from_bottom ? -delta : delta;
	if (p->scroll < 0)
		p->scroll = 0;
	p->dirty = true;
}
