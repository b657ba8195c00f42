/*
 * keys: the key table (key -> action, with the help text the `?` overlay
 * and the status line show) and the actions themselves.
 *
 * `k` moves up, as in vi and less, like `j` moves down; killing a running
 * command is `K` (capital) and asks first, so a slip of the finger while
 * moving never kills anything.
 *
 * Actions that decide (approve, deny, kill) are guarded: when the
 * selection moved by itself (a request was withdrawn, the one followed
 * ended) less than UI_GUARD_MS ago, the key only says so, so a key meant
 * for one request never lands on another.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "ui.h"
#include "xalloc.h"

#define UI_GUARD_MS	700
#define CTRL(c)		((c) & 0x1f)

struct key_binding {
	int		 key;
	bool		 is_char;	/* a character, not a KEY_ code */
	const char	*name;		/* for the help; NULL: same as above */
	const char	*help;
	void		(*fn)(struct ui *);
	bool		 guarded;	/* decides about the selection */
};

static void	key_approve(struct ui *);
static void	key_approve_rule(struct ui *);
static void	key_deny(struct ui *);
static void	key_edit(struct ui *);
static void	key_network(struct ui *);
static void	key_kill(struct ui *);
static void	key_rerun(struct ui *);
static void	key_up(struct ui *);
static void	key_down(struct ui *);
static void	key_page_up(struct ui *);
static void	key_page_down(struct ui *);
static void	key_home(struct ui *);
static void	key_end(struct ui *);
static void	key_next_pane(struct ui *);
static void	key_prev_pane(struct ui *);
static void	key_filter(struct ui *);
static void	key_queue_filter(struct ui *);
static void	key_search_prev(struct ui *);
static void	key_agent(struct ui *);
static void	key_zoom(struct ui *);
static void	key_escape(struct ui *);
static void	key_follow(struct ui *);
static void	key_clock(struct ui *);
static void	key_expand(struct ui *);
static void	key_next_pending(struct ui *);
static void	key_prev_pending(struct ui *);
static void	key_argv(struct ui *);
static void	key_help(struct ui *);
static void	key_redraw(struct ui *);
static void	key_reload(struct ui *);
static void	key_quit(struct ui *);

