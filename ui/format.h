/*
 * format: pure text formatting for the terminal UI (no curses, no I/O).
 *
 * Everything the panes print goes through here first, so what reaches the
 * terminal is always safe to print and measured in columns, not bytes:
 *
 *	fmt_escape()	untrusted bytes (a command, output, a file name) to
 *			valid, printable UTF-8: control characters, invalid
 *			UTF-8, C1 controls and bidirectional overrides become
 *			visible escapes (\n, \e, \u{202e}) and are never
 *			interpreted by the terminal;
 *	fmt_width()	display columns of an escaped string (wcwidth);
 *	fmt_fit(), fmt_trim(), fmt_wrap()
 *			cut, pad and wrap by columns, never inside a UTF-8
 *			sequence;
 *	fmt_age(), fmt_elapsed(), fmt_badge(), fmt_state(), fmt_queue_row()
 *			the pieces of a queue line;
 *	fmt_fsevent(), fmt_mounts(), fmt_report(), fmt_argv_lines()
 *			the lines of the other panes.
 *
 * Widths follow the C library's wcwidth() for the current LC_CTYPE; the
 * UI sets the locale at start. With fmt_set_ascii(true) (a terminal that
 * is not UTF-8) every non-ASCII character is escaped as \u{...} too.
 * Returned strings are the caller's to free; strv outputs are appended to.
 */
#ifndef BWGATE_UI_FORMAT_H
#define BWGATE_UI_FORMAT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "allowlist.h"
#include "buf.h"
#include "queue.h"
#include "strv.h"
#include "text.h"

/* "now", "12s", "5m", "3h", "2d" for a duration in milliseconds. */
char		*fmt_age(int64_t ms);
/* Ages (default) or local times of day (HH:MM:SS) in fmt_when(). */
void		 fmt_set_clock(bool);
bool		 fmt_get_clock(void);
char		*fmt_when(int64_t at_ms, int64_t now_ms);
/* "0:07", "12:34", "1:02:03". */
char		*fmt_elapsed(int64_t ms);
/* "allow", "ask", "deny". */
const char	*fmt_badge(enum verdict);
/* What the state column says: "pending", "running 0:07", "exit 3", ... */
char		*fmt_state(const struct request *, int64_t now_ms);
/* Is the request waiting for the operator? */
bool		 fmt_needs_operator(const struct request *);

/* A queue line of exactly cols columns, with where the coloured parts
   are (byte offsets into text). */
struct fmt_row {
	char	*text;
	size_t	 badge_off, badge_len;
	size_t	 state_off, state_len;
};
void		 fmt_queue_row(const struct request *, int64_t now_ms,
		    size_t cols, struct fmt_row *);
void		 fmt_row_release(struct fmt_row *);

/* Does the request match a filter (case-insensitive substring of the id,
   agent, command, verdict or state)? Empty or NULL matches everything. */
bool		 fmt_filter_match(const struct request *, const char *filter);

/* A live filesystem event as one line ("+ src/a.c", "> a -> b (dir)")
   and its kind: 'c'reated, 'm'odified, 'd'eleted, 'r' moved, 'w'arning. */
char		*fmt_fsevent(const cJSON *event, char *kind);
/* The bwrap argv as shell-quoted lines of at most cols columns, one
   option with its arguments per line where they fit. */
void		 fmt_argv_lines(const struct strv *argv, size_t cols,
		    struct strv *lines);
/* The mount table ([{"path","mode","why"}]) as aligned lines. */
void		 fmt_mounts(const cJSON *mounts, size_t cols,
		    struct strv *lines);
/* The change report and violations of a finished request, one entry per
   line: "+ created", "~ modified", "- deleted", "> from -> to",
   "! violation: hint", and first "* ATTENTION path: why" for each
   attention entry. Each line's first character is its kind. */
void		 fmt_report(const cJSON *report, struct strv *lines);
/* The programs a finished request ran (report "executed"), one per line:
   "  2x /usr/bin/cc cc -c a.c"; a line starts with '!' when the
   allowlist would not allow that program on its own. */
void		 fmt_executed(const cJSON *report, struct strv *lines);
/* The same, every path listed when expand (the x key). */
void		 fmt_report_lines(const cJSON *report, bool expand,
		    struct strv *lines);

#endif
