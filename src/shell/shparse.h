/*
 * shparse: a shell (bash) command-string parser for classification.
 *
 * It does not execute or expand anything. It splits a command string into
 * the simple commands bash would run, with words after quote removal
 * ("fi\nd" -> find, -e''xec -> -exec), assignments and redirections, and
 * records every construct whose effect is not known statically (parameter
 * expansion, command/process substitution, arithmetic, globs, brace
 * expansion, control flow, background jobs, here-documents ...), so the
 * allowlist can refuse to auto-allow what it cannot see.
 *
 *	struct sh_script s = SH_SCRIPT_INIT;
 *	if (sh_parse(text, &s, &cause) != 0) -> unparsable: verdict ask
 *	for (size_t i = 0; i < s.ncmds; i++) ... s.cmds[i] ...
 *	sh_script_release(&s);
 *
 * Commands are recorded when complete: the commands of a substitution come
 * before the command that holds it (the order bash runs them). A compound
 * command's own redirections ({ ...; } >f, while ...; done <<EOF) are
 * recorded as a command without words after the commands inside it. |&
 * adds a 2>&1 redirection (raw "|&") to the command before it.
 *
 * Here-documents: the target of a SH_R_HEREDOC redirection is the body
 * (tabs stripped for <<-). With a quoted delimiter it is literal
 * (SH_W_QUOTED); otherwise backslashes are removed as bash does and the
 * expansions in it are flagged, and the commands of its substitutions are
 * recorded (SH_C_SUBST) after the command. ">&word" without an fd and a
 * word that is not a number or "-" is SH_R_OUT_ERR, as bash reads it.
 *
 * script.unknown holds each of these at most once, in this exact wording:
 *	"control flow 'if'", "control flow 'for'", "control flow 'select'",
 *	"control flow 'while'", "control flow 'until'", "control flow 'case'",
 *	"function definition", "conditional '[[ ]]'",
 *	"arithmetic command '(( ))'", "background job '&'", "coprocess",
 *	"array assignment", "file descriptor variable '{name}>'"
 *
 * Limits: nesting deeper than 64 levels, inputs over 16 MiB, NUL bytes and
 * anything bash would reject (unterminated quotes, here-documents without
 * their end line, ;; outside case, ...) make sh_parse fail. On failure the
 * script is released (empty); on success the caller releases it.
 */
#ifndef BWGATE_SHPARSE_H
#define BWGATE_SHPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "strv.h"

/* What a word contains besides literal text. */
enum sh_word_flags {
	SH_W_QUOTED	= (1 << 0),	/* some part was quoted */
	SH_W_PARAM	= (1 << 1),	/* $x, ${x}, $1, $@ ... */
	SH_W_CMDSUBST	= (1 << 2),	/* $(...) or `...` */
	SH_W_ARITH	= (1 << 3),	/* $((...)) */
	SH_W_GLOB	= (1 << 4),	/* unquoted * ? [ */
	SH_W_BRACE	= (1 << 5),	/* unquoted {a,b} or {1..3} */
	SH_W_TILDE	= (1 << 6),	/* leading unquoted ~ */
	SH_W_PROCSUBST	= (1 << 7),	/* <(...) or >(...) */
};

struct sh_word {
	char		*text;	/* after quote removal; expansions kept raw */
	char		*raw;	/* as written */
	int		 flags;	/* enum sh_word_flags */
};

/* A word is "literal" when its text is exactly what bash would pass. */
#define SH_WORD_LITERAL(w)	(((w)->flags & ~SH_W_QUOTED) == 0)

enum sh_redir_op {
	SH_R_IN,		/* <  */
	SH_R_OUT,		/* >  */
	SH_R_APPEND,		/* >> */
	SH_R_CLOBBER,		/* >| */
	SH_R_INOUT,		/* <> */
	SH_R_DUP_IN,		/* <& */
	SH_R_DUP_OUT,		/* >& (and N>&M) */
	SH_R_OUT_ERR,		/* &> and >&file */
	SH_R_APPEND_ERR,	/* &>> */
	SH_R_HEREDOC,		/* << and <<- */
	SH_R_HERESTRING,	/* <<< */
};

struct sh_redir {
	int		 fd;	/* explicit fd number, or -1 for the default */
	enum sh_redir_op op;
	struct sh_word	 target; /* file, fd number, "-", or here-doc body */
};

/* Where a simple command sits. */
enum sh_cmd_flags {
	SH_C_PIPED	= (1 << 0),	/* part of a pipeline */
	SH_C_SUBSHELL	= (1 << 1),	/* inside ( ... ) */
	SH_C_GROUP	= (1 << 2),	/* inside { ...; } */
	SH_C_SUBST	= (1 << 3),	/* inside $(...), `...`, <(...) */
	SH_C_CONTROL	= (1 << 4),	/* inside if/for/while/case/function */
	SH_C_BACKGROUND	= (1 << 5),	/* followed by & */
	SH_C_THEN	= (1 << 6),	/* its pipeline, not negated with !
					   and after no || of its list, is
					   followed by &&: what comes next
					   runs only when it ran and
					   succeeded */
};

struct sh_cmd {
	struct sh_word	*assigns;	/* NAME=value prefixes */
	size_t		 nassigns;
	struct sh_word	*words;		/* argv; may be empty (x=1 alone) */
	size_t		 nwords;
	struct sh_redir	*redirs;
	size_t		 nredirs;
	int		 flags;		/* enum sh_cmd_flags */
};

/* A loop "for NAME in WORDS; do ... done": its body is the commands
   cmds[first .. end) (flagged SH_C_CONTROL, with those of loops inside). */
struct sh_for {
	char		*name;
	struct sh_word	*words;		/* the list, as the words of a command */
	size_t		 nwords;
	size_t		 first, end;
};

struct sh_script {
	struct sh_cmd	*cmds;		/* every simple command, in order,
					   including those inside substitutions */
	size_t		 ncmds;
	struct strv	 unknown;	/* constructs not modelled, in words:
					   "control flow 'for'", "function", ... */
	struct sh_for	*fors;		/* for loops with a word list */
	size_t		 nfors;
};
#define SH_SCRIPT_INIT { NULL, 0, STRV_INIT, NULL, 0 }

/* 0 on success; -1 with cause ("unterminated quote at 12") otherwise. */
int	 sh_parse(const char *, struct sh_script *, char **cause);
/* The same for len bytes that may hold NUL (refused with a cause). */
int	 sh_parse_mem(const char *, size_t len, struct sh_script *,
	    char **cause);
void	 sh_script_release(struct sh_script *);
/* The simple command as a readable string (words joined, quoted):
   literal words quoted (as $'...' with control characters: one line),
   other words as written, raw; display it through display.c. */
char	*sh_cmd_string(const struct sh_cmd *);

#endif
