/*
 * ui: life cycle of the terminal UI, the drawing schedule, the selection
 * and the status line (see ui.h for the overall design).
 *
 * Drawing happens in one place, ui_draw(), after a loop pass: handlers
 * only mark panes dirty. Bursts (a flood of requests, a chatty command)
 * are drawn at most every UI_FRAME_MS; a key press is drawn at once so
 * typing never lags.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "format.h"
#include "log.h"
#include "ui.h"
#include "xalloc.h"

#define UI_FRAME_MS	30	/* fastest redraw rate under load */
#define UI_TICK_MS	1000	/* ages and elapsed times */
#define UI_MESSAGE_MS	6000	/* how long a status message stays */

/*
 * Colours: the pair used with colours, and the attribute used without
 * (monochrome terminals, NO_COLOR). -1 is the terminal's default.
 */
static const struct {
	short	fg, bg;
	int	attr;		/* added to the colour pair */
	int	mono;		/* used instead without colour */
} ui_colors[UC_COUNT] = {
	[UC_NORMAL] =		{ -1, -1, 0, 0 },
	[UC_TITLE] =		{ COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
	[UC_TITLE_FOCUS] =	{ COLOR_BLACK, COLOR_CYAN, A_BOLD,
				  A_REVERSE | A_BOLD },
	[UC_SELECTED] =		{ -1, -1, A_REVERSE, A_REVERSE },
	[UC_PENDING] =		{ COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[UC_ALLOW] =		{ COLOR_GREEN, -1, 0, 0 },
	[UC_ASK] =		{ COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[UC_DENY] =		{ COLOR_RED, -1, A_BOLD, A_UNDERLINE },
	[UC_RUNNING] =		{ COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[UC_OK] =		{ COLOR_GREEN, -1, 0, 0 },
	[UC_FAIL] =		{ COLOR_RED, -1, 0, A_UNDERLINE },
	[UC_DENIED] =		{ COLOR_MAGENTA, -1, 0, A_DIM },
	[UC_CREATED] =		{ COLOR_GREEN, -1, 0, 0 },
	[UC_MODIFIED] =		{ COLOR_YELLOW, -1, 0, 0 },
	[UC_DELETED] =		{ COLOR_RED, -1, 0, 0 },
	[UC_MOVED] =		{ COLOR_BLUE, -1, A_BOLD, 0 },
	[UC_WARN] =		{ COLOR_RED, -1, A_BOLD, A_BOLD },
	[UC_DIM] =		{ -1, -1, A_DIM, A_DIM },
	[UC_LABEL] =		{ COLOR_CYAN, -1, 0, A_BOLD },
	[UC_STATUS] =		{ COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE },
	[UC_MESSAGE] =		{ COLOR_BLACK, COLOR_YELLOW, 0,
				  A_REVERSE | A_BOLD },
	[UC_ERROR] =		{ COLOR_WHITE, COLOR_RED, A_BOLD,
				  A_REVERSE | A_BOLD },
	[UC_PROMPT] =		{ COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
	[UC_ATTENTION] =	{ COLOR_BLACK, COLOR_RED, A_BOLD,
				  A_REVERSE | A_BOLD },
	[UC_DANGER] =		{ COLOR_WHITE, COLOR_RED, A_BOLD,
				  A_REVERSE | A_BOLD },
};

/* The one UI, for the exit and crash handlers. */
static struct ui	*ui_global;

static void	ui_draw(struct ui *, bool now);

/* Wall-clock milliseconds. */
int64_t
ui_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The attribute for a colour role. */
int
ui_attr(const struct ui *ui, enum ui_color c)
{
	return ui->attrs[c];
}

/* Set up colours, or monochrome attributes. */
static void
ui_colors_init(struct ui *ui)
{
	const char	*nc = getenv("NO_COLOR");
	int		 i;

	ui->color = has_colors() && (nc == NULL || *nc == '\0');
	if (ui->color && start_color() == ERR)
		ui->color = false;
	if (ui->color)
		use_default_colors();
	for (i = 0; i < UC_COUNT; i++) {
		if (!ui->color) {
			ui->attrs[i] = ui_colors[i].mono;
			continue;
		}
		if (ui_colors[i].fg == -1 && ui_colors[i].bg == -1) {
			ui->attrs[i] = ui_colors[i].attr;
			continue;
		}
		init_pair((short)i, ui_colors[i].fg, ui_colors[i].bg);
		ui->attrs[i] = COLOR_PAIR(i) | ui_colors[i].attr;
	}
}

/* Show a message in the status line for a while. */
void
ui_message(struct ui *ui, bool error, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	LOG("%s", s);
	free(ui->message);
	ui->message = fmt_escape(s);
	free(s);
	ui->message_error = error;
	ui->message_until = loop_now_ms() + UI_MESSAGE_MS;
	ui->dirty_status = true;
}

/* Mark every pane for redrawing. */
void
ui_dirty_panes(struct ui *ui)
{
	for (int i = 0; i < PANE_COUNT; i++)
		ui->panes[i].dirty = true;
	ui->dirty_status = true;
	ui->dirty_overlay = true;
}

/* A request changed: redraw the queue, and its panes if it is shown. */
void
ui_dirty_request(struct ui *ui, uint32_t id)
{
	ui->panes[PANE_QUEUE].dirty = true;
	ui->dirty_status = true;
	if (id == ui->sel) {
		ui->panes[PANE_DETAIL].dirty = true;
		ui->panes[PANE_REPORT].dirty = true;
		ui->panes[PANE_FILES].dirty = true;
		ui->dirty_overlay = true;
	}
}

/* The name the console shows for its project: the last component of its
   directory (agents and operators name projects so). */
const char *
ui_project_name(const struct ui *ui)
{
	const char	*root = console_project(ui->c), *slash;

	if (root == NULL || *root == '\0')
		return "?";
	slash = strrchr(root, '/');
	if (slash == NULL)
		return root;
	if (slash[1] != '\0')
		return slash + 1;
	return root;	/* "/" */
}

/* Does the filter (and the one-agent view) let this request through? */
bool
ui_matches(const struct ui *ui, const struct request *r)
{
	if (ui->agent != NULL && (r->agent == NULL ||
	    strcmp(r->agent, ui->agent) != 0))
		return false;
	return fmt_filter_match(r, ui->filter);
}

/* Does the queue show this request? What the filter lets through, and
   every request waiting for the operator whatever the filter: those it
   does not let through are a group of their own at the top of the queue
   (ui_rows). */
bool
ui_visible(const struct ui *ui, const struct request *r)
{
	return ui_matches(ui, r) || fmt_needs_operator(r);
}

/* The selected request, or NULL. */
struct request *
ui_selected(struct ui *ui)
{
	return ui->sel != 0 ? queue_find(console_queue(ui->c), ui->sel) :
	    NULL;
}

/* Select a request; the content panes start again at their ends. A
   choice of the operator's pauses follow (until a request waits). */
void
ui_select(struct ui *ui, uint32_t id, bool by_operator)
{
	if (by_operator)
		ui_follow_pause(ui);
	if (id == ui->sel)
		return;
	/* Guard decisions when the request the operator was looking at
	   waited for them and changed under them (withdrawn, decided from
	   the control socket, gone), not after their own key. */
	if (!by_operator && !ui->in_key && ui->sel_was_pending)
		ui->autosel_ms = loop_now_ms();
	ui->sel = id;
	for (int i = PANE_DETAIL; i < PANE_COUNT; i++)
		ui->panes[i].scroll = 0;
	ui_dirty_panes(ui);
}

/*
 * Follow the work: the oldest request waiting for the operator, else the
 * newest running one, else the one that changed last (what just ended),
 * else the newest. The oldest pending one does not
 * change when more arrive, so a flood never moves the selection away
 * from what the operator is reading.
 */
void
ui_follow(struct ui *ui)
{
	struct request	**rows, *r, *pending = NULL, *running = NULL;
	struct request	*last = NULL, *recent = NULL;
	size_t		 n, apart, i;

	if (!ui->follow || ui->follow_paused)
		return;
	n = ui_rows(ui, &rows, &apart);
	/* What the filter lets through first: what waits outside it is
	   followed when nothing inside it does. */
	for (i = apart; i < n; i++) {
		r = rows[i];
		if (pending == NULL && fmt_needs_operator(r))
			pending = r;
		if (r->state == REQUEST_RUNNING)
			running = r;
		if (r->id == ui->recent)
			recent = r;
		last = r;
	}
	if (pending == NULL && apart > 0)
		pending = rows[0];
	r = pending != NULL ? pending : running != NULL ? running :
	    recent != NULL ? recent : last;
	free(rows);
	ui_select(ui, r != NULL ? r->id : 0, false);
}

/* Move the selection by delta visible rows (the operator did it). */
void
ui_move(struct ui *ui, int delta)
{
	struct request	**rows;
	size_t		 n, apart, i;
	long		 to;

	ui_follow_pause(ui);
	n = ui_rows(ui, &rows, &apart);
	if (n == 0) {
		free(rows);
		ui_select(ui, 0, true);
		return;
	}
	for (i = 0; i < n && rows[i]->id != ui->sel; i++)
		;
	if (i == n)	/* nothing selected in sight: the last row */
		to = (long)n - 1;
	else
		to = (long)i + delta;
	if (to < 0)
		to = 0;
	if (to >= (long)n)
		to = (long)n - 1;
	ui_select(ui, rows[to]->id, true);
	free(rows);
}

/* Waiting for the operator (requests pending, and every host question a
   running request asks), running (and approved, about to run), ended. */
void
ui_counts(struct ui *ui, size_t *pending, size_t *running, size_t *done)
{
	struct request	*r;

	*pending = *running = *done = 0;
	TAILQ_FOREACH(r, &console_queue(ui->c)->requests, entry) {
		if (r->wants != NULL)
			*pending += 1 + r->wants_also.n;
		if (r->state == REQUEST_PENDING)
			(*pending)++;
		else if (r->state == REQUEST_RUNNING ||
		    r->state == REQUEST_APPROVED)
			(*running)++;
		else
			(*done)++;
	}
}

/* Quit confirmed (or nothing to lose): shut the console down. */
static void
ui_quit_done(struct ui *ui, uint32_t id, bool ok, const char *text)
{
	if (!ok) {
		ui_message(ui, false, "not quitting");
		return;
	}
	ui->quitting = true;
	ui_message(ui, false, "shutting down: stopping what runs");
	console_shutdown(ui->c, "the operator quit");
}

/* q: quit, asking first when work would be lost. */
void
ui_request_quit(struct ui *ui)
{
	size_t	 pending, running, done, services;
	char	*q;

	if (ui->quitting) {
		/* Asked again while shutting down: do not wait. */
		console_shutdown(ui->c, "the operator quit again");
		return;
	}
	ui_counts(ui, &pending, &running, &done);
	services = console_services(ui->c, NULL, 0);
	if (pending == 0 && running == 0 && services == 0) {
		ui_quit_done(ui, 0, true, NULL);
		return;
	}
	if (services > 0)
		q = xasprintf("%zu pending will be denied, %zu running "
		    "killed, %zu service%s stopped. Quit? (y/N)", pending,
		    running, services, services == 1 ? "" : "s");
	else
		q = xasprintf("%zu pending will be denied, %zu running "
		    "killed. Quit? (y/N)", pending, running);
	prompt_confirm(ui, q, 0, ui_quit_done);
	free(q);
}

/* An event from the console core. */
static void
ui_on_event(struct console *c, const struct console_event *ev, void *arg)
{
	struct ui	*ui = arg;
	struct request	*r = ev->r, *n;

	switch (ev->type) {
	case CONSOLE_EV_ADDED:
		ui->recent = r->id;
		ui_dirty_request(ui, r->id);
		if (ui->sel == 0)
			ui->follow_paused = false;
		ui_attention_event(ui, r);
		ui_follow(ui);
		break;
	case CONSOLE_EV_CHANGED:
		ui->recent = r->id;
		ui_dirty_request(ui, r->id);
		ui_attention_event(ui, r);
		ui_follow(ui);
		break;
	case CONSOLE_EV_OUTPUT:
		if (r->id == ui->sel)
			ui->panes[PANE_OUTPUT].dirty = true;
		break;
	case CONSOLE_EV_FSEVENT:
		if (r->id == ui->sel)
			ui->panes[PANE_FILES].dirty = true;
		break;
	case CONSOLE_EV_OUTSIDE:
		ui->panes[PANE_FILES].dirty = true;
		break;
	case CONSOLE_EV_REMOVED:
		ui->panes[PANE_QUEUE].dirty = true;
		if (r->id != ui->sel)
			break;
		/* The request is about to go: select a neighbour now. */
		n = TAILQ_NEXT(r, entry);
		if (n == NULL)
			n = TAILQ_PREV(r, request_list, entry);
		ui_select(ui, n != NULL ? n->id : 0, false);
		ui_follow(ui);
		break;
	case CONSOLE_EV_MESSAGE:
	case CONSOLE_EV_QUIT:
		ui_message(ui, false, "%s", ev->message);
		break;
	case CONSOLE_EV_CLIENTS:
		ui->dirty_status = true;
		break;
	case CONSOLE_EV_SERVICE:
		ui->panes[PANE_QUEUE].dirty = true;
		ui->panes[PANE_OUTPUT].dirty = true;
		ui->panes[PANE_DETAIL].dirty = true;
		break;
	}
}

/* Once a second: ages, elapsed times, messages that expire. */
static void
ui_on_tick(void *arg)
{
	struct ui	*ui = arg;

	ui->panes[PANE_QUEUE].dirty = true;
	ui->panes[PANE_DETAIL].dirty = true;	/* its age */
	{
		struct request *r = ui_selected(ui);

		/* The report pane's title: the elapsed time of a run. */
		if (r != NULL && r->state == REQUEST_RUNNING)
			ui->panes[PANE_REPORT].dirty = true;
	}
	ui->dirty_status = true;
	if (ui->message != NULL && loop_now_ms() >= ui->message_until) {
		free(ui->message);
		ui->message = NULL;
	}
	ui->tick = loop_timer(ui->loop, UI_TICK_MS, ui_on_tick, ui);
}

/* The terminal changed size. */
static void
ui_resize(struct ui *ui)
{
	struct winsize	ws;

	if (ioctl(ui->ttyfd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	ui_layout(ui);
	ui->dirty_all = true;
	ui_dirty_panes(ui);
}

/* SIGWINCH through the loop. */
static void
ui_on_winch(int signo, void *arg)
{
	ui_resize(arg);
}

/* Keys from the terminal. */
static void
ui_on_tty(int fd, short revents, void *arg)
{
	struct ui	*ui = arg;
	wint_t		 wc;
	int		 rc, n = 0;

	if (revents & (POLLHUP | POLLERR | POLLNVAL)) {
		/* The terminal is gone (tmux pane killed): stop. */
		loop_remove(ui->loop, fd);
		console_shutdown(ui->c, "the terminal went away");
		return;
	}
	if (ui->argv_view) {
		/* Outside curses (v): a line typed brings the screen back. */
		char	junk[256];

		(void)!read(fd, junk, sizeof junk);
		ui->argv_view = false;
		reset_prog_mode();
		ui->dirty_all = true;
		ui_draw(ui, true);
		return;
	}
	while (n++ < 256 && (rc = wget_wch(ui->input, &wc)) != ERR) {
		if (rc == KEY_CODE_YES && wc == KEY_RESIZE) {
			ui_resize(ui);
			continue;
		}
		ui->in_key = true;
		ui_key(ui, (int)wc, rc == OK);
		ui->in_key = false;
	}
	ui_draw(ui, true);
}

/* Give the terminal back (idempotent; exit and crash paths call it). */
void
ui_restore(void)
{
	struct ui	*ui = ui_global;

	if (ui == NULL || !ui->active)
		return;
	ui_crash_disarm();
	ui->active = false;
	endwin();
	fflush(ui->tty);
	ui_capture_stop(ui);
}

/* At exit: the terminal must never stay in raw mode. */
static void
ui_atexit(void)
{
	ui_restore();
}

/* The status line: counts, socket, key hints or a message. */
static void
ui_draw_status(struct ui *ui)
{
	struct buf	 b = BUF_INIT;
	size_t		 pending, running, done;
	char		*line, *sock;
	int		 attr;

	werase(ui->status);
	if (ui->prompt.kind != PROMPT_NONE) {
		prompt_draw_status(ui);
		wnoutrefresh(ui->status);
		return;
	}
	ui_counts(ui, &pending, &running, &done);
	sock = fmt_escape(console_socket_path(ui->c));
	if (ui->message != NULL) {
		buf_printf(&b, " %s", ui->message);
		attr = ui_attr(ui, ui->message_error ? UC_ERROR : UC_MESSAGE);
	} else {
		/* Narrow, the keys instead of the counts (the queue title
		   has them). */
		if (ui->cols < 60)
			buf_printf(&b, " %s", ui_hints(ui, (size_t)ui->cols));
		else
			buf_printf(&b, " %zu pending  %zu running  %zu done",
			    pending, running, done);
		if (ui->filter != NULL) {
			buf_puts(&b, "  filter: ");
			char *f = fmt_typed(ui->filter);

			buf_puts(&b, f);
			free(f);
		}
		if (ui->cols >= 60)
			buf_printf(&b, "  %s", ui_hints(ui, (size_t)ui->cols));
		buf_printf(&b, "  %s", sock);
		attr = ui_attr(ui, UC_STATUS);
	}
	line = fmt_trim(b.data, (size_t)ui->cols, true);
	wattrset(ui->status, attr);
	mvwaddnstr(ui->status, 0, 0, line, -1);
	wattrset(ui->status, A_NORMAL);
	wnoutrefresh(ui->status);
	free(line);
	free(sock);
	buf_release(&b);
}

/* The draw timer fired: draw what waited. */
static void
ui_on_draw_timer(void *arg)
{
	struct ui	*ui = arg;

	ui->draw_timer = 0;
	ui_draw(ui, true);
}

/* Is anything waiting to be drawn? */
static bool
ui_needs_draw(const struct ui *ui)
{
	if (ui->dirty_all || ui->dirty_status || ui->dirty_overlay)
		return true;
	for (int i = 0; i < PANE_COUNT; i++)
		if (ui->panes[i].dirty && ui->panes[i].win != NULL)
			return true;
	return false;
}

/* Draw what is dirty: wnoutrefresh per window, one doupdate. */
static void
ui_draw(struct ui *ui, bool now)
{
	int64_t		 t = loop_now_ms();
	struct pane	*p;
	bool		 any = false, overlay;

	if (!ui->active || ui->argv_view || !ui_needs_draw(ui))
		return;
	if (!now && t - ui->last_draw < UI_FRAME_MS) {
		if (ui->draw_timer == 0)
			ui->draw_timer = loop_timer(ui->loop, UI_FRAME_MS -
			    (t - ui->last_draw), ui_on_draw_timer, ui);
		return;
	}
	if (ui->draw_timer != 0) {
		loop_cancel(ui->loop, ui->draw_timer);
		ui->draw_timer = 0;
	}
	ui->last_draw = t;
	if (ui->dirty_all) {
		/* Blank what no pane covers (the gap, after a resize). */
		werase(stdscr);
		wnoutrefresh(stdscr);
		clearok(curscr, TRUE);
		ui_dirty_panes(ui);
		ui->dirty_all = false;
	}
	if (ui->lines < 4 || ui->cols < 10) {
		werase(ui->status);
		mvwaddnstr(ui->status, 0, 0, "terminal too small", ui->cols);
		wnoutrefresh(ui->status);
		doupdate();
		return;
	}
	/* Keep the selection where the operator can see it. */
	ui_follow(ui);
	overlay = ui->help || ui->medit.open || ui->rule.open;
	for (int i = 0; i < PANE_COUNT; i++) {
		p = &ui->panes[i];
		if (p->win == NULL || !p->dirty)
			continue;
		werase(p->win);
		p->draw(ui, p);
		wnoutrefresh(p->win);
		p->dirty = false;
		any = true;
	}
	if (overlay && (any || ui->dirty_overlay)) {
		if (ui->help)
			ui_help_draw(ui);
		else
			prompt_draw_overlay(ui);
	}
	ui->dirty_overlay = false;
	ui_draw_status(ui);
	ui->dirty_status = false;
	doupdate();
	/* What the operator now sees selected. */
	ui->sel_was_pending = ui_selected(ui) != NULL &&
	    ui_selected(ui)->state == REQUEST_PENDING;
	ui_attention_flush(ui);
}

/* Start curses on /dev/tty. */
static int
ui_start(struct ui *ui, char **cause)
{
	const char	*term = getenv("TERM");
	int		 fd;

	fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*cause = xasprintf("cannot open the terminal '/dev/tty': %s "
		    "(use --headless)", strerror(errno));
		return -1;
	}
	if ((ui->tty = fdopen(fd, "r+")) == NULL) {
		*cause = xasprintf("cannot use '/dev/tty': %s",
		    strerror(errno));
		close(fd);
		return -1;
	}
	ui->ttyfd = fd;
	ui_crash_arm(fd);	/* the modes before curses changes them */
	setlocale(LC_ALL, "");
	fmt_set_ascii(strcmp(nl_langinfo(CODESET), "UTF-8") != 0);
	if (getenv("ESCDELAY") == NULL)
		set_escdelay(25);
	ui->screen = newterm(term != NULL && *term != '\0' ? NULL : "dumb",
	    ui->tty, ui->tty);
	if (ui->screen == NULL) {
		ui_crash_disarm();
		*cause = xasprintf("cannot start the terminal UI for "
		    "TERM='%s' (use --headless)", term != NULL ? term : "");
		fclose(ui->tty);
		ui->tty = NULL;
		return -1;
	}
	ui->active = true;
	ui_global = ui;
	atexit(ui_atexit);
	xalloc_on_fatal(ui_restore);
	raw();
	noecho();
	nonl();
	curs_set(0);
	ui_colors_init(ui);
	ui->input = newwin(1, 1, 0, 0);
	keypad(ui->input, TRUE);
	/* Off by default, like tmux's mouse option: with it on the terminal
	   no longer selects text for copying. */
	if (console_config(ui->c)->mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED,
		    NULL);
		mouseinterval(0);
	}
	nodelay(ui->input, TRUE);
	wnoutrefresh(ui->input);
	ui_layout(ui);
	return 0;
}

/* Run the terminal UI until the console is done. */
int
ui_main(struct console *c, struct loop *l, char **cause)
{
	struct ui	 uis, *ui = &uis;
	size_t		 pending, running, done;

	memset(ui, 0, sizeof *ui);
	ui->c = c;
	ui->loop = l;
	ui->follow = true;
	ui->marked = SIZE_MAX;	/* tmux learns the project at the first draw */
	ui->focus = PANE_QUEUE;
	ui->tab = PANE_DETAIL;
	ui->ttyfd = -1;
	ui->saved_out = ui->saved_err = ui->capture = -1;
	if (ui_start(ui, cause) != 0)
		return -1;
	ui_capture_start(ui);
	console_subscribe(c, ui_on_event, ui);
	loop_add(l, ui->ttyfd, POLLIN, ui_on_tty, ui);
	loop_signal(l, SIGWINCH, ui_on_winch, ui);
	ui->tick = loop_timer(l, UI_TICK_MS, ui_on_tick, ui);
	if (console_rules_problem(c) != NULL)
		ui_message(ui, true, "%s", console_rules_problem(c));
	else
		ui_message(ui, false, "console for %s: agents use "
		    "BWGATE_SOCKET=%s", console_project(c),
		    console_socket_path(c));
	ui_follow(ui);
	ui->dirty_all = true;
	ui_draw(ui, true);

	while (!console_done(c)) {
		loop_run_once(l, -1);
		console_clear_dirty(c);
		ui_draw(ui, false);
	}

	ui_counts(ui, &pending, &running, &done);
	loop_remove(l, ui->ttyfd);
	loop_cancel(l, ui->tick);
	if (ui->draw_timer != 0)
		loop_cancel(l, ui->draw_timer);
	prompt_close_all(ui);
	if (ui->marked != SIZE_MAX)
		ui_tmux_mark(ui_project_name(ui), 0, NULL, true);
	free(ui->marked_host);
	ui->marked_host = NULL;
	ui_restore();
	ui_global = NULL;
	for (int i = 0; i < PANE_COUNT; i++)
		if (ui->panes[i].win != NULL)
			delwin(ui->panes[i].win);
	if (ui->overlay != NULL)
		delwin(ui->overlay);
	delwin(ui->status);
	delwin(ui->input);
	delscreen(ui->screen);
	fclose(ui->tty);
	free(ui->filter);
	strv_release(&ui->undo_preview);
	free(ui->agent);
	free(ui->qrow_id);
	free(ui->search.text);
	free(ui->message);
	fprintf(stderr, "bwgate: console stopped (%zu requests handled)\n",
	    done);
	return 0;
}
