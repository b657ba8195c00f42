/*
 * shlex-word: one word with quote removal, and the expansions inside it
 * ($'...', $..., ${...}, $(...), `...`, NAME=( ... )).
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

static void	 w_opaque(struct wacc *);
static void	 w_lit(struct wacc *, char);
static void	 w_quoted(struct wacc *, char);
static void	 w_expansion(struct wacc *, const char *, size_t, int);
static int	 lex_ansic(struct sh_parser *, struct wacc *, size_t);
static int	 lex_subst(struct sh_parser *, struct wacc *, size_t, size_t,
		     int);
static int	 lex_brace(struct sh_parser *, struct wacc *, size_t, bool);
static int	 lex_array(struct sh_parser *, struct wacc *);
static void	 w_param(struct wacc *, const char *, size_t);

/* Start an empty word. */
void
w_init(struct wacc *w)
{
	memset(w, 0, sizeof *w);
	w->assign = A_START;
	w->tilde_ok = true;
	w->digits = true;
	w->empty = true;
}

/* Note a part that is not an unquoted literal (quoted or expanded). */
static void
w_opaque(struct wacc *w)
{
	switch (w->assign) {
	case A_START:
	case A_NAME:
	case A_PLUS:
	case A_SUBEND:
		w->assign = A_NO;
		break;
	default:
		break;
	}
	w->eq_last = false;
	w->tilde_ok = false;
	w->digits = false;
	w->dot = false;
	w->empty = false;
}

/* Add an unquoted literal byte and track what it means to bash. */
static void
w_lit(struct wacc *w, char c)
{
	bool	eq = false;

	buf_putc(&w->text, c);
	if (!is_digit(c))
		w->digits = false;
	if (c == '~' && w->tilde_ok)
		w->flags |= SH_W_TILDE;
	switch (c) {
	case '*':
	case '?':
		w->flags |= SH_W_GLOB;
		break;
	case '[':
		w->bracket = true;
		break;
	case ']':
		if (w->bracket)
			w->flags |= SH_W_GLOB;
		break;
	/*
	 * Brace expansion: bash keeps looking past a {...} without a comma
	 * for a later closing brace, so any { then , or .. then } counts.
	 */
	case '{':
		w->brace = true;
		break;
	case ',':
		if (w->brace)
			w->brace_sep = true;
		break;
	case '.':
		if (w->brace && w->dot)
			w->brace_sep = true;
		break;
	case '}':
		if (w->brace_sep)
			w->flags |= SH_W_BRACE;
		break;
	}
	w->dot = (c == '.');

	switch (w->assign) {
	case A_START:
		w->assign = is_name_start(c) ? A_NAME : A_NO;
		break;
	case A_NAME:
		if (c == '=') {
			w->assign = A_VALUE;
			eq = true;
		} else if (c == '+')
			w->assign = A_PLUS;
		else if (c == '[') {
			w->assign = A_SUB;
			w->sub = 1;
		} else if (!is_name_char(c))
			w->assign = A_NO;
		break;
	case A_PLUS:
		if (c == '=') {
			w->assign = A_VALUE;
			eq = true;
		} else
			w->assign = A_NO;
		break;
	case A_SUB:
		if (c == '[')
			w->sub++;
		else if (c == ']' && --w->sub == 0)
			w->assign = A_SUBEND;
		break;
	case A_SUBEND:
		if (c == '=') {
			w->assign = A_VALUE;
			eq = true;
		} else if (c == '+')
			w->assign = A_PLUS;
		else
			w->assign = A_NO;
		break;
	case A_VALUE:
	case A_NO:
		break;
	}
	w->eq_last = eq;
	/* bash expands ~ after the = and each : of an assignment. */
	w->tilde_ok = eq || (w->assign == A_VALUE && c == ':');
	w->empty = false;
}

/* Add a quoted byte. */
static void
w_quoted(struct wacc *w, char c)
{
	buf_putc(&w->text, c);
	w->flags |= SH_W_QUOTED;
	w_opaque(w);
}

/* Add an expansion, kept as written. */
static void
w_expansion(struct wacc *w, const char *raw, size_t n, int flags)
{
	buf_add(&w->text, raw, n);
	w->flags |= flags;
	w_opaque(w);
}

/*
 * Read one word from p->pos up to an unquoted metacharacter, doing quote
 * removal. Expansions are kept as written in the text and flagged; the
 * commands inside them are parsed (and recorded) right away.
 */
