/*
 * attention: never miss a request that waits for the operator.
 *
 * A request that starts waiting rings the terminal bell (tmux turns it
 * into a window alert; "console": {"bell": false} turns it off) and,
 * inside tmux, the console's pane title and the window option
 * @bwgate_pending carry the number waiting (only that number, and in the
 * title the machine the next decision goes to, as the operator named it
 * to `bwgate connect`: no agent text ever reaches tmux).
 *
 * Follow (F) is sticky: it stays on until the operator turns it off.
 * Moving the selection by hand pauses it; the next request that starts
 * waiting ends the pause ("console": {"follow_resume": false} keeps it
 * paused until F), unless the operator is on a pending request already,
 * which is never taken from under them. p and P jump to the next and the
 * previous pending request, however far the queue has scrolled.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "format.h"
#include "ui.h"
#include "xalloc.h"

/* The console section of the configuration in force. */
static const struct config *
attention_config(struct ui *ui)
{
	return console_config(ui->c);
}

/* A request was added or changed: did it start waiting? */
void
ui_attention_event(struct ui *ui, const struct request *r)
{
	const struct config	*cfg = attention_config(ui);
	struct request		*cur;

	if (!fmt_needs_operator(r) || r->id <= ui->alerted)
		return;
	ui->alerted = r->id;
	if (cfg->bell)
		ui->ring = true;
	if (!ui->follow || !ui->follow_paused || !cfg->follow_resume)
		return;
	/* Never take a pending request from under the operator. */
	cur = ui_selected(ui);
	if (cur != NULL && fmt_needs_operator(cur))
		return;
	ui->follow_paused = false;
	ui_follow(ui);
}

/* The machine the next decision goes to: the selected request's when it
   waits for the operator, else the oldest waiting one's; NULL when that
   is this machine's (or nothing waits). */
static const char *
attention_host(struct ui *ui)
{
	struct request	*r = ui_selected(ui);

	if (r != NULL && fmt_needs_operator(r))
		return r->host;
	TAILQ_FOREACH(r, &console_queue(ui->c)->requests, entry) {
		if (fmt_needs_operator(r))
			return r->host;
	}
	return NULL;
}

/* After a draw: ring, and keep the tmux marker in step. */
void
ui_attention_flush(struct ui *ui)
{
	size_t		 pending, running, done;
	const char	*host;

	if (ui->ring) {
		ui->ring = false;
		beep();
	}
	ui_counts(ui, &pending, &running, &done);
	host = pending == 0 ? NULL : attention_host(ui);
	if (pending != ui->marked || (host == NULL) !=
	    (ui->marked_host == NULL) || (host != NULL &&
	    strcmp(host, ui->marked_host) != 0)) {
		ui->marked = pending;
		free(ui->marked_host);
		ui->marked_host = host != NULL ? xstrdup(host) : NULL;
		ui_tmux_mark(ui_project_name(ui), pending, host, false);
	}
}

/* The operator moved the selection: follow waits for the next pending
   request. */
void
ui_follow_pause(struct ui *ui)
{
	if (ui->follow)
		ui->follow_paused = true;
}

/* F: follow on (or again after a pause), or off. */
void
ui_follow_toggle(struct ui *ui)
{
	if (ui->follow && !ui->follow_paused) {
		ui->follow = false;
		ui_message(ui, false, "follow off: the selection stays where "
		    "you put it (F: follow again)");
		return;
	}
	ui->follow = true;
	ui->follow_paused = false;
	ui_follow(ui);
	ui_message(ui, false, "following: the oldest pending request, else "
	    "the newest running one");
}

/* The follow state for the queue title. */
const char *
ui_follow_label(const struct ui *ui)
{
	if (!ui->follow)
		return "follow off";
	return ui->follow_paused ? "follow paused" : "follow";
}

/* p, P: select the next (dir 1) or previous (-1) request waiting for the
   operator, in the queue's order (those waiting outside a filter first),
   after or before the selection, going round. */
void
ui_select_pending(struct ui *ui, int dir)
{
	struct request	**rows, *to = NULL;
	size_t		 n, apart;
	long		 cur, i, k;

	n = ui_rows(ui, &rows, &apart);
	for (cur = 0; cur < (long)n && rows[cur]->id != ui->sel; cur++)
		;
	if (cur == (long)n)	/* none selected in sight: from an end */
		cur = dir > 0 ? -1 : (long)n;
	for (k = 1; k <= (long)n && to == NULL; k++) {
		i = ((cur + dir * k) % (long)n + (long)n) % (long)n;
		if (fmt_needs_operator(rows[i]))
			to = rows[i];
	}
	free(rows);
	if (to == NULL) {
		ui_message(ui, false, "nothing waits for you");
		return;
	}
	ui_follow_pause(ui);
	ui_select(ui, to->id, true);
}
