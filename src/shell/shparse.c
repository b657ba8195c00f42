/*
 * shparse: the grammar half of the shell parser (lists, pipelines, simple
 * and compound commands, redirections). Words come from shlex.c.
 *
 * Commands are recorded when they are complete, so the commands of the
 * substitutions inside a command come before it (the order bash runs
 * them in). A compound command's own redirections become a command
 * without words, after the commands inside it.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shlex.h"
#include "xalloc.h"

static int	 parse_and_or(struct sh_parser *);
static int	 parse_pipeline(struct sh_parser *, bool *);
static int	 parse_simple(struct sh_parser *, size_t *);
static int	 parse_redir(struct sh_parser *, struct sh_cmd *);

/* Reserved words that end a list when in command position. */
static const char *const list_enders[] = {
	"then", "elif", "else", "fi", "do", "done", "esac", "}", NULL
};

/* The input byte at i, or NUL past the end. */
char
parse_peekc_raw(const struct sh_parser *p, size_t i)
{
	return i < p->len ? p->s[i] : '\0';
}

/* Is the token the unquoted word w (a reserved word)? */
bool
parse_tok_is(const struct sh_token *t, const char *w)
{
	return t->type == TOK_WORD && t->word.flags == 0 &&
	    strcmp(t->word.text, w) == 0;
}

/* Can the token start a command (in command position)? */
static bool
command_start(const struct sh_token *t)
{
	size_t	i;

	if (t->type == TOK_REDIR || t->type == TOK_LPAREN)
		return true;
	if (t->type != TOK_WORD)
		return false;
	for (i = 0; list_enders[i] != NULL; i++)
		if (parse_tok_is(t, list_enders[i]))
			return false;
	return true;
}

/* Report the lookahead token as unexpected; always -1. */
int
parse_unexpected(struct sh_parser *p, const char *wanted)
{
	struct sh_token	*t;
	char		 what[64];

	if (lex_peek(p, &t) != 0)
		return -1;
	lex_describe(t, what, sizeof what);
	if (wanted != NULL)
		return sh_error(p, t->start, "syntax error: expected '%s' "
		    "but found %s", wanted, what);
	if (t->type == TOK_EOF)
		return sh_error(p, t->start, "unexpected end of input");
	return sh_error(p, t->start, "syntax error near unexpected %s", what);
}

/* Consume the reserved word w or fail. */
int
parse_expect(struct sh_parser *p, const char *w)
{
	struct sh_token	*t;

	if (lex_peek(p, &t) != 0)
		return -1;
	if (!parse_tok_is(t, w))
		return parse_unexpected(p, w);
	return lex_drop(p);
}

/* Consume any newlines (reading here-document bodies). */
int
parse_skip_newlines(struct sh_parser *p)
{
	struct sh_token	*t;

	for (;;) {
		if (lex_peek(p, &t) != 0)
			return -1;
		if (t->type != TOK_NEWLINE)
			return 0;
		if (lex_drop(p) != 0)
			return -1;
	}
}

/* Grow an array of n elements of size sz by one zeroed element. */
static void *
grow(void *v, size_t *n, size_t sz)
{
	size_t	cap;

	/* Capacity is the next power of two: no separate field needed. */
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		cap = *n == 0 ? 1 : *n * 2;
		v = xreallocarray(v, cap, sz);
	}
	memset((char *)v + *n * sz, 0, sz);
	(*n)++;
	return v;
}

/* Release what a command owns. */
static void
cmd_release(struct sh_cmd *c)
{
	size_t	i;

	for (i = 0; i < c->nassigns; i++)
		sh_word_free(&c->assigns[i]);
	for (i = 0; i < c->nwords; i++)
		sh_word_free(&c->words[i]);
	for (i = 0; i < c->nredirs; i++)
		sh_word_free(&c->redirs[i].target);
	free(c->assigns);
	free(c->words);
	free(c->redirs);
	memset(c, 0, sizeof *c);
}