static const struct key_binding key_table[] = {
	{ 'a', true, "a", "approve the selected request once", key_approve,
	  true },
	{ 'A', true, "A", "approve and add a rule to your allowlist "
	  "(exact command or prefix, with a profile)", key_approve_rule,
	  true },
	{ 'd', true, "d", "deny, with an optional note the agent receives",
	  key_deny, true },
	{ 'e', true, "e", "edit the mounts before approving (rw, ro, hide, "
	  "remove)", key_edit, false },
	{ 'n', true, "n", "next match of a search in the focused pane; "
	  "else toggle the network for this request", key_network, false },
	{ 'N', true, "N", "previous match of a search", key_search_prev,
	  false },
	{ 'K', true, "K", "kill the selected running command (asks first)",
	  key_kill, true },
	{ 'r', true, "r", "re-run a finished request (new id; ask verdicts "
	  "wait for approval again)", key_rerun, false },
	{ 'j', true, "j Down", "next request, or scroll the focused pane",
	  key_down, false },
	{ KEY_DOWN, false, NULL, NULL, key_down, false },
	{ 'k', true, "k Up", "previous request, or scroll the focused pane",
	  key_up, false },
	{ KEY_UP, false, NULL, NULL, key_up, false },
	{ KEY_NPAGE, false, "PgDn ^F", "a page down", key_page_down, false },
	{ CTRL('f'), true, NULL, NULL, key_page_down, false },
	{ ' ', true, NULL, NULL, key_page_down, false },
	{ KEY_PPAGE, false, "PgUp ^B", "a page up", key_page_up, false },
	{ CTRL('b'), true, NULL, NULL, key_page_up, false },
	{ KEY_HOME, false, "g Home", "first request, or top of the pane",
	  key_home, false },
	{ 'g', true, NULL, NULL, key_home, false },
	{ KEY_END, false, "G End", "last request, or the end of the pane",
	  key_end, false },
	{ 'G', true, NULL, NULL, key_end, false },
	{ '\t', true, "Tab", "next pane (the focus; tabs in narrow layouts)",
	  key_next_pane, false },
	{ KEY_BTAB, false, "S-Tab", "previous pane", key_prev_pane, false },
	{ '/', true, "/", "search the focused pane as you type (in the "
	  "queue: filter it)", key_filter, false },
	{ 'f', true, "f", "filter the queue (id, agent, command, verdict, "
	  "state), starting empty", key_queue_filter, false },
	{ '@', true, "@", "only the selected request's agent, or all again",
	  key_agent, false },
	{ 'z', true, "z", "zoom: the focused pane on the whole screen, or "
	  "back", key_zoom, false },
	{ 27, true, "Esc", "end a search, leave the zoom", key_escape,
	  false },
	{ 'F', true, "F", "follow on/off: select what waits for you, else "
	  "what runs (moving by hand pauses it until a request waits)",
	  key_follow, false },
	{ 'p', true, "p P", "next / previous pending request",
	  key_next_pending, false },
	{ 'P', true, NULL, NULL, key_prev_pending, false },
	{ 't', true, "t", "times of day (HH:MM:SS) instead of ages, and "
	  "back", key_clock, false },
	{ 'x', true, "x", "report: every path, or directories summarised "
	  "again", key_expand, false },
	{ 'v', true, "v", "show the bwrap argv as one line to copy",
	  key_argv, false },
	{ '?', true, "?", "this help", key_help, false },
	{ CTRL('l'), true, "^L", "redraw the screen", key_redraw, false },
	{ 'R', true, "R", "read the configuration and rule files again",
	  key_reload, false },
	{ 'q', true, "q ^C", "quit (asks when anything is pending or running)",
	  key_quit, false },
	{ CTRL('c'), true, NULL, NULL, key_quit, false },
	{ KEY_MOUSE, false, NULL, NULL, ui_mouse, false },
};
#define NKEYS (sizeof key_table / sizeof key_table[0])

/* The colour legend the help shows, each line in its colour. */
static const struct {
	enum ui_color	 color;
	const char	*text;
} key_legend[] = {
	{ UC_PENDING, "! pending: waits for you (bold)" },
	{ UC_ALLOW, "allow: the allowlist lets it run" },
	{ UC_ASK, "ask: needs your approval" },
	{ UC_DENY, "deny: refused by a rule" },
	{ UC_RUNNING, "running, approved" },
	{ UC_OK, "exit 0" },
	{ UC_FAIL, "exit N, failed, killed, timed out" },
	{ UC_DENIED, "denied, withdrawn" },
	{ UC_CREATED, "+ created" },
	{ UC_MODIFIED, "~ modified" },
	{ UC_DELETED, "- deleted" },
	{ UC_MOVED, "> moved or renamed" },
	{ UC_WARN, "! a warning, something refused, text not kept" },
	{ UC_LABEL, "labels in the detail pane" },
};

/* Who the operator is, for the audit log. */
static char *
key_who(void)
{
	return xasprintf("terminal (uid %u)", (unsigned)getuid());
}

/* The selected request, or say there is none. */
static struct request *
key_request(struct ui *ui)
{
	struct request	*r = ui_selected(ui);

	if (r == NULL)
		ui_message(ui, true, "no request selected");
	return r;
}

