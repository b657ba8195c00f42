/*
 * shparse-compound: compound commands: ( ), { }, if, while, until, for,
 * case, [[ ]], (( )), functions and coprocesses. Most are parsed only to
 * find the commands inside them and marked as not modelled.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "shlex.h"
#include "xalloc.h"


/* Run body with extra command flags inside one more nesting level. */
static int
nested(struct sh_parser *p, size_t start, int flags,
    int (*body)(struct sh_parser *))
{
	int	ctx = p->ctx, r;

	if (sh_enter(p, start) != 0)
		return -1;
	p->ctx |= flags;
	r = body(p);
	p->ctx = ctx;
	sh_leave(p);
	if (r != 0)
		return -1;
	return parse_compound_redirs(p, flags);
}

/* ( list ) */
static int
subshell_body(struct sh_parser *p)
{
	struct sh_token	*t;

	if (lex_drop(p) != 0 || parse_list_required(p) != 0 ||
	    lex_peek(p, &t) != 0)
		return -1;
	if (t->type != TOK_RPAREN)
		return parse_unexpected(p, ")");
	return lex_drop(p);
}

int
parse_subshell(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_SUBSHELL, subshell_body);
}

/* { list ; } */
static int
group_body(struct sh_parser *p)
{
	if (lex_drop(p) != 0 || parse_list_required(p) != 0)
		return -1;
	return parse_expect(p, "}");
}

int
parse_group(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_GROUP, group_body);
}

/* if list then list { elif list then list } [ else list ] fi */
static int
if_body(struct sh_parser *p)
{
	struct sh_token	*t;

	sh_unknown(p, "control flow 'if'");
	if (lex_drop(p) != 0 || parse_list_required(p) != 0 ||
	    parse_expect(p, "then") != 0 || parse_list_required(p) != 0)
		return -1;
	for (;;) {
		if (lex_peek(p, &t) != 0)
			return -1;
		if (parse_tok_is(t, "elif")) {
			if (lex_drop(p) != 0 || parse_list_required(p) != 0 ||
			    parse_expect(p, "then") != 0 ||
			    parse_list_required(p) != 0)
				return -1;
		} else if (parse_tok_is(t, "else")) {
			if (lex_drop(p) != 0 || parse_list_required(p) != 0)
				return -1;
			return parse_expect(p, "fi");
		} else
			return parse_expect(p, "fi");
	}
}

int
parse_if(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_CONTROL, if_body);
}

/* while|until list do list done */
static int
while_body(struct sh_parser *p)
{
	sh_unknown(p, parse_tok_is(&p->tok, "while") ? "control flow 'while'" :
	    "control flow 'until'");
	if (lex_drop(p) != 0 || parse_list_required(p) != 0 ||
	    parse_expect(p, "do") != 0 || parse_list_required(p) != 0)
		return -1;
	return parse_expect(p, "done");
}

int
parse_while(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_CONTROL, while_body);
}

/* The do list done (or { list }) of for and select. */
static int
loop_do(struct sh_parser *p)
{
	struct sh_token	*t;

	if (parse_skip_newlines(p) != 0 || lex_peek(p, &t) != 0)
		return -1;
	if (parse_tok_is(t, "{")) {
		if (lex_drop(p) != 0 || parse_list_required(p) != 0)
			return -1;
		return parse_expect(p, "}");
	}
	if (parse_expect(p, "do") != 0 || parse_list_required(p) != 0)
		return -1;
	return parse_expect(p, "done");
}

/*
 * for|select NAME [in words] ; do list done, and for (( ; ; )) do list
 * done. The words are expanded but are not commands; the substitutions
 * inside them were recorded when they were read.
 */
