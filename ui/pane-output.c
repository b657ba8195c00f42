/*
 * pane-output: the tail of the selected request's stdout and stderr
 * (interleaved as they came), scrollable back through what the console
 * keeps. Only the lines needed for the screen are formatted, from the
 * end backwards, so a chatty command costs little to show.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ui.h"
#include "units.h"
#include "xalloc.h"

/* Wrap the last lines of data until at least want rows are made; each
   row's line, counted from the end (0: the last line), in *from_end. */
static void
output_tail(const char *data, size_t len, size_t w, int want,
    struct ui_text *t, int **from_end)
{
	int		*rev_idx = NULL, line = 0;
	size_t		 cap = 0;
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
		for (size_t i = rows.n; i > 0; i--) {
			if (rev.lines.n == cap) {
				cap = cap ? cap * 2 : 64;
				rev_idx = xreallocarray(rev_idx, cap,
				    sizeof *rev_idx);
			}
			rev_idx[rev.lines.n] = line;
			ui_text_add(&rev, UC_NORMAL, rows.v[i - 1]);
		}
		strv_release(&rows);
		line++;
		if (start == 0)
			break;
		end = start - 1;
	}
	*from_end = xreallocarray(NULL, rev.lines.n + 1, sizeof **from_end);
	for (size_t i = rev.lines.n; i > 0; i--) {
		(*from_end)[rev.lines.n - i] = rev_idx[i - 1];
		ui_text_add(t, UC_NORMAL, rev.lines.v[i - 1]);
	}
	free(rev_idx);
	ui_text_release(&rev);
	buf_release(&b);
}

/* Lines in data (a last line without a newline counts). */
static int
output_lines(const char *data, size_t len)
{
	const char	*p = data, *end = data + len, *nl;
	int		 n = 0;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p = nl + 1;
	}
	return p < end ? n + 1 : n;
}

/* Human size of the kept output. */
static char *
output_size(uint64_t n)
{
	char	s[SIZE_TEXT_MAX];

	return xstrdup(size_text(n, s));
}

/* Did the report keep less than the command wrote (output_limit)? */
static bool
output_truncated(const struct request *r)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->report,
	    "stdout_truncated")) || cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(r->report, "stderr_truncated"));
}

/* The line number (from 1) of row i of the text, whose rows after the
   first skip ones are output rows with from_end[row - skip]. */
static int
output_row_line(const int *from_end, int skip, int row, int lines)
{
	if (row < skip)
		return 1;
	return lines - from_end[row - skip];
}

/* The text: a note on what was not kept (once the top is reached), then
   the tail of what was. Sets the title's position in real lines. */
static char *
output_text(struct ui *ui, struct pane *p, struct request *r,
    const struct buf *out, struct ui_text *t)
{
	struct ui_text	 tail = UI_TEXT_INIT;
	struct console_kept k;
	const char	*data = out->data, *nl;
	size_t		 len = out->len;
	int		*from_end = NULL, lines, h = p->h - 1, want, skip;
	int		 first;
	char		*size, *kept, *s, *extra;

	console_kept(ui->c, r, &k);
	if (k.out_seen < len)
		k.out_seen = len;
	/* Cut in the middle of a line: start at the next one. */
	if (k.out_dropped > 0 && (nl = memchr(data, '\n', len)) != NULL) {
		len -= (size_t)(nl + 1 - data);
		data = nl + 1;
	}
	lines = output_lines(data, len);
	/* A search looks through everything kept. */
	want = ui_search_active(ui, p->id) ? INT_MAX : h + p->scroll + 1;
	output_tail(data, len, (size_t)p->w, want, &tail, &from_end);
	if (k.out_seen > len && (int)tail.lines.n < want) {
		size = output_size(k.out_seen - len);
		if (!request_ended(r))
			s = xasprintf("... %s before this not kept (when it "
			    "ends: bwgate show %u --output > file)", size,
			    r->id);
		else if (output_truncated(r))
			s = xasprintf("... %s before this not kept (bwgate "
			    "show %u --output has the first output_limit "
			    "bytes; the agent got it all)", size, r->id);
		else
			s = xasprintf("... %s before this not kept (full "
			    "output: bwgate show %u --output > file)", size,
			    r->id);
		ui_text_wrap(t, UC_WARN, s, (size_t)p->w, 4);
		free(size);
		free(s);
	}
	skip = (int)t->lines.n;
	for (size_t i = 0; i < tail.lines.n; i++)
		ui_text_add(t, UC_NORMAL, tail.lines.v[i]);
	ui_draw_text(ui, p, t);
	p->pos[0] = '\0';
	if (lines > h) {
		first = p->total > h ? p->total - h - p->scroll : 0;
		snprintf(p->pos, sizeof p->pos, " %d-%d/%d ",
		    output_row_line(from_end, skip, first, lines),
		    output_row_line(from_end, skip, first + h - 1 < p->total ?
		    first + h - 1 : p->total - 1, lines), lines);
	}
	size = output_size(k.out_seen);
	kept = output_size(len);
	extra = k.out_seen > len ? xasprintf("#%u  %s, last %s kept", r->id,
	    size, kept) : xasprintf("#%u  %s", r->id, size);
	free(size);
	free(kept);
	free(from_end);
	ui_text_release(&tail);
	return extra;
}

/* Draw the output pane. */
void
pane_output_draw(struct ui *ui, struct pane *p)
{
	struct ui_text	 t = UI_TEXT_INIT;
	struct request	*r = ui_selected(ui);
	const struct buf *out = NULL;
	const struct service *sv;
	struct buf	 both = BUF_INIT;
	char		*extra = NULL;

	if (r != NULL)
		out = console_output(ui->c, r);
	/* Its service's output (console-service.c) follows, under a line
	   that says whose it is. */
	if (r != NULL && (sv = console_service(ui->c, r->id)) != NULL) {
		if (out != NULL)
			buf_add(&both, out->data, out->len);
		if (both.len > 0 && both.data[both.len - 1] != '\n')
			buf_puts(&both, "\n");
		buf_printf(&both, "--- service %u: output since the request "
		    "ended (S stops it) ---\n", sv->id);
		buf_add(&both, sv->out.data, sv->out.len);
		out = &both;
	}
	p->pos[0] = '\0';
	if (out != NULL && out->len > 0)
		extra = output_text(ui, p, r, out, &t);
	else {
		ui_text_add(&t, UC_DIM, r == NULL ? " nothing selected" :
		    r->state == REQUEST_RUNNING ? " no output yet" :
		    request_ended(r) ? " no output" :
		    " stdout and stderr show here while it runs");
		ui_draw_text(ui, p, &t);
	}
	ui_draw_title(ui, p, extra);
	free(extra);
	ui_text_release(&t);
	buf_release(&both);
}
