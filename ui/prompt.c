/*
 * prompt: the UI's modal states. None of them blocks: each is a state that
 * takes the keys while it is open, and the loop keeps serving agents.
 *
 *   line     one line of text in the status line (deny note, filter, a
 *            path for the mounts editor); Enter confirms, Esc cancels;
 *   confirm  a y/N question in the status line; only y or Y is yes,
 *            every other key is no (quit, kill);
 *   mounts   the mounts editor overlay (e): add writable, read-only or
 *            hidden paths, remove one, toggle the network; every change
 *            goes to console_set_mounts() at once, so the detail pane's
 *            argv is always the one that will run;
 *   rule     the approve-and-add-rule form (A): exact command or argv
 *            prefix, and the profile; Enter writes the rule, reloads the
 *            rule files and approves.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "path.h"
#include "ui.h"
#include "xalloc.h"

#define PROMPT_MAX	4096	/* bytes of typed text */
#define CTRL(c)		((c) & 0x1f)
#define KEY_ESC		27

/* Encode a character as UTF-8 into b. */
static void
prompt_put_utf8(struct buf *b, unsigned c)
{
	if (c < 0x80)
		buf_putc(b, (char)c);
	else if (c < 0x800) {
		buf_putc(b, (char)(0xc0 | c >> 6));
		buf_putc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		buf_putc(b, (char)(0xe0 | c >> 12));
		buf_putc(b, (char)(0x80 | (c >> 6 & 0x3f)));
		buf_putc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x110000) {
		buf_putc(b, (char)(0xf0 | c >> 18));
		buf_putc(b, (char)(0x80 | (c >> 12 & 0x3f)));
		buf_putc(b, (char)(0x80 | (c >> 6 & 0x3f)));
		buf_putc(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* Open a one-line prompt. */
void
prompt_line(struct ui *ui, const char *label, const char *init, uint32_t id,
    prompt_done_cb done)
{
	struct prompt	*p = &ui->prompt;

	free(p->label);
	buf_release(&p->text);
	p->kind = PROMPT_LINE;
	p->label = xstrdup(label);
	buf_puts(&p->text, init);
	p->id = id;
	p->done = done;
	p->changed = NULL;
	ui->dirty_status = true;
}

/* Open a line prompt that reports each change of its text. */
void
prompt_line_live(struct ui *ui, const char *label, const char *init,
    uint32_t id, prompt_done_cb done, prompt_changed_cb changed)
{
	prompt_line(ui, label, init, id, done);
	ui->prompt.changed = changed;
}

/* Open a y/N question. */
void
prompt_confirm(struct ui *ui, const char *question, uint32_t id,
    prompt_done_cb done)
{
	prompt_line(ui, question, "", id, done);
	ui->prompt.kind = PROMPT_CONFIRM;
}

/* Open a one-key choice. */
void
prompt_choose(struct ui *ui, const char *question, uint32_t id,
    prompt_done_cb done)
{
	prompt_line(ui, question, "", id, done);
	ui->prompt.kind = PROMPT_KEY;
}

/* Close the line prompt and run its callback. */
static void
prompt_finish(struct ui *ui, bool ok)
{
	struct prompt	 p = ui->prompt;
	char		*text = p.text.data != NULL ? p.text.data : "";

	ui->prompt = (struct prompt){ .kind = PROMPT_NONE };
	ui->dirty_status = true;
	ui_dirty_panes(ui);
	if (ui->prompt_above != NULL) {
		delwin(ui->prompt_above);
		ui->prompt_above = NULL;
		ui->dirty_all = true;
	}
	if (p.done != NULL)
		p.done(ui, p.id, ok, text);
	free(p.label);
	buf_release(&p.text);
}

/* Keys for an open line prompt or question. */
static void
prompt_line_key(struct ui *ui, int key, bool is_char)
{
	struct buf	*t = &ui->prompt.text;

	if (ui->prompt.kind == PROMPT_CONFIRM) {
		/* Only y is yes. */
		prompt_finish(ui, is_char && (key == 'y' || key == 'Y'));
		return;
	}
	if (ui->prompt.kind == PROMPT_KEY) {
		bool	cancel;

		if (!is_char) {
			cancel = key != KEY_ENTER;
			key = '\n';
		} else if (key == '\r' || key == '\n') {
			cancel = false;
			key = '\n';
		} else
			cancel = key < ' ' || key == 127;
		if (cancel) {
			prompt_finish(ui, false);
			return;
		}
		buf_reset(t);
		buf_putc(t, (char)key);
		prompt_finish(ui, true);
		return;
	}
	if ((is_char && (key == '\r' || key == '\n')) ||
	    (!is_char && key == KEY_ENTER)) {
		prompt_finish(ui, true);
		return;
	}
	if (is_char && (key == KEY_ESC || key == CTRL('c') ||
	    key == CTRL('g'))) {
		prompt_finish(ui, false);
		return;
	}
	if ((!is_char && key == KEY_BACKSPACE) ||
	    (is_char && (key == 127 || key == CTRL('h')))) {
		while (t->len > 0 && (t->data[t->len - 1] & 0xc0) == 0x80)
			t->len--;
		if (t->len > 0)
			t->len--;
		if (t->data != NULL)
			t->data[t->len] = '\0';
	} else if (is_char && key == CTRL('u'))
		buf_reset(t);
	else if (is_char && key == CTRL('w')) {
		while (t->len > 0 && t->data[t->len - 1] == ' ')
			t->len--;
		while (t->len > 0 && t->data[t->len - 1] != ' ')
			t->len--;
		if (t->data != NULL)
			t->data[t->len] = '\0';
	} else if (is_char && key >= ' ' && key != 127 &&
	    t->len < PROMPT_MAX)
		prompt_put_utf8(t, (unsigned)key);
	ui->dirty_status = true;
	if (ui->prompt.changed != NULL)
		ui->prompt.changed(ui, t->data != NULL ? t->data : "");
}

/* A question wider than the status line (the approve prompt's profile
   digits at 50 columns): its lines but the last above the status line,
   in the prompt's colour; *label becomes the last line. With all (a line
   prompt, whose typing needs the status line), every line goes above and
   *label becomes ">". */
static bool
prompt_draw_above(struct ui *ui, char **label, bool all)
{
	struct strv	 lines = STRV_INIT;
	int		 n;

	fmt_wrap(*label, (size_t)ui->cols - 2, 2, &lines);
	n = (int)lines.n - (all ? 0 : 1);
	if (n < 1 || n >= ui->lines - 1) {
		strv_release(&lines);
		return false;
	}
	if (ui->prompt_above != NULL)
		delwin(ui->prompt_above);
	ui->prompt_above = newwin(n, ui->cols, ui->lines - 1 - n, 0);
	wbkgdset(ui->prompt_above, ' ' | ui_attr(ui, UC_PROMPT));
	werase(ui->prompt_above);
	wattrset(ui->prompt_above, ui_attr(ui, UC_PROMPT));
	for (int i = 0; i < n; i++)
		mvwaddstr(ui->prompt_above, i, 0, lines.v[i]);
	wnoutrefresh(ui->prompt_above);
	free(*label);
	*label = xstrdup(all ? ">" : lines.v[n]);
	strv_release(&lines);
	return true;
}

/* The line prompt in the status line: label, text, a cursor. */
void
prompt_draw_status(struct ui *ui)
{
	struct prompt	*p = &ui->prompt;
	char		*label, *text, *shown;
	size_t		 lw, tw, room, skip;

	label = fmt_escape(p->label);
	text = fmt_typed(p->text.data != NULL ? p->text.data : "");
	/* A question too wide goes above; label becomes its last line. A
	   line prompt's label wider than half the line goes above whole
	   (the DANGER prompt at 50 columns). */
	if (p->kind != PROMPT_LINE && fmt_width(label) + 2 > (size_t)ui->cols)
		(void)prompt_draw_above(ui, &label, false);
	else if (p->kind == PROMPT_LINE &&
	    fmt_width(label) + 2 > (size_t)ui->cols / 2)
		(void)prompt_draw_above(ui, &label, true);
	lw = fmt_width(label) + 2;
	if (lw > (size_t)ui->cols / 2 && p->kind == PROMPT_LINE)
		lw = (size_t)ui->cols / 2;
	shown = fmt_trim(label, lw - 2, false);
	wattrset(ui->status, ui_attr(ui, UC_PROMPT));
	mvwaddstr(ui->status, 0, 0, shown);
	waddstr(ui->status, ": ");
	free(shown);
	wattrset(ui->status, A_NORMAL);
	if (p->kind == PROMPT_LINE) {
		/* Show the end of what was typed, and a cursor after it. */
		tw = fmt_width(text);
		room = (size_t)ui->cols > lw + 1 ? (size_t)ui->cols - lw - 1 :
		    0;
		skip = 0;
		while (tw > room && text[skip] != '\0') {
			size_t n = fmt_fit(text + skip, 1, NULL);

			skip += n > 0 ? n : 1;
			tw = fmt_width(text + skip);
		}
		waddstr(ui->status, text + skip);
		wattrset(ui->status, A_REVERSE);
		waddch(ui->status, ' ');
		wattrset(ui->status, A_NORMAL);
	}
	free(label);
	free(text);
}

/* ---- the mounts editor ---- */

/* One row of the editor: which list and which entry. */
struct medit_row {
	char		 kind;		/* 'w' rw, 'o' ro, 'h' hide */
	size_t		 i;
	const char	*path;
};

/* The editable entries of a request's mounts, in display order. */
static size_t
medit_rows(const struct proto_mounts *m, struct medit_row *rows, size_t max)
{
	size_t	n = 0, i;

	for (i = 0; i < m->rw.n && n < max; i++)
		rows[n++] = (struct medit_row){ 'w', i, m->rw.v[i] };
	for (i = 0; i < m->ro.n && n < max; i++)
		rows[n++] = (struct medit_row){ 'o', i, m->ro.v[i] };
	for (i = 0; i < m->hide.n && n < max; i++)
		rows[n++] = (struct medit_row){ 'h', i, m->hide.v[i] };
	return n;
}

/* The edited request, or close the editor when it is no longer pending. */
static struct request *
medit_request(struct ui *ui)
{
	struct request	*r = queue_find(console_queue(ui->c), ui->medit.id);

	if (r == NULL || r->state != REQUEST_PENDING) {
		ui->medit.open = false;
		ui_message(ui, true, "#%u is no longer pending: mounts editor "
		    "closed", ui->medit.id);
		ui_dirty_panes(ui);
		return NULL;
	}
	return r;
}

/* Send new mounts to the core; say what came of it. */
static void
medit_apply(struct ui *ui, struct request *r, const struct proto_mounts *m)
{
	char	*cause = NULL;

	if (console_set_mounts(ui->c, r->id, m, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
		return;
	}
	if (r->error != NULL)
		ui_message(ui, true, "#%u: %s", r->id, r->error);
	else
		ui_message(ui, false, "#%u: mounts changed; the argv in the "
		    "detail pane is what will run", r->id);
	ui_dirty_request(ui, r->id);
}

/* Open the mounts editor on a pending request. */
void
mounts_open(struct ui *ui, struct request *r)
{
	ui->medit = (struct mounts_editor){ .open = true, .id = r->id };
	if (ui->layout == LAYOUT_SMALL && ui->tab != PANE_DETAIL) {
		ui->tab = PANE_DETAIL;
		ui_layout(ui);
	}
	ui_dirty_panes(ui);
}

/* A path was typed for the editor. */
static void
medit_path_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	struct request		*r;
	struct proto_mounts	 m = PROTO_MOUNTS_INIT;
	char			*exp, *abs, *canon, *cause = NULL;
	char			 kind = ui->medit.adding;

	ui->medit.adding = 0;
	if (!ok || *text == '\0' || (r = medit_request(ui)) == NULL)
		return;
	exp = path_expand_home(text);
	abs = exp[0] == '/' ? xstrdup(exp) :
	    path_join(console_project(ui->c), exp);
	free(exp);
	canon = path_canonical_maybe(abs, &cause);
	free(abs);
	if (canon == NULL) {
		ui_message(ui, true, "%s", cause);
		free(cause);
		return;
	}
	proto_mounts_copy(&m, console_mounts(r));
	strv_push(kind == 'w' ? &m.rw : kind == 'o' ? &m.ro : &m.hide, canon);
	free(canon);
	medit_apply(ui, r, &m);
	proto_mounts_release(&m);
}

/* Remove entry i of a strv. */
static void
strv_remove(struct strv *v, size_t i)
{
	if (i >= v->n)
		return;
	free(v->v[i]);
	memmove(&v->v[i], &v->v[i + 1], (v->n - i) * sizeof *v->v);
	v->n--;
}

/* Keys for the mounts editor. */
static void
medit_key(struct ui *ui, int key, bool is_char)
{
	struct request		*r = medit_request(ui);
	struct proto_mounts	 m = PROTO_MOUNTS_INIT;
	struct medit_row	 rows[256];
	size_t			 n;
	const char		*what;

	if (r == NULL)
		return;
	n = medit_rows(console_mounts(r), rows, 256);
	ui->dirty_overlay = true;
	if ((is_char && key == 'j') || (!is_char && key == KEY_DOWN)) {
		if (ui->medit.sel + 1 < (int)n)
			ui->medit.sel++;
		return;
	}
	if ((is_char && key == 'k') || (!is_char && key == KEY_UP)) {
		if (ui->medit.sel > 0)
			ui->medit.sel--;
		return;
	}
	if (is_char && (key == 'w' || key == 'o' || key == 'h')) {
		what = key == 'w' ? "writable path to add (Enter: add)" :
		    key == 'o' ? "read-only path to add (Enter: add)" :
		    "path to hide (Enter: hide)";
		ui->medit.adding = (char)key;
		prompt_line(ui, what, "", r->id, medit_path_done);
		return;
	}
	if ((is_char && (key == 'x' || key == 'd')) ||
	    (!is_char && key == KEY_DC)) {
		if (n == 0 || ui->medit.sel >= (int)n)
			return;
		proto_mounts_copy(&m, console_mounts(r));
		struct medit_row *row = &rows[ui->medit.sel];
		strv_remove(row->kind == 'w' ? &m.rw : row->kind == 'o' ?
		    &m.ro : &m.hide, row->i);
		medit_apply(ui, r, &m);
		proto_mounts_release(&m);
		if (ui->medit.sel > 0 && ui->medit.sel >= (int)n - 1)
			ui->medit.sel--;
		return;
	}
	if (is_char && key == 'n') {
		ui_toggle_network(ui, r);
		return;
	}
	if (is_char && key == 'a') {
		ui->medit.open = false;
		ui_dirty_panes(ui);
		action_approve(ui);
		return;
	}
	if ((is_char && (key == KEY_ESC || key == '\r' || key == '\n' ||
	    key == 'q' || key == 'e')) || (!is_char && key == KEY_ENTER)) {
		ui->medit.open = false;
		ui_dirty_panes(ui);
	}
}

/* Where an overlay goes: beside or over what it should not hide. */
static void
prompt_overlay_window(struct ui *ui, int want_h)
{
	int	y, x, h, w;

	switch (ui->layout) {
	case LAYOUT_WIDE:
		/* The right column: queue and detail stay in view. */
		x = ui->cols / 2 + 1;
		w = ui->cols - x;
		y = 0;
		h = ui->lines - 1;
		break;
	case LAYOUT_TALL:
		/* Over the queue: the detail pane stays in view. */
		x = 0;
		w = ui->cols;
		y = 0;
		h = ui->panes[PANE_DETAIL].y;
		if (h < 8)
			h = ui->lines - 1;
		break;
	default:
		/* Over the queue; detail is the tab below. */
		x = 0;
		w = ui->cols;
		y = 0;
		h = ui->panes[PANE_QUEUE].h;
		if (h < 6)
			h = ui->lines - 1;
		break;
	}
	/* What does not fit over the queue takes the screen: a form never
	   hides its own lines (an error, the keys). */
	if (want_h > h)
		h = ui->lines - 1;
	if (want_h < h)
		h = want_h;
	if (h < 3)
		h = 3;
	if (ui->overlay != NULL) {
		/* A form that shrinks must not leave its old border behind:
		   put the panes under it back first. */
		delwin(ui->overlay);
		touchwin(stdscr);
		wnoutrefresh(stdscr);
		for (int i = 0; i < PANE_COUNT; i++) {
			if (ui->panes[i].win == NULL)
				continue;
			touchwin(ui->panes[i].win);
			wnoutrefresh(ui->panes[i].win);
		}
	}
	ui->overlay = newwin(h, w, y, x);
	wbkgdset(ui->overlay, ' ' | ui_attr(ui, UC_PROMPT));
	werase(ui->overlay);
	wattrset(ui->overlay, ui_attr(ui, UC_PROMPT));
	box(ui->overlay, 0, 0);
}

/* Put the lines of t in the overlay (inside its box). */
static void
prompt_overlay_text(struct ui *ui, const char *title, struct ui_text *t,
    int sel)
{
	int	h, w, first = 0;

	getmaxyx(ui->overlay, h, w);
	(void)w;
	if (sel >= 0 && sel >= h - 2)
		first = sel - (h - 3);
	mvwaddnstr(ui->overlay, 0, 2, title, w - 4);
	for (int row = 0; row < h - 2 && first + row < (int)t->lines.n;
	    row++) {
		const char *s = t->lines.v[first + row];

		wattrset(ui->overlay, ui_attr(ui, UC_PROMPT) |
		    (first + row == sel ? A_REVERSE : 0));
		mvwaddnstr(ui->overlay, row + 1, 1, s, (int)fmt_fit(s,
		    (size_t)w - 2, NULL));
	}
	wattrset(ui->overlay, A_NORMAL);
	wnoutrefresh(ui->overlay);
}

/* Draw the mounts editor. */
static void
medit_draw(struct ui *ui)
{
	struct request		*r = queue_find(console_queue(ui->c),
				    ui->medit.id);
	struct ui_text		 t = UI_TEXT_INIT;
	struct medit_row	 rows[256];
	size_t			 n, cols;
	int			 w, sel = -1;
	char			*title, *p;

	if (r == NULL)
		return;
	w = ui->layout == LAYOUT_WIDE ? ui->cols - ui->cols / 2 - 1 :
	    ui->cols;
	cols = w > 4 ? (size_t)w - 2 : 2;
	n = medit_rows(console_mounts(r), rows, 256);
	prompt_overlay_window(ui, (int)n + 8);
	ui_text_addf(&t, UC_PROMPT, "network %s (n toggles any host)",
	    r->network ? "any host" : r->domains.n > 0 ? "named hosts only" :
	    "off");
	if (n == 0)
		ui_text_add(&t, UC_PROMPT, "no extra paths");
	for (size_t i = 0; i < n; i++) {
		p = fmt_escape(rows[i].path);
		ui_text_addf(&t, UC_PROMPT, "%-4s %s", rows[i].kind == 'w' ?
		    "rw" : rows[i].kind == 'o' ? "ro" : "hide", p);
		free(p);
		if ((int)i == ui->medit.sel)
			sel = (int)t.lines.n - 1;
	}
	ui_text_wrap(&t, UC_PROMPT, "w add writable  o add read-only  "
	    "h hide  x remove  n network  a approve  Esc done", cols, 0);
	title = xasprintf(" mounts of #%u ", r->id);
	prompt_overlay_text(ui, title, &t, sel);
	free(title);
	ui_text_release(&t);
}

/* n: flip the network of a pending request. */
void
ui_toggle_network(struct ui *ui, struct request *r)
{
	struct proto_mounts	m = PROTO_MOUNTS_INIT;
	bool			on = r->network;

	if (r->state != REQUEST_PENDING) {
		ui_message(ui, true, "#%u is %s: the network can change only "
		    "while it waits for approval", r->id,
		    request_state_name(r->state));
		return;
	}
	proto_mounts_copy(&m, console_mounts(r));
	m.network = on ? 0 : 1;
	medit_apply(ui, r, &m);
	proto_mounts_release(&m);
	if (r->network == on)
		ui_message(ui, true, "#%u: the profile '%s' sets the network; "
		    "it stays %s", r->id, r->profile != NULL ? r->profile : "?",
		    on ? "on" : "off");
	else
		ui_message(ui, false, "#%u: network %s", r->id, on ? "off" :
		    "any host");
}

/* ---- the approve-and-add-rule form ---- */

/* Open the form for a pending request. */
void
rule_open(struct ui *ui, struct request *r)
{
	struct rule_form	*f = &ui->rule;

	strv_release(&f->profiles);
	free(f->error);
	*f = (struct rule_form){ .open = true, .id = r->id };
	rule_profiles(&f->profiles);
	/* What the verdict says the command needs may be two profiles
	   (git-write+network): offered, and chosen, as it is. */
	if (r->profile != NULL && !strv_contains(&f->profiles, r->profile))
		strv_push(&f->profiles, r->profile);
	for (size_t i = 0; i < f->profiles.n; i++)
		if (r->profile != NULL && strcmp(f->profiles.v[i],
		    r->profile) == 0)
			f->profile = i;
	f->maxwords = rule_max_words(r);
	ui_dirty_panes(ui);
}

/* Close the form. */
static void
rule_close(struct ui *ui)
{
	strv_release(&ui->rule.profiles);
	free(ui->rule.error);
	ui->rule = (struct rule_form){ .open = false };
	ui_dirty_panes(ui);
}

/* The choice the form shows. */
static void
rule_choice(struct ui *ui, struct request *r, struct rule_choice *ch,
    char *who)
{
	ch->command = r->command;
	ch->is_argv = r->is_argv;
	ch->argv = &r->argv;
	ch->prefix = ui->rule.prefix;
	ch->profile = ui->rule.profiles.n > 0 ?
	    ui->rule.profiles.v[ui->rule.profile] : "project";
	ch->who = who;
}

/* Enter: write the rule, reload, approve. */
static void
rule_commit(struct ui *ui, struct request *r)
{
	struct rule_choice	 ch;
	cJSON			*rule;
	char			*cause = NULL, *path = NULL, *who, *note;
	const cJSON		*id;

	who = xasprintf("terminal (uid %u)", (unsigned)getuid());
	rule_choice(ui, r, &ch, who);
	if ((rule = rule_build(&ch, &cause)) == NULL ||
	    rule_write(rule, console_project(ui->c), ui->rule.scope,
	    &path, &cause) != 0) {
		free(ui->rule.error);
		ui->rule.error = cause;
		cJSON_Delete(rule);
		free(who);
		ui->dirty_overlay = true;
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(rule, "id");
	note = xasprintf("rule %s added to %s", id->valuestring, path);
	if (console_reload(ui->c, who, &cause) != 0) {
		ui_message(ui, true, "rule written, but the rule files do not "
		    "load: %s", cause);
		free(cause);
	} else if ((r->profile == NULL || strcmp(r->profile,
	    ch.profile) != 0) && console_set_profile(ui->c, r->id,
	    ch.profile, &cause) != 0) {
		/* The current request runs with the rule's profile. */
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else if (console_approve(ui->c, r->id, who, note, &cause) != 0) {
		ui_message(ui, true, "%s", cause);
		free(cause);
	} else
		ui_message(ui, false, "#%u approved; %s", r->id, note);
	free(note);
	free(path);
	free(who);
	cJSON_Delete(rule);
	rule_close(ui);
}

/* Keys for the form. */
static void
rule_key(struct ui *ui, int key, bool is_char)
{
	struct rule_form	*f = &ui->rule;
	struct request		*r = queue_find(console_queue(ui->c), f->id);

	if (r == NULL || r->state != REQUEST_PENDING) {
		rule_close(ui);
		ui_message(ui, true, "#%u is no longer pending", f->id);
		return;
	}
	ui->dirty_overlay = true;
	free(f->error);
	f->error = NULL;
	if (is_char && key == 'e')
		f->prefix = 0;
	else if (is_char && key == 'w')
		f->scope = (f->scope + 1) % RULE_SCOPE_N;
	else if (is_char && key == 'p')
		f->prefix = f->prefix == 0 ? 1 : f->prefix;
	else if ((is_char && (key == '+' || key == 'l')) ||
	    (!is_char && key == KEY_RIGHT)) {
		if (f->prefix < f->maxwords)
			f->prefix++;
	} else if ((is_char && (key == '-' || key == 'h')) ||
	    (!is_char && key == KEY_LEFT)) {
		if (f->prefix > 0)
			f->prefix--;
	} else if ((is_char && (key == '\t' || key == 'j')) ||
	    (!is_char && key == KEY_DOWN)) {
		if (f->profiles.n > 0)
			f->profile = (f->profile + 1) % f->profiles.n;
	} else if ((is_char && key == 'k') || (!is_char && (key == KEY_UP ||
	    key == KEY_BTAB))) {
		if (f->profiles.n > 0)
			f->profile = (f->profile + f->profiles.n - 1) %
			    f->profiles.n;
	} else if ((is_char && (key == '\r' || key == '\n')) ||
	    (!is_char && key == KEY_ENTER))
		rule_commit(ui, r);
	else if (is_char && (key == KEY_ESC || key == 'q' ||
	    key == CTRL('c'))) {
		rule_close(ui);
		ui_message(ui, false, "no rule added, nothing approved");
	}
}

/* Draw the form with a preview of the rule. */
static void
rule_draw(struct ui *ui)
{
	struct rule_form	*f = &ui->rule;
	struct request		*r = queue_find(console_queue(ui->c), f->id);
	struct ui_text		 t = UI_TEXT_INIT;
	struct rule_choice	 ch;
	cJSON			*rule;
	char			*cause = NULL, *s, *e, *title;
	size_t			 cols;
	int			 w;

	if (r == NULL)
		return;
	w = ui->layout == LAYOUT_WIDE ? ui->cols - ui->cols / 2 - 1 :
	    ui->cols;
	cols = w > 4 ? (size_t)w - 2 : 2;
	if (f->prefix == 0)
		ui_text_wrap(&t, UC_PROMPT, "scope: this exact command "
		    "(p: a prefix instead)", cols, 2);
	else {
		s = xasprintf("scope: the first %zu word%s of each command, "
		    "then anything (-/+ fewer/more words, e: exact)",
		    f->prefix, f->prefix == 1 ? "" : "s");
		ui_text_wrap(&t, UC_PROMPT, s, cols, 2);
		free(s);
	}
	s = xasprintf("profile: %s (Tab: next)", f->profiles.n > 0 ?
	    f->profiles.v[f->profile] : "project");
	ui_text_wrap(&t, UC_PROMPT, s, cols, 2);
	free(s);
	rule_choice(ui, r, &ch, "the operator");
	if ((rule = rule_build(&ch, &cause)) != NULL) {
		const cJSON *pat;

		cJSON_ArrayForEach(pat, cJSON_GetObjectItem(rule, "pattern")) {
			e = fmt_escape(pat->valuestring);
			s = xasprintf("allow: %s", e);
			ui_text_wrap(&t, UC_PROMPT, s, cols, 7);
			free(s);
			free(e);
		}
		s = xasprintf("where: %s", f->scope == RULE_SCOPE_ALL ?
		    "every project (w: this console session)" :
		    f->scope == RULE_SCOPE_SESSION ? "this console session "
		    "only (w: this project)" : "this project only (w: every "
		    "project)");
		ui_text_wrap(&t, UC_PROMPT, s, cols, 2);
		free(s);
		s = f->scope == RULE_SCOPE_SESSION ? xstrdup("kept beside the "
		    "console's sockets; removed when it ends") :
		    xasprintf("into $XDG_CONFIG_HOME/bwgate/%s",
		    f->scope == RULE_SCOPE_ALL ? "allowlist.json" : "projects/ "
		    "(yours, not the project's .bwgate.json)");
		ui_text_wrap(&t, UC_PROMPT, s, cols, 2);
		free(s);
		cJSON_Delete(rule);
	} else {
		e = fmt_escape(cause);
		s = xasprintf("cannot make this rule: %s", e);
		ui_text_wrap(&t, UC_WARN, s, cols, 2);
		free(s);
		free(e);
		free(cause);
	}
	if (f->error != NULL) {
		e = fmt_escape(f->error);
		ui_text_wrap(&t, UC_WARN, e, cols, 2);
		free(e);
	}
	ui_text_wrap(&t, UC_PROMPT, "Enter: add the rule and approve  "
	    "Esc: cancel", cols, 0);
	prompt_overlay_window(ui, (int)t.lines.n + 2);
	title = xasprintf(" approve #%u and add a rule to your allowlist ",
	    r->id);
	prompt_overlay_text(ui, title, &t, -1);
	free(title);
	ui_text_release(&t);
}

/* Route a key to whatever prompt is open; false if none took it. */
bool
prompt_key(struct ui *ui, int key, bool is_char)
{
	if (ui->prompt.kind != PROMPT_NONE) {
		prompt_line_key(ui, key, is_char);
		return true;
	}
	if (ui->medit.open) {
		medit_key(ui, key, is_char);
		return true;
	}
	if (ui->rule.open) {
		rule_key(ui, key, is_char);
		return true;
	}
	return false;
}

/* Draw the open overlay (mounts editor or rule form). */
void
prompt_draw_overlay(struct ui *ui)
{
	if (ui->medit.open)
		medit_draw(ui);
	else if (ui->rule.open)
		rule_draw(ui);
}

/* Drop every prompt (the UI is going away). */
void
prompt_close_all(struct ui *ui)
{
	free(ui->prompt.label);
	buf_release(&ui->prompt.text);
	ui->prompt = (struct prompt){ .kind = PROMPT_NONE };
	ui->medit.open = false;
	strv_release(&ui->rule.profiles);
	free(ui->rule.error);
	ui->rule = (struct rule_form){ .open = false };
}
