/*
 * ui: the ncurses front end of the console (bwgate on a terminal).
 *
 * The console core (console.h) owns the loop; the UI is one more thing on
 * it: the terminal's descriptor (/dev/tty, never stdin, so nothing piped
 * in can approve anything), SIGWINCH, a one-second tick for ages and
 * elapsed times, and a console_subscribe() callback. Handlers only change
 * state and set dirty bits; after each loop pass ui_draw() redraws what is
 * dirty with wnoutrefresh() per window and one doupdate(). Nothing here
 * ever waits for the operator: prompts are modal states that route keys,
 * not blocking reads, so agents' requests, output and file events keep
 * flowing while one is open.
 *
 * While curses is active descriptors 1 and 2 point at a pipe that the UI
 * reads and shows in the status line, so a stray message from anywhere
 * cannot scribble on the screen; ui_restore() (also run at exit and on a
 * crash signal) gives the terminal and the descriptors back before any
 * fatal message is printed.
 *
 * Files: ui.c (life cycle, drawing schedule, selection, status line),
 * layout.c (pane geometry), pane-*.c (one per pane), actions.c (what the
 * operator can do), keys.c (the key table and help), term.c (output
 * capture, crash restore), prompt.c (prompts,
 * mounts editor, rule form), rule.c (writing a user allowlist rule),
 * tmux.c (bwgate --tmux), attention.c (bell, tmux marker, follow),
 * search.c (search, filters, zoom), text.c (escaping and measuring text)
 * and format.c (the panes' lines), both pure and unit-tested.
 *
 * Entry points for cmd-console.c: ui_main() and ui_tmux().
 */
#ifndef BWGATE_UI_H
#define BWGATE_UI_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "console.h"
#include "protocol.h"
#include "strv.h"

/* Run the terminal UI on c until the console is done; 0, or -1 with a
   cause when the terminal cannot be used (nothing was drawn then). */
int	 ui_main(struct console *c, struct loop *l, char **cause);
/* bwgate --tmux: open the console with args (the console's arguments
   without --tmux) in a side pane of the current tmux window; socket and
   project are the parsed --socket and --project, or NULL. 0, or -1 when
   it could not (it said why). */
int	 ui_tmux(const char *socket, const char *project,
	    const struct strv *args);

/* ---- internals shared by the ui/ files ---- */

enum ui_color {
	UC_NORMAL,
	UC_TITLE,	/* pane title */
	UC_TITLE_FOCUS,	/* title of the pane with the focus */
	UC_SELECTED,	/* selected queue row */
	UC_PENDING,	/* waits for the operator */
	UC_ALLOW,
	UC_ASK,
	UC_DENY,
	UC_RUNNING,
	UC_OK,		/* exit 0 */
	UC_FAIL,	/* exit != 0, failed, killed, timed out */
	UC_DENIED,
	UC_CREATED,
	UC_MODIFIED,
	UC_DELETED,
	UC_MOVED,
	UC_WARN,
	UC_DIM,
	UC_LABEL,	/* "verdict:", "mounts:" in the detail pane */
	UC_STATUS,	/* the status line */
	UC_MESSAGE,	/* a message in the status line */
	UC_ERROR,	/* an error in the status line */
	UC_PROMPT,	/* prompts and overlays */
	UC_ATTENTION,	/* a change that needs a look (report "attention") */
	UC_DANGER,	/* the danger verdict: the sandbox does not stop it */
	UC_COUNT
};

enum pane_id {
	PANE_QUEUE,
	PANE_DETAIL,
	PANE_FILES,
	PANE_OUTPUT,
	PANE_REPORT,
	PANE_COUNT
};

struct ui;

/* One pane: a title line and a content window. */
struct pane {
	enum pane_id	 id;
	const char	*name;
	bool		 from_bottom;	/* scroll counts from the end */
	void		(*draw)(struct ui *, struct pane *);
	WINDOW		*win;		/* title + content; NULL: hidden */
	int		 y, x, h, w;	/* h includes the title line */
	int		 scroll;	/* first line, or lines from the end */
	int		 total;		/* content lines at the last draw */
	char		 pos[48];	/* position in the title, when the
					   pane counts it itself */
	uint32_t	 shown;		/* request shown at the last draw */
	bool		 dirty;
};

/* Lines of text with a colour each, for the content panes. */
struct ui_text {
	struct strv	 lines;
	int		*colors;
	size_t		*labels;	/* leading bytes drawn as a label */
	size_t		 cap;
};
#define UI_TEXT_INIT { STRV_INIT, NULL, NULL, 0 }