/* Record a finished command; its queued here-documents point at it. */
static size_t
cmd_add(struct sh_parser *p, struct sh_cmd *c)
{
	struct sh_script	*s = p->sh->script;
	size_t			 idx = s->ncmds, i;

	s->cmds = grow(s->cmds, &s->ncmds, sizeof *s->cmds);
	s->cmds[idx] = *c;
	memset(c, 0, sizeof *c);
	for (i = 0; i < p->nhd; i++)
		if (p->hd[i].cmd == SIZE_MAX)
			p->hd[i].cmd = idx;
	return idx;
}

/* Set flag on the commands recorded since first. */
void
parse_mark(struct sh_parser *p, size_t first, int flag)
{
	struct sh_script	*s = p->sh->script;
	size_t			 i;

	for (i = first; i < s->ncmds; i++)
		s->cmds[i].flags |= flag;
}

/*
 * A list: and-or lists separated by ; & or newlines, up to a token that
 * cannot start a command (the caller checks which one it is).
 */
int
shparse_list(struct sh_parser *p, size_t *count)
{
	struct sh_token	*t;
	size_t		 n = 0, first;

	for (;;) {
		if (parse_skip_newlines(p) != 0 || lex_peek(p, &t) != 0)
			return -1;
		if (!command_start(t))
			break;
		first = p->sh->script->ncmds;
		if (parse_and_or(p) != 0 || lex_peek(p, &t) != 0)
			return -1;
		n++;
		if (t->type == TOK_SEMI) {
			if (lex_drop(p) != 0)
				return -1;
		} else if (t->type == TOK_AMP) {
			if (lex_drop(p) != 0)
				return -1;
			parse_mark(p, first, SH_C_BACKGROUND);
			sh_unknown(p, "background job '&'");
		} else if (t->type != TOK_NEWLINE)
			break;
	}
	if (count != NULL)
		*count = n;
	return 0;
}

/* A list that must hold at least one command. */
int
parse_list_required(struct sh_parser *p)
{
	size_t	n;

	if (shparse_list(p, &n) != 0)
		return -1;
	if (n == 0)
		return parse_unexpected(p, NULL);
	return 0;
}

/*
 * Parse a separate input (the inside of `...`, a here-document body) as a
 * whole script; commands go to the same script.
 */
int
shparse_sub(struct sh_parser *parent, const char *s, size_t len,
    size_t base, int ctx)
{
	struct sh_parser	 sub;
	struct sh_token		*t;
	int			 r;

	memset(&sub, 0, sizeof sub);
	sub.sh = parent->sh;
	sub.s = s;
	sub.len = len;
	sub.base = base;
	sub.depth = parent->depth;
	sub.ctx = ctx;
	r = sh_enter(&sub, 0);
	if (r == 0)
		r = shparse_list(&sub, NULL);
	if (r == 0 && lex_peek(&sub, &t) == 0 && t->type != TOK_EOF)
		r = parse_unexpected(&sub, NULL);
	if (r == 0 && sub.nhd > 0)
		r = sh_error(&sub, sub.hd[0].start, "here-document '%.32s' has "
		    "no body", sub.hd[0].delim);
	lex_parser_done(&sub);
	return r != 0 || parent->sh->cause != NULL ? -1 : 0;
}

/* pipeline { && or || pipeline } */
static int
parse_and_or(struct sh_parser *p)
{
	struct sh_token	*t;
	size_t		 first = p->sh->script->ncmds;
	bool		 negated, or = false;

	if (parse_pipeline(p, &negated) != 0)
		return -1;
	for (;;) {
		if (lex_peek(p, &t) != 0)
			return -1;
		if (t->type != TOK_AND && t->type != TOK_OR)
			return 0;
		/* After a ||, what follows && may run with the pipeline
		   before it skipped: `a || cd x && rm y` runs rm where a
		   left it. */
		or |= t->type == TOK_OR;
		if (t->type == TOK_AND && !negated && !or)
			parse_mark(p, first, SH_C_THEN);
		if (lex_drop(p) != 0 || parse_skip_newlines(p) != 0 ||
		    lex_peek(p, &t) != 0)
			return -1;
		if (!command_start(t))
			return parse_unexpected(p, NULL);
		first = p->sh->script->ncmds;
		if (parse_pipeline(p, &negated) != 0)
			return -1;
	}
}

