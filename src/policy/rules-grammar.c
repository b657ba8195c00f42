/*
 * rules-grammar: the grammar keys of a rule (options, forbidden, values,
 * operands, subcommands ...) and the helpers that validate a rule file's
 * JSON with messages naming the file, the line and the key.
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "display.h"
#include "cleanup.h"
#include "jsonutil.h"
#include "rules.h"
#include "sha256.h"
#include "xalloc.h"

#include "rules-int.h"

static const struct rule_key rule_refused_keys[] = {
	{ "match", T_ARRAY },
	{ "reason", T_STRING },
	{ NULL, 0 }
};

static const struct rule_key rule_operand_keys[] = {
	{ "min", T_NUMBER },
	{ "max", T_NUMBER },
	{ NULL, 0 }
};


/* Enter a key of the JSON path (for messages). */
void
rule_ctx_push(struct rule_ctx *c, const char *key)
{
	if (c->depth < RULE_MAXDEPTH)
		c->at[c->depth] = key;
	c->depth++;
}

/* Enter an array index of the JSON path. */
void
rule_ctx_pushi(struct rule_ctx *c, size_t i)
{
	if (c->depth < RULE_MAXDEPTH) {
		snprintf(c->idx[c->depth], sizeof c->idx[c->depth], "#%zu", i);
		c->at[c->depth] = c->idx[c->depth];
	}
	c->depth++;
}

/* Leave the last JSON path element. */
void
rule_ctx_pop(struct rule_ctx *c)
{
	c->depth--;
}

/* "rules[3].options[2]" for the current position. */
static char *
rule_ctx_where(const struct rule_ctx *c)
{
	struct buf	b = BUF_INIT;
	size_t		i, n = c->depth < RULE_MAXDEPTH ? c->depth :
			    RULE_MAXDEPTH;

	for (i = 0; i < n; i++) {
		if (c->at[i][0] == '#')
			buf_printf(&b, "[%s]", c->at[i] + 1);
		else
			buf_printf(&b, "%s%s", i == 0 ? "" : ".", c->at[i]);
	}
	if (b.data == NULL)
		buf_puts(&b, "top level");
	return buf_detach(&b);
}

/* Set c->cause to "'file':LINE: where (rule "id"): message"; returns -1. */
int
rule_ctx_error(struct rule_ctx *c, const char *fmt, ...)
{
	va_list		 ap;
	char		*msg, *where;
	size_t		 n = c->depth < RULE_MAXDEPTH ? c->depth :
			    RULE_MAXDEPTH;
	int		 line = 0;

	if (c->cause != NULL)
		return -1;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	while (line == 0 && n > 0)
		line = rulefile_line(c->text, c->at, n--);
	where = rule_ctx_where(c);
	if (c->rule_id != NULL)
		c->cause = xasprintf("'%s':%d: %s (rule \"%s\"): %s", c->path,
		    line, where, c->rule_id, msg);
	else
		c->cause = xasprintf("'%s':%d: %s: %s", c->path, line, where,
		    msg);
	free(where);
	free(msg);
	/* Keys and ids come from the file: one line, nothing raw (a key
	   "a\nb" would split the message; fuzz-rules found it). */
	msg = display_escape(c->cause);
	free(c->cause);
	c->cause = msg;
	return -1;
}

/* Check that obj has only known keys of the right types. */
int
rule_check_keys(struct rule_ctx *c, const cJSON *obj,
    const struct rule_key *keys, size_t nkeys)
{
	const cJSON	*e;
	size_t		 i;
	int		 t;

	cJSON_ArrayForEach(e, obj) {
		for (i = 0; i < nkeys && keys[i].name != NULL; i++)
			if (strcmp(keys[i].name, e->string) == 0)
				break;
		rule_ctx_push(c, e->string);
		if (i == nkeys || keys[i].name == NULL)
			return rule_ctx_error(c, "unknown key \"%s\"",
			    e->string);
		t = cJSON_IsString(e) ? T_STRING : cJSON_IsBool(e) ? T_BOOL :
		    cJSON_IsNumber(e) ? T_NUMBER : cJSON_IsArray(e) ? T_ARRAY :
		    cJSON_IsObject(e) ? T_OBJECT : 0;
		if ((t & keys[i].types) == 0)
			return rule_ctx_error(c, "\"%s\" must be %s",
			    e->string, (keys[i].types & T_STRING) &&
			    (keys[i].types & T_ARRAY) ? "a string or an array "
			    "of strings" : keys[i].types == T_STRING ?
			    "a string" : keys[i].types == T_BOOL ?
			    "true or false" : keys[i].types == T_NUMBER ?
			    "a number" : keys[i].types == T_ARRAY ?
			    "an array" : "an object");
		rule_ctx_pop(c);
	}
	return 0;
}

