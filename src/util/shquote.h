/*
 * shquote: the one way bwgate writes shell text from strings it did not
 * write itself (an agent's command or path, a file name, a socket path).
 *
 * Nothing else pastes a string into text a shell, tmux or another
 * interpreter will parse: build an argv instead where the program takes
 * one (spawn.c, tmux's own arguments), and where shell text cannot be
 * avoided (a command line handed back to an agent's harness, a line the
 * operator copies) quote each word here. Both forms are exact: what the
 * shell parses back is the input, every byte but NUL (a C string ends
 * there), checked against the real bash and dash by
 * tests/fuzz/shquote-vs-shell.
 *
 *	shell_squote(s)	always '...', each ' as '\'': any POSIX shell
 *			(sh, dash, bash, zsh); newlines stay raw, so it is
 *			for programs, not for a terminal
 *	shell_quote(s)	bare when s holds only safe characters, else
 *			'...', or $'...' with \n \t \xHH escapes when s
 *			holds control characters: one printable line, for
 *			bash (and ksh, zsh) and for people to read or paste
 *	shell_quote_first(s)
 *			the same for a command's first word (FOO=1 quoted,
 *			or it would be an assignment)
 *
 * Text shown on a terminal then goes through display.c as any other.
 */
#ifndef BWGATE_SHQUOTE_H
#define BWGATE_SHQUOTE_H

/* Plain single quotes, for any POSIX shell; a new string. */
char	*shell_squote(const char *);
/* One readable line, exact in bash: bare, '...' or $'...'; a new
   string. */
char	*shell_quote(const char *);
/* The same for a command's first word, which a shell would read as an
   assignment if it looked like one (FOO=1): quoted then. */
char	*shell_quote_first(const char *);

#endif