int
lex_word(struct sh_parser *p, struct wacc *w, int mode)
{
	size_t	i;
	int	parens = 0;
	char	c, n;

	while (p->pos < p->len) {
		c = p->s[p->pos];
		n = peekc(p, p->pos + 1);
		if ((mode & WM_REGEX) && parens > 0 &&
		    strchr(" \t\n;&|<>", c) != NULL) {
			w_lit(w, c);
			p->pos++;
			continue;
		}
		switch (c) {
		case ' ':
		case '\t':
		case '\n':
		case ';':
		case '&':
		case '|':
			return 0;
		case '<':
		case '>':
			i = lex_skip_cont(p, p->pos + 1);
			if (peekc(p, i) != '(')
				return 0;
			if (lex_subst(p, w, p->pos, i + 1,
			    SH_W_PROCSUBST) != 0)
				return -1;
			continue;
		case '(':
			if (mode & WM_REGEX) {
				parens++;
				w_lit(w, c);
				p->pos++;
				continue;
			}
			if (w->eq_last && !(mode & WM_NOARRAY)) {
				if (lex_array(p, w) != 0)
					return -1;
				continue;
			}
			return 0;
		case ')':
			if ((mode & WM_REGEX) && parens > 0) {
				parens--;
				w_lit(w, c);
				p->pos++;
				continue;
			}
			return 0;
		case '\\':
			if (n == '\0') {
				/* A trailing backslash stays. */
				w_lit(w, c);
				p->pos++;
			} else if (n == '\n')
				p->pos += 2;
			else {
				w_quoted(w, n);
				p->pos += 2;
			}
			continue;
		case '\'':
			if (lex_single(p, w) != 0)
				return -1;
			continue;
		case '"':
			if (lex_double(p, w) != 0)
				return -1;
			continue;
		case '$':
			if (lex_dollar(p, w, false) != 0)
				return -1;
			continue;
		case '`':
			if (lex_backquote(p, w, false) != 0)
				return -1;
			continue;
		default:
			w_lit(w, c);
			p->pos++;
			continue;
		}
	}
	return 0;
}

/* '...': everything literal up to the next quote. */
int
lex_single(struct sh_parser *p, struct wacc *w)
{
	size_t		 start = p->pos;
	const char	*q;

	q = memchr(p->s + start + 1, '\'', p->len - start - 1);
	if (q == NULL)
		return sh_error(p, start, "unterminated single quote");
	buf_add(&w->text, p->s + start + 1, (size_t)(q - p->s) - start - 1);
	w->flags |= SH_W_QUOTED;
	w_opaque(w);
	p->pos = (size_t)(q - p->s) + 1;
	return 0;
}

/* "...": backslash quotes only $ ` " \ and newline; expansions stay. */
int
lex_double(struct sh_parser *p, struct wacc *w)
{
	size_t	start = p->pos;
	char	c, n;

	p->pos++;
	w->flags |= SH_W_QUOTED;
	w_opaque(w);
	for (;;) {
		if (p->pos >= p->len)
			return sh_error(p, start, "unterminated double quote");
		c = p->s[p->pos];
		switch (c) {
		case '"':
			p->pos++;
			return 0;
		case '\\':
			n = peekc(p, p->pos + 1);
			if (n == '\n')
				p->pos += 2;
			else if (n != '\0' && strchr("$`\"\\", n) != NULL) {
				w_quoted(w, n);
				p->pos += 2;
			} else {
				w_quoted(w, c);
				p->pos++;
			}
			break;
		case '$':
			if (lex_dollar(p, w, true) != 0)
				return -1;
			break;
		case '`':
			if (lex_backquote(p, w, true) != 0)
				return -1;
			break;
		default:
			w_quoted(w, c);
			p->pos++;
			break;
		}
	}
}

