/*
 * marks: bulk decisions. m marks (or unmarks) the selected pending
 * request, M marks every pending request the filter and the @ agent view
 * let through (not those a filter shows apart); with marks, a approves them all after one y/N
 * question, each with its verdict's profile. A danger verdict is never
 * marked: it is approved alone, by typing yes (actions.c).
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui.h"
#include "xalloc.h"

/* Is the request marked? */
bool
ui_marked(const struct ui *ui, uint32_t id)
{
	for (size_t i = 0; i < ui->nmarks; i++)
		if (ui->marks[i] == id)
			return true;
	return false;
}

/* Forget the marks of requests that are no longer pending. */
static void
marks_prune(struct ui *ui)
{
	size_t		 n = 0;
	struct request	*r;

	for (size_t i = 0; i < ui->nmarks; i++) {
		r = queue_find(console_queue(ui->c), ui->marks[i]);
		if (r != NULL && r->state == REQUEST_PENDING)
			ui->marks[n++] = ui->marks[i];
	}
	ui->nmarks = n;
}

/* Can r be marked? Says why not. */
static bool
marks_can(struct ui *ui, const struct request *r, bool quiet)
{
	if (r->state != REQUEST_PENDING) {
		if (!quiet)
			ui_message(ui, true, "#%u is %s: only pending requests "
			    "are marked", r->id, request_state_name(r->state));
		return false;
	}
	if (r->verdict == VERDICT_DANGER) {
		if (!quiet)
			ui_message(ui, true, "#%u is danger: it is approved "
			    "alone (a, then type yes), never in bulk", r->id);
		return false;
	}
	return true;
}

static void
marks_add(struct ui *ui, uint32_t id)
{
	if (ui_marked(ui, id))
		return;
	ui->marks = xreallocarray(ui->marks, ui->nmarks + 1,
	    sizeof *ui->marks);
	ui->marks[ui->nmarks++] = id;
}

/* m: mark or unmark the selected pending request. */
void
action_mark(struct ui *ui)
{
	struct request	*r = ui_selected(ui);

	marks_prune(ui);
	if (r == NULL || !marks_can(ui, r, false))
		return;
	if (ui_marked(ui, r->id)) {
		for (size_t i = 0; i < ui->nmarks; i++)
			if (ui->marks[i] == r->id)
				ui->marks[i] = ui->marks[--ui->nmarks];
	} else
		marks_add(ui, r->id);
	ui_message(ui, false, "%zu marked: a approves them all, Esc unmarks",
	    ui->nmarks);
}

/* M: mark every pending request the filter lets through (danger left
   out). */
void
action_mark_all(struct ui *ui)
{
	struct request	*r;
	size_t		 danger = 0;

	marks_prune(ui);
	TAILQ_FOREACH(r, &console_queue(ui->c)->requests, entry) {
		if (!ui_matches(ui, r) || r->state != REQUEST_PENDING)
			continue;
		if (marks_can(ui, r, true))
			marks_add(ui, r->id);
		else
			danger++;
	}
	if (danger > 0)
		ui_message(ui, false, "%zu marked (%zu danger left out: each "
		    "alone); a approves them all, Esc unmarks", ui->nmarks,
		    danger);
	else
		ui_message(ui, false, "%zu marked: a approves them all, Esc "
		    "unmarks", ui->nmarks);
}

/* Esc: drop the marks; false when there were none. */
bool
ui_marks_clear(struct ui *ui)
{
	if (ui->nmarks == 0)
		return false;
	ui->nmarks = 0;
	ui_message(ui, false, "marks dropped");
	return true;
}

/* The bulk question was answered. */
static void
marks_approve_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char		*cause = NULL, *who;
	size_t		 done = 0, gone = 0;
	struct request	*r;

	(void)id;
	(void)text;
	if (!ok) {
		ui_message(ui, false, "nothing approved (the marks stay)");
		return;
	}
	who = xasprintf("terminal (uid %u), in bulk", (unsigned)getuid());
	for (size_t i = 0; i < ui->nmarks; i++) {
		r = queue_find(console_queue(ui->c), ui->marks[i]);
		if (r == NULL || !marks_can(ui, r, true) ||
		    console_approve(ui->c, r->id, who, NULL, &cause) != 0) {
			free(cause);
			cause = NULL;
			gone++;
			continue;
		}
		done++;
	}
	free(who);
	ui->nmarks = 0;
	ui_message(ui, false, "%zu approved%s", done, gone > 0 ?
	    "; the others were no longer pending" : "");
}

/* a with marks: one question for them all. */
bool
ui_marks_approve(struct ui *ui)
{
	char	*q;

	marks_prune(ui);
	if (ui->nmarks == 0)
		return false;
	q = xasprintf("approve the %zu marked requests, each with its "
	    "verdict's profile? y/N", ui->nmarks);
	prompt_confirm(ui, q, 0, marks_approve_done);
	free(q);
	return true;
}
