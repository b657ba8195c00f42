/*
 * cmd-rules: `bwgate rules suggest [--project DIR] [--audit FILE]
 * [--min N] [--json] [--accept N[,N...] [--all-projects]]`: rules from
 * what the operator approved again and again.
 *
 * From the project's audit log: requests of verdict ask that the operator
 * approved (never danger, never a rule's or a mode's approval) and that
 * ran with nothing beyond the project (the start record's policy: no
 * network, no domains, no extra paths, git metadata and the agents'
 * configuration read-only). A command approved --min times (3) or more is
 * an exact rule; a first word under which two or more different commands
 * were approved --min times in all, and never denied, is a prefix rule
 * ("make *"). What the rules allow already, or ran with different
 * profiles, is left out. Nothing is written until --accept names the
 * suggestions, then through the A key's writer (ui/rule.c), which keeps a
 * rule only if the rule files load with it and it allows its example.
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "cmd.h"
#include "console.h"
#include "display.h"
#include "history.h"
#include "jsonutil.h"
#include "shparse.h"
#include "ui.h"
#include "xalloc.h"

/* One request of the log, as far as suggestions care. */
struct sg_request {
	char	*console;
	double	 id;
	char	*command;
	char	*verdict;
	char	*decision;	/* approved, denied, or NULL */
	char	*by;
	char	*profile;	/* as it ran */
	bool	 beyond;	/* ran with more than the project */
};

struct sg_log {
	struct sg_request	*r;
	size_t			 n;
};

/* A suggestion: an exact command (prefix 0) or a first word and "*". */
struct sg {
	char		*pattern;	/* for people */
	char		*example;	/* a command it was approved for */
	char		*profile;
	size_t		 prefix;
	size_t		 count;
	struct strv	 examples;
};

static const struct option rules_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "audit", required_argument, NULL, 'a' },
	{ "min", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "accept", required_argument, NULL, 'A' },
	{ "all-projects", no_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
rules_usage(FILE *f)
{
	fprintf(f, "usage: bwgate rules suggest [--project DIR] [--audit FILE] "
	    "[--min N] [--json]\n"
	    "                           [--accept N[,N...] "
	    "[--all-projects]]\n");
}

static const char *
sg_str(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(o, name));
}

static void
sg_set(char **field, const char *value)
{
	if (value == NULL)
		return;
	free(*field);
	*field = xstrdup(value);
}

static struct sg_request *
sg_find(struct sg_log *l, const char *console, double id, bool make)
{
	for (size_t i = l->n; i > 0; i--)
		if (l->r[i - 1].id == id && strcmp(l->r[i - 1].console,
		    console) == 0)
			return &l->r[i - 1];
	if (!make)
		return NULL;
	l->r = xreallocarray(l->r, l->n + 1, sizeof *l->r);
	memset(&l->r[l->n], 0, sizeof *l->r);
	l->r[l->n].console = xstrdup(console);
	l->r[l->n].id = id;
	return &l->r[l->n++];
}

/* Did the run get more than the project? Unknown keys of a newer log
   count as more only when they open something (true or a non-empty
   list). */
static bool
sg_beyond(const cJSON *pol)
{
	static const char *const flags[] = { "network", "git_writable",
	    "agent_config_writable", "allow_userns", "allow_ptrace", NULL };
	static const char *const lists[] = { "rw_paths", "domains", NULL };
	const cJSON	*f;

	if (!cJSON_IsObject(pol))
		return true;
	for (size_t i = 0; flags[i] != NULL; i++)
		if (cJSON_IsTrue(cJSON_GetObjectItem(pol, flags[i])))
			return true;
	for (size_t i = 0; lists[i] != NULL; i++)
		if ((f = cJSON_GetObjectItem(pol, lists[i])) != NULL &&
		    cJSON_GetArraySize(f) > 0)
			return true;
	return false;
}

static int
sg_record(const cJSON *rec, const char *project, void *arg)
{
	struct sg_log		*l = arg;
	const char		*what = sg_str(rec, "record");
	const char		*console = sg_str(rec, "console");
	const cJSON		*id = cJSON_GetObjectItem(rec, "id"), *req;
	const cJSON		*pol;
	struct sg_request	*r;

	(void)project;
	if (what == NULL || console == NULL || !cJSON_IsNumber(id))
		return 0;
	r = sg_find(l, console, id->valuedouble,
	    strcmp(what, "request") == 0);
	if (r == NULL)
		return 0;
	if (strcmp(what, "request") == 0) {
		req = cJSON_GetObjectItem(rec, "request");
		sg_set(&r->command, sg_str(req, "command"));
		sg_set(&r->verdict, sg_str(req, "verdict"));
	} else if (strcmp(what, "decision") == 0) {
		sg_set(&r->decision, sg_str(rec, "decision"));
		sg_set(&r->by, sg_str(rec, "by"));
	} else if (strcmp(what, "start") == 0) {
		pol = cJSON_GetObjectItem(rec, "policy");
		sg_set(&r->profile, sg_str(pol, "profile"));
		r->beyond = sg_beyond(pol);
	}
	return 0;
}

/* The first word of a command string that is one simple command with
   literal words, or NULL. */