/* a: approve the selected request. */
static void
key_approve(struct ui *ui)
{
	struct request	*r = key_request(ui);
	char		*cause = NULL, *who;

	if (r == NULL)
		return;
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: only a pending request can be "
		    "approved (p: the next pending one)", r->id,
		    request_state_name(r->state));
		return;
	}
	who = key_who();
	if (console_approve(ui->c, r->id, who, NULL, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u approved", r->id);
	free(who);
}

/* A: open the approve-and-add-rule form. */
static void
key_approve_rule(struct ui *ui)
{
	struct request	*r = key_request(ui);

	if (r == NULL)
		return;
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: only a pending request can be "
		    "approved", r->id, request_state_name(r->state));
		return;
	}
	rule_open(ui, r);
}

/* The deny note was typed (or the prompt cancelled). */
static void
key_deny_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	if (!ok) {
		ui_message(ui, false, "not denied");
		return;
	}
	who = key_who();
	if (console_deny(ui->c, id, who, *text != '\0' ? text :
	    NULL, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u denied", id);
	free(who);
}

/* d: ask for a note, then deny. */
static void
key_deny(struct ui *ui)
{
	struct request	*r = key_request(ui);
	char		*label;

	if (r == NULL)
		return;
	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: only a pending request can be "
		    "denied", r->id, request_state_name(r->state));
		return;
	}
	label = xasprintf("deny #%u, note for the agent (Enter: deny, "
	    "Esc: cancel)", r->id);
	prompt_line(ui, label, "", r->id, key_deny_done);
	free(label);
}

