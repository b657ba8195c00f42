/*
 * shlex: the shell lexer used by shparse: tokens, words after quote
 * removal, the expansions inside words, $'...' strings and here-document
 * bodies. See shlex.h for how it cooperates with the parser.
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

/* Where a word may be an assignment (NAME=, NAME+=, NAME[sub]=). */
enum assign_state {
	A_START,
	A_NAME,
	A_PLUS,
	A_SUB,
	A_SUBEND,
	A_VALUE,
	A_NO,
};

/* Word reading modes. */
#define WM_NOARRAY	0x1	/* an array element: no nested NAME=( */
#define WM_REGEX	0x2	/* the right side of [[ =~ */

/* A word being read: its text after quote removal and what it holds. */
struct wacc {
	struct buf	 text;
	int		 flags;
	enum assign_state assign;
	int		 sub;		/* [ ] depth in NAME[sub]= */
	bool		 eq_last;	/* last char: the assignment '=' */
	bool		 tilde_ok;	/* an unquoted ~ here expands */
	bool		 digits;	/* only unquoted digits so far */
	bool		 bracket;	/* an unquoted [ was seen */
	bool		 brace;		/* an unquoted { was seen */
	bool		 brace_sep;	/* then an unquoted , or .. */
	bool		 dot;		/* last char: an unquoted . */
	bool		 empty;		/* nothing added yet */
	bool		 array;		/* NAME=( ... ) */
};

static void	 w_init(struct wacc *);
static void	 w_opaque(struct wacc *);
static void	 w_lit(struct wacc *, char);
static void	 w_quoted(struct wacc *, char);
static void	 w_expansion(struct wacc *, const char *, size_t, int);
static char	 peekc(const struct sh_parser *, size_t);
static int	 lex_word(struct sh_parser *, struct wacc *, int);
static int	 lex_single(struct sh_parser *, struct wacc *);
static int	 lex_double(struct sh_parser *, struct wacc *);
static int	 lex_ansic(struct sh_parser *, struct wacc *, size_t);
static int	 lex_dollar(struct sh_parser *, struct wacc *, bool);
static int	 lex_backquote(struct sh_parser *, struct wacc *, bool);
static int	 lex_subst(struct sh_parser *, struct wacc *, size_t, size_t,
		     int);
static int	 lex_brace(struct sh_parser *, struct wacc *, size_t, bool);
static int	 lex_array(struct sh_parser *, struct wacc *);
static int	 lex_bracket_prescan(struct sh_parser *, size_t, size_t *);
static void	 w_param(struct wacc *, const char *, size_t);
static int	 lex_operator(struct sh_parser *, struct sh_token *);
static int	 lex_next(struct sh_parser *);
static int	 lex_heredocs(struct sh_parser *);
static int	 lex_heredoc_body(struct sh_parser *, struct sh_heredoc *);
static int	 lex_heredoc_expand(struct sh_parser *, struct sh_heredoc *,
		     const char *, size_t, size_t, struct sh_word *);

