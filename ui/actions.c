/*
 * actions: what the operator can do, one function each (approve, deny,
 * kill, move the selection, open a form...). The key table (keys.c) binds
 * keys to them, and prompts call them directly instead of faking a key
 * press.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "format.h"
#include "ui.h"
#include "xalloc.h"
static void	action_host(struct ui *, struct request *, const char *);


/* Who the operator is, for the audit log. */
static char *
action_who(void)
{
	return xasprintf("terminal (uid %u)", (unsigned)getuid());
}

/* The selected request, or say there is none. */
static struct request *
action_request(struct ui *ui)
{
	struct request	*r = ui_selected(ui);

	if (r == NULL)
		ui_message(ui, true, "no request selected");
	return r;
}

/* The profile chosen for an approval: a/Enter the verdict's, a digit
   one of the others. */
static void
action_approve_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	struct strv	 profiles = STRV_INIT;
	const char	*profile = NULL;
	char		*cause = NULL, *who;
	size_t		 n;

	if (!ok) {
		ui_message(ui, false, "#%u not approved", id);
		return;
	}
	if (text[0] >= '1' && text[0] <= '9') {
		rule_profiles(&profiles);
		n = (size_t)(text[0] - '1');
		if (n >= profiles.n) {
			ui_message(ui, true, "no profile %c", text[0]);
			strv_release(&profiles);
			return;
		}
		profile = profiles.v[n];
	} else if (text[0] != 'a' && text[0] != '\n') {
		ui_message(ui, false, "#%u not approved", id);
		return;
	}
	who = action_who();
	if ((profile != NULL && console_set_profile(ui->c, id, profile,
	    &cause) != 0) || console_approve(ui->c, id, who, NULL,
	    &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u approved%s%s", id, profile != NULL ?
		    " with profile " : "", profile != NULL ? profile : "");
	free(who);
	strv_release(&profiles);
}

/* The word typed to approve a danger verdict: an operator's habit (a,
   Enter) must not be enough. */
#define ACTION_DANGER_WORD	"yes"

/* The confirmation of a danger verdict was typed (or cancelled). */
static void
action_danger_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	if (!ok || strcmp(text, ACTION_DANGER_WORD) != 0) {
		ui_message(ui, false, "#%u not approved (type %s to approve a "
		    "danger)", id, ACTION_DANGER_WORD);
		return;
	}
	who = action_who();
	if (console_approve_danger(ui->c, id, who, NULL, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u approved (danger confirmed)", id);
	free(who);
}

/* a: approve the selected request, with its verdict's profile or another
   (one key each). */
void
action_approve(struct ui *ui)
{
	struct request	*r;
	struct strv	 profiles = STRV_INIT;
	struct buf	 q = BUF_INIT;

	if (ui_marks_approve(ui))
		return;
	if ((r = action_request(ui)) == NULL)
		return;
	if (r->wants != NULL) {
		action_host(ui, r, "once");
		return;
	}
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: only a pending request can be "
		    "approved (p: the next pending one)", r->id,
		    request_state_name(r->state));
		return;
	}
	if (r->verdict == VERDICT_DANGER) {
		char *label = xasprintf("DANGER #%u: type %s to run it", r->id,
		    ACTION_DANGER_WORD);

		prompt_line(ui, label, "", r->id, action_danger_done);
		free(label);
		return;
	}
	/* A file write runs with the project profile only: nothing to
	   choose. */
	if (r->file_write) {
		char	*cause = NULL, *who = action_who();

		if (console_approve(ui->c, r->id, who, NULL, &cause) != 0) {
			ui_message(ui, true, "%s", cause);
			free(cause);
		} else
			ui_message(ui, false, "#%u approved", r->id);
		free(who);
		return;
	}
	rule_profiles(&profiles);
	buf_printf(&q, "approve #%u: a/Enter %s", r->id, r->profile != NULL ?
	    r->profile : "as classified");
	for (size_t i = 0; i < profiles.n && i < 9; i++)
		if (r->profile == NULL || strcmp(profiles.v[i],
		    r->profile) != 0)
			buf_printf(&q, ", %zu %s", i + 1, profiles.v[i]);
	buf_puts(&q, ", Esc cancel");
	prompt_choose(ui, q.data, r->id, action_approve_done);
	buf_release(&q);
	strv_release(&profiles);
}

/* a, A, d on a running request whose proxy asks about a host: allow
   once, allow for this project, deny. */