/* A string or an array of strings into sv. */
int
rule_strings(struct rule_ctx *c, const cJSON *j, const char *key,
    struct strv *sv)
{
	const cJSON	*e;
	size_t		 i = 0;

	if (cJSON_IsString(j)) {
		strv_push(sv, j->valuestring);
		return 0;
	}
	rule_ctx_push(c, key);
	cJSON_ArrayForEach(e, j) {
		rule_ctx_pushi(c, i++);
		if (!cJSON_IsString(e))
			return rule_ctx_error(c, "\"%s\" must hold strings",
			    key);
		strv_push(sv, e->valuestring);
		rule_ctx_pop(c);
	}
	rule_ctx_pop(c);
	return 0;
}

/* An integer value. */
int
rule_int(struct rule_ctx *c, const cJSON *j, const char *key, int min,
    int *out)
{
	double	d = j->valuedouble;

	rule_ctx_push(c, key);
	if (d != (double)(int)d || d < min || d > 1000000)
		return rule_ctx_error(c, "\"%s\" must be a whole number "
		    "from %d", key, min);
	rule_ctx_pop(c);
	*out = (int)d;
	return 0;
}

/* The spec an option-keyed object names, or an error. */
static struct opt_spec *
rule_keyed_spec(struct rule_ctx *c, const struct opt_grammar *g,
    const char *key, const char *name)
{
	struct opt_spec	*s;

	if ((s = opt_grammar_find(g, name)) == NULL) {
		rule_ctx_error(c, "%s option \"%s\" is not in \"options\"",
		    key, name);
		return NULL;
	}
	if (s->arg == OPT_ARG_NONE && strcmp(key, "bounded") != 0) {
		rule_ctx_error(c, "option \"%s\" takes no value", name);
		return NULL;
	}
	return s;
}

/* The keys about option values: values, refused_values, bounded,
   operand_numbers. */
static int
rule_value_keys(struct rule_ctx *c, const cJSON *obj, struct opt_grammar *g)
{
	const cJSON	*j, *e, *m;
	struct opt_spec	*s;
	struct strv	 sv = STRV_INIT;
	size_t		 i;
	double		 d;

	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "values")) != NULL) {
		rule_ctx_push(c, "values");
		cJSON_ArrayForEach(e, j) {
			rule_ctx_push(c, e->string);
			if ((s = rule_keyed_spec(c, g, "values", e->string)) ==
			    NULL)
				return -1;
			if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) == 0)
				return rule_ctx_error(c, "the values of an "
				    "option are a non-empty array");
			rule_ctx_pop(c);
			if (rule_strings(c, e, e->string, &s->values) != 0)
				return -1;
		}
		rule_ctx_pop(c);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "refused_values"))) {
		rule_ctx_push(c, "refused_values");
		cJSON_ArrayForEach(e, j) {
			rule_ctx_push(c, e->string);
			if ((s = rule_keyed_spec(c, g, "refused_values",
			    e->string)) == NULL)
				return -1;
			if (!cJSON_IsObject(e))
				return rule_ctx_error(c, "refused values are "
				    "an object with \"match\" and "
				    "\"reason\"");
			if (rule_check_keys(c, e, rule_refused_keys,
			    SIZE_MAX) != 0)
				return -1;
			m = cJSON_GetObjectItemCaseSensitive(e, "reason");
			if (m == NULL || m->valuestring[0] == '\0' ||
			    !cJSON_HasObjectItem(e, "match"))
				return rule_ctx_error(c, "refused values need "
				    "\"match\" patterns and a \"reason\"");
			free(s->refused_why);
			s->refused_why = xstrdup(m->valuestring);
			m = cJSON_GetObjectItemCaseSensitive(e, "match");
			if (rule_strings(c, m, "match", &s->refused) != 0)
				return -1;
			rule_ctx_pop(c);
		}
		rule_ctx_pop(c);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "bounded")) != NULL) {
		if (rule_strings(c, j, "bounded", &sv) != 0)
			return -1;
		rule_ctx_push(c, "bounded");
		for (i = 0; i < sv.n; i++) {
			if (strcmp(sv.v[i], "*") == 0) {
				g->bounded = true;
				continue;
			}
			if ((s = rule_keyed_spec(c, g, "bounded", sv.v[i])) ==
			    NULL) {
				strv_release(&sv);
				return -1;
			}
			s->bounds = true;
		}
		rule_ctx_pop(c);
		strv_release(&sv);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "operand_numbers"))) {
		d = j->valuedouble;
		if (d != (double)(long long)d || d < 1 || d > 1e15) {
			rule_ctx_push(c, "operand_numbers");
			return rule_ctx_error(c, "\"operand_numbers\" must be "
			    "a whole number from 1");
		}
		g->operand_numbers = (unsigned long long)d;
	}
	return 0;
}

