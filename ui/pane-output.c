/*
 * pane-output: the tail of the selected request's stdout and stderr
 * (interleaved as they came), scrollable back through what the console
 * keeps. Only the lines needed for the screen are formatted, from the
 * end backwards, so a chatty command costs little to show.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ui.h"
#include "xalloc.h"

/* Wrap the last lines of data until at least want rows are made. */
static void
output_tail(const char *data, size_t len, size_t w, int want,
    struct ui_text *t)
{
	struct ui_text	 rev = UI_TEXT_INIT;
	struct buf	 b = BUF_INIT;
	struct strv	 rows = STRV_INIT;
	size_t		 end = len, start;
	const char	*nl;

	/* A final newline ends the last line; it does not start one. */
	if (end > 0 && data[end - 1] == '\n')
		end--;
	while ((int)rev.lines.n < want) {
		nl = end > 0 ? memrchr(data, '\n', end) : NULL;
		start = nl != NULL ? (size_t)(nl - data) + 1 : 0;
		buf_reset(&b);
		fmt_output_line(&b, data + start, end - start);
		fmt_wrap(b.data != NULL ? b.data : "", w, 2, &rows);
		for (size_t i = rows.n; i > 0; i--)
			ui_text_add(&rev, UC_NORMAL, rows.v[i - 1]);
		strv_release(&rows);
		if (start == 0)
			break;
		end = start - 1;
	}
	for (size_t i = rev.lines.n; i > 0; i--)
		ui_text_add(t, UC_NORMAL, rev.lines.v[i - 1]);
	ui_text_release(&rev);
	buf_release(&b);
}

/* Human size of the kept output. */
static char *
output_size(size_t n)
{
	if (n < 1024)
		return xasprintf("%zu B", n);
	if (n < 1024 * 1024)
		return xasprintf("%.1f KiB", n / 1024.0);
	return xasprintf("%.1f MiB", n / 1048576.0);
}

/* Draw the output pane. */
void
pane_output_draw(struct ui *ui, struct pane *p)
{
	struct ui_text	 t = UI_TEXT_INIT;
	struct request	*r = ui_selected(ui);
	const struct buf *out = NULL;
	char		*extra = NULL, *size;

	if (r != NULL)
		out = console_output(ui->c, r);
	if (out != NULL && out->len > 0) {
		output_tail(out->data, out->len, (size_t)p->w,
		    p->h - 1 + p->scroll + 1, &t);
		size = output_size(out->len);
		extra = xasprintf("#%u  %s", r->id, size);
		free(size);
	} else
		ui_text_add(&t, UC_DIM, r == NULL ? " nothing selected" :
		    r->state == REQUEST_RUNNING ? " no output yet" :
		    request_ended(r) ? " no output" :
		    " stdout and stderr show here while it runs");
	ui_draw_text(ui, p, &t);
	ui_draw_title(ui, p, extra);
	free(extra);
	ui_text_release(&t);
}