static char *
sg_first_word(const char *command)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL, *w = NULL;

	if (sh_parse(command, &s, &cause) != 0) {
		free(cause);
		return NULL;
	}
	if (s.ncmds == 1 && s.unknown.n == 0 && s.cmds[0].nwords >= 2 &&
	    s.cmds[0].nassigns == 0 && s.cmds[0].nredirs == 0 &&
	    SH_WORD_LITERAL(&s.cmds[0].words[0]))
		w = xstrdup(s.cmds[0].words[0].text);
	sh_script_release(&s);
	return w;
}

static bool
sg_counts(const struct sg_request *r)
{
	return r->command != NULL && r->verdict != NULL &&
	    strcmp(r->verdict, "ask") == 0 && r->decision != NULL &&
	    strcmp(r->decision, "approved") == 0 && r->by != NULL &&
	    strcmp(r->by, "operator") == 0 && r->profile != NULL &&
	    !r->beyond;
}

static void
sg_add(struct sg **v, size_t *n, const char *pattern, const char *example,
    const char *profile, size_t prefix, size_t count,
    const struct strv *examples)
{
	struct sg *s;

	*v = xreallocarray(*v, *n + 1, sizeof **v);
	s = &(*v)[(*n)++];
	memset(s, 0, sizeof *s);
	s->pattern = xstrdup(pattern);
	s->example = xstrdup(example);
	s->profile = xstrdup(profile);
	s->prefix = prefix;
	s->count = count;
	s->examples = (struct strv)STRV_INIT;
	if (examples != NULL)
		strv_append_all(&s->examples, examples);
	else
		strv_push(&s->examples, example);
}

/* Is it allowed already as the rules stand? */
static bool
sg_allowed(const struct allowlist *al, const char *command)
{
	struct classification	c = CLASSIFICATION_INIT;
	bool			yes;

	allowlist_classify(al, command, &c);
	yes = c.verdict == VERDICT_ALLOW;
	classification_release(&c);
	return yes;
}

/* Prefix suggestions first (they cover their exact commands), then the
   exact ones left. */
static void
sg_collect(const struct sg_log *l, const struct allowlist *al, size_t min,
    struct sg **v, size_t *n)
{
	struct strv	 words = STRV_INIT, done = STRV_INIT;

	for (size_t i = 0; i < l->n; i++) {
		char *w = sg_counts(&l->r[i]) ? sg_first_word(
		    l->r[i].command) : NULL;

		if (w != NULL && !strv_contains(&words, w))
			strv_push(&words, w);
		free(w);
	}
	for (size_t k = 0; k < words.n; k++) {
		struct strv	 cmds = STRV_INIT;
		const char	*profile = NULL, *example = NULL;
		size_t		 count = 0;
		bool		 ok = true;
		char		*pattern;

		for (size_t i = 0; i < l->n && ok; i++) {
			const struct sg_request *r = &l->r[i];
			char *w = r->command != NULL ?
			    sg_first_word(r->command) : NULL;

			if (w != NULL && strcmp(w, words.v[k]) == 0) {
				if (r->decision != NULL &&
				    strcmp(r->decision, "denied") == 0)
					ok = false;
				else if (sg_counts(r)) {
					if (profile != NULL &&
					    strcmp(profile, r->profile) != 0)
						ok = false;
					profile = r->profile;
					example = r->command;
					count++;
					if (!strv_contains(&cmds, r->command))
						strv_push(&cmds, r->command);
				}
			}
			free(w);
		}
		if (ok && count >= min && cmds.n >= 2 &&
		    !sg_allowed(al, example)) {
			pattern = xasprintf("%s *", words.v[k]);
			sg_add(v, n, pattern, example, profile, 1, count,
			    &cmds);
			free(pattern);
			strv_append_all(&done, &cmds);
		}
		strv_release(&cmds);
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct sg_request	*r = &l->r[i];
		size_t			 count = 0;
		bool			 same = true;

		if (!sg_counts(r) || strv_contains(&done, r->command))
			continue;
		strv_push(&done, r->command);
		for (size_t j = 0; j < l->n; j++) {
			if (l->r[j].command == NULL ||
			    strcmp(l->r[j].command, r->command) != 0)
				continue;
			if (l->r[j].decision != NULL &&
			    strcmp(l->r[j].decision, "denied") == 0)
				same = false;
			else if (sg_counts(&l->r[j])) {
				same = same && strcmp(l->r[j].profile,
				    r->profile) == 0;
				count++;
			}
		}
		if (same && count >= min && !sg_allowed(al, r->command))
			sg_add(v, n, r->command, r->command, r->profile, 0,
			    count, NULL);
	}
	strv_release(&words);
	strv_release(&done);
}

/* "1,3" -> picked[0] and picked[2]; -1 when not a list of numbers in
   1..n. */