/* Add 2>&1 to a simple command (for |&). */
static void
add_stderr_dup(struct sh_parser *p, size_t idx)
{
	struct sh_cmd	*c = &p->sh->script->cmds[idx];
	struct sh_redir	*r;

	c->redirs = grow(c->redirs, &c->nredirs, sizeof *c->redirs);
	r = &c->redirs[c->nredirs - 1];
	r->fd = 2;
	r->op = SH_R_DUP_OUT;
	r->target.text = xstrdup("1");
	r->target.raw = xstrdup("|&");
	r->target.flags = 0;
}

/* [time [-p]] [!] command { | or |& command }; *negated: an odd number
   of ! */
static int
parse_pipeline(struct sh_parser *p, bool *negated)
{
	struct sh_token	*t;
	size_t		 first = p->sh->script->ncmds, last, n = 1;

	*negated = false;
	for (;;) {
		if (lex_peek(p, &t) != 0)
			return -1;
		if (parse_tok_is(t, "!")) {
			*negated = !*negated;
			if (lex_drop(p) != 0)
				return -1;
		} else if (parse_tok_is(t, "time")) {
			if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
				return -1;
			if (parse_tok_is(t, "-p") && lex_drop(p) != 0)
				return -1;
		} else
			break;
	}
	if (!command_start(t))
		return parse_unexpected(p, NULL);
	if (parse_command(p, &last) != 0)
		return -1;
	for (;;) {
		if (lex_peek(p, &t) != 0)
			return -1;
		if (t->type != TOK_PIPE && t->type != TOK_PIPEAMP)
			break;
		if (t->type == TOK_PIPEAMP && last != SIZE_MAX)
			add_stderr_dup(p, last);
		if (lex_drop(p) != 0 || parse_skip_newlines(p) != 0 ||
		    lex_peek(p, &t) != 0)
			return -1;
		if (!command_start(t))
			return parse_unexpected(p, NULL);
		if (parse_command(p, &last) != 0)
			return -1;
		n++;
	}
	if (n > 1)
		parse_mark(p, first, SH_C_PIPED);
	return 0;
}

/* A simple or compound command; *last is the simple command's index. */
int
parse_command(struct sh_parser *p, size_t *last)
{
	struct sh_token	*t;
	bool		 done;
	const char	*w;

	*last = SIZE_MAX;
	if (lex_peek(p, &t) != 0)
		return -1;
	if (t->type == TOK_LPAREN) {
		if (parse_peekc_raw(p, lex_skip_cont(p, t->start + 1)) == '(') {
			if (parse_arith_cmd(p, &done) != 0)
				return -1;
			if (done)
				return 0;
		}
		return parse_subshell(p);
	}
	if (t->type == TOK_WORD && t->word.flags == 0) {
		w = t->word.text;
		if (strcmp(w, "if") == 0)
			return parse_if(p);
		if (strcmp(w, "while") == 0 || strcmp(w, "until") == 0)
			return parse_while(p);
		if (strcmp(w, "for") == 0 || strcmp(w, "select") == 0)
			return parse_for(p);
		if (strcmp(w, "case") == 0)
			return parse_case(p);
		if (strcmp(w, "{") == 0)
			return parse_group(p);
		if (strcmp(w, "[[") == 0)
			return parse_cond(p);
		if (strcmp(w, "function") == 0)
			return parse_function(p, true);
		if (strcmp(w, "coproc") == 0)
			return parse_coproc(p);
	}
	if (t->type == TOK_WORD || t->type == TOK_REDIR)
		return parse_simple(p, last);
	return parse_unexpected(p, NULL);
}

