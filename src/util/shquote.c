/* shquote: quoting strings as shell words, exactly (shquote.h). */
#include "autoconf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shquote.h"
#include "xalloc.h"

/* Can s go bare: only characters no shell treats specially, and not a
   word a shell would read as an assignment (NAME=..., at the start of a
   command) or zsh as a command path (=cmd)? */
static bool
shell_safe(const char *s)
{
	const char	*p;

	if (*s == '\0' || *s == '=')
		return false;
	for (p = s; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_-+=./:,@%", *p) == NULL)
			return false;
	p = s + strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_");
	return !(*p == '=' && !(*s >= '0' && *s <= '9'));
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