static void
action_host(struct ui *ui, struct request *r, const char *answer)
{
	char	*cause = NULL, *who = action_who();
	char	*host = xstrdup(r->wants);

	if (console_host_answer(ui->c, r->id, answer, who, NULL,
	    &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else if (r->wants != NULL)
		/* The next question of the same request: its keys too. */
		ui_message(ui, false, "#%u: %s %s; a/A/d: the next host",
		    r->id, strcmp(answer, "once") == 0 ? "allowed once" :
		    strcmp(answer, "project") == 0 ? "allowed for this project" :
		    "denied", host);
	else
		ui_message(ui, false, "#%u: %s %s", r->id,
		    strcmp(answer, "once") == 0 ? "allowed once" :
		    strcmp(answer, "project") == 0 ? "allowed for this project" :
		    "denied", host);
	free(host);
	free(who);
}

/* A: open the approve-and-add-rule form. */
void
action_approve_rule(struct ui *ui)
{
	struct request	*r = action_request(ui);

	if (r == NULL)
		return;
	if (r->wants != NULL) {
		action_host(ui, r, "project");
		return;
	}
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: only a pending request can be "
		    "approved", r->id, request_state_name(r->state));
		return;
	}
	if (r->verdict == VERDICT_DANGER) {
		ui_message(ui, true, "#%u is danger: no rule makes it run "
		    "unasked (a, then type %s, runs it once)", r->id,
		    ACTION_DANGER_WORD);
		return;
	}
	/* Rules are for commands: a file write's verdict comes from its
	   path (bwgate-allowlist(5), FILE WRITES). */
	if (r->file_write) {
		ui_message(ui, true, "#%u is a file write: no rule applies to "
		    "it (a approves it once)", r->id);
		return;
	}
	rule_open(ui, r);
}

/* The deny note was typed (or the prompt cancelled). */
static void
action_deny_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	if (!ok) {
		ui_message(ui, false, "not denied");
		return;
	}
	who = action_who();
	if (console_deny(ui->c, id, who, *text != '\0' ? text :
	    NULL, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u denied", id);
	free(who);
}

/* d: ask for a note, then deny. */
void
action_deny(struct ui *ui)
{
	struct request	*r = action_request(ui);
	char		*label;

	if (r == NULL)
		return;
	if (r->wants != NULL) {
		action_host(ui, r, "deny");
		return;
	}
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: only a pending request can be "
		    "denied", r->id, request_state_name(r->state));
		return;
	}
	label = xasprintf("deny #%u, note for the agent (Enter: deny, "
	    "Esc: cancel)", r->id);
	prompt_line(ui, label, "", r->id, action_deny_done);
	free(label);
}

/* e: open the mounts editor. */
void
action_edit(struct ui *ui)
{
	struct request	*r = action_request(ui);

	if (r == NULL)
		return;
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: mounts can change only while "
		    "it waits for approval", r->id,
		    request_state_name(r->state));
		return;
	}
	mounts_open(ui, r);
}

/* n: the next match of a search in the focused pane, else toggle the
   network (the title shows when a search is on). */
void
action_network(struct ui *ui)
{
	struct request	*r;

	if (ui_search_next(ui, 1))
		return;
	if ((r = action_request(ui)) != NULL)
		ui_toggle_network(ui, r);
}

/* N: the previous match. */
void
action_search_prev(struct ui *ui)
{
	if (!ui_search_next(ui, -1))
		ui_message(ui, false, "no search in this pane: / starts one");
}