/* Assignments, words and redirections; or the start of NAME () body. */
static int
parse_simple(struct sh_parser *p, size_t *last)
{
	struct sh_cmd	 c;
	struct sh_token	*t;
	struct sh_word	*w;

	memset(&c, 0, sizeof c);
	c.flags = p->ctx;
	for (;;) {
		if (lex_peek(p, &t) != 0)
			goto fail;
		if (t->type == TOK_REDIR) {
			if (parse_redir(p, &c) != 0)
				goto fail;
			continue;
		}
		if (t->type != TOK_WORD)
			break;
		if (t->array)
			sh_unknown(p, "array assignment");
		if (c.nwords == 0 && t->assign) {
			c.assigns = grow(c.assigns, &c.nassigns,
			    sizeof *c.assigns);
			w = &c.assigns[c.nassigns - 1];
		} else {
			c.words = grow(c.words, &c.nwords, sizeof *c.words);
			w = &c.words[c.nwords - 1];
		}
		lex_take_word(p, w);
		if (c.nwords != 1 || c.nassigns != 0 || c.nredirs != 0)
			continue;
		if (lex_peek(p, &t) != 0)
			goto fail;
		if (t->type == TOK_LPAREN) {
			/* NAME () compound-command */
			if (c.words[0].flags != 0) {
				sh_error(p, t->start, "bad function name");
				goto fail;
			}
			cmd_release(&c);
			if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
				return -1;
			if (t->type != TOK_RPAREN)
				return parse_unexpected(p, ")");
			if (lex_drop(p) != 0)
				return -1;
			return parse_function(p, false);
		}
	}
	*last = cmd_add(p, &c);
	return 0;

fail:
	cmd_release(&c);
	return -1;
}

/* Is a >& target a file descriptor (N, N-, -) rather than a file? */
static bool
dup_target(const struct sh_word *w)
{
	const char	*s = w->text;

	if (w->flags != 0)
		return false;
	if (strcmp(s, "-") == 0)
		return true;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		s++;
	return *s == '\0' || strcmp(s, "-") == 0;
}

/* A redirection and its target word (or here-document delimiter). */
static int
parse_redir(struct sh_parser *p, struct sh_cmd *c)
{
	struct sh_token	*t;
	struct sh_heredoc h;
	struct sh_redir	*r;
	struct sh_word	 target;
	enum sh_redir_op op;
	size_t		 start;
	int		 fd;
	bool		 strip;

	if (lex_peek(p, &t) != 0)
		return -1;
	op = t->op;
	fd = t->fd;
	strip = t->strip;
	start = t->start;
	if (t->fdvar)
		sh_unknown(p, "file descriptor variable '{name}>'");
	if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
		return -1;
	if (t->type != TOK_WORD)
		return parse_unexpected(p, NULL);
	lex_take_word(p, &target);
	if (op == SH_R_DUP_OUT && fd == -1 && !dup_target(&target))
		op = SH_R_OUT_ERR;
	if (op == SH_R_HEREDOC) {
		memset(&h, 0, sizeof h);
		h.cmd = SIZE_MAX;
		h.redir = c->nredirs;
		h.delim = target.text;
		h.strip = strip;
		h.quoted = (target.flags & SH_W_QUOTED) != 0;
		h.ctx = p->ctx;
		h.start = start;
		lex_heredoc_push(p, &h);
		free(target.raw);
		target.text = xstrdup("");
		target.raw = xstrdup("");
		target.flags = 0;
	}
	c->redirs = grow(c->redirs, &c->nredirs, sizeof *c->redirs);
	r = &c->redirs[c->nredirs - 1];
	r->fd = fd;
	r->op = op;
	r->target = target;
	return 0;
}

/* Redirections after a compound command: a command without words. */
int
parse_compound_redirs(struct sh_parser *p, int flags)
{
	struct sh_cmd	 c;
	struct sh_token	*t;

	memset(&c, 0, sizeof c);
	c.flags = p->ctx | flags;
	for (;;) {
		if (lex_peek(p, &t) != 0) {
			cmd_release(&c);
			return -1;
		}
		if (t->type != TOK_REDIR)
			break;
		if (parse_redir(p, &c) != 0) {
			cmd_release(&c);
			return -1;
		}
	}
	if (c.nredirs > 0)
		cmd_add(p, &c);
	return 0;
}
/* Parse len bytes of s (NUL bytes are refused). */
int
sh_parse_mem(const char *s, size_t len, struct sh_script *script,
    char **cause)
{
	struct sh_shared	 sh;
	struct sh_parser	 p;
	struct sh_token		*t;
	const char		*nul;
	int			 r;

	memset(&sh, 0, sizeof sh);
	sh.script = script;
	memset(&p, 0, sizeof p);
	p.sh = &sh;
	p.s = s;
	p.len = len;
	if (len > SH_MAX_INPUT)
		sh.cause = xasprintf("command too long (%zu bytes, at most "
		    "%d)", len, SH_MAX_INPUT);
	else if ((nul = memchr(s, '\0', len)) != NULL)
		sh.cause = xasprintf("nul byte at %zu", (size_t)(nul - s));
	if (sh.cause != NULL)
		r = -1;
	else {
		sh.budget = 2 * (SH_MAX_DEPTH + 1) * len + 4096;
		r = shparse_list(&p, NULL);
		if (r == 0 && lex_peek(&p, &t) == 0 && t->type != TOK_EOF)
			r = parse_unexpected(&p, NULL);
		if (r == 0 && p.nhd > 0)
			r = sh_error(&p, p.hd[0].start, "here-document '%.32s' "
			    "has no body", p.hd[0].delim);
		if (sh.cause != NULL)
			r = -1;
	}
	lex_parser_done(&p);
	if (r != 0) {
		sh_script_release(script);
		if (cause != NULL)
			*cause = sh.cause != NULL ? sh.cause :
			    xstrdup("syntax error");
		else
			free(sh.cause);
		return -1;
	}
	return 0;
}