/* Append code point cp as UTF-8; false if it is out of range. */
static bool
put_utf8(struct buf *b, uint32_t cp)
{
	if (cp < 0x80)
		buf_putc(b, (char)cp);
	else if (cp < 0x800) {
		buf_putc(b, (char)(0xc0 | (cp >> 6)));
		buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_putc(b, (char)(0xe0 | (cp >> 12)));
		buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp <= 0x10ffff) {
		buf_putc(b, (char)(0xf0 | (cp >> 18)));
		buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else
		return false;
	return true;
}

/*
 * $'...': decode backslash escapes as bash does. A decoded NUL ends the
 * string (bash truncates there); the rest up to the quote is dropped.
 */
static int
lex_ansic(struct sh_parser *p, struct wacc *w, size_t from)
{
	size_t		 start = p->pos;
	struct buf	*b = &w->text;
	bool		 cut = false;
	uint32_t	 v;
	int		 i, max, h;
	char		 c, n;

	p->pos = from;
	w->flags |= SH_W_QUOTED;
	w_opaque(w);
	for (;;) {
		if (p->pos >= p->len)
			return sh_error(p, start, "unterminated $' quote");
		c = p->s[p->pos];
		if (c == '\'') {
			p->pos++;
			return 0;
		}
		if (c != '\\' || peekc(p, p->pos + 1) == '\0') {
			if (!cut)
				buf_putc(b, c);
			p->pos++;
			continue;
		}
		n = p->s[p->pos + 1];
		p->pos += 2;
		v = 0x100;	/* no single byte decoded yet */
		switch (n) {
		case 'a': v = 7; break;
		case 'b': v = 8; break;
		case 'e': case 'E': v = 27; break;
		case 'f': v = 12; break;
		case 'n': v = 10; break;
		case 'r': v = 13; break;
		case 't': v = 9; break;
		case 'v': v = 11; break;
		case '\\': case '\'': case '"': case '?': v = (uint8_t)n; break;
		case '0': case '1': case '2': case '3':
		case '4': case '5': case '6': case '7':
			v = (uint32_t)(n - '0');
			for (i = 0; i < 2 && peekc(p, p->pos) >= '0' &&
			    peekc(p, p->pos) <= '7'; i++)
				v = v * 8 + (uint32_t)(p->s[p->pos++] - '0');
			v &= 0xff;
			break;
		case 'x':
		case 'u':
		case 'U':
			max = n == 'x' ? 2 : n == 'u' ? 4 : 8;
			v = 0;
			for (i = 0; i < max &&
			    (h = hexval(peekc(p, p->pos))) >= 0; i++) {
				v = v * 16 + (uint32_t)h;
				p->pos++;
			}
			if (i == 0) {
				if (!cut) {
					buf_putc(b, '\\');
					buf_putc(b, n);
				}
				continue;
			}
			if (n != 'x') {
				if (v == 0)
					cut = true;
				if (cut)
					continue;
				/* Out of range: keep it as written. */
				if (!put_utf8(b, v))
					buf_add(b, p->s + p->pos - (size_t)i -
					    2, (size_t)i + 2);
				continue;
			}
			break;
		case 'c':
			c = peekc(p, p->pos);
			if (c == '\0' || c == '\'') {
				if (!cut)
					buf_add(b, "\\c", 2);
				continue;
			}
			p->pos++;
			if (c == '\\' && peekc(p, p->pos) == '\\')
				p->pos++;
			if (c == '?')
				v = 0x7f;
			else {
				if (c >= 'a' && c <= 'z')
					c = (char)(c - 'a' + 'A');
				v = (uint32_t)(c & 0x1f);
			}
			break;
		default:
			if (!cut) {
				buf_putc(b, '\\');
				buf_putc(b, n);
			}
			continue;
		}
		if (v == 0)
			cut = true;
		if (!cut && v < 0x100)
			buf_putc(b, (char)v);
	}
}

/* A simple parameter ($x, $1): its text without line continuations. */
static void
w_param(struct wacc *w, const char *raw, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (raw[i] == '\\' && i + 1 < n && raw[i + 1] == '\n')
			i++;
		else
			buf_putc(&w->text, raw[i]);
	}
	w->flags |= SH_W_PARAM;
	w_opaque(w);
}

/*
 * $ at p->pos: a parameter, $(...), $((...)), $[...], ${...}, $'...' or
 * $"...". bash removes line continuations before it looks, so "$\<nl>("
 * is "$(" and "$HO\<nl>ME" is "$HOME": positions skip them.
 */