/* The kill was confirmed (or not). */
static void
action_kill_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	if (!ok) {
		ui_message(ui, false, "not killed");
		return;
	}
	who = action_who();
	if (console_kill(ui->c, id, who, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u: stopping", id);
	free(who);
}

/* K: ask, then kill what runs. */
void
action_kill(struct ui *ui)
{
	struct request	*r = action_request(ui);
	char		*q;

	if (r == NULL)
		return;
	if (r->state != REQUEST_RUNNING) {
		ui_message(ui, true, "#%u is %s: only a running command can be "
		    "killed", r->id, request_state_name(r->state));
		return;
	}
	/* Raw here: the prompt escapes its label once. */
	q = xasprintf("Kill #%u (%s)? (y/N)", r->id, r->command);
	prompt_confirm(ui, q, r->id, action_kill_done);
	free(q);
}

/* The stop was confirmed (or not). */
static void
action_stop_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	(void)text;
	if (!ok) {
		ui_message(ui, false, "not stopped");
		return;
	}
	who = action_who();
	if (console_service_stop(ui->c, id, who, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "service %u: stopping", id);
	free(who);
}

/* S: ask, then stop the service the selected request left running. */
void
action_stop(struct ui *ui)
{
	struct request		*r = action_request(ui);
	const struct service	*sv;
	char			*q;

	if (r == NULL)
		return;
	if ((sv = console_service(ui->c, r->id)) == NULL) {
		ui_message(ui, true, "#%u left no service running (the queue's "
		    "services section lists them)", r->id);
		return;
	}
	/* Raw here: the prompt escapes its label once. */
	q = xasprintf("Stop service %u (%s)? (y/N)", sv->id, sv->command);
	prompt_confirm(ui, q, sv->id, action_stop_done);
	free(q);
}

/* The answer to u's question. */
static void
action_undo_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	(void)text;
	ui->undo_preview_id = 0;
	strv_release(&ui->undo_preview);
	ui_dirty_panes(ui);
	if (!ok) {
		ui_message(ui, false, "not undone");
		return;
	}
	who = action_who();
	if (console_undo(ui->c, id, who, false, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u undone: its changes were put back",
		    id);
	free(who);
}

/* What u says with no request selected (after a console restart the
   queue starts empty): an earlier console's runs are undone from the
   command line (by request id, found in the audit log). Longest first:
   the first that fits the status line. */
static const char *const undo_elsewhere[] = {
	"no request selected: an earlier console's request #N is undone "
	"with bwgate undo N (bwgate log shows the #s, bwgate undo "
	"--list the runs kept)",
	"no request selected: an earlier console's #N: "
	"bwgate undo N (or bwgate undo --list)",
	"earlier #N: bwgate undo N (or --list)",
};
#define UNDO_ELSEWHERE	(sizeof undo_elsewhere / sizeof *undo_elsewhere)

/* u: show what undoing the selected request would do, then ask. */
void
action_undo(struct ui *ui)
{
	struct request	*r = ui_selected(ui);
	char		*cause = NULL, *q;
	int		 conflicts;
	size_t		 i;

	if (r == NULL) {
		for (i = 0; i + 1 < UNDO_ELSEWHERE; i++)
			if (strlen(undo_elsewhere[i]) + 1 <= (size_t)ui->cols)
				break;
		ui_message(ui, false, "%s", undo_elsewhere[i]);
		return;
	}
	strv_release(&ui->undo_preview);
	conflicts = console_undo_preview(ui->c, r->id, &ui->undo_preview,
	    &cause);
	if (conflicts < 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
		return;
	}
	ui->undo_preview_id = r->id;
	/* The preview is in the report pane: in front, if it is a tab (a
	   narrow console), so the question never hides behind a Tab. */
	if (!ui->zoom && !ui_pane_visible(ui, PANE_REPORT)) {
		ui->tab = PANE_REPORT;
		ui_layout(ui);
		if (!ui_pane_visible(ui, PANE_REPORT)) {
			/* The focus held another tab in front. */
			ui->focus = PANE_REPORT;
			ui_layout(ui);
		}
	}
	ui_dirty_panes(ui);
	if (conflicts > 0) {
		ui_message(ui, true, "#%u: %d conflict%s: the project changed "
		    "since (see the report; bwgate undo --force)", r->id,
		    conflicts, conflicts == 1 ? "" : "s");
		return;
	}
	if (ui->undo_preview.n == 0) {
		ui_message(ui, false, "#%u: nothing to undo (the project is as "
		    "it was before)", r->id);
		return;
	}
	q = xasprintf("Undo #%u (%zu change%s, see the report)? (y/N)", r->id,
	    ui->undo_preview.n, ui->undo_preview.n == 1 ? "" : "s");
	prompt_confirm(ui, q, r->id, action_undo_done);
	free(q);
}

/* r: queue an ended request again. */
void
action_rerun(struct ui *ui)
{
	struct request	*r = action_request(ui);
	char		*cause = NULL;
	uint32_t	 id;

	if (r == NULL)
		return;
	/* No operator: an ask verdict waits for approval again. */
	id = console_rerun(ui->c, r->id, NULL, &cause);
	if (id == 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
		return;
	}
	ui_message(ui, false, "#%u queued again as #%u", r->id, id);
	ui_select(ui, id, true);
}

/* Move in the queue, or scroll the focused pane. */
static void
action_scroll(struct ui *ui, int delta)
{
	if (ui->focus == PANE_QUEUE)
		ui_move(ui, delta);
	else
		ui_scroll(ui, &ui->panes[ui->focus], delta);
}

/* Lines in a page of the focused pane. */
static int
action_page(struct ui *ui)
{
	int	h = ui->panes[ui->focus].h - 2;

	return h > 1 ? h : 1;
}

/* k, Up. */
void
action_up(struct ui *ui)
{
	action_scroll(ui, -1);
}

/* j, Down. */
void
action_down(struct ui *ui)
{
	action_scroll(ui, 1);
}

/* PgUp. */
void
action_page_up(struct ui *ui)
{
	action_scroll(ui, -action_page(ui));
}

/* PgDn. */
void
action_page_down(struct ui *ui)
{
	action_scroll(ui, action_page(ui));
}

/* g, Home: the first request, or the top of the pane. */
void
action_home(struct ui *ui)
{
	struct pane	*p = &ui->panes[ui->focus];

	if (ui->focus == PANE_QUEUE)
		ui_move(ui, -1000000);
	else {
		p->scroll = p->from_bottom ? 1000000 : 0;
		p->dirty = true;
	}
}

/* G, End: the last request, or the end of the pane. */
void
action_end(struct ui *ui)
{
	struct pane	*p = &ui->panes[ui->focus];

	if (ui->focus == PANE_QUEUE)
		ui_move(ui, 1000000);
	else {
		p->scroll = p->from_bottom ? 0 : 1000000;
		p->dirty = true;
	}
}

/* Tab. */
void
action_next_pane(struct ui *ui)
{
	ui_focus(ui, 1);
}

/* Shift-Tab. */
void
action_prev_pane(struct ui *ui)
{
	ui_focus(ui, -1);
}

/* /: search the focused pane, or filter the queue. */
void
action_search(struct ui *ui)
{
	ui_search_start(ui);
}

/* f: filter the queue. */
void
action_queue_filter(struct ui *ui)
{
	ui_filter_start(ui);
}

/* @: one agent, or all. */
void
action_agent(struct ui *ui)
{
	ui_agent_filter(ui);
}

/* z: zoom. */
void
action_zoom(struct ui *ui)
{
	ui_zoom(ui);
}

/* Esc: end the search, else leave the zoom. */
void
action_escape(struct ui *ui)
{
	if (ui->search.text != NULL)
		ui_search_clear(ui);
	else if (ui->zoom)
		ui_zoom(ui);
	else
		(void)ui_marks_clear(ui);
}

/* F: follow the work, or stop following. */
void
action_follow(struct ui *ui)
{
	ui_follow_toggle(ui);
}

/* x: every path in the report pane, or the summary. */
void
action_expand(struct ui *ui)
{
	ui->report_expand = !ui->report_expand;
	ui->panes[PANE_REPORT].scroll = 0;
	ui_message(ui, false, "%s", ui->report_expand ? "report: every path "
	    "(x: summary)" : "report: directories summarised (x: every "
	    "path)");
}

/* t: times of day or ages. */
void
action_clock(struct ui *ui)
{
	fmt_set_clock(!fmt_get_clock());
	ui_message(ui, false, "%s", fmt_get_clock() ? "times of day "
	    "(t: ages)" : "ages (t: times of day)");
}

/* p: the next pending request. */
void
action_next_pending(struct ui *ui)
{
	ui_select_pending(ui, 1);
}

/* P: the previous pending request. */
void
action_prev_pending(struct ui *ui)
{
	ui_select_pending(ui, -1);
}

/* Leave curses and print the argv plainly, so the terminal can copy it
   as one line; Enter comes back. */
void
action_argv(struct ui *ui)
{
	struct request	*r = action_request(ui);
	char		*line, *e;

	if (r == NULL)
		return;
	line = strv_join(&r->bwrap_argv, " ", true);
	e = fmt_escape(line);
	ui->argv_view = true;
	endwin();
	fprintf(ui->tty, "\r\nbwrap argv of #%u:\r\n\r\n%s\r\n\r\n"
	    "(press Enter to go back to the console)\r\n", r->id, e);
	fflush(ui->tty);
	free(line);
	free(e);
}

/* ?: open the help. */
void
action_help(struct ui *ui)
{
	ui->help = true;
	ui->help_scroll = 0;
	ui->dirty_overlay = true;
	ui_dirty_panes(ui);
}

/* ^L: redraw everything. */
void
action_redraw(struct ui *ui)
{
	ui->dirty_all = true;
}

/* R: read the configuration and rules again (the console says how it
   went on the status line). */
void
action_reload(struct ui *ui)
{
	char	*who = action_who(), *cause = NULL;

	if (console_reload(ui->c, who, &cause) != 0)
		free(cause);
	free(who);
}

/* q, ^C: quit (asking first when work would be lost). */
void
action_quit(struct ui *ui)
{
	ui_request_quit(ui);
}

