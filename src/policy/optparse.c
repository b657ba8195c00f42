/*
 * optparse: check an argv against a command's option grammar.
 *
 * The check is deliberately the mirror image of GNU getopt_long with
 * permutation: every word that starts with '-' (other than "-" itself) up
 * to "--" is an option, short options bundle ("-rn"), a short option that
 * takes a value swallows the rest of its word or the next word, and a long
 * option may be abbreviated when the command accepts that, in which case
 * the abbreviation must be unambiguous against the full table. Anything
 * the table does not know is refused: being stricter than the command is
 * safe, being looser is not. In particular an abbreviation that could
 * stand for a forbidden option is refused even when the command would
 * call it ambiguous.
 */
#include "autoconf.h"

#include <ctype.h>
#include <limits.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "optparse.h"
#include "xalloc.h"

/* Script checkers, by name (used by "script" in a rule). */
struct opt_checker {
	const char	*name;
	int		(*check)(const char *, char **);
};


static const struct opt_checker opt_checkers[] = {
	{ "sed-print", opt_sed_print },
};

/* Names of value kinds as written in rule files. */
static const char *const opt_kind_names[] = {
	[OPT_KIND_ARG] = "ARG",
	[OPT_KIND_FILE] = "FILE",
	[OPT_KIND_WFILE] = "WFILE",
	[OPT_KIND_PROG] = "PROG",
	[OPT_KIND_SCRIPT] = "SCRIPT",
	[OPT_KIND_SIZE] = "SIZE",
	[OPT_KIND_COUNT] = "COUNT",
};

/* Set up an empty grammar. */
void
opt_grammar_init(struct opt_grammar *g)
{
	memset(g, 0, sizeof *g);
	g->style = OPT_STYLE_GNU;
	g->abbrev = true;
	g->permute = true;
	g->max_operands = -1;
}

/* Free one option spec. */
void
opt_spec_release(struct opt_spec *s)
{
	strv_release(&s->names);
	strv_release(&s->values);
	strv_release(&s->refused);
	free(s->forbidden);
	free(s->refused_why);
	s->forbidden = s->refused_why = NULL;
}

/* Free a grammar and its subcommands. */
void
opt_grammar_release(struct opt_grammar *g)
{
	size_t	i;

	for (i = 0; i < g->nspecs; i++)
		opt_spec_release(&g->specs[i]);
	free(g->specs);
	strv_release(&g->required);
	free(g->script);
	for (i = 0; i < g->nsubs; i++) {
		free(g->subs[i].name);
		opt_grammar_release(&g->subs[i].g);
	}
	free(g->subs);
	opt_grammar_init(g);
}

