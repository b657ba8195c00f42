/*
 * display: the one way untrusted text reaches a terminal.
 *
 * Every string an agent, a project file or the file system controls
 * (commands, agent names, tags, notes, rule reasons and patterns, file
 * names, paths, error messages quoting them) passes through here before
 * it is printed: by the TUI, the command-line clients, the headless log
 * and the tmux messages. JSON output does not (JSON escaping is exact).
 *
 * What becomes a visible escape:
 *	C0 controls and DEL	\e (ESC), \r, \n, \t, \x01 ...
 *	C1 controls		\u{9b} ...
 *	bidi overrides/isolates	\u{202e}, \u{2066} ... (and U+061C, U+200E/F)
 *	invisible formatting	\u{200b}, \u{2060}, \u{feff}, tag characters,
 *				line/paragraph separators ...
 *	invalid UTF-8		\xff (one escape per byte that is not part of
 *				a valid, shortest-form sequence)
 *	look-alike spaces	\u{a0}, \u{2003}, \u{3000} ...
 *	variation selectors	\u{fe0f}, \u{e0100} ...
 *	the backslash itself	\\ (so a typed "\n" shows as \\n, a newline
 *				as \n: every escape reads back one way)
 * so an escaped value never spans lines, never moves the cursor and never
 * reorders or hides the text around it, and two different strings never
 * look the same: the escaped form decodes back to exactly the bytes it
 * came from (\\ \e \n \r \t; \xHH one byte; \u{H..} one character in
 * UTF-8; anything else stands for itself). tests/fuzz/fuzz-display.c
 * checks that on random input.
 *
 * Flags: DISPLAY_ASCII escapes every non-ASCII character too (a terminal
 * that is not UTF-8); DISPLAY_WIDTH also escapes what wcwidth() calls
 * unprintable in the current locale (the TUI, which measures columns).
 *
 * display_str() returns a pointer into a small per-thread ring of buffers
 * (valid until DISPLAY_RING more calls), for printf arguments:
 *	printf("%s: %s\n", display_str(agent), display_str(cmd));
 */
#ifndef BWGATE_DISPLAY_H
#define BWGATE_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"

enum display_flags {
	DISPLAY_ASCII = (1 << 0),
	DISPLAY_WIDTH = (1 << 1),
};

#define DISPLAY_RING 8

/* Append s[0..len) to b, escaped. */
void		 display_escape_buf(struct buf *, const char *s, size_t len,
		    int flags);
/* A NUL-terminated string (NULL is "") escaped, as a new string. */
char		*display_escape(const char *s);
/* The same with flags and an explicit length. */
char		*display_escape_n(const char *s, size_t len, int flags);
/* Escaped s in a ring buffer, for printf arguments (see above). */
const char	*display_str(const char *s);
/* Write s escaped to f (no newline added). */
void		 display_fputs(const char *s, FILE *f);
/* Decode one strict UTF-8 character; its length (1-4), 0 if invalid. */
size_t		 display_utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Is this code point one a terminal must never see raw? */
bool		 display_is_hidden(uint32_t cp);
/* Does s contain nothing display_escape() would change? */
bool		 display_is_clean(const char *s, size_t len);
/* Is s safe to print as it is under flags: valid UTF-8, nothing hidden
   (escaped text always is; a backslash is fine)? For text that is
   escaped already or typed by the operator, so it is not escaped twice. */
bool		 display_is_safe(const char *s, size_t len, int flags);

#endif
