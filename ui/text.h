/*
 * text: untrusted text made safe for the terminal and measured in columns
 * (pure: no curses, no I/O). See format.h for how the UI uses it.
 */
#ifndef BWGATE_UI_TEXT_H
#define BWGATE_UI_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "strv.h"

/* Escape only what a terminal must not see; ASCII mode escapes more. */
void		 fmt_set_ascii(bool);
bool		 fmt_ascii(void);

/* Append s[0..len) to b as printable, valid UTF-8. */
void		 fmt_escape_buf(struct buf *b, const char *s, size_t len);
/* The same for a NUL-terminated string, as a new string. */
char		*fmt_escape(const char *s);

/* Is s safe to draw as it is: what fmt_escape() returns always is (text
   escaped already is never escaped twice)? */
bool		 fmt_is_safe(const char *s);
/* What the operator typed, to show back: as typed when safe, else
   escaped; a new string. */
char		*fmt_typed(const char *s);

/* One line of a command's output (no '\n') for display: a carriage
   return that redraws the line (a progress bar: what follows covers what
   it replaces) keeps what was drawn last, any other shows as \r with the
   text on both sides; colour and cursor sequences (CSI) dropped, tabs
   expanded, the rest escaped. Appended to b. */
void		 fmt_output_line(struct buf *b, const char *s, size_t len);

/* Display columns of an escaped (valid, printable) string. */
size_t		 fmt_width(const char *s);
/* Display columns of the first n bytes of s. */
size_t		 fmt_width_n(const char *s, size_t n);
/* Bytes of s that fit in cols columns; *used (if not NULL) gets the
   columns they take. Never splits a character. */
size_t		 fmt_fit(const char *s, size_t cols, size_t *used);
/* s cut to cols columns, with an ellipsis when cut; with pad, padded
   with spaces to exactly cols columns. */
char		*fmt_trim(const char *s, size_t cols, bool pad);
/* Wrap s into lines of at most cols columns, breaking after spaces when
   possible; continuation lines start with indent spaces. */
void		 fmt_wrap(const char *s, size_t cols, size_t indent,
		    struct strv *lines);

#endif
