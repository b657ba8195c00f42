/* shquote: quoting strings as shell words, exactly (shquote.h). */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shquote.h"
#include "xalloc.h"

/* Can s go bare: only characters no shell treats specially, and not
   zsh's =cmd? */
static bool
shell_safe(const char *s)
{
	if (*s == '\0' || *s == '=')
		return false;
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_-+=./:,@%", *s) == NULL)
			return false;
	return true;
}

/* Would a shell read s, first in a command, as an assignment (NAME=...,
   or bash's NAME+=...)? */
static bool
shell_assignment(const char *s)
{
	const char	*p = s + strspn(s, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	return p != s && !(*s >= '0' && *s <= '9') &&
	    (*p == '=' || (*p == '+' && p[1] == '='));	/* NAME+=: bash */
}

/* Does s hold a control character (it would break a line)? */
static bool
has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* $'...' with the control characters, ' and \ escaped. */
static char *
ansi_c_quote(const char *s)
{
	struct buf	b = BUF_INIT;

	buf_puts(&b, "$'");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			buf_puts(&b, "\\n");
		else if (c == '\t')
			buf_puts(&b, "\\t");
		else if (c == '\r')
			buf_puts(&b, "\\r");
		else if (c == '\\' || c == '\'')
			buf_printf(&b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			/* At most two hex digits: \x01 then 'a' stays two
			   characters. */
			buf_printf(&b, "\\x%02x", c);
		else
			buf_putc(&b, (char)c);
	}
	buf_putc(&b, '\'');
	return buf_detach(&b);
}

/* One readable line, exact in bash. */
char *
shell_quote(const char *s)
{
	if (shell_safe(s))
		return xstrdup(s);
	if (has_control(s))
		return ansi_c_quote(s);
	return shell_squote(s);
}

/* shell_quote() for a command's first word: never an assignment. */
char *
shell_quote_first(const char *s)
{
	if (shell_assignment(s))
		return shell_squote(s);
	return shell_quote(s);
}

/* Single-quote s for any POSIX shell. */
char *
shell_squote(const char *s)
{
	struct buf	b = BUF_INIT;

	buf_putc(&b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	return buf_detach(&b);
}