static int
for_body(struct sh_parser *p)
{
	struct sh_token	*t;
	bool		 isfor = parse_tok_is(&p->tok, "for");
	size_t		 start, end, after;
	int		 r, flags, rc = -1;
	struct sh_script *s = p->sh->script;
	struct sh_for	 lp = { NULL, NULL, 0, 0, 0 };

	sh_unknown(p, isfor ? "control flow 'for'" : "control flow 'select'");
	if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
		return -1;
	if (isfor && t->type == TOK_LPAREN &&
	    parse_peekc_raw(p, lex_skip_cont(p, t->start + 1)) == '(') {
		start = lex_skip_cont(p, t->start + 1) + 1;
		r = lex_arith_prescan(p, start, &end, &after);
		if (r < 0)
			return -1;
		if (r == 0)
			return sh_error(p, start, "bad arithmetic for loop");
		if (lex_drop(p) != 0 ||
		    lex_arith_body(p, start, end, p->ctx, &flags) != 0)
			return -1;
		p->pos = after;
		if (lex_peek(p, &t) != 0)
			return -1;
		if (t->type == TOK_SEMI && lex_drop(p) != 0)
			return -1;
		return loop_do(p);
	}
	if (t->type != TOK_WORD)
		return parse_unexpected(p, NULL);
	/* A for loop with a plain name and a word list is recorded with
	   its body (sh_for); select and the rest are not. */
	if (isfor && t->word.flags == 0)
		lp.name = xstrdup(t->word.text);
	if (lex_drop(p) != 0 || parse_skip_newlines(p) != 0 || lex_peek(p, &t) != 0)
		goto fail;
	if (parse_tok_is(t, "in")) {
		if (lex_drop(p) != 0)
			goto fail;
		for (;;) {
			if (lex_peek(p, &t) != 0)
				goto fail;
			if (t->type != TOK_WORD)
				break;
			lp.words = xreallocarray(lp.words, lp.nwords + 1,
			    sizeof *lp.words);
			lp.words[lp.nwords++] = t->word;
			memset(&t->word, 0, sizeof t->word);
			t->type = TOK_NONE;
			if (lex_drop(p) != 0)
				goto fail;
		}
		if (t->type != TOK_SEMI && t->type != TOK_NEWLINE) {
			parse_unexpected(p, NULL);
			goto fail;
		}
		if (lex_drop(p) != 0)
			goto fail;
	} else {
		/* for NAME; do: over "$@", not recorded. */
		free(lp.name);
		lp.name = NULL;
		if (t->type == TOK_SEMI && lex_drop(p) != 0)
			goto fail;
	}
	lp.first = s->ncmds;
	if (loop_do(p) != 0)
		goto fail;
	lp.end = s->ncmds;
	if (lp.name != NULL) {
		s->fors = xreallocarray(s->fors, s->nfors + 1,
		    sizeof *s->fors);
		s->fors[s->nfors++] = lp;
		return 0;
	}
	rc = 0;
fail:
	free(lp.name);
	for (size_t k = 0; k < lp.nwords; k++)
		sh_word_free(&lp.words[k]);
	free(lp.words);
	return rc;
}

int
parse_for(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_CONTROL, for_body);
}

/* case word in [(] pattern { | pattern } ) list ;; ... esac */
static int
case_body(struct sh_parser *p)
{
	struct sh_token	*t;

	sh_unknown(p, "control flow 'case'");
	if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
		return -1;
	if (t->type != TOK_WORD)
		return parse_unexpected(p, NULL);
	if (lex_drop(p) != 0 || parse_skip_newlines(p) != 0 || parse_expect(p, "in") != 0)
		return -1;
	for (;;) {
		if (parse_skip_newlines(p) != 0 || lex_peek(p, &t) != 0)
			return -1;
		if (parse_tok_is(t, "esac"))
			return lex_drop(p);
		if (t->type == TOK_LPAREN &&
		    (lex_drop(p) != 0 || lex_peek(p, &t) != 0))
			return -1;
		for (;;) {
			if (t->type != TOK_WORD)
				return parse_unexpected(p, NULL);
			if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
				return -1;
			if (t->type != TOK_PIPE)
				break;
			if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
				return -1;
		}
		if (t->type != TOK_RPAREN)
			return parse_unexpected(p, ")");
		if (lex_drop(p) != 0 || shparse_list(p, NULL) != 0 ||
		    lex_peek(p, &t) != 0)
			return -1;
		if (parse_tok_is(t, "esac"))
			return lex_drop(p);
		if (t->type != TOK_DSEMI && t->type != TOK_SEMIAND &&
		    t->type != TOK_DSEMIAND)
			return parse_unexpected(p, "esac");
		if (lex_drop(p) != 0)
			return -1;
	}
}

int
parse_case(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_CONTROL, case_body);
}

