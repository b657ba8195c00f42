/*
 * optparse: per-command option grammars and the check of an argv against
 * one, with the semantics of GNU getopt_long (bundled short flags, attached
 * values, --opt=value, unambiguous abbreviations of long options, "--",
 * permutation), find's single-dash expression words, and git-style global
 * options before a subcommand.
 *
 * A grammar is data (loaded from the rule files by rules.c): the command's
 * full option table, which options are forbidden and why, what kinds their
 * values are (a written file or a program to run are refused), how many
 * operands may follow and which script checker applies to a script
 * operand (sed print scripts).
 *
 *	struct opt_grammar g; opt_grammar_init(&g);
 *	opt_spec_parse("-e|--regexp=ARG", &spec, &cause) ... add to g.specs
 *	if (opt_check(&g, argv, argc, &why) != 0) -> not covered, why says so
 *	opt_grammar_release(&g);
 */
#ifndef BWGATE_OPTPARSE_H
#define BWGATE_OPTPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "strv.h"

enum opt_arg {
	OPT_ARG_NONE,
	OPT_ARG_REQUIRED,	/* -x VAL, -xVAL, --long=VAL, --long VAL */
	OPT_ARG_OPTIONAL,	/* -xVAL or --long=VAL only */
};

/* What an option's value is, where it matters. */
enum opt_kind {
	OPT_KIND_ARG,		/* anything harmless */
	OPT_KIND_FILE,		/* a path that is read */
	OPT_KIND_WFILE,		/* a path that is written: refused */
	OPT_KIND_PROG,		/* a program that is run: refused */
	OPT_KIND_SCRIPT,	/* checked by the grammar's script checker */
	OPT_KIND_SIZE,		/* a size (100K, 1G) up to a ceiling */
	OPT_KIND_COUNT,		/* a whole number up to a ceiling */
};

enum opt_style {
	OPT_STYLE_GNU,		/* getopt_long */
	OPT_STYLE_FIND,		/* find: -name VAL, no bundling */
};

struct opt_spec {
	struct strv	 names;		/* "-n", "--line-number" */
	enum opt_arg	 arg;
	enum opt_kind	 kind;
	char		*forbidden;	/* why it is refused, or NULL */
	unsigned long long ceiling;	/* SIZE, COUNT: largest accepted */
	struct strv	 values;	/* if any: the only values accepted */
	struct strv	 refused;	/* glob(7) patterns of refused values */
	char		*refused_why;	/* why those are refused */
	bool		 bounds;	/* stops reading after its value */
};

struct opt_sub;

struct opt_grammar {
	struct opt_spec	*specs;
	size_t		 nspecs;
	enum opt_style	 style;
	bool		 abbrev;	/* long options may be abbreviated */
	bool		 permute;	/* options may follow operands */
	bool		 numeric;	/* -NUM is a count (head -5) */
	bool		 bounded;	/* never reads a file to its end */
	struct strv	 required;	/* options that must be given */
	int		 min_operands;
	int		 max_operands;	/* -1: any number */
	char		*script;	/* script checker name, or NULL */
	unsigned long long operand_numbers; /* if not 0: operands are whole
					   numbers within +-this */
	struct opt_sub	*subs;		/* subcommands, if any */
	size_t		 nsubs;
};

struct opt_sub {
	char			*name;
	struct opt_grammar	 g;
};

void	 opt_grammar_init(struct opt_grammar *);
void	 opt_grammar_release(struct opt_grammar *);
/* Parse "-n|--line-number", "--color[=ARG]", "-o|--output=WFILE". */
int	 opt_spec_parse(const char *, enum opt_style, struct opt_spec *,
	    char **cause);
void	 opt_spec_release(struct opt_spec *);
/* The spec naming this exact option, or NULL. */
struct opt_spec *opt_grammar_find(const struct opt_grammar *, const char *);
/* Is this a known script checker name? */
bool	 opt_script_known(const char *);
/* optparse-sed.c: the sed-print checker; 0 for a print-only script. */
int	 opt_sed_print(const char *script, char **why);
/* Run a script checker; 0 when the script is acceptable. */
int	 opt_script_check(const char *checker, const char *script, char **why);
/*
 * Check argv[0..argc) (the words after the command name) against g.
 * 0 when every word is covered; -1 with why (caller frees) otherwise.
 */
int	 opt_check(const struct opt_grammar *, const char *const *argv,
	    size_t argc, char **why);
/*
 * The same with what the shell will expand: globs[i] says argv[i] is an
 * unquoted glob pattern. A glob is accepted only as an operand, and only
 * where no expansion can become an option of a grammar that has options
 * that write, run programs or read scripts (after "--", or when the
 * pattern starts with a literal character other than '-'), and never
 * where operands are counted, scripts or subcommands. *bounded (may be
 * NULL) is set when an option that stops the reading was given.
 */
int	 opt_check_words(const struct opt_grammar *, const char *const *argv,
	    const bool *globs, size_t argc, bool *bounded, char **why);
/* A size such as 100K, 1GiB or 512 (suffixes as GNU coreutils read them,
   the larger reading where two exist); -1 if it is not one. */
int	 opt_parse_size(const char *, unsigned long long *);

#endif