enum layout_kind {
	LAYOUT_WIDE,	/* queue+detail left, files/output/report right */
	LAYOUT_TALL,	/* queue, detail, one tabbed pane below */
	LAYOUT_SMALL,	/* queue and one tabbed pane below */
};

enum prompt_kind {
	PROMPT_NONE,
	PROMPT_LINE,	/* one line of text in the status line */
	PROMPT_CONFIRM,	/* y/N in the status line */
	PROMPT_KEY,	/* one key from a list in the status line */
};

/* What a line or confirm prompt does when it ends (ok false: cancelled);
   id is the request the prompt was about. */
typedef void (*prompt_done_cb)(struct ui *, uint32_t id, bool ok,
    const char *text);
/* The text of a live line prompt changed. */
typedef void (*prompt_changed_cb)(struct ui *, const char *text);

struct prompt {
	enum prompt_kind kind;
	char		*label;
	struct buf	 text;
	uint32_t	 id;		/* the request it is about, or 0 */
	prompt_done_cb	 done;
	prompt_changed_cb changed;	/* live prompts (search, filter) */
};

/* A search in a content pane (/, n, N); jump counts n (+1) and N (-1)
   pressed since the last draw, or is SEARCH_FIRST. */
enum { SEARCH_FIRST = 1000000, SEARCH_NEXT = 1, SEARCH_PREV = -1 };
struct ui_search {
	char		*text;		/* NULL: none */
	enum pane_id	 pane;
	int		 jump;		/* SEARCH_*, 0: stay */
	int		 cur;		/* row of the current match, -1 */
	int		 count;		/* matches */
	int		 index;		/* the current one, from 1 */
};

/* The mounts editor (e). */
struct mounts_editor {
	bool		 open;
	uint32_t	 id;
	int		 sel;
	char		 adding;	/* 'w', 'o', 'h': a path is typed */
};

/* The approve-and-add-rule form (A). */
/* Where the A form's rule goes. */
enum rule_scope {
	RULE_SCOPE_PROJECT,	/* the user's rules for this project */
	RULE_SCOPE_ALL,		/* the user's rules, every project */
	RULE_SCOPE_SESSION,	/* this console's life only */
	RULE_SCOPE_N
};

struct rule_form {
	bool		 open;
	uint32_t	 id;
	size_t		 prefix;	/* 0: exact command; else words kept */
	size_t		 maxwords;
	struct strv	 profiles;
	size_t		 profile;
	enum rule_scope	 scope;		/* w: the next one */
	char		*error;
};

struct ui {
	struct console	*c;
	struct loop	*loop;
	int		 ttyfd;
	FILE		*tty;
	SCREEN		*screen;
	WINDOW		*input;		/* 1x1, never drawn: reads keys */
	WINDOW		*status;
	WINDOW		*overlay;	/* help, mounts editor, rule form */
	WINDOW		*prompt_above;	/* a question too wide for the status
					   line: its first lines, above it */
	uint32_t	*marks;		/* ids marked for a bulk approval (m) */
	size_t		 nmarks;
	bool		 active;	/* curses is on */
	bool		 color;
	int		 attrs[UC_COUNT];
	int		 lines, cols;

	enum layout_kind layout;
	struct pane	 panes[PANE_COUNT];
	enum pane_id	 focus;
	enum pane_id	 tab;		/* pane in the tabbed area */

	uint32_t	 sel;		/* selected request id (0: none) */
	uint32_t	 recent;	/* the request that changed last */
	bool		 follow;	/* selection follows the work (F) */
	bool		 follow_paused;	/* moved by hand: until the next
					   pending request */
	uint32_t	 alerted;	/* newest pending request rung for */
	bool		 ring;		/* ring the bell after the draw */
	size_t		 marked;	/* pending count tmux shows
					   (SIZE_MAX: not shown yet) */
	char		*marked_host;	/* and the host it shows, or NULL */
	int64_t		 autosel_ms;	/* when it last moved by itself */
	bool		 in_key;	/* handling the operator's key */
	bool		 sel_was_pending; /* as last drawn */
	int		 qtop;		/* first visible queue row */
	int		 qgtop;		/* first row of the group waiting
					   outside the filter in sight */
	uint32_t	*qrow_id;	/* the request on each queue row as
					   drawn (0: none, a heading) */
	int		 nqrow;
	char		*filter;
	char		*agent;		/* only this agent's requests (@) */
	struct ui_search search;
	bool		 zoom;		/* the focused pane fills the screen */