int
lex_dollar(struct sh_parser *p, struct wacc *w, bool dq)
{
	size_t	start = p->pos, i, j, end, after;
	char	n;
	int	r, flags;

	i = lex_skip_cont(p, start + 1);
	n = peekc(p, i);
	if (n == '(') {
		j = lex_skip_cont(p, i + 1);
		if (peekc(p, j) == '(') {
			r = lex_arith_prescan(p, j + 1, &end, &after);
			if (r < 0)
				return -1;
			if (r == 1) {
				if (sh_enter(p, start) != 0)
					return -1;
				r = lex_arith_body(p, j + 1, end, p->ctx,
				    &flags);
				sh_leave(p);
				if (r != 0)
					return -1;
				p->pos = after;
				w_expansion(w, p->s + start, p->pos - start,
				    SH_W_ARITH | (flags & ~SH_W_QUOTED));
				return 0;
			}
		}
		return lex_subst(p, w, start, i + 1, SH_W_CMDSUBST);
	}
	if (n == '[') {
		if (lex_bracket_prescan(p, i + 1, &end) != 1 ||
		    sh_enter(p, start) != 0)
			return -1;
		r = lex_arith_body(p, i + 1, end, p->ctx, &flags);
		sh_leave(p);
		if (r != 0)
			return -1;
		p->pos = end + 1;
		w_expansion(w, p->s + start, p->pos - start,
		    SH_W_ARITH | (flags & ~SH_W_QUOTED));
		return 0;
	}
	if (n == '{')
		return lex_brace(p, w, i + 1, dq);
	if (n == '\'' && !dq)
		return lex_ansic(p, w, i + 1);
	if (n == '"' && !dq) {
		/* $"...": a translated string, otherwise "...". */
		p->pos = i;
		return lex_double(p, w);
	}
	if (is_name_start(n)) {
		while (is_name_char(peekc(p, i)))
			i = lex_skip_cont(p, i + 1);
		w_param(w, p->s + start, i - start);
		p->pos = i;
		return 0;
	}
	if (n != '\0' && strchr("0123456789@*#?-$!", n) != NULL) {
		w_param(w, p->s + start, i + 1 - start);
		p->pos = i + 1;
		return 0;
	}
	/* A lone dollar is literal. */
	if (dq)
		w_quoted(w, '$');
	else
		w_lit(w, '$');
	p->pos++;
	return 0;
}

/*
 * $(...), <(...) or >(...) starting at start, the list from `from`: parse
 * it with a fresh here-document list, as bash does for substitutions.
 */
static int
lex_subst(struct sh_parser *p, struct wacc *w, size_t start, size_t from,
    int flag)
{
	struct sh_heredoc	*hd = p->hd;
	size_t			 nhd = p->nhd, hdcap = p->hdcap;
	size_t			 bodies = p->sh->nheredocs, i;
	size_t			 body_end = p->body_end;
	struct sh_token		*t;
	int			 ctx = p->ctx, r;
	char			 what[64];

	if (sh_enter(p, start) != 0)
		return -1;
	p->hd = NULL;
	p->nhd = p->hdcap = 0;
	p->body_end = 0;
	p->ctx |= SH_C_SUBST;
	p->pos = from;
	r = shparse_list(p, NULL);
	if (r == 0)
		r = lex_peek(p, &t);
	if (r == 0 && t->type != TOK_RPAREN) {
		if (t->type == TOK_EOF)
			r = sh_error(p, start, "unterminated %s",
			    flag == SH_W_CMDSUBST ? "$(" :
			    "process substitution");
		else {
			lex_describe(t, what, sizeof what);
			r = sh_error(p, t->start,
			    "syntax error near unexpected %s", what);
		}
	}
	if (r == 0 && p->nhd > 0)
		r = sh_error(p, p->hd[0].start,
		    "here-document '%.32s' not ended inside the "
		    "substitution",
		    p->hd[0].delim);
	if (r == 0)
		r = lex_drop(p);
	/*
	 * bash 5.2 keeps a substitution that holds a here-document as the
	 * text it prints back from its parse, and that text can differ from
	 * the input ("a;\<newline>b" and "a {; b" both run as "a ... b").
	 * Accept only the common shape where the here-documents of one line
	 * are the last thing in it: $(cat <<'EOF' ... EOF<newline>).
	 */
	if (r == 0 && p->sh->nheredocs > bodies) {
		if (p->body_end <= start)
			r = sh_error(p, start, "here-document nested in a "
			    "substitution");
		for (i = p->body_end; r == 0 && i + 1 < p->pos; i++)
			if (strchr(" \t\n", p->s[i]) == NULL)
				r = sh_error(p, i, "command after a "
				    "here-document in a substitution");
	}
	p->body_end = body_end;
	lex_heredocs_clear(p);
	free(p->hd);
	p->hd = hd;
	p->nhd = nhd;
	p->hdcap = hdcap;
	p->ctx = ctx;
	sh_leave(p);
	if (r != 0)
		return -1;
	w_expansion(w, p->s + start, p->pos - start, flag);
	return 0;
}