/* Parse the grammar keys of obj (a rule or a subcommand) into g. */
int
rule_grammar(struct rule_ctx *c, const cJSON *obj, struct opt_grammar *g,
    bool top)
{
	const cJSON	*j, *e;
	struct opt_spec	*s;
	struct strv	 sv = STRV_INIT;
	char		*cause = NULL;
	size_t		 i;

	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "style")) != NULL) {
		rule_ctx_push(c, "style");
		if (strcmp(j->valuestring, "find") == 0)
			g->style = OPT_STYLE_FIND;
		else if (strcmp(j->valuestring, "gnu") != 0)
			return rule_ctx_error(c, "style must be \"gnu\" or "
			    "\"find\"");
		rule_ctx_pop(c);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "options")) != NULL) {
		if (rule_strings(c, j, "options", &sv) != 0)
			goto fail;
		g->specs = xcalloc(sv.n + 1, sizeof *g->specs);
		for (i = 0; i < sv.n; i++) {
			if (opt_spec_parse(sv.v[i], g->style, &g->specs[i],
			    &cause) != 0) {
				rule_ctx_push(c, "options");
				rule_ctx_pushi(c, i);
				rule_ctx_error(c, "%s", cause);
				free(cause);
				goto fail;
			}
			g->nspecs++;
		}
		strv_release(&sv);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "forbidden")) != NULL) {
		rule_ctx_push(c, "forbidden");
		cJSON_ArrayForEach(e, j) {
			rule_ctx_push(c, e->string);
			if (!cJSON_IsString(e) || e->valuestring[0] == '\0')
				return rule_ctx_error(c, "a forbidden option "
				    "needs its reason as a string");
			if ((s = opt_grammar_find(g, e->string)) == NULL)
				return rule_ctx_error(c, "forbidden option "
				    "\"%s\" is not in \"options\"", e->string);
			free(s->forbidden);
			s->forbidden = xstrdup(e->valuestring);
			rule_ctx_pop(c);
		}
		rule_ctx_pop(c);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "abbrev")) != NULL)
		g->abbrev = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "permute")) != NULL)
		g->permute = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "numeric")) != NULL)
		g->numeric = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "required")) != NULL) {
		if (rule_strings(c, j, "required", &g->required) != 0)
			return -1;
		for (i = 0; i < g->required.n; i++) {
			if (opt_grammar_find(g, g->required.v[i]) == NULL) {
				rule_ctx_push(c, "required");
				return rule_ctx_error(c, "required option "
				    "\"%s\" is not in \"options\"",
				    g->required.v[i]);
			}
		}
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "operands")) != NULL) {
		rule_ctx_push(c, "operands");
		if (rule_check_keys(c, j, rule_operand_keys, SIZE_MAX) != 0)
			return -1;
		if ((e = cJSON_GetObjectItemCaseSensitive(j, "min")) != NULL &&
		    rule_int(c, e, "min", 0, &g->min_operands) != 0)
			return -1;
		if ((e = cJSON_GetObjectItemCaseSensitive(j, "max")) != NULL &&
		    rule_int(c, e, "max", -1, &g->max_operands) != 0)
			return -1;
		rule_ctx_pop(c);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "script")) != NULL) {
		rule_ctx_push(c, "script");
		if (!opt_script_known(j->valuestring))
			return rule_ctx_error(c, "unknown script checker "
			    "\"%s\" (known: sed-print)", j->valuestring);
		g->script = xstrdup(j->valuestring);
		rule_ctx_pop(c);
	}
	if (rule_value_keys(c, obj, g) != 0)
		return -1;
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "subcommands")) != NULL) {
		if (!top) {
			rule_ctx_push(c, "subcommands");
			return rule_ctx_error(c, "subcommands cannot nest");
		}
		rule_ctx_push(c, "subcommands");
		g->subs = xcalloc(cJSON_GetArraySize(j) + 1, sizeof *g->subs);
		cJSON_ArrayForEach(e, j) {
			struct opt_sub	*sub = &g->subs[g->nsubs++];

			sub->name = xstrdup(e->string);
			opt_grammar_init(&sub->g);
			rule_ctx_push(c, e->string);
			if (!cJSON_IsObject(e))
				return rule_ctx_error(c, "a subcommand must "
				    "be an object");
			if (rule_check_keys(c, e, rule_rule_keys +
			    RULE_FIRST_GRAMMAR_KEY, SIZE_MAX) != 0)
				return -1;
			if (rule_grammar(c, e, &sub->g, false) != 0)
				return -1;
			rule_ctx_pop(c);
		}
		rule_ctx_pop(c);
	}
	return 0;
fail:
	strv_release(&sv);
	return -1;
}