/* Is name a well-formed option name for this style? */
static bool
opt_name_valid(const char *name, enum opt_style style)
{
	const char	*p;

	if (name[0] != '-' || name[1] == '\0')
		return false;
	if (style == OPT_STYLE_GNU) {
		if (name[1] != '-')
			return name[2] == '\0' && name[1] != '=' &&
			    isgraph((unsigned char)name[1]);
		p = name + 2;
	} else
		p = name + 1;
	if (*p == '\0')
		return false;
	for (; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return false;
	return true;
}

/* Only digits, at least one? */
static bool
opt_all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * A size: digits, then nothing or one of b k K m M g G t T ... (b is 512,
 * the others powers of 1024, also written KB, KiB ...: every reading is
 * taken as its largest, since a ceiling must hold for all of them).
 */
int
opt_parse_size(const char *s, unsigned long long *out)
{
	static const char	 units[] = "kmgtpezyrq";
	unsigned long long	 v = 0, mul = 1;
	const char		*u;
	int			 d;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		d = *s - '0';
		if (v > (ULLONG_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*s == 'b' && s[1] == '\0')
		mul = 512;
	else if (*s != '\0') {
		if ((u = strchr(units, tolower((unsigned char)*s))) == NULL)
			return -1;
		for (d = 0; d <= u - units; d++) {
			if (mul > ULLONG_MAX / 1024)
				return -1;
			mul *= 1024;
		}
		s++;
		if (strcmp(s, "") != 0 && strcmp(s, "B") != 0 &&
		    strcmp(s, "iB") != 0)
			return -1;
	}
	if (v != 0 && mul > ULLONG_MAX / v)
		return -1;
	*out = v * mul;
	return 0;
}

/* Parse one spec string into s. */
int
opt_spec_parse(const char *text, enum opt_style style, struct opt_spec *s,
    char **cause)
{
	char		*copy, *names, *kind = NULL, *name, *last;
	char		*ceil = NULL;
	size_t		 len, i;

	memset(s, 0, sizeof *s);
	copy = xstrdup(text);
	names = copy;
	len = strlen(copy);
	s->arg = OPT_ARG_NONE;
	if (len > 3 && copy[len - 1] == ']' && strstr(copy, "[=") != NULL) {
		copy[len - 1] = '\0';
		kind = strstr(copy, "[=");
		*kind = '\0';
		kind += 2;
		s->arg = OPT_ARG_OPTIONAL;
	} else if ((kind = strchr(copy, '=')) != NULL) {
		*kind++ = '\0';
		s->arg = OPT_ARG_REQUIRED;
	}
	s->kind = OPT_KIND_ARG;
	if (kind != NULL && (ceil = strstr(kind, "<=")) != NULL) {
		*ceil = '\0';
		ceil += 2;
	}
	if (kind != NULL) {
		for (i = 0; i < sizeof opt_kind_names / sizeof *opt_kind_names;
		    i++) {
			if (strcmp(kind, opt_kind_names[i]) == 0)
				break;
		}
		if (i == sizeof opt_kind_names / sizeof *opt_kind_names) {
			*cause = xasprintf("option \"%s\": unknown value kind "
			    "\"%s\" (ARG, FILE, WFILE, PROG, SCRIPT, SIZE or "
			    "COUNT)", text, kind);
			free(copy);
			return -1;
		}
		s->kind = i;
	}
	if ((s->kind == OPT_KIND_SIZE || s->kind == OPT_KIND_COUNT) !=
	    (ceil != NULL) || (ceil != NULL && (opt_parse_size(ceil,
	    &s->ceiling) != 0 || (s->kind == OPT_KIND_COUNT &&
	    !opt_all_digits(ceil))))) {
		*cause = xasprintf("option \"%s\": SIZE and COUNT need a "
		    "ceiling (SIZE<=1G, COUNT<=16), other kinds none", text);
		free(copy);
		return -1;
	}
	for (name = strtok_r(names, "|", &last); name != NULL;
	    name = strtok_r(NULL, "|", &last)) {
		if (!opt_name_valid(name, style)) {
			*cause = xasprintf("option \"%s\": \"%s\" is not an "
			    "option name", text, name);
			opt_spec_release(s);
			free(copy);
			return -1;
		}
		strv_push(&s->names, name);
	}
	free(copy);
	if (s->names.n == 0) {
		*cause = xasprintf("option \"%s\": no option name", text);
		return -1;
	}
	return 0;
}

/* Find the spec with exactly this name. */
struct opt_spec *
opt_grammar_find(const struct opt_grammar *g, const char *name)
{
	size_t	i;

	for (i = 0; i < g->nspecs; i++)
		if (strv_contains(&g->specs[i].names, name))
			return &g->specs[i];
	return NULL;
}

/* Why using this spec is refused, or NULL when it is allowed. */
static const char *
opt_refusal(const struct opt_spec *s)
{
	if (s->forbidden != NULL)
		return s->forbidden;
	if (s->kind == OPT_KIND_WFILE)
		return "its value is a file that is written";
	if (s->kind == OPT_KIND_PROG)
		return "its value is a program that is run";
	return NULL;
}

/* Known script checker? */
bool
opt_script_known(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof opt_checkers / sizeof *opt_checkers; i++)
		if (strcmp(opt_checkers[i].name, name) == 0)
			return true;
	return false;
}

/* Run the named checker. */
int
opt_script_check(const char *name, const char *script, char **why)
{
	size_t	i;

	for (i = 0; i < sizeof opt_checkers / sizeof *opt_checkers; i++)
		if (strcmp(opt_checkers[i].name, name) == 0)
			return opt_checkers[i].check(script, why);
	*why = xasprintf("unknown script checker \"%s\"", name);
	return -1;
}

/*
 * Long option lookup: exact name, else (when the command allows it) a
 * unique prefix. A prefix of any refused option is refused outright.
 */
static const struct opt_spec *
opt_find_long(const struct opt_grammar *g, const char *name, size_t len,
    char **why)
{
	const struct opt_spec	*found = NULL, *s;
	const char		*n;
	size_t			 i, j;

	for (i = 0; i < g->nspecs; i++) {
		s = &g->specs[i];
		for (j = 0; j < s->names.n; j++) {
			n = s->names.v[j];
			if (strncmp(n, name, len) == 0 && n[len] == '\0')
				return s;
		}
	}
	for (i = 0; i < g->nspecs; i++) {
		s = &g->specs[i];
		for (j = 0; j < s->names.n; j++) {
			n = s->names.v[j];
			if (n[1] != '-' || strncmp(n, name, len) != 0)
				continue;
			if (opt_refusal(s) != NULL) {
				*why = xasprintf("'%.*s' may stand for '%s', "
				    "which is refused: %s", (int)len, name, n,
				    opt_refusal(s));
				return NULL;
			}
			if (found != NULL && found != s) {
				*why = xasprintf("'%.*s' is ambiguous",
				    (int)len, name);
				return NULL;
			}
			found = s;
		}
	}
	if (found != NULL && !g->abbrev) {
		*why = xasprintf("unknown option '%.*s' (abbreviations are "
		    "not accepted by this command)", (int)len, name);
		return NULL;
	}
	if (found == NULL)
		*why = xasprintf("unknown option '%.*s'", (int)len, name);
	return found;
}

/* State of one check. */
struct opt_state {
	const struct opt_grammar *g;
	bool			*seen;		/* per spec */
	const bool		*globs;		/* per word, or NULL */
	bool			 script_seen;
	bool			 bounded;	/* a bounding option used */
	struct strv		 operands;
};

/* Check an option's value against its kind, values and refusals. */
static int
opt_value(const struct opt_spec *s, const char *shown, const char *value,
    char **why)
{
	unsigned long long	v;
	size_t			i;

	if ((s->kind == OPT_KIND_SIZE || s->kind == OPT_KIND_COUNT) &&
	    (opt_parse_size(value, &v) != 0 || (s->kind == OPT_KIND_COUNT &&
	    !opt_all_digits(value)) || v > s->ceiling)) {
		*why = xasprintf("option '%s': '%s' is not a %s up to %llu "
		    "(a resource the command would take)", shown, value,
		    s->kind == OPT_KIND_SIZE ? "size" : "count", s->ceiling);
		return -1;
	}
	if (s->values.n > 0 && !strv_contains(&s->values, value)) {
		*why = xasprintf("option '%s': only %s%s accepted, not '%s'",
		    shown, s->values.v[0], s->values.n > 1 ? " (and the "
		    "other listed values)" : "", value);
		return -1;
	}
	for (i = 0; i < s->refused.n; i++) {
		if (fnmatch(s->refused.v[i], value, 0) == 0) {
			*why = xasprintf("option '%s': '%s' is refused: %s",
			    shown, value, s->refused_why != NULL ?
			    s->refused_why : "a refused value");
			return -1;
		}
	}
	return 0;
}

/* Record a use of s with value (or NULL); -1 with why if refused. */
static int
opt_use(struct opt_state *st, const struct opt_spec *s, const char *shown,
    const char *value, char **why)
{
	const char	*r;

	if ((r = opt_refusal(s)) != NULL) {
		*why = xasprintf("option '%s' is refused: %s", shown, r);
		return -1;
	}
	st->seen[s - st->g->specs] = true;
	if (s->bounds)
		st->bounded = true;
	if (value != NULL && opt_value(s, shown, value, why) != 0)
		return -1;
	if (s->kind == OPT_KIND_SCRIPT && value != NULL) {
		st->script_seen = true;
		if (st->g->script == NULL) {
			*why = xasprintf("option '%s' takes a script that "
			    "cannot be checked", shown);
			return -1;
		}
		if (opt_script_check(st->g->script, value, why) != 0)
			return -1;
	}
	return 0;
}

/* Refuse a glob pattern as the value of an option (word i). */
static int
opt_glob_value(const struct opt_state *st, size_t i, const char *name,
    char **why)
{
	if (st->globs == NULL || !st->globs[i])
		return 0;
	*why = xasprintf("the value of '%s' is a pattern expanded when it "
	    "runs: its value is not known now", name);
	return -1;
}

/* Does g have an option that writes, runs a program or reads a script? */
static bool
opt_dangerous(const struct opt_grammar *g)
{
	size_t	i;

	for (i = 0; i < g->nspecs; i++)
		if (g->specs[i].forbidden != NULL ||
		    g->specs[i].kind == OPT_KIND_WFILE ||
		    g->specs[i].kind == OPT_KIND_PROG ||
		    g->specs[i].kind == OPT_KIND_SCRIPT)
			return true;
	return g->script != NULL;
}

/*
 * May the glob operand w stand here? Its expansions are operands only if
 * options have ended, or its first character is literal and not '-', or
 * no option of the grammar could do harm; and the count of operands must
 * not matter (an extra one may be written), nor may it be a script.
 */
static int
opt_glob_operand(const struct opt_grammar *g, const char *w, bool options,
    char **why)
{
	if (g->max_operands >= 0 || g->script != NULL || g->nsubs > 0 ||
	    g->operand_numbers != 0) {
		*why = xasprintf("'%s' is a pattern expanded when it runs, "
		    "where the number or kind of operands matters", w);
		return -1;
	}
	if (options && strchr("-*?[\\", w[0]) != NULL && opt_dangerous(g)) {
		*why = xasprintf("'%s' is a pattern expanded when it runs: a "
		    "file named like an option (--output=x) would become one "
		    "(put it after --)", w);
		return -1;
	}
	return 0;
}

/*
 * A glob in an option's word is harmless when the option is fixed before
 * the pattern starts (--include=*.py: every expansion is that option) and
 * its value may be anything (ARG or FILE, no values, refusals or ceiling).
 */
static bool
opt_glob_long(const struct opt_grammar *g, const char *w)
{
	const struct opt_spec	*s;
	const char		*eq = strchr(w, '=');
	char			*why = NULL;

	if (g->style != OPT_STYLE_GNU || w[1] != '-' || eq == NULL ||
	    strcspn(w, "*?[\\") < (size_t)(eq - w))
		return false;
	s = opt_find_long(g, w, eq - w, &why);
	free(why);
	return s != NULL && s->arg != OPT_ARG_NONE && opt_refusal(s) == NULL &&
	    (s->kind == OPT_KIND_ARG || s->kind == OPT_KIND_FILE) &&
	    s->values.n == 0 && s->refused.n == 0;
}

/* An operand that must be a whole number within +-limit. */
static int
opt_number(const struct opt_grammar *g, const char *w, char **why)
{
	unsigned long long	v;
	const char		*p = w;

	if (*p == '-' || *p == '+')
		p++;
	if (opt_all_digits(p) && opt_parse_size(p, &v) == 0 &&
	    v <= g->operand_numbers)
		return 0;
	*why = xasprintf("'%s' is not a whole number from -%llu to %llu",
	    w, g->operand_numbers, g->operand_numbers);
	return -1;
}

/* A word of all digits after '-'? */
static bool
opt_is_numeric(const char *w)
{
	if (w[0] != '-' || !isdigit((unsigned char)w[1]))
		return false;
	for (w++; *w != '\0'; w++)
		if (!isdigit((unsigned char)*w))
			return false;
	return true;
}

/* Check a bundle of short options "-abc"; *i may advance for a value. */
static int
opt_short(struct opt_state *st, const char *const *argv, size_t argc,
    size_t *i, char **why)
{
	const char		*w = argv[*i], *value;
	const struct opt_spec	*s;
	char			 name[3] = { '-', 0, 0 };
	size_t			 k, n;

	for (k = 1; w[k] != '\0'; k++) {
		/* A letter beyond ASCII is no option of any grammar: name the
		   whole character (never half of one), an invalid byte as
		   \xNN. */
		if ((unsigned char)w[k] >= 0x80) {
			n = utf8_seq((const unsigned char *)w + k,
			    strlen(w + k));
			*why = n > 0 ? xasprintf("unknown option '-%.*s'",
			    (int)n, w + k) : xasprintf("unknown option "
			    "'-\\x%02x'", (unsigned char)w[k]);
			return -1;
		}
		name[1] = w[k];
		if ((s = opt_grammar_find(st->g, name)) == NULL) {
			*why = xasprintf("unknown option '%s'", name);
			return -1;
		}
		if (s->arg == OPT_ARG_NONE) {
			if (opt_use(st, s, name, NULL, why) != 0)
				return -1;
			continue;
		}
		value = w + k + 1;
		if (*value == '\0' && s->arg == OPT_ARG_REQUIRED) {
			if (*i + 1 >= argc) {
				*why = xasprintf("option '%s' needs a value",
				    name);
				return -1;
			}
			if (opt_glob_value(st, *i + 1, name, why) != 0)
				return -1;
			value = argv[++*i];
		}
		return opt_use(st, s, name, value, why);
	}
	return 0;
}

/* Check a long option "--name[=value]"; *i may advance for a value. */
static int
opt_long(struct opt_state *st, const char *const *argv, size_t argc,
    size_t *i, char **why)
{
	const char		*w = argv[*i], *eq, *value = NULL;
	const struct opt_spec	*s;
	size_t			 len;

	eq = strchr(w, '=');
	len = eq != NULL ? (size_t)(eq - w) : strlen(w);
	if ((s = opt_find_long(st->g, w, len, why)) == NULL)
		return -1;
	if (eq != NULL) {
		if (s->arg == OPT_ARG_NONE) {
			*why = xasprintf("option '%.*s' takes no value",
			    (int)len, w);
			return -1;
		}
		value = eq + 1;
	} else if (s->arg == OPT_ARG_REQUIRED) {
		if (*i + 1 >= argc) {
			*why = xasprintf("option '%s' needs a value", w);
			return -1;
		}
		if (opt_glob_value(st, *i + 1, w, why) != 0)
			return -1;
		value = argv[++*i];
	}
	return opt_use(st, s, s->names.v[s->names.n - 1], value, why);
}

/* Check a find-style word "-name" (exact match only). */
static int
opt_find_word(struct opt_state *st, const char *const *argv, size_t argc,
    size_t *i, char **why)
{
	const struct opt_spec	*s;
	const char		*value = NULL;

	if ((s = opt_grammar_find(st->g, argv[*i])) == NULL) {
		*why = xasprintf("unknown expression '%s'", argv[*i]);
		return -1;
	}
	if (s->arg != OPT_ARG_NONE && opt_refusal(s) == NULL) {
		if (*i + 1 >= argc) {
			*why = xasprintf("'%s' needs a value", argv[*i]);
			return -1;
		}
		if (opt_glob_value(st, *i + 1, argv[*i], why) != 0)
			return -1;
		value = argv[++*i];
	}
	return opt_use(st, s, argv[*i - (value != NULL)], value, why);
}

static int	opt_check_from(const struct opt_grammar *, const char *const *,
		    const bool *, size_t, bool *, char **);

/* After all words: required options, operand counts, script operand. */
static int
opt_finish(struct opt_state *st, char **why)
{
	const struct opt_grammar	*g = st->g;
	const struct opt_spec		*s;
	size_t				 i, first = 0;

	for (i = 0; i < g->required.n; i++) {
		s = opt_grammar_find(g, g->required.v[i]);
		if (s == NULL || !st->seen[s - g->specs]) {
			*why = xasprintf("option '%s' is required",
			    g->required.v[i]);
			return -1;
		}
	}
	if (g->script != NULL && !st->script_seen) {
		if (st->operands.n == 0) {
			*why = xstrdup("no script given");
			return -1;
		}
		if (opt_script_check(g->script, st->operands.v[0], why) != 0)
			return -1;
		first = 1;
	}
	if (st->operands.n - first < (size_t)g->min_operands) {
		*why = xasprintf("needs at least %d operand%s",
		    g->min_operands, g->min_operands == 1 ? "" : "s");
		return -1;
	}
	if (g->max_operands >= 0 &&
	    st->operands.n - first > (size_t)g->max_operands) {
		*why = xasprintf("at most %d operand%s allowed (an extra "
		    "operand may be a file that is written)", g->max_operands,
		    g->max_operands == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* The body of opt_check. */
static int
opt_check_from(const struct opt_grammar *g, const char *const *argv,
    const bool *globs, size_t argc, bool *bounded, char **why)
{
	struct opt_state	 st;
	const char		*w;
	bool			 options = true;
	size_t			 i, j;
	int			 rc = -1;

	memset(&st, 0, sizeof st);
	st.g = g;
	st.globs = globs;
	st.seen = xcalloc(g->nspecs + 1, sizeof *st.seen);
	for (i = 0; i < argc; i++) {
		w = argv[i];
		if (globs != NULL && globs[i] && options && w[0] == '-' &&
		    w[1] != '\0' && !opt_glob_long(g, w)) {
			*why = xasprintf("'%s' is a pattern expanded when it "
			    "runs, where an option is read", w);
			goto out;
		}
		if (!options || w[0] != '-' || w[1] == '\0') {
			if (g->nsubs > 0) {
				for (j = 0; j < g->nsubs; j++)
					if (strcmp(g->subs[j].name, w) == 0)
						break;
				if (j == g->nsubs) {
					*why = xasprintf("subcommand '%s' is "
					    "not covered", w);
					goto out;
				}
				if (opt_finish(&st, why) != 0)
					goto out;
				if (bounded != NULL)
					*bounded = *bounded || st.bounded;
				rc = opt_check_from(&g->subs[j].g, argv + i + 1,
				    globs != NULL ? globs + i + 1 : NULL,
				    argc - i - 1, bounded, why);
				bounded = NULL;
				goto out;
			}
			if (globs != NULL && globs[i] &&
			    opt_glob_operand(g, w, options, why) != 0)
				goto out;
			if (g->operand_numbers != 0 &&
			    opt_number(g, w, why) != 0)
				goto out;
			strv_push(&st.operands, w);
			if (!g->permute)
				options = false;
			continue;
		}
		if (g->style == OPT_STYLE_FIND) {
			if (opt_find_word(&st, argv, argc, &i, why) != 0)
				goto out;
			continue;
		}
		if (strcmp(w, "--") == 0) {
			options = false;
			continue;
		}
		if (g->numeric && opt_is_numeric(w)) {
			if (g->operand_numbers != 0 &&
			    opt_number(g, w, why) != 0)
				goto out;
			continue;
		}
		if (w[1] == '-') {
			if (opt_long(&st, argv, argc, &i, why) != 0)
				goto out;
		} else if (opt_short(&st, argv, argc, &i, why) != 0)
			goto out;
	}
	rc = opt_finish(&st, why);
out:
	if (rc == 0 && bounded != NULL)
		*bounded = *bounded || st.bounded || g->bounded;
	free(st.seen);
	strv_release(&st.operands);
	return rc;
}

/* Check argv against g. */
int
opt_check(const struct opt_grammar *g, const char *const *argv, size_t argc,
    char **why)
{
	*why = NULL;
	return opt_check_from(g, argv, NULL, argc, NULL, why);
}

/* Check argv against g, knowing which words are globs. */
int
opt_check_words(const struct opt_grammar *g, const char *const *argv,
    const bool *globs, size_t argc, bool *bounded, char **why)
{
	*why = NULL;
	if (bounded != NULL)
		*bounded = false;
	return opt_check_from(g, argv, globs, argc, bounded, why);
}