	struct prompt	 prompt;
	struct mounts_editor medit;
	struct rule_form rule;
	bool		 help;
	int		 help_scroll;
	bool		 argv_view;	/* the argv as one line, for copying */
	bool		 report_expand;	/* every path in the report (x) */
	/* u: what undoing a request would do, shown in its report pane
	   while the y/N question is open. */
	uint32_t	 undo_preview_id;
	struct strv	 undo_preview;

	char		*message;
	bool		 message_error;
	int64_t		 message_until;

	bool		 dirty_all;	/* clear and redraw everything */
	bool		 dirty_status;
	bool		 dirty_overlay;
	int		 tick;		/* timer id */
	int		 draw_timer;
	int64_t		 last_draw;
	bool		 quitting;

	int		 saved_out, saved_err;	/* the real stdout/stderr */
	int		 capture;	/* read end of their pipe */
	struct buf	 captured;
};

/* ui.c */
/* Wall-clock milliseconds (request times are wall clock). */
int64_t		 ui_now(void);
int		 ui_attr(const struct ui *, enum ui_color);
void		 ui_message(struct ui *, bool error, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
void		 ui_dirty_panes(struct ui *);
void		 ui_dirty_request(struct ui *, uint32_t id);
struct request	*ui_selected(struct ui *);
void		 ui_select(struct ui *, uint32_t id, bool by_operator);
void		 ui_move(struct ui *, int delta);
void		 ui_follow(struct ui *);
const char	*ui_project_name(const struct ui *);
bool		 ui_matches(const struct ui *, const struct request *);
bool		 ui_visible(const struct ui *, const struct request *);
void		 ui_counts(struct ui *, size_t *pending, size_t *running,
		    size_t *done);
void		 ui_request_quit(struct ui *);
void		 ui_restore(void);

/* pane-queue.c */
size_t		 ui_rows(struct ui *, struct request ***rows, size_t *apart);

/* attention.c */
void		 ui_attention_event(struct ui *, const struct request *);
void		 ui_attention_flush(struct ui *);
void		 ui_follow_pause(struct ui *);
void		 ui_follow_toggle(struct ui *);
const char	*ui_follow_label(const struct ui *);
void		 ui_select_pending(struct ui *, int dir);

/* search.c */
bool		 ui_search_active(const struct ui *, enum pane_id);
void		 ui_search_clear(struct ui *);
void		 ui_search_start(struct ui *);
void		 ui_filter_start(struct ui *);
bool		 ui_search_next(struct ui *, int dir);
void		 ui_search_apply(struct ui *, struct pane *,
		    const struct ui_text *);
void		 ui_search_highlight(struct ui *, struct pane *, int y,
		    const char *row, size_t n);
char		*ui_search_title(const struct ui *, enum pane_id);
void		 ui_agent_filter(struct ui *);
void		 ui_zoom(struct ui *);
/* A mouse event (console.mouse): click to focus a pane or select a
   request, the wheel to scroll. */
void		 ui_mouse(struct ui *);

/* layout.c */
void		 ui_layout(struct ui *);
bool		 ui_pane_visible(const struct ui *, enum pane_id);
void		 ui_focus(struct ui *, int delta);
void		 ui_draw_title(struct ui *, struct pane *, const char *extra);
void		 ui_text_add(struct ui_text *, enum ui_color, const char *);
void		 ui_text_addf(struct ui_text *, enum ui_color,
		    const char *, ...) __attribute__((format(printf, 3, 4)));
void		 ui_text_wrap(struct ui_text *, enum ui_color, const char *,
		    size_t cols, size_t indent);
/* "label value" wrapped under the value, the label in UC_LABEL. */
void		 ui_text_kv(struct ui_text *, enum ui_color, const char *label,
		    const char *value, size_t cols);
void		 ui_text_release(struct ui_text *);
void		 ui_draw_text(struct ui *, struct pane *, struct ui_text *);
void		 ui_scroll(struct ui *, struct pane *, int delta);

/* pane-*.c */
void		 pane_queue_draw(struct ui *, struct pane *);
void		 pane_detail_draw(struct ui *, struct pane *);
void		 pane_files_draw(struct ui *, struct pane *);
void		 pane_output_draw(struct ui *, struct pane *);
void		 pane_report_draw(struct ui *, struct pane *);
/* The simple commands of a request, as the parser found them. */
void		 pane_detail_commands(const struct request *, struct strv *);

/* actions.c: what the operator can do (keys.c binds keys to them) */
void		 action_approve(struct ui *);
/* marks.c: bulk decisions */
bool		 ui_marked(const struct ui *, uint32_t id);
void		 action_mark(struct ui *);
void		 action_mark_all(struct ui *);
bool		 ui_marks_approve(struct ui *);
bool		 ui_marks_clear(struct ui *);
void		 action_approve_rule(struct ui *);
void		 action_deny(struct ui *);
void		 action_edit(struct ui *);
void		 action_network(struct ui *);
void		 action_kill(struct ui *);
void		 action_stop(struct ui *);
void		 action_rerun(struct ui *);
void		 action_undo(struct ui *);
void		 action_up(struct ui *);
void		 action_down(struct ui *);
void		 action_page_up(struct ui *);
void		 action_page_down(struct ui *);
void		 action_home(struct ui *);
void		 action_end(struct ui *);
void		 action_next_pane(struct ui *);
void		 action_prev_pane(struct ui *);
void		 action_search(struct ui *);
void		 action_search_prev(struct ui *);
void		 action_queue_filter(struct ui *);
void		 action_agent(struct ui *);
void		 action_zoom(struct ui *);
void		 action_escape(struct ui *);
void		 action_follow(struct ui *);
void		 action_clock(struct ui *);
void		 action_expand(struct ui *);
void		 action_next_pending(struct ui *);
void		 action_prev_pending(struct ui *);
void		 action_argv(struct ui *);
void		 action_help(struct ui *);
void		 action_redraw(struct ui *);
void		 action_reload(struct ui *);
void		 action_quit(struct ui *);

/* term.c: stray output captured while curses draws; crash restore */
void		 ui_capture_start(struct ui *);
void		 ui_capture_stop(struct ui *);
void		 ui_crash_arm(int ttyfd);
void		 ui_crash_disarm(void);

/* keys.c */
void		 ui_key(struct ui *, int key, bool is_char);
void		 ui_help_draw(struct ui *);
const char	*ui_hints(const struct ui *, size_t cols);

/* tmux.c */
/* Inside tmux: show the pending count (and the host the next decision
   goes to, or NULL) in the pane title and the window option
   @bwgate_pending (0 clears them). */
void		 ui_tmux_mark(const char *project, size_t pending,
		    const char *host, bool stop);

/* prompt.c */
void		 prompt_line(struct ui *, const char *label, const char *init,
		    uint32_t id, prompt_done_cb);
void		 prompt_confirm(struct ui *, const char *question, uint32_t id,
		    prompt_done_cb);
/* A line prompt that reports every change of its text. */
void		 prompt_line_live(struct ui *, const char *label,
		    const char *init, uint32_t id, prompt_done_cb,
		    prompt_changed_cb);
/* One key answers (its character is the text; Enter is "\n"). */
void		 prompt_choose(struct ui *, const char *question, uint32_t id,
		    prompt_done_cb);
bool		 prompt_key(struct ui *, int key, bool is_char);
void		 prompt_draw_status(struct ui *);
void		 prompt_draw_overlay(struct ui *);
void		 prompt_close_all(struct ui *);
void		 mounts_open(struct ui *, struct request *);
void		 rule_open(struct ui *, struct request *);
/* Toggle a pending request's network (n). */
void		 ui_toggle_network(struct ui *, struct request *);

/* rule.c: the rule A writes, and writing it to the user allowlist. */
struct rule_choice {
	const char	*command;	/* the request's command string */
	bool		 is_argv;
	const struct strv *argv;	/* the argv, when is_argv */
	size_t		 prefix;	/* 0: exact; else words kept + "*" */
	const char	*profile;
	const char	*who;
};
/* The rule as JSON, or NULL with a cause (expansions, odd words ...). */
cJSON		*rule_build(const struct rule_choice *, char **cause);
/* Words in the longest simple command (for the prefix choice). */
size_t		 rule_max_words(const struct request *);
/* Append the rule to $XDG_CONFIG_HOME/bwgate/allowlist.json (all
   projects) or to the user's file for this project
   (allowlist_user_project_file()), check that the rule files still load
   (else put the old file back); the path written in *path. -1 with
   cause. */
int		 rule_write(const cJSON *rule, const char *project,
		    enum rule_scope scope, char **path, char **cause);
/* Profiles a rule may name (shipped and user rule files). */
void		 rule_profiles(struct strv *);

#endif
