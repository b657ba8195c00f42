/*
 * shlex: the lexer half of shparse, internal to src/shlex.c and
 * src/shparse.c (nothing else includes this header).
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
int	 lex_arith_prescan(struct sh_parser *, size_t, size_t *, size_t *);
int	 lex_arith_body(struct sh_parser *, size_t, size_t, int, int *);
int	 lex_regex_word(struct sh_parser *);
void	 lex_heredoc_push(struct sh_parser *, const struct sh_heredoc *);
void	 lex_heredocs_clear(struct sh_parser *);
void	 lex_parser_done(struct sh_parser *);

/* shparse.c */
int	 shparse_list(struct sh_parser *, size_t *);
int	 shparse_sub(struct sh_parser *, const char *, size_t, size_t, int);

#endif