/* ${...}: find the matching brace; parse what is nested inside. */
static int
lex_brace(struct sh_parser *p, struct wacc *w, size_t from, bool dq)
{
	struct wacc	inner;
	size_t		start = p->pos;
	int		nest = 0, r = 0;
	char		c;

	if (sh_enter(p, start) != 0)
		return -1;
	w_init(&inner);
	p->pos = from;
	for (;;) {
		if (p->pos >= p->len) {
			r = sh_error(p, start, "unterminated ${");
			break;
		}
		c = p->s[p->pos];
		if (c == '}' && nest == 0) {
			p->pos++;
			break;
		}
		switch (c) {
		case '\\':
			p->pos += 2;
			if (p->pos > p->len)
				p->pos = p->len;
			continue;
		case '\'':
			/* Quotes hide a } here even inside "...". */
			r = lex_single(p, &inner);
			break;
		case '"':
			r = lex_double(p, &inner);
			break;
		case '$':
			r = lex_dollar(p, &inner, dq);
			break;
		case '`':
			r = lex_backquote(p, &inner, dq);
			break;
		case '{':
			nest++;
			p->pos++;
			continue;
		case '}':
			nest--;
			p->pos++;
			continue;
		default:
			p->pos++;
			continue;
		}
		if (r != 0)
			break;
	}
	sh_leave(p);
	buf_release(&inner.text);
	if (r != 0)
		return -1;
	w_expansion(w, p->s + start, p->pos - start,
	    SH_W_PARAM | (inner.flags & ~SH_W_QUOTED));
	return 0;
}

/*
 * `...`: backslash quotes only $ ` \ (and " inside double quotes); the
 * unescaped text is parsed as a separate input.
 */
int
lex_backquote(struct sh_parser *p, struct wacc *w, bool dq)
{
	struct buf	inner = BUF_INIT;
	size_t		start = p->pos;
	int		r;
	char		c, n;

	p->pos++;
	for (;;) {
		if (p->pos >= p->len) {
			buf_release(&inner);
			return sh_error(p, start, "unterminated backquote");
		}
		c = p->s[p->pos];
		if (c == '`') {
			p->pos++;
			break;
		}
		n = peekc(p, p->pos + 1);
		if (c == '\\' && (n == '`' || n == '$' || n == '\\' ||
		    (dq && n == '"'))) {
			buf_putc(&inner, n);
			p->pos += 2;
			continue;
		}
		buf_putc(&inner, c);
		p->pos++;
	}
	r = shparse_sub(p, inner.data != NULL ? inner.data : "", inner.len,
	    p->base + start + 1, p->ctx | SH_C_SUBST);
	buf_release(&inner);
	if (r != 0)
		return -1;
	w_expansion(w, p->s + start, p->pos - start, SH_W_CMDSUBST);
	return 0;
}

/* NAME=( a b c ): read the elements as words up to the closing paren. */
static int
lex_array(struct sh_parser *p, struct wacc *w)
{
	struct wacc	el;
	size_t		start = p->pos;
	bool		first = true;
	char		c;

	w->array = true;
	buf_putc(&w->text, '(');
	p->pos++;
	for (;;) {
		while (p->pos < p->len) {
			c = p->s[p->pos];
			if (c == ' ' || c == '\t' || c == '\n')
				p->pos++;
			else if (c == '\\' && peekc(p, p->pos + 1) == '\n')
				p->pos += 2;
			else if (c == '#') {
				while (p->pos < p->len &&
				    p->s[p->pos] != '\n')
					p->pos++;
			} else
				break;
		}
		if (p->pos >= p->len)
			return sh_error(p, start, "unterminated array "
			    "assignment");
		if (p->s[p->pos] == ')') {
			p->pos++;
			buf_putc(&w->text, ')');
			w_opaque(w);
			return 0;
		}
		w_init(&el);
		if (lex_word(p, &el, WM_NOARRAY) != 0) {
			buf_release(&el.text);
			return -1;
		}
		if (el.empty) {
			buf_release(&el.text);
			return sh_error(p, p->pos, "syntax error in array "
			    "assignment");
		}
		if (!first)
			buf_putc(&w->text, ' ');
		first = false;
		buf_add(&w->text, el.text.data, el.text.len);
		w->flags |= el.flags;
		buf_release(&el.text);
	}
}
