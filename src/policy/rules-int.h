/*
 * rules-int: what rules.c and rules-grammar.c share. Private to
 * src/policy.
 */
#ifndef BWGATE_RULES_INT_H
#define BWGATE_RULES_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "optparse.h"
#include "rules.h"

/* Key tables: the keys each kind of object may have, and their types. */
enum rule_type_mask {
	T_STRING = (1 << 0),
	T_BOOL = (1 << 1),
	T_NUMBER = (1 << 2),
	T_ARRAY = (1 << 3),
	T_OBJECT = (1 << 4),
};

struct rule_key {
	const char	*name;
	int		 types;
};


/* Where we are in the file, for messages. */
#define RULE_MAXDEPTH 12
struct rule_ctx {
	const char	*path;
	const char	*text;
	const char	*at[RULE_MAXDEPTH];	/* keys, or "#N" indexes */
	char		 idx[RULE_MAXDEPTH][24];
	size_t		 depth;
	const char	*rule_id;
	char		*cause;
};


/* The keys of a rule; from RULE_FIRST_GRAMMAR_KEY on, the grammar keys
   (also allowed in subcommands). */
extern const struct rule_key rule_rule_keys[];
#define RULE_FIRST_GRAMMAR_KEY 11

/* rules-grammar.c */
void	 rule_ctx_push(struct rule_ctx *, const char *);
void	 rule_ctx_pushi(struct rule_ctx *, size_t);
void	 rule_ctx_pop(struct rule_ctx *);
/* Set the cause ("'file':LINE: where (rule "id"): message"); -1. */
int	 rule_ctx_error(struct rule_ctx *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Check that obj has only known keys of the right types. */
int	 rule_check_keys(struct rule_ctx *, const cJSON *,
	    const struct rule_key *, size_t);
/* A string or an array of strings into sv. */
int	 rule_strings(struct rule_ctx *, const cJSON *, const char *,
	    struct strv *);
/* An integer value from min. */
int	 rule_int(struct rule_ctx *, const cJSON *, const char *, int, int *);
/* Parse the grammar keys of obj (a rule, or with top false a
   subcommand) into g. */
int	 rule_grammar(struct rule_ctx *, const cJSON *, struct opt_grammar *,
	    bool top);

#endif
