/*
 * shlex: the lexer half of shparse, internal to src/shell (shlex*.c and
 * shparse*.c; nothing else includes this header).
 *
 * The parser is recursive descent over one input string. The lexer keeps
 * one token of lookahead in parser->tok; words are lexed with quote
 * removal done at once, and the expansions inside them that hold commands
 * ($(...), `...`, <(...)) call back into the parser (shparse_list,
 * shparse_sub), so the commands inside are recorded while the word is
 * read. Recursion is bounded: every construct that nests goes through
 * sh_enter(), which refuses more than SH_MAX_DEPTH levels, and the
 * look-ahead scans that decide between $(( arithmetic and $( ( subshell
 * draw from a budget proportional to the input length.
 *
 * Here-documents: a << redirection adds an entry to parser->hd; the body
 * is read when the parser consumes the next newline token (lex_drop on a
 * newline), as bash does. $(...) starts a fresh list like bash's, so an
 * outer here-document is never read from inside a substitution.
 */
#ifndef BWGATE_SHLEX_H
#define BWGATE_SHLEX_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "shparse.h"

#define SH_MAX_DEPTH	64
#define SH_MAX_INPUT	(16 * 1024 * 1024)

enum sh_tok {
	TOK_NONE,	/* no lookahead cached */
	TOK_EOF,
	TOK_NEWLINE,
	TOK_WORD,
	TOK_REDIR,
	TOK_SEMI,	/* ; */
	TOK_DSEMI,	/* ;; */
	TOK_SEMIAND,	/* ;& */
	TOK_DSEMIAND,	/* ;;& */
	TOK_AMP,	/* & */
	TOK_AND,	/* && */
	TOK_OR,		/* || */
	TOK_PIPE,	/* | */
	TOK_PIPEAMP,	/* |& */
	TOK_LPAREN,	/* ( */
	TOK_RPAREN,	/* ) */
};

struct sh_token {
	enum sh_tok	 type;
	size_t		 start;		/* offset in parser->s */
	struct sh_word	 word;		/* TOK_WORD (owned until taken) */
	bool		 assign;	/* TOK_WORD shaped NAME=, NAME+= */
	bool		 array;		/* TOK_WORD NAME=( ... ) */
	enum sh_redir_op op;		/* TOK_REDIR */
	int		 fd;		/* TOK_REDIR explicit fd or -1 */
	bool		 fdvar;		/* TOK_REDIR {name}> */
	bool		 strip;		/* TOK_REDIR <<- */
};

/* A here-document waiting for its body. */
struct sh_heredoc {
	size_t		 cmd;		/* index in script->cmds, or SIZE_MAX
					   while the command is being built */
	size_t		 redir;		/* index in that command's redirs */
	char		*delim;
	bool		 strip;		/* <<-: strip leading tabs */
	bool		 quoted;	/* no expansion in the body */
	int		 ctx;		/* flags for commands in the body */
	size_t		 start;		/* offset of the operator */
};

/* State shared by a parser and its sub-parsers. */
struct sh_shared {
	struct sh_script *script;
	size_t		 budget;	/* look-ahead scan steps left */
	size_t		 nheredocs;	/* bodies read so far */
	char		*cause;		/* first error */
};

struct sh_parser {
	struct sh_shared *sh;
	const char	*s;		/* input (not NUL-terminated) */
	size_t		 len;
	size_t		 pos;
	size_t		 base;		/* offset of s in the whole input */
	int		 depth;
	int		 ctx;		/* enum sh_cmd_flags for new commands */
	struct sh_token	 tok;
	struct sh_heredoc *hd;
	size_t		 nhd;
	size_t		 hdcap;
	size_t		 body_end;	/* offset after the last body read */
};

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

/* A character that may start a name (ASCII, whatever the locale). */
static inline bool
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A character of a name after the first. */
static inline bool
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/* An ASCII digit. */
static inline bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of a hex digit, -1 if none. */
static inline int
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
static inline char
peekc(const struct sh_parser *p, size_t i)
{
	return i < p->len ? p->s[i] : '\0';
}

/* shlex-word.c */
void	 w_init(struct wacc *);
int	 lex_word(struct sh_parser *, struct wacc *, int);
int	 lex_single(struct sh_parser *, struct wacc *);
int	 lex_double(struct sh_parser *, struct wacc *);
int	 lex_dollar(struct sh_parser *, struct wacc *, bool);
int	 lex_backquote(struct sh_parser *, struct wacc *, bool);

/* shlex.c */
int	 sh_error(struct sh_parser *, size_t, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
int	 sh_enter(struct sh_parser *, size_t);
void	 sh_leave(struct sh_parser *);
void	 sh_unknown(struct sh_parser *, const char *);
void	 sh_word_free(struct sh_word *);
size_t	 lex_skip_cont(const struct sh_parser *, size_t);
int	 lex_peek(struct sh_parser *, struct sh_token **);
int	 lex_drop(struct sh_parser *);
void	 lex_take_word(struct sh_parser *, struct sh_word *);
void	 lex_describe(const struct sh_token *, char *, size_t);

/* shlex-arith.c */
int	 lex_arith_prescan(struct sh_parser *, size_t, size_t *, size_t *);
int	 lex_arith_body(struct sh_parser *, size_t, size_t, int, int *);
int	 lex_bracket_prescan(struct sh_parser *, size_t, size_t *);
int	 lex_regex_word(struct sh_parser *);

/* shlex-heredoc.c */
int	 lex_heredocs(struct sh_parser *);
void	 lex_heredoc_push(struct sh_parser *, const struct sh_heredoc *);
void	 lex_heredocs_clear(struct sh_parser *);
void	 lex_parser_done(struct sh_parser *);

/* shparse.c */
int	 shparse_list(struct sh_parser *, size_t *);
int	 shparse_sub(struct sh_parser *, const char *, size_t, size_t, int);
int	 parse_list_required(struct sh_parser *);
int	 parse_command(struct sh_parser *, size_t *);
int	 parse_compound_redirs(struct sh_parser *, int);
char	 parse_peekc_raw(const struct sh_parser *, size_t);
bool	 parse_tok_is(const struct sh_token *, const char *);
int	 parse_unexpected(struct sh_parser *, const char *);
int	 parse_expect(struct sh_parser *, const char *);
int	 parse_skip_newlines(struct sh_parser *);
void	 parse_mark(struct sh_parser *, size_t, int);

/* shparse-compound.c */
int	 parse_subshell(struct sh_parser *);
int	 parse_group(struct sh_parser *);
int	 parse_if(struct sh_parser *);
int	 parse_while(struct sh_parser *);
int	 parse_for(struct sh_parser *);
int	 parse_case(struct sh_parser *);
int	 parse_cond(struct sh_parser *);
int	 parse_arith_cmd(struct sh_parser *, bool *);
int	 parse_function(struct sh_parser *, bool);
int	 parse_coproc(struct sh_parser *);

#endif