static int
sg_parse_accept(const char *s, bool *picked, size_t n)
{
	char	*end;

	for (;;) {
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || (size_t)v > n)
			return -1;
		picked[v - 1] = true;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

static int
rules_suggest(int argc, char **argv)
{
	const char		*popt = NULL, *audit = NULL, *accept = NULL;
	char			*project, *cause = NULL, *s, *path;
	struct sg_log		 l = { NULL, 0 };
	struct sg		*v = NULL;
	struct allowlist	*al;
	size_t			 n = 0, min = 3;
	bool			 json = false, all = false, *picked;
	int			 c, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:a:m:jA:gh", rules_options,
	    NULL)) != -1) {
		switch (c) {
		case 'p': popt = optarg; break;
		case 'a': audit = optarg; break;
		case 'm':
			min = (size_t)strtoul(optarg, &s, 10);
			if (*optarg == '\0' || *s != '\0' || min < 2 ||
			    min > 1000) {
				fprintf(stderr, "bwgate: rules suggest: --min "
				    "'%s': a number from 2 to 1000\n",
				    display_str(optarg));
				return EXIT_BWGATE_FAILED;
			}
			break;
		case 'j': json = true; break;
		case 'A': accept = optarg; break;
		case 'g': all = true; break;
		case 'h': rules_usage(stdout); return 0;
		default: rules_usage(stderr); return EXIT_BWGATE_FAILED;
		}
	}
	if (optind != argc || (all && accept == NULL)) {
		rules_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if ((project = console_find_project(popt, &cause)) == NULL ||
	    (al = allowlist_load(project, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		free(project);
		return EXIT_BWGATE_FAILED;
	}
	history_scan(audit, project, sg_record, &l);
	sg_collect(&l, al, min, &v, &n);
	allowlist_free(al);

	picked = xcalloc(n + 1, sizeof *picked);
	if (accept != NULL && sg_parse_accept(accept, picked, n) != 0) {
		fprintf(stderr, "bwgate: rules suggest: --accept '%s': not "
		    "numbers of the %zu suggestion%s\n", display_str(accept),
		    n, n == 1 ? "" : "s");
		rc = EXIT_BWGATE_FAILED;
	} else if (accept != NULL) {
		for (size_t i = 0; i < n; i++) {
			struct rule_choice ch = { .command = v[i].example,
			    .prefix = v[i].prefix, .profile = v[i].profile,
			    .who = "bwgate rules suggest" };
			cJSON *rule;

			if (!picked[i])
				continue;
			path = NULL;
			if ((rule = rule_build(&ch, &cause)) == NULL ||
			    rule_write(rule, project, all ? RULE_SCOPE_ALL :
			    RULE_SCOPE_PROJECT, &path, &cause) != 0) {
				fprintf(stderr, "bwgate: rules suggest: %zu "
				    "(%s): %s\n", i + 1,
				    display_str(v[i].pattern),
				    display_str(cause));
				free(cause);
				cause = NULL;
				rc = EXIT_BWGATE_FAILED;
			} else
				printf("added %s (profile %s) to %s\n",
				    display_str(v[i].pattern), v[i].profile,
				    display_str(path));
			cJSON_Delete(rule);
			free(path);
		}
	} else if (json) {
		cJSON *arr = cJSON_CreateArray();

		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddNumberToObject(o, "n", (double)(i + 1));
			cJSON_AddStringToObject(o, "pattern", v[i].pattern);
			cJSON_AddStringToObject(o, "kind", v[i].prefix > 0 ?
			    "prefix" : "exact");
			cJSON_AddStringToObject(o, "profile", v[i].profile);
			cJSON_AddNumberToObject(o, "approved",
			    (double)v[i].count);
			cJSON_AddItemToObject(o, "examples",
			    json_strv(&v[i].examples));
			cJSON_AddItemToArray(arr, o);
		}
		s = json_line(arr);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(arr);
	} else if (n == 0)
		printf("no suggestions: no command of '%s' was approved %zu "
		    "times or more with nothing beyond the project\n",
		    display_str(project), min);
	else {
		for (size_t i = 0; i < n; i++) {
			char *p = display_escape(v[i].pattern);

			printf("%3zu  %-30s profile %-9s approved %zu "
			    "time%s\n", i + 1, p, v[i].profile, v[i].count,
			    v[i].count == 1 ? "" : "s");
			for (size_t k = 0; v[i].prefix > 0 &&
			    k < v[i].examples.n && k < 3; k++) {
				char *e = display_escape(v[i].examples.v[k]);

				printf("       e.g. %s\n", e);
				free(e);
			}
			free(p);
		}
		printf("bwgate rules suggest --accept N[,N...] adds them to "
		    "your rules for this project (--all-projects: every "
		    "project); nothing is written before.\n");
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].pattern);
		free(v[i].example);
		free(v[i].profile);
		strv_release(&v[i].examples);
	}
	free(v);
	free(picked);
	for (size_t i = 0; i < l.n; i++) {
		free(l.r[i].console);
		free(l.r[i].command);
		free(l.r[i].verdict);
		free(l.r[i].decision);
		free(l.r[i].by);
		free(l.r[i].profile);
	}
	free(l.r);
	free(project);
	return rc;
}

int
cmd_rules(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "suggest") == 0)
		return rules_suggest(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		rules_usage(stdout);
		return 0;
	}
	rules_usage(stderr);
	return EXIT_BWGATE_FAILED;
}