/* Parse a NUL-terminated command string. */
int
sh_parse(const char *s, struct sh_script *script, char **cause)
{
	return sh_parse_mem(s, strlen(s), script, cause);
}

/* Free everything a script holds; it is empty (reusable) afterwards. */
void
sh_script_release(struct sh_script *s)
{
	size_t	i;

	for (i = 0; i < s->ncmds; i++)
		cmd_release(&s->cmds[i]);
	free(s->cmds);
	s->cmds = NULL;
	s->ncmds = 0;
	strv_release(&s->unknown);
	for (i = 0; i < s->nfors; i++) {
		free(s->fors[i].name);
		for (size_t k = 0; k < s->fors[i].nwords; k++)
			sh_word_free(&s->fors[i].words[k]);
		free(s->fors[i].words);
	}
	free(s->fors);
	s->fors = NULL;
	s->nfors = 0;
}

/*
 * One word for display: a literal word quoted (shell_quote uses $'...'
 * when it holds control characters, which is exact and on one line), any
 * other word as written, raw: whoever shows it escapes it (display.c),
 * once, so a typed \n and a newline stay apart.
 */
static void
add_display_word(struct buf *b, const struct sh_word *w, bool space,
    bool first)
{
	char	*q;

	if (space && b->len > 0)
		buf_putc(b, ' ');
	if (!SH_WORD_LITERAL(w))
		buf_puts(b, w->raw);
	else {
		/* The command's name: FOO=1 quoted, or it reads as an
		   assignment. */
		q = first ? shell_quote_first(w->text) : shell_quote(w->text);
		buf_puts(b, q);
		free(q);
	}
}

/* The simple command as one readable line. */
char *
sh_cmd_string(const struct sh_cmd *c)
{
	static const char *const ops[] = {
		[SH_R_IN] = "<", [SH_R_OUT] = ">", [SH_R_APPEND] = ">>",
		[SH_R_CLOBBER] = ">|", [SH_R_INOUT] = "<>",
		[SH_R_DUP_IN] = "<&", [SH_R_DUP_OUT] = ">&",
		[SH_R_OUT_ERR] = "&>", [SH_R_APPEND_ERR] = "&>>",
		[SH_R_HEREDOC] = "<<", [SH_R_HERESTRING] = "<<<",
	};
	struct buf		 b = BUF_INIT;
	const struct sh_redir	*r;
	size_t			 i;

	for (i = 0; i < c->nassigns; i++)
		add_display_word(&b, &c->assigns[i], true, false);
	for (i = 0; i < c->nwords; i++)
		add_display_word(&b, &c->words[i], true, i == 0);
	for (i = 0; i < c->nredirs; i++) {
		r = &c->redirs[i];
		if (b.len > 0)
			buf_putc(&b, ' ');
		if (r->fd >= 0)
			buf_printf(&b, "%d", r->fd);
		buf_puts(&b, ops[r->op]);
		if (r->op == SH_R_HEREDOC) {
			buf_puts(&b, "(here-document)");
			continue;
		}
		add_display_word(&b, &r->target, false, false);
	}
	return buf_detach(&b);
}
