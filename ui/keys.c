/*
 * keys: the key table (key -> action, with the help text the `?` overlay
 * and the status line show); the actions are in actions.c.
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

#include <limits.h>
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

static const struct key_binding key_table[] = {
	{ 'a', true, "a", "approve the selected request once", action_approve,
	  true },
	{ 'A', true, "A", "approve and add a rule to your allowlist "
	  "(exact command or prefix, with a profile)", action_approve_rule,
	  true },
	{ 'm', true, "m", "mark or unmark the selected pending request; with "
	  "marks, a approves them all (one y/N)", action_mark, false },
	{ 'M', true, "M", "mark every pending request the filter (f, @) "
	  "lets through; danger is left out", action_mark_all, false },
	{ 'd', true, "d", "deny, with an optional note the agent receives",
	  action_deny, true },
	{ 'e', true, "e", "edit the mounts before approving (rw, ro, hide, "
	  "remove)", action_edit, false },
	{ 'n', true, "n", "next match of a search in the focused pane; "
	  "else toggle the network for this request", action_network, false },
	{ 'N', true, "N", "previous match of a search", action_search_prev,
	  false },
	{ 'K', true, "K", "kill the selected running command (asks first)",
	  action_kill, true },
	{ 'S', true, "S", "stop the service the selected request left "
	  "running (its background processes; asks first)", action_stop,
	  true },
	{ 'r', true, "r", "re-run a finished request (new id; ask verdicts "
	  "wait for approval again)", action_rerun, false },
	{ 'u', true, "u", "undo a finished request: its changes put back "
	  "(the report pane shows what; asks first)", action_undo, true },
	{ 'j', true, "j Down", "next request, or scroll the focused pane",
	  action_down, false },
	{ KEY_DOWN, false, NULL, NULL, action_down, false },
	{ 'k', true, "k Up", "previous request, or scroll the focused pane",
	  action_up, false },
	{ KEY_UP, false, NULL, NULL, action_up, false },
	{ KEY_NPAGE, false, "PgDn ^F", "a page down", action_page_down, false },
	{ CTRL('f'), true, NULL, NULL, action_page_down, false },
	{ ' ', true, NULL, NULL, action_page_down, false },
	{ KEY_PPAGE, false, "PgUp ^B", "a page up", action_page_up, false },
	{ CTRL('b'), true, NULL, NULL, action_page_up, false },
	{ KEY_HOME, false, "g Home", "first request, or top of the pane",
	  action_home, false },
	{ 'g', true, NULL, NULL, action_home, false },
	{ KEY_END, false, "G End", "last request, or the end of the pane",
	  action_end, false },
	{ 'G', true, NULL, NULL, action_end, false },
	{ '\t', true, "Tab", "next pane (the focus; tabs in narrow layouts)",
	  action_next_pane, false },
	{ KEY_BTAB, false, "S-Tab", "previous pane", action_prev_pane, false },
	{ '/', true, "/", "search the focused pane as you type (in the "
	  "queue: filter it)", action_search, false },
	{ 'f', true, "f", "filter the queue (id, agent, command, verdict, "
	  "state), starting empty", action_queue_filter, false },
	{ '@', true, "@", "only the selected request's agent, or all again",
	  action_agent, false },
	{ 'z', true, "z", "zoom: the focused pane on the whole screen, or "
	  "back", action_zoom, false },
	{ 27, true, "Esc", "end a search, leave the zoom, drop the marks",
	  action_escape,
	  false },
	{ 'F', true, "F", "follow on/off: select what waits for you, else "
	  "what runs (moving by hand pauses it until a request waits)",
	  action_follow, false },
	{ 'p', true, "p P", "next / previous pending request",
	  action_next_pending, false },
	{ 'P', true, NULL, NULL, action_prev_pending, false },
	{ 't', true, "t", "times of day (HH:MM:SS) instead of ages, and "
	  "back", action_clock, false },
	{ 'x', true, "x", "report: every path, or directories summarised "
	  "again", action_expand, false },
	{ 'v', true, "v", "show the bwrap argv as one line to copy",
	  action_argv, false },
	{ '?', true, "?", "this help", action_help, false },
	{ CTRL('l'), true, "^L", "redraw the screen", action_redraw, false },
	{ 'R', true, "R", "read the configuration and rule files again",
	  action_reload, false },
	{ 'q', true, "q ^C", "quit (asks when anything is pending or running)",
	  action_quit, false },
	{ CTRL('c'), true, NULL, NULL, action_quit, false },
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
	{ UC_DANGER, "DANGER: the sandbox does not stop its mistakes "
	    "(it deletes, rewrites history, publishes, runs downloads): "
	    "approve by typing yes" },
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

/* Keys while the help is open: scroll (a line, a page, to either end),
   anything else closes it. */
static void
key_help_key(struct ui *ui, int key, bool is_char)
{
	int	page = ui->lines > 8 ? ui->lines - 6 : 1;

	if ((is_char && key == 'j') || (!is_char && key == KEY_DOWN))
		ui->help_scroll++;
	else if ((is_char && key == 'k') || (!is_char && key == KEY_UP))
		ui->help_scroll--;
	else if ((is_char && (key == ' ' || key == 'f')) ||
	    (!is_char && key == KEY_NPAGE))
		ui->help_scroll += page;
	else if ((is_char && key == 'b') || (!is_char && key == KEY_PPAGE))
		ui->help_scroll -= page;
	else if ((is_char && key == 'g') || (!is_char && key == KEY_HOME))
		ui->help_scroll = 0;
	else if ((is_char && key == 'G') || (!is_char && key == KEY_END))
		ui->help_scroll = INT_MAX / 2;	/* drawing clamps it */
	else {
		/* The box also covered what no pane redraws (the gaps). */
		ui->help = false;
		ui->dirty_all = true;
	}
	if (ui->help_scroll < 0)
		ui->help_scroll = 0;
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

	/* A host question: its keys, however narrow. */
	if (r != NULL && r->wants != NULL)
		return cols < 60 ? "a once  A project  d deny" :
		    "host: a allow once  A for this project  d deny  ? help";
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
	mvwaddnstr(ui->overlay, 0, 2, " keys (j k space b g G scroll, "
	    "other keys close) ", w - 4);
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