/*
 * [[ expression ]]: words and the operators of the expression; < and >
 * compare strings here. Only the substitutions inside hold commands.
 */
static int
cond_body(struct sh_parser *p)
{
	struct sh_token	*t;
	size_t		 start = p->tok.start;

	sh_unknown(p, "conditional '[[ ]]'");
	if (lex_drop(p) != 0)
		return -1;
	for (;;) {
		if (lex_peek(p, &t) != 0)
			return -1;
		switch (t->type) {
		case TOK_EOF:
			return sh_error(p, start, "unterminated '[['");
		case TOK_WORD:
			if (parse_tok_is(t, "]]"))
				return lex_drop(p);
			if (parse_tok_is(t, "=~")) {
				if (lex_drop(p) != 0 || lex_regex_word(p) != 0)
					return -1;
				continue;
			}
			break;
		case TOK_REDIR:
			if ((t->op != SH_R_IN && t->op != SH_R_OUT) ||
			    t->fd != -1)
				return parse_unexpected(p, NULL);
			break;
		case TOK_LPAREN:
		case TOK_RPAREN:
		case TOK_AND:
		case TOK_OR:
		case TOK_NEWLINE:
			break;
		default:
			return parse_unexpected(p, NULL);
		}
		if (lex_drop(p) != 0)
			return -1;
	}
}

int
parse_cond(struct sh_parser *p)
{
	return nested(p, p->tok.start, SH_C_CONTROL, cond_body);
}

/* (( expression )): *done is false when it is a nested subshell. */
int
parse_arith_cmd(struct sh_parser *p, bool *done)
{
	size_t	start = p->tok.start, end, after, from;
	int	r, flags;

	*done = false;
	from = lex_skip_cont(p, start + 1) + 1;
	r = lex_arith_prescan(p, from, &end, &after);
	if (r <= 0)
		return r;
	*done = true;
	if (lex_drop(p) != 0 || sh_enter(p, start) != 0)
		return -1;
	sh_unknown(p, "arithmetic command '(( ))'");
	r = lex_arith_body(p, from, end, p->ctx | SH_C_CONTROL, &flags);
	sh_leave(p);
	if (r != 0)
		return -1;
	p->pos = after;
	return parse_compound_redirs(p, SH_C_CONTROL);
}

/* function NAME [()] body, or (named already) NAME () body. */
int
parse_function(struct sh_parser *p, bool keyword)
{
	struct sh_token	*t;
	size_t		 last;
	int		 ctx = p->ctx, r;

	sh_unknown(p, "function definition");
	if (keyword) {
		if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
			return -1;
		if (t->type != TOK_WORD)
			return parse_unexpected(p, NULL);
		if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
			return -1;
		if (t->type == TOK_LPAREN) {
			if (lex_drop(p) != 0 || lex_peek(p, &t) != 0)
				return -1;
			if (t->type != TOK_RPAREN)
				return parse_unexpected(p, ")");
			if (lex_drop(p) != 0)
				return -1;
		}
	}
	if (parse_skip_newlines(p) != 0 || lex_peek(p, &t) != 0)
		return -1;
	if (t->type != TOK_LPAREN && !parse_tok_is(t, "{") && !parse_tok_is(t, "if") &&
	    !parse_tok_is(t, "while") && !parse_tok_is(t, "until") && !parse_tok_is(t, "for") &&
	    !parse_tok_is(t, "select") && !parse_tok_is(t, "case") && !parse_tok_is(t, "[["))
		return parse_unexpected(p, "{");
	if (sh_enter(p, t->start) != 0)
		return -1;
	p->ctx |= SH_C_CONTROL;
	r = parse_command(p, &last);
	p->ctx = ctx;
	sh_leave(p);
	return r;
}

/* coproc [NAME] command: runs in the background. */
int
parse_coproc(struct sh_parser *p)
{
	size_t	first = p->sh->script->ncmds, last;
	size_t	start = p->tok.start;
	int	r;

	sh_unknown(p, "coprocess");
	if (lex_drop(p) != 0 || sh_enter(p, start) != 0)
		return -1;
	r = parse_command(p, &last);
	sh_leave(p);
	parse_mark(p, first, SH_C_BACKGROUND);
	return r;
}
