/*
 * shlex-arith: arithmetic ($((...)), ((...))), [...] look-ahead scans and
 * the regular expression word of [[ =~.
 */
#include "autoconf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shlex.h"
#include "xalloc.h"

/*
 * Decide whether the text after $(( or (( at from is arithmetic: find the
 * paren that closes the (( and check a second one follows. Sets *end to
 * the first of the two and *after past the second. 1 arithmetic, 0 not
 * (a nested subshell), -1 when the input ends first (bash fails there
 * too) or over budget. Failing at the end also keeps repeated scans from
 * going quadratic.
 */
int
lex_arith_prescan(struct sh_parser *p, size_t from, size_t *end,
    size_t *after)
{
	size_t	i;
	int	depth = 0;
	char	c, q;

	for (i = from; i < p->len; i++) {
		if (p->sh->budget-- == 0)
			return sh_error(p, from, "command too complex");
		c = p->s[i];
		switch (c) {
		case '\\':
			i++;
			break;
		case '\'':
		case '"':
		case '`':
			q = c;
			for (i++; i < p->len && p->s[i] != q; i++) {
				if (p->sh->budget-- == 0)
					return sh_error(p, from,
					    "command too complex");
				if (q != '\'' && p->s[i] == '\\')
					i++;
			}
			if (i >= p->len)
				goto eof;
			break;
		case '(':
			depth++;
			break;
		case ')':
			if (depth > 0) {
				depth--;
				break;
			}
			if (peekc(p, lex_skip_cont(p, i + 1)) != ')')
				return 0;
			*end = i;
			*after = lex_skip_cont(p, i + 1) + 1;
			return 1;
		}
	}
eof:
	return sh_error(p, from - 2, "unterminated '(('");
}

/* $[...]: the old arithmetic form; find the closing bracket (1), or
   fail at the end of the input as bash does. */
int
lex_bracket_prescan(struct sh_parser *p, size_t from, size_t *end)
{
	size_t	i;
	int	depth = 0;

	for (i = from; i < p->len; i++) {
		if (p->sh->budget-- == 0)
			return sh_error(p, from, "command too complex");
		switch (p->s[i]) {
		case '\\':
			i++;
			break;
		case '[':
			depth++;
			break;
		case ']':
			if (depth-- == 0) {
				*end = i;
				return 1;
			}
			break;
		}
	}
	return sh_error(p, from - 2, "unterminated '$['");
}

/*
 * The body of an arithmetic expression, [from, to): it holds no commands
 * of its own, but the substitutions inside run, so parse those. A
 * construct that crosses `to` is an error, never a silent misparse.
 */
int
lex_arith_body(struct sh_parser *p, size_t from, size_t to, int ctx,
    int *flags)
{
	struct sh_parser	sub;
	struct wacc		w;
	int			r = 0;
	char			c;

	memset(&sub, 0, sizeof sub);
	sub.sh = p->sh;
	sub.s = p->s;
	sub.len = to;
	sub.pos = from;
	sub.base = p->base;
	sub.depth = p->depth;
	sub.ctx = ctx;
	w_init(&w);
	while (r == 0 && sub.pos < sub.len) {
		c = sub.s[sub.pos];
		switch (c) {
		case '$':
			r = lex_dollar(&sub, &w, false);
			break;
		case '`':
			r = lex_backquote(&sub, &w, false);
			break;
		case '\'':
			r = lex_single(&sub, &w);
			break;
		case '"':
			r = lex_double(&sub, &w);
			break;
		case '\\':
			sub.pos += 2;
			if (sub.pos > sub.len)
				sub.pos = sub.len;
			break;
		default:
			sub.pos++;
			break;
		}
	}
	*flags = w.flags;
	buf_release(&w.text);
	lex_parser_done(&sub);
	return r;
}

/* The word after [[ ... =~: parens, | and blanks inside parens are part
   of the regular expression. */
int
lex_regex_word(struct sh_parser *p)
{
	struct wacc	w;
	size_t		start;
	int		r;

	while (p->pos < p->len) {
		if (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
			p->pos++;
		else if (p->s[p->pos] == '\\' && peekc(p, p->pos + 1) == '\n')
			p->pos += 2;
		else
			break;
	}
	start = p->pos;
	w_init(&w);
	r = lex_word(p, &w, WM_REGEX);
	buf_release(&w.text);
	if (r == 0 && w.empty)
		return sh_error(p, start, "missing regular expression after "
		    "'=~'");
	return r;
}
