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
static void	key_follow(struct ui *);
static void	key_argv(struct ui *);
static void	key_help(struct ui *);
static void	key_redraw(struct ui *);
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
	{ 'n', true, "n", "toggle the network for this request", key_network,
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
	{ '/', true, "/", "filter the queue (id, agent, command, verdict, "
	  "state)", key_filter, false },
	{ 'F', true, "F", "follow: select what waits for you, else what "
	  "runs", key_follow, false },
	{ 'v', true, "v", "show the bwrap argv as one line to copy",
	  key_argv, false },
	{ '?', true, "?", "this help", key_help, false },
	{ CTRL('l'), true, "^L", "redraw the screen", key_redraw, false },
	{ 'q', true, "q", "quit (asks when anything is pending or running)",
	  key_quit, false },
	{ CTRL('c'), true, NULL, NULL, key_quit, false },
};
#define NKEYS (sizeof key_table / sizeof key_table[0])

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

/* The profile chosen for an approval: a/Enter the verdict's, a digit
   one of the others. */
static void
key_approve_done(struct ui *ui, uint32_t id, bool ok, const char *text)
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
	who = key_who();
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

/* a: approve the selected request, with its verdict's profile or another
   (one key each). */
static void
key_approve(struct ui *ui)
{
	struct request	*r = key_request(ui);
	struct strv	 profiles = STRV_INIT;
	struct buf	 q = BUF_INIT;

	if (r == NULL)
		return;
	if (r->state != REQUEST_PENDING) {
		char	*cause = NULL;

		/* Let the console say why (its message is the one used). */
		if (console_approve(ui->c, r->id, "terminal", NULL,
		    &cause) != 0) {
			ui_message(ui, true, "%s", cause);
			free(cause);
		}
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
	prompt_choose(ui, q.data, r->id, key_approve_done);
	buf_release(&q);
	strv_release(&profiles);
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

/* n: toggle the network. */
static void
key_network(struct ui *ui)
{
	struct request	*r = key_request(ui);

	if (r != NULL)
		ui_toggle_network(ui, r);
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

/* The filter was typed: empty clears it. */
static void
key_filter_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	if (!ok)
		return;
	free(ui->filter);
	ui->filter = *text != '\0' ? fmt_escape(text) : NULL;
	ui->qtop = 0;
	if (ui->sel != 0 && ui_selected(ui) != NULL &&
	    !ui_visible(ui, ui_selected(ui)))
		ui->follow = true;
	ui_follow(ui);
	ui_dirty_panes(ui);
}

/* /: ask for a filter. */
static void
key_filter(struct ui *ui)
{
	prompt_line(ui, "filter (Enter: apply, empty: all)",
	    ui->filter != NULL ? ui->filter : "", 0, key_filter_done);
}

/* F: follow the work again. */
static void
key_follow(struct ui *ui)
{
	ui->follow = true;
	ui_follow(ui);
	ui_message(ui, false, "following: the oldest pending request, else "
	    "the newest running one");
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
		return "K kill  Tab pane  / filter  ? help  q quit";
	return "r re-run  Tab pane  / filter  ? help  q quit";
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
	    ui->help_scroll + row < (int)t.lines.n; row++)
		mvwaddnstr(ui->overlay, row + 1, 1,
		    t.lines.v[ui->help_scroll + row], -1);
	wattrset(ui->overlay, A_NORMAL);
	wnoutrefresh(ui->overlay);
	ui_text_release(&t);
}