/* Record the first error, with the byte offset; always -1. */
int
sh_error(struct sh_parser *p, size_t off, const char *fmt, ...)
{
	va_list		ap;
	char		msg[256];
	size_t		i;
	unsigned char	c;

	if (p->sh->cause != NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* One printable line whatever the input held. */
	for (i = 0; msg[i] != '\0'; i++) {
		c = (unsigned char)msg[i];
		if (c < 0x20 || c >= 0x7f)
			msg[i] = '?';
	}
	p->sh->cause = xasprintf("%s at %zu", msg, p->base + off);
	return -1;
}

/* Enter one nesting level; -1 when too deep. */
int
sh_enter(struct sh_parser *p, size_t off)
{
	if (p->depth >= SH_MAX_DEPTH)
		return sh_error(p, off, "nesting deeper than %d levels",
		    SH_MAX_DEPTH);
	p->depth++;
	return 0;
}

/* Leave a nesting level. */
void
sh_leave(struct sh_parser *p)
{
	p->depth--;
}

/* Name a construct that is not modelled (once). */
void
sh_unknown(struct sh_parser *p, const char *what)
{
	if (!strv_contains(&p->sh->script->unknown, what))
		strv_push(&p->sh->script->unknown, what);
}

/* Free a word's strings. */
void
sh_word_free(struct sh_word *w)
{
	free(w->text);
	free(w->raw);
	w->text = w->raw = NULL;
	w->flags = 0;
}

static bool
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte at i, or NUL past the end (the input holds no NUL). */
static char
peekc(const struct sh_parser *p, size_t i)
{
	return i < p->len ? p->s[i] : '\0';
}

/* Index of the next byte at or after i, skipping line continuations. */
size_t
lex_skip_cont(const struct sh_parser *p, size_t i)
{
	while (i + 1 < p->len && p->s[i] == '\\' && p->s[i + 1] == '\n')
		i += 2;
	return i;
}

/* Start an empty word. */
static void
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
static int
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
static int
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
static int
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
static int
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
static int
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
static int
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

/* An operator at p->pos: 1 and fill t, or 0 when there is none. */
static int
lex_operator(struct sh_parser *p, struct sh_token *t)
{
	size_t	i, j;
	char	c = p->s[p->pos], c1, c2;

	i = lex_skip_cont(p, p->pos + 1);
	c1 = peekc(p, i);
	j = lex_skip_cont(p, i + 1);
	c2 = peekc(p, j);
	t->type = TOK_REDIR;
	switch (c) {
	case ';':
		if (c1 == ';' && c2 == '&') {
			t->type = TOK_DSEMIAND;
			p->pos = j + 1;
		} else if (c1 == ';') {
			t->type = TOK_DSEMI;
			p->pos = i + 1;
		} else if (c1 == '&') {
			t->type = TOK_SEMIAND;
			p->pos = i + 1;
		} else {
			t->type = TOK_SEMI;
			p->pos++;
		}
		return 1;
	case '&':
		if (c1 == '&') {
			t->type = TOK_AND;
			p->pos = i + 1;
		} else if (c1 == '>' && c2 == '>') {
			t->op = SH_R_APPEND_ERR;
			p->pos = j + 1;
		} else if (c1 == '>') {
			t->op = SH_R_OUT_ERR;
			p->pos = i + 1;
		} else {
			t->type = TOK_AMP;
			p->pos++;
		}
		return 1;
	case '|':
		if (c1 == '|') {
			t->type = TOK_OR;
			p->pos = i + 1;
		} else if (c1 == '&') {
			t->type = TOK_PIPEAMP;
			p->pos = i + 1;
		} else {
			t->type = TOK_PIPE;
			p->pos++;
		}
		return 1;
	case '(':
		t->type = TOK_LPAREN;
		p->pos++;
		return 1;
	case ')':
		t->type = TOK_RPAREN;
		p->pos++;
		return 1;
	case '<':
		if (c1 == '(')
			return 0;
		if (c1 == '<' && c2 == '<') {
			t->op = SH_R_HERESTRING;
			p->pos = j + 1;
		} else if (c1 == '<' && c2 == '-') {
			t->op = SH_R_HEREDOC;
			t->strip = true;
			p->pos = j + 1;
		} else if (c1 == '<') {
			t->op = SH_R_HEREDOC;
			p->pos = i + 1;
		} else if (c1 == '>') {
			t->op = SH_R_INOUT;
			p->pos = i + 1;
		} else if (c1 == '&') {
			t->op = SH_R_DUP_IN;
			p->pos = i + 1;
		} else {
			t->op = SH_R_IN;
			p->pos++;
		}
		return 1;
	case '>':
		if (c1 == '(')
			return 0;
		if (c1 == '>') {
			t->op = SH_R_APPEND;
			p->pos = i + 1;
		} else if (c1 == '|') {
			t->op = SH_R_CLOBBER;
			p->pos = i + 1;
		} else if (c1 == '&') {
			t->op = SH_R_DUP_OUT;
			p->pos = i + 1;
		} else {
			t->op = SH_R_OUT;
			p->pos++;
		}
		return 1;
	}
	return 0;
}

/* Is text "{name}" (a redirection's file descriptor variable)? */
static bool
is_fdvar(const char *s, size_t len)
{
	size_t	i;

	if (len < 3 || s[0] != '{' || s[len - 1] != '}' ||
	    !is_name_start(s[1]))
		return false;
	for (i = 2; i < len - 1; i++)
		if (!is_name_char(s[i]))
			return false;
	return true;
}

/* Lex the next token into p->tok. */
static int
lex_next(struct sh_parser *p)
{
	struct sh_token	t;
	struct wacc	w;
	size_t		start;
	long		fd;
	char		c;

	memset(&t, 0, sizeof t);
	t.fd = -1;
	for (;;) {
		while (p->pos < p->len) {
			c = p->s[p->pos];
			if (c == ' ' || c == '\t')
				p->pos++;
			else if (c == '\\' && peekc(p, p->pos + 1) == '\n')
				p->pos += 2;
			else
				break;
		}
		if (p->pos >= p->len || p->s[p->pos] != '#')
			break;
		/* A comment runs to the end of the line. */
		while (p->pos < p->len && p->s[p->pos] != '\n')
			p->pos++;
	}
	t.start = start = p->pos;
	if (p->pos >= p->len) {
		t.type = TOK_EOF;
		p->tok = t;
		return 0;
	}
	if (p->s[p->pos] == '\n') {
		t.type = TOK_NEWLINE;
		p->pos++;
		p->tok = t;
		return 0;
	}
	if (lex_operator(p, &t)) {
		p->tok = t;
		return 0;
	}

	w_init(&w);
	if (lex_word(p, &w, 0) != 0) {
		buf_release(&w.text);
		return -1;
	}
	if (p->pos == start) {
		buf_release(&w.text);
		return sh_error(p, start, "unexpected character");
	}
	c = peekc(p, p->pos);
	if ((c == '<' || c == '>') && peekc(p, p->pos + 1) != '(' &&
	    (w.flags == 0 || w.flags == SH_W_BRACE) && w.text.len > 0 &&
	    (w.digits || is_fdvar(w.text.data, w.text.len))) {
		/* 2>file, {fd}>file: the word belongs to the redirection. */
		if (w.digits) {
			if (w.text.len > 9) {
				buf_release(&w.text);
				return sh_error(p, start,
				    "file descriptor out of range");
			}
			fd = strtol(w.text.data, NULL, 10);
			t.fd = (int)fd;
		} else
			t.fdvar = true;
		buf_release(&w.text);
		lex_operator(p, &t);
		t.start = start;
		p->tok = t;
		return 0;
	}
	t.type = TOK_WORD;
	t.word.text = buf_detach(&w.text);
	t.word.raw = xstrndup(p->s + start, p->pos - start);
	t.word.flags = w.flags;
	t.assign = w.assign == A_VALUE;
	t.array = w.array;
	p->tok = t;
	return 0;
}

/* The lookahead token, lexing it if needed. */
int
lex_peek(struct sh_parser *p, struct sh_token **tp)
{
	if (p->tok.type == TOK_NONE && lex_next(p) != 0) {
		*tp = NULL;
		return -1;
	}
	*tp = &p->tok;
	return 0;
}

/* Consume the lookahead token; after a newline read pending bodies. */
int
lex_drop(struct sh_parser *p)
{
	enum sh_tok	type = p->tok.type;

	if (type == TOK_WORD)
		sh_word_free(&p->tok.word);
	memset(&p->tok, 0, sizeof p->tok);
	p->tok.type = TOK_NONE;
	if (type == TOK_NEWLINE && p->nhd > 0)
		return lex_heredocs(p);
	return 0;
}

/* Move the lookahead word into w and consume it. */
void
lex_take_word(struct sh_parser *p, struct sh_word *w)
{
	*w = p->tok.word;
	memset(&p->tok.word, 0, sizeof p->tok.word);
	lex_drop(p);
}

/* Describe a token for an error message (one line, short). */
void
lex_describe(const struct sh_token *t, char *out, size_t size)
{
	static const char *const names[] = {
		[TOK_SEMI] = ";", [TOK_DSEMI] = ";;", [TOK_SEMIAND] = ";&",
		[TOK_DSEMIAND] = ";;&", [TOK_AMP] = "&", [TOK_AND] = "&&",
		[TOK_OR] = "||", [TOK_PIPE] = "|", [TOK_PIPEAMP] = "|&",
		[TOK_LPAREN] = "(", [TOK_RPAREN] = ")",
	};
	static const char *const redirs[] = {
		[SH_R_IN] = "<", [SH_R_OUT] = ">", [SH_R_APPEND] = ">>",
		[SH_R_CLOBBER] = ">|", [SH_R_INOUT] = "<>",
		[SH_R_DUP_IN] = "<&", [SH_R_DUP_OUT] = ">&",
		[SH_R_OUT_ERR] = "&>", [SH_R_APPEND_ERR] = "&>>",
		[SH_R_HEREDOC] = "<<", [SH_R_HERESTRING] = "<<<",
	};
	char	word[32];
	size_t	i;

	switch (t->type) {
	case TOK_EOF:
	case TOK_NONE:
		snprintf(out, size, "end of input");
		return;
	case TOK_NEWLINE:
		snprintf(out, size, "newline");
		return;
	case TOK_WORD:
		for (i = 0; i < sizeof word - 1 && t->word.raw[i] != '\0';
		    i++) {
			unsigned char c = (unsigned char)t->word.raw[i];
			word[i] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
		}
		word[i] = '\0';
		snprintf(out, size, "word '%s%s'", word,
		    t->word.raw[i] != '\0' ? "..." : "");
		return;
	case TOK_REDIR:
		snprintf(out, size, "token '%s'", redirs[t->op]);
		return;
	default:
		snprintf(out, size, "token '%s'", names[t->type]);
		return;
	}
}

/* Queue a here-document for the next newline. */
void
lex_heredoc_push(struct sh_parser *p, const struct sh_heredoc *h)
{
	if (p->nhd == p->hdcap) {
		p->hdcap = p->hdcap == 0 ? 4 : p->hdcap * 2;
		p->hd = xreallocarray(p->hd, p->hdcap, sizeof *p->hd);
	}
	p->hd[p->nhd++] = *h;
}

/* Forget the queued here-documents. */
void
lex_heredocs_clear(struct sh_parser *p)
{
	size_t	i;

	for (i = 0; i < p->nhd; i++)
		free(p->hd[i].delim);
	p->nhd = 0;
}

/* Release what a parser holds (its lookahead and queue). */
void
lex_parser_done(struct sh_parser *p)
{
	if (p->tok.type == TOK_WORD)
		sh_word_free(&p->tok.word);
	p->tok.type = TOK_NONE;
	lex_heredocs_clear(p);
	free(p->hd);
	p->hd = NULL;
	p->hdcap = 0;
}

/* Read the bodies of all queued here-documents, in order. */
static int
lex_heredocs(struct sh_parser *p)
{
	size_t	i;
	int	r = 0;

	for (i = 0; i < p->nhd && r == 0; i++)
		r = lex_heredoc_body(p, &p->hd[i]);
	/* Where the first here-document line's bodies end (see lex_subst). */
	if (p->body_end == 0)
		p->body_end = p->pos;
	lex_heredocs_clear(p);
	return r;
}

/* Does line [from, to) equal delim (with continuations removed)? */
static bool
heredoc_is_delim(const struct sh_parser *p, size_t from, size_t to,
    const char *delim, bool cont)
{
	size_t	dlen = strlen(delim), i, k = 0;

	if (!cont || memchr(p->s + from, '\n', to - from) == NULL)
		return to - from == dlen &&
		    memcmp(p->s + from, delim, dlen) == 0;
	for (i = from; i < to; i++) {
		if (p->s[i] == '\\' && i + 1 < to && p->s[i + 1] == '\n') {
			i++;
			continue;
		}
		if (k >= dlen || delim[k] != p->s[i])
			return false;
		k++;
	}
	return k == dlen;
}

/* Read one body up to its delimiter line; it becomes the target. */
static int
lex_heredoc_body(struct sh_parser *p, struct sh_heredoc *h)
{
	struct sh_script	*script = p->sh->script;
	struct sh_word		 word, *target;
	struct buf		 raw = BUF_INIT, joined = BUF_INIT;
	size_t			 ls, le, cs, bs, i, body = p->pos;
	const char		*nl;
	int			 r;

	for (;;) {
		if (p->pos >= p->len) {
			buf_release(&raw);
			buf_release(&joined);
			return sh_error(p, h->start, "here-document '%.32s' "
			    "has no end line", h->delim);
		}
		ls = p->pos;
		for (le = ls;;) {
			nl = memchr(p->s + le, '\n', p->len - le);
			le = nl != NULL ? (size_t)(nl - p->s) : p->len;
			if (h->quoted || le >= p->len)
				break;
			/* An odd run of backslashes continues the line. */
			for (bs = le; bs > ls && p->s[bs - 1] == '\\'; bs--)
				;
			if ((le - bs) % 2 == 0)
				break;
			le++;
		}
		cs = ls;
		if (h->strip)
			while (cs < le && p->s[cs] == '\t')
				cs++;
		p->pos = le < p->len ? le + 1 : le;
		if (heredoc_is_delim(p, cs, le, h->delim, !h->quoted))
			break;
		buf_add(&raw, p->s + cs, le - cs);
		if (le < p->len)
			buf_putc(&raw, '\n');
		/*
		 * bash joins continued lines of an unquoted body before it
		 * expands anything (a comment in $(...) then runs on).
		 */
		for (i = cs; i < le; i++) {
			if (p->s[i] == '\n' && joined.len > 0)
				joined.data[--joined.len] = '\0';
			else
				buf_putc(&joined, p->s[i]);
		}
		if (le < p->len)
			buf_putc(&joined, '\n');
	}

	if (h->cmd == SIZE_MAX) {
		buf_release(&raw);
		buf_release(&joined);
		return sh_error(p, h->start, "here-document body read before "
		    "its command ended");
	}
	memset(&word, 0, sizeof word);
	if (h->quoted) {
		word.text = xstrndup(raw.data != NULL ? raw.data : "",
		    raw.len);
		word.flags = SH_W_QUOTED;
	} else {
		r = lex_heredoc_expand(p, h, joined.data != NULL ?
		    joined.data : "", joined.len, p->base + body, &word);
		if (r != 0) {
			buf_release(&raw);
			buf_release(&joined);
			return -1;
		}
	}
	buf_release(&joined);
	word.raw = buf_detach(&raw);
	p->sh->nheredocs++;
	target = &script->cmds[h->cmd].redirs[h->redir].target;
	sh_word_free(target);
	*target = word;
	return 0;
}

/*
 * An unquoted here-document body: backslash quotes only $ ` \ and
 * newline; parameter, command and arithmetic expansions happen (and the
 * commands inside run), so parse them as in a double-quoted word.
 */
static int
lex_heredoc_expand(struct sh_parser *p, struct sh_heredoc *h,
    const char *s, size_t len, size_t base, struct sh_word *out)
{
	struct sh_parser	sub;
	struct wacc		w;
	int			r = 0;
	char			c, n;

	memset(&sub, 0, sizeof sub);
	sub.sh = p->sh;
	sub.s = s;
	sub.len = len;
	sub.base = base;
	sub.depth = p->depth;
	sub.ctx = h->ctx;
	w_init(&w);
	if (sh_enter(&sub, 0) != 0)
		r = -1;
	while (r == 0 && sub.pos < sub.len) {
		c = s[sub.pos];
		n = peekc(&sub, sub.pos + 1);
		if (c == '\\' && (n == '$' || n == '`' || n == '\\')) {
			buf_putc(&w.text, n);
			sub.pos += 2;
		} else if (c == '\\' && n == '\n')
			sub.pos += 2;
		else if (c == '$')
			r = lex_dollar(&sub, &w, true);
		else if (c == '`')
			r = lex_backquote(&sub, &w, false);
		else {
			buf_putc(&w.text, c);
			sub.pos++;
		}
	}
	lex_parser_done(&sub);
	if (r != 0) {
		buf_release(&w.text);
		return -1;
	}
	out->text = buf_detach(&w.text);
	out->flags = w.flags & (SH_W_PARAM | SH_W_CMDSUBST | SH_W_ARITH);
	return 0;
}