/* e: open the mounts editor. */
static void
key_edit(struct ui *ui)
{
	struct request	*r = key_request(ui);

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
static void
key_network(struct ui *ui)
{
	struct request	*r;

	if (ui_search_next(ui, 1))
		return;
	if ((r = key_request(ui)) != NULL)
		ui_toggle_network(ui, r);
}

/* N: the previous match. */
static void
key_search_prev(struct ui *ui)
{
	if (!ui_search_next(ui, -1))
		ui_message(ui, false, "no search in this pane: / starts one");
}

/* The kill was confirmed (or not). */
static void
key_kill_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	char	*cause = NULL, *who;

	if (!ok) {
		ui_message(ui, false, "not killed");
		return;
	}
	who = key_who();
	if (console_kill(ui->c, id, who, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u: stopping", id);
	free(who);
}

/* K: ask, then kill what runs. */
static void
key_kill(struct ui *ui)
{
	struct request	*r = key_request(ui);
	char		*q, *cmd;

	if (r == NULL)
		return;
	if (r->state != REQUEST_RUNNING) {
		ui_message(ui, true, "#%u is %s: only a running command can be "
		    "killed", r->id, request_state_name(r->state));
		return;
	}
	cmd = fmt_escape(r->command);
	q = xasprintf("Kill #%u (%s)? (y/N)", r->id, cmd);
	prompt_confirm(ui, q, r->id, key_kill_done);
	free(q);
	free(cmd);
}

/* r: queue an ended request again. */
static void
key_rerun(struct ui *ui)
{
	struct request	*r = key_request(ui);
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
key_scroll(struct ui *ui, int delta)
{
	if (ui->focus == PANE_QUEUE)
		ui_move(ui, delta);
	else
		ui_scroll(ui, &ui->panes[ui->focus], delta);
}

/* Lines in a page of the focused pane. */
static int
key_page(struct ui *ui)
{
	int	h = ui->panes[ui->focus].h - 2;

	return h > 1 ? h : 1;
}

/* k, Up. */
static void
key_up(struct ui *ui)
{
	key_scroll(ui, -1);
}

/* j, Down. */
static void
key_down(struct ui *ui)
{
	key_scroll(ui, 1);
}

/* PgUp. */
static void
key_page_up(struct ui *ui)
{
	key_scroll(ui, -key_page(ui));
}

/* PgDn. */
static void
key_page_down(struct ui *ui)
{
	key_scroll(ui, key_page(ui));
}

/* g, Home: the first request, or the top of the pane. */
static void
key_home(struct ui *ui)
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
static void
key_end(struct ui *ui)
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
static void
key_next_pane(struct ui *ui)
{
	ui_focus(ui, 1);
}

/* Shift-Tab. */
static void
key_prev_pane(struct ui *ui)
{
	ui_focus(ui, -1);
}

/* /: search the focused pane, or filter the queue. */
static void
key_filter(struct ui *ui)
{
	ui_search_start(ui);
}

/* f: filter the queue. */
static void
key_queue_filter(struct ui *ui)
{
	ui_filter_start(ui);
}

/* @: one agent, or all. */
static void
key_agent(struct ui *ui)
{
	ui_agent_filter(ui);
}

/* z: zoom. */
static void
key_zoom(struct ui *ui)
{
	ui_zoom(ui);
}

/* Esc: end the search, else leave the zoom. */
static void
key_escape(struct ui *ui)
{
	if (ui->search.text != NULL)
		ui_search_clear(ui);
	else if (ui->zoom)
		ui_zoom(ui);
}

/* F: follow the work, or stop following. */
static void
key_follow(struct ui *ui)
{
	ui_follow_toggle(ui);
}

/* x: every path in the report pane, or the summary. */
static void
key_expand(struct ui *ui)
{
	ui->report_expand = !ui->report_expand;
	ui->panes[PANE_REPORT].scroll = 0;
	ui_message(ui, false, "%s", ui->report_expand ? "report: every path "
	    "(x: summary)" : "report: directories summarised (x: every "
	    "path)");
}

/* t: times of day or ages. */
static void
key_clock(struct ui *ui)
{
	fmt_set_clock(!fmt_get_clock());
	ui_message(ui, false, "%s", fmt_get_clock() ? "times of day "
	    "(t: ages)" : "ages (t: times of day)");
}

/* p: the next pending request. */
static void
key_next_pending(struct ui *ui)
{
	ui_select_pending(ui, 1);
}

/* P: the previous pending request. */
static void
key_prev_pending(struct ui *ui)
{
	ui_select_pending(ui, -1);
}

/* Leave curses and print the argv plainly, so the terminal can copy it
   as one line; Enter comes back. */
static void
key_argv(struct ui *ui)
{
	struct request	*r = key_request(ui);
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
static void
key_help(struct ui *ui)
{
	ui->help = true;
	ui->help_scroll = 0;
	ui->dirty_overlay = true;
	ui_dirty_panes(ui);
}

/* R: read the configuration and rules again (the console says how it
   went on the status line). */
static void
key_reload(struct ui *ui)
{
	char	*who = key_who(), *cause = NULL;

	if (console_reload(ui->c, who, &cause) != 0)
		free(cause);
	free(who);
}

/* ^L: redraw everything. */
static void
key_redraw(struct ui *ui)
{
	ui->dirty_all = true;
}

/* q, ^C: quit (asking first when work would be lost). */
static void
key_quit(struct ui *ui)
{
	ui_request_quit(ui);
}

/* Keys while the help is open: scroll, anything else closes it. */
static void
key_help_key(struct ui *ui, int key, bool is_char)
{
	if ((is_char && key == 'j') || (!is_char && key == KEY_DOWN))
		ui->help_scroll++;
	else if ((is_char && key == 'k') || (!is_char && key == KEY_UP)) {
		if (ui->help_scroll > 0)
			ui->help_scroll--;
	} else
		ui->help = false;
	ui_dirty_panes(ui);
}

/* One key press from the terminal. */
void
ui_key(struct ui *ui, int key, bool is_char)
{
	const struct key_binding *kb;
	struct request	*r;

	if (prompt_key(ui, key, is_char))
		return;
	if (ui->help) {
		key_help_key(ui, key, is_char);
		return;
	}
	for (size_t i = 0; i < NKEYS; i++) {
		kb = &key_table[i];
		if (kb->key != key || kb->is_char != is_char)
			continue;
		r = ui_selected(ui);
		if (kb->guarded && r != NULL && ui->autosel_ms != 0 &&
		    loop_now_ms() - ui->autosel_ms < UI_GUARD_MS) {
			ui->autosel_ms = 0;
			ui_message(ui, true, "the selection just moved to #%u: "
			    "press again to act on it", r->id);
			return;
		}
		kb->fn(ui);
		ui_dirty_panes(ui);
		return;
	}
	if (is_char && key >= ' ' && key != 127)
		ui_message(ui, false, "no action on this key: ? shows the "
		    "keys");
}

/* Key hints for the status line, as many as fit. */
const char *
ui_hints(const struct ui *ui, size_t cols)
{
	const struct request *r = ui->sel != 0 ?
	    queue_find(console_queue(ui->c), ui->sel) : NULL;

	if (cols < 60)
		return "? help";
	if (r != NULL && r->state == REQUEST_PENDING)
		return "a approve  A +rule  d deny  e mounts  n net  ? help  "
		    "q quit";
	if (r != NULL && r->state == REQUEST_RUNNING)
		return "K kill  Tab pane  / find  ? help  q quit";
	return "r re-run  Tab pane  / find  ? help  q quit";
}

/* The help overlay, made from the key table. */
void
ui_help_draw(struct ui *ui)
{
	struct ui_text	 t = UI_TEXT_INIT;
	int		 h, w, y, x;
	size_t		 i;
	char		*line;

	w = ui->cols - 4 < 76 ? ui->cols - 4 : 76;
	h = ui->lines - 3;
	if (w < 20 || h < 4)
		return;
	for (i = 0; i < NKEYS; i++) {
		if (key_table[i].name == NULL)
			continue;
		line = xasprintf("%-8s %s", key_table[i].name,
		    key_table[i].help);
		ui_text_wrap(&t, UC_PROMPT, line, (size_t)w - 2, 9);
		free(line);
	}
	ui_text_add(&t, UC_PROMPT, "");
	ui_text_wrap(&t, UC_PROMPT, "Prompts: Enter confirms, Esc cancels; "
	    "y/N questions take only y as yes. Keys are read from the "
	    "terminal, never from standard input.", (size_t)w - 2, 0);
	ui_text_add(&t, UC_PROMPT, "");
	ui_text_add(&t, UC_PROMPT, "Colours (as the panes draw them):");
	for (i = 0; i < sizeof key_legend / sizeof key_legend[0]; i++) {
		line = xasprintf("  %s", key_legend[i].text);
		ui_text_wrap(&t, key_legend[i].color, line, (size_t)w - 2, 4);
		free(line);
	}
	if ((int)t.lines.n + 2 < h)
		h = (int)t.lines.n + 2;
	if (ui->help_scroll > (int)t.lines.n - (h - 2))
		ui->help_scroll = (int)t.lines.n - (h - 2);
	if (ui->help_scroll < 0)
		ui->help_scroll = 0;
	y = (ui->lines - 1 - h) / 2;
	x = (ui->cols - w) / 2;
	if (ui->overlay != NULL)
		delwin(ui->overlay);
	ui->overlay = newwin(h, w, y, x);
	wbkgdset(ui->overlay, ' ' | ui_attr(ui, UC_PROMPT));
	werase(ui->overlay);
	wattrset(ui->overlay, ui_attr(ui, UC_PROMPT));
	box(ui->overlay, 0, 0);
	mvwaddstr(ui->overlay, 0, 2, " keys (any other key closes) ");
	for (int row = 0; row < h - 2 &&
	    ui->help_scroll + row < (int)t.lines.n; row++) {
		wattrset(ui->overlay, ui_attr(ui, (enum ui_color)
		    t.colors[ui->help_scroll + row]));
		mvwaddnstr(ui->overlay, row + 1, 1,
		    t.lines.v[ui->help_scroll + row], w - 2);
	}
	wattrset(ui->overlay, A_NORMAL);
	wnoutrefresh(ui->overlay);
	ui_text_release(&t);
}
