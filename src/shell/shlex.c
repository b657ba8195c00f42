/*
 * shlex: the shell lexer used by shparse: tokens, words after quote
 * removal, the expansions inside words, $'...' strings and here-document
 * bodies. See shlex.h for how it cooperates with the parser. This file:
 * errors, nesting, and tokens; words are in shlex-word.c, arithmetic and
 * [[ =~ in shlex-arith.c, here-document bodies in shlex-heredoc.c.
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

static int	 lex_operator(struct sh_parser *, struct sh_token *);
static int	 lex_next(struct sh_parser *);

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

size_t
lex_skip_cont(const struct sh_parser *p, size_t i)
{
	while (i + 1 < p->len && p->s[i] == '\\' && p->s[i + 1] == '\n')
		i += 2;
	return i;
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
