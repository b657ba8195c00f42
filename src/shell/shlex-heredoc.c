/*
 * shlex-heredoc: the here-document queue and the bodies read at a newline.
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

static int	 lex_heredoc_body(struct sh_parser *, struct sh_heredoc *);
static int	 lex_heredoc_expand(struct sh_parser *, struct sh_heredoc *,
		     const char *, size_t, size_t, struct sh_word *);

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
int
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
