/*
 * allowlist: verdicts for command strings.
 *
 * A command string is allowed only when all of this holds:
 *  - the text is plain: no CR, no control characters, no invisible or
 *    bidirectional Unicode, valid UTF-8, not absurdly long;
 *  - it parses (shparse) and nothing in it is outside what the parser
 *    models (script.unknown is empty);
 *  - every simple command, including those inside substitutions, is
 *    allowed by a rule, has only literal words (no expansion whose value
 *    is unknown), no assignment prefixes, a plain or system command name,
 *    and no redirection that writes a file (unless its rule says so);
 *  - no rule in any layer says ask or deny for any of them.
 * Layers are the shipped rules, the user's and the project's; the
 * strictest decision wins. A project file's allow rules and profiles are
 * ignored until the operator trusted its exact content (bwgate trust).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allowlist.h"
#include "buf.h"
#include "cleanup.h"
#include "config.h"
#include "jsonutil.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "shparse.h"
#include "xalloc.h"

/* Longer command strings are never allowed automatically. */
#define ALLOWLIST_MAX_TEXT	(64 * 1024)

enum layer_kind {
	LAYER_DEFAULT,
	LAYER_USER,
	LAYER_PROJECT,
};

struct layer {
	enum layer_kind	 kind;
	struct rulefile	 rf;
	bool		 trusted;	/* allow rules and profiles count */
};

struct allowlist {
	struct layer	 layers[3];
	size_t		 nlayers;
};

/* Directories whose programs may be named by absolute path. */
static const char *const allowlist_sysdirs[] = {
	"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin",
	"/usr/local/sbin",
};

/* Invisible, spacing and bidirectional code points (inclusive ranges). */
static const struct {
	unsigned	lo, hi;
	const char	*what;
} allowlist_invisible[] = {
	{ 0x0080, 0x009f, "a C1 control character" },
	{ 0x00a0, 0x00a0, "a no-break space" },
	{ 0x00ad, 0x00ad, "a soft hyphen" },
	{ 0x034f, 0x034f, "an invisible combining mark" },
	{ 0x061c, 0x061c, "a bidirectional mark" },
	{ 0x115f, 0x1160, "an invisible filler" },
	{ 0x1680, 0x1680, "a unicode space" },
	{ 0x17b4, 0x17b5, "an invisible vowel" },
	{ 0x180b, 0x180f, "an invisible mongolian mark" },
	{ 0x2000, 0x200a, "a unicode space" },
	{ 0x200b, 0x200f, "a zero-width or bidirectional mark" },
	{ 0x2028, 0x2029, "a line or paragraph separator" },
	{ 0x202a, 0x202e, "a bidirectional override" },
	{ 0x202f, 0x202f, "a no-break space" },
	{ 0x205f, 0x2064, "an invisible operator or space" },
	{ 0x2066, 0x2069, "a bidirectional isolate" },
	{ 0x206a, 0x206f, "a deprecated format character" },
	{ 0x3000, 0x3000, "an ideographic space" },
	{ 0x3164, 0x3164, "an invisible filler" },
	{ 0xfe00, 0xfe0f, "a variation selector" },
	{ 0xfeff, 0xfeff, "a zero-width no-break space" },
	{ 0xffa0, 0xffa0, "an invisible filler" },
	{ 0xfff0, 0xfffb, "an invisible special" },
	{ 0x1d173, 0x1d17a, "an invisible musical format mark" },
	{ 0xe0000, 0xe0fff, "a tag or variation selector" },
};

/* One simple command as the rules see it. */
struct cmdview {
	const struct sh_cmd	*cmd;
	const char		**argv;		/* word texts */
	size_t			  argc;
	const char		 *name;		/* basename of argv[0] */
	bool			  name_ok;	/* plain or in a system dir */
	const char		 *launcher;	/* why it runs other programs */
	char			 *unsafe;	/* why it cannot be allowed */
	char			 *writes;	/* a redirection that writes */
};

/* The decision for one simple command. */
struct decision {
	enum verdict		 verdict;
	const struct layer	*layer;
	const struct rule	*rule;
	char			*reason;
	const char		*profile;
};

static int	 allowlist_check_examples(const struct allowlist *,
		    const struct layer *, char **);
static void	 allowlist_classify_only(const struct allowlist *,
		    const struct rule *, const char *,
		    struct classification *);

/* Name of a verdict. */
const char *
verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return "allow";
	case VERDICT_ASK:
		return "ask";
	case VERDICT_DENY:
		return "deny";
	}
	return "ask";
}

/* Free what a classification holds and make it empty again. */
void
classification_release(struct classification *c)
{
	free(c->rule);
	free(c->reason);
	strv_release(&c->commands);
	free(c->profile);
	c->verdict = VERDICT_ASK;
	c->rule = c->reason = c->profile = NULL;
}

/* The classification as a JSON object. */
cJSON *
classification_json(const struct classification *c)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "verdict", verdict_name(c->verdict));
	if (c->rule != NULL)
		cJSON_AddStringToObject(j, "rule", c->rule);
	else
		cJSON_AddNullToObject(j, "rule");
	cJSON_AddStringToObject(j, "reason", c->reason ? c->reason : "");
	cJSON_AddItemToObject(j, "commands", json_strv(&c->commands));
	cJSON_AddStringToObject(j, "profile",
	    c->profile ? c->profile : "project");
	return j;
}

/*
 * Check the raw text: return why it cannot be allowed, or NULL.
 */
static char *
allowlist_text_problem(const char *text)
{
	const unsigned char	*p = (const unsigned char *)text;
	unsigned		 cp;
	size_t			 i, n, len = strlen(text);
	int			 extra;

	if (len > ALLOWLIST_MAX_TEXT)
		return xasprintf("the command is too long to check (%zu "
		    "bytes)", len);
	for (i = 0; i < len; i += n) {
		cp = p[i];
		n = 1;
		if (cp == '\r')
			return xasprintf("a carriage return at byte %zu "
			    "(it can hide text on a terminal)", i);
		if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f)
			return xasprintf("a control character (0x%02x) at byte "
			    "%zu", cp, i);
		if (cp < 0x80)
			continue;
		if (cp >= 0xc2 && cp <= 0xdf) {
			extra = 1;
			cp &= 0x1f;
		} else if (cp >= 0xe0 && cp <= 0xef) {
			extra = 2;
			cp &= 0x0f;
		} else if (cp >= 0xf0 && cp <= 0xf4) {
			extra = 3;
			cp &= 0x07;
		} else
			goto invalid;
		for (n = 1; n <= (size_t)extra; n++) {
			if (i + n >= len || (p[i + n] & 0xc0) != 0x80)
				goto invalid;
			cp = (cp << 6) | (p[i + n] & 0x3f);
		}
		if ((extra == 2 && cp < 0x800) || (extra == 3 &&
		    (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			goto invalid;
		for (size_t k = 0; k < sizeof allowlist_invisible /
		    sizeof *allowlist_invisible; k++) {
			if (cp >= allowlist_invisible[k].lo &&
			    cp <= allowlist_invisible[k].hi)
				return xasprintf("%s (U+%04X) at byte %zu: it "
				    "looks like something else",
				    allowlist_invisible[k].what, cp, i);
		}
	}
	return NULL;
invalid:
	return xasprintf("invalid UTF-8 at byte %zu", i);
}

/* Is an absolute command path a program in a system directory? */
static bool
allowlist_system_path(const char *path)
{
	const char	*slash = strrchr(path, '/');
	size_t		 dirlen = slash - path, i;

	if (strstr(path, "/./") != NULL || strstr(path, "/../") != NULL ||
	    strstr(path, "//") != NULL || slash[1] == '\0' ||
	    strcmp(slash, "/.") == 0 || strcmp(slash, "/..") == 0)
		return false;
	for (i = 0; i < sizeof allowlist_sysdirs / sizeof *allowlist_sysdirs;
	    i++) {
		if (strlen(allowlist_sysdirs[i]) == dirlen &&
		    strncmp(allowlist_sysdirs[i], path, dirlen) == 0)
			return true;
	}
	return false;
}

/*
 * A plain name is judged as the program the sandbox will run: the first
 * match in the PATH it gets (path_env_clean, as in sandbox.c), which must
 * be in a system directory; not found at all runs nothing. NULL when
 * fine, else the reason to ask. (Rule examples are checked without this:
 * they must not depend on the operator's PATH.)
 */
static char *
allowlist_resolve_check(const struct cmdview *cv)
{
	const char	*env = getenv("PATH"), *home = getenv("HOME");
	char		*clean, *found, *why = NULL;

	if (cv->argc == 0 || strchr(cv->argv[0], '/') != NULL)
		return NULL;
	clean = path_env_clean(env != NULL ? env : "/usr/local/bin:/usr/bin:"
	    "/bin", NULL, home != NULL && home[0] == '/' &&
	    strcmp(home, "/") != 0 ? home : NULL);
	found = path_search(cv->argv[0], clean);
	if (found != NULL && !allowlist_system_path(found))
		why = xasprintf("'%s' would run '%s', which is not in a "
		    "system directory", cv->argv[0], found);
	free(found);
	free(clean);
	return why;
}

/* Are all characters digits (an fd number)? */
static bool
allowlist_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Note the first reason a command cannot be allowed. */
static void
cmdview_unsafe(struct cmdview *cv, char *why)
{
	if (cv->unsafe == NULL)
		cv->unsafe = why;
	else
		free(why);
}

/* A reason naming shell text, quoted so it stays on one line. */
static char *
quoted_reason(const char *before, const char *text, const char *after)
{
	char	*q = shell_quote(text), *s;

	s = xasprintf("%s%s%s", before, q, after);
	free(q);
	return s;
}

/* Build the view of one simple command. */
static void
cmdview_init(struct cmdview *cv, const struct sh_cmd *cmd)
{
	const struct sh_redir	*r;
	const char		*t;
	size_t			 i;

	memset(cv, 0, sizeof *cv);
	cv->cmd = cmd;
	cv->argc = cmd->nwords;
	cv->argv = xcalloc(cmd->nwords + 1, sizeof *cv->argv);
	for (i = 0; i < cmd->nwords; i++) {
		cv->argv[i] = cmd->words[i].text;
		if (!SH_WORD_LITERAL(&cmd->words[i]))
			cmdview_unsafe(cv, quoted_reason("", cmd->words[i].raw,
			    " is expanded when it runs: its value is not known "
			    "now"));
	}
	if (cmd->nassigns > 0)
		cmdview_unsafe(cv, quoted_reason("the assignment ",
		    cmd->assigns[0].raw, " changes how the command runs"));
	if (cmd->flags & SH_C_BACKGROUND)
		cmdview_unsafe(cv, xstrdup("a background job ('&') outlives "
		    "the command"));
	if (cmd->flags & SH_C_CONTROL)
		cmdview_unsafe(cv, xstrdup("control flow is not checked"));
	if (cmd->flags & SH_C_SUBST)
		cmdview_unsafe(cv, xstrdup("its output becomes part of "
		    "another command"));
	if (cmd->nwords == 0) {
		cv->name = "";
		if (cmd->nredirs == 0)
			cmdview_unsafe(cv, xstrdup("a command without a "
			    "name"));
	} else if (strchr(cv->argv[0], '/') != NULL) {
		cv->name = strrchr(cv->argv[0], '/') + 1;
		cv->name_ok = cv->argv[0][0] == '/' &&
		    allowlist_system_path(cv->argv[0]);
	} else {
		cv->name = cv->argv[0];
		cv->name_ok = cv->name[0] != '\0';
	}
	cv->launcher = cv->name[0] != '\0' ? rule_launcher(cv->name) : NULL;
	for (i = 0; i < cmd->nredirs; i++) {
		r = &cmd->redirs[i];
		t = r->target.text;
		if (!SH_WORD_LITERAL(&r->target)) {
			cmdview_unsafe(cv, quoted_reason("the redirection "
			    "target ", r->target.raw, " is expanded when it "
			    "runs"));
			continue;
		}
		switch (r->op) {
		case SH_R_IN:
		case SH_R_HEREDOC:
		case SH_R_HERESTRING:
			break;
		case SH_R_DUP_IN:
		case SH_R_DUP_OUT:
			if (!allowlist_digits(t) && strcmp(t, "-") != 0)
				cmdview_unsafe(cv, quoted_reason("the "
				    "redirection to ", t, " is not a descriptor"));
			break;
		case SH_R_OUT:
		case SH_R_APPEND:
		case SH_R_CLOBBER:
		case SH_R_OUT_ERR:
		case SH_R_APPEND_ERR:
		case SH_R_INOUT:
			if (strcmp(t, "/dev/null") == 0 && r->op != SH_R_INOUT)
				break;
			if (cv->writes == NULL)
				cv->writes = xasprintf("the redirection writes "
				    "'%s'", t);
			break;
		}
	}
}

/* Free what a command view holds. */
static void
cmdview_release(struct cmdview *cv)
{
	free(cv->argv);
	free(cv->unsafe);
	free(cv->writes);
}

/* Does one argv pattern match? A final lone '*' matches any rest. */
static bool
allowlist_pattern(const struct strv *pat, const struct cmdview *cv)
{
	size_t	k;

	if (strcmp(pat->v[0], cv->name) != 0)
		return false;
	for (k = 1; k < pat->n; k++) {
		if (k == pat->n - 1 && strcmp(pat->v[k], "*") == 0)
			return true;
		if (k >= cv->argc || fnmatch(pat->v[k], cv->argv[k], 0) != 0)
			return false;
	}
	return k == cv->argc;
}

enum match {
	MATCH_NO,
	MATCH_YES,
	MATCH_REJECT,	/* this rule's command, outside what it covers */
};

/* Match one rule against one command. */
static enum match
allowlist_rule_match(const struct rule *r, const struct cmdview *cv,
    char **why)
{
	size_t	i;

	*why = NULL;
	if (cv->argc == 0)
		return MATCH_NO;
	if (r->type == RULE_PATTERN) {
		for (i = 0; i < r->npatterns; i++)
			if (allowlist_pattern(&r->patterns[i], cv))
				return MATCH_YES;
		return MATCH_NO;
	}
	if (!strv_contains(&r->names, cv->name))
		return MATCH_NO;
	if (opt_check(&r->grammar, cv->argv + 1, cv->argc - 1, why) == 0)
		return MATCH_YES;
	return MATCH_REJECT;
}

/* The first deny rule that matches this command, or NULL. */
static const struct rule *
allowlist_find_deny(const struct allowlist *al, const struct rule *only,
    const struct cmdview *cv, const struct layer **lp)
{
	const struct rule	*r;
	char			*why;
	size_t			 i, j;
	enum match		 m;

	for (i = 0; i < al->nlayers; i++) {
		for (j = 0; j < al->layers[i].rf.nrules; j++) {
			r = &al->layers[i].rf.rules[j];
			if (r->verdict != VERDICT_DENY ||
			    (only != NULL && r != only))
				continue;
			m = allowlist_rule_match(r, cv, &why);
			free(why);
			if (m == MATCH_YES) {
				*lp = &al->layers[i];
				return r;
			}
		}
	}
	return NULL;
}

/*
 * Commands that run other commands (env, xargs, sudo, timeout, sh -c ...)
 * hide them from deny rules: look through them. Each later word that is
 * not an option or an assignment may be the command that is run; the
 * string after a shell's -c is parsed and its commands checked. This only
 * ever makes a verdict stricter.
 */
static const struct rule *
allowlist_find_nested_deny(const struct allowlist *al,
    const struct rule *only, const struct cmdview *cv, const struct layer **lp)
{
	const struct rule	*r = NULL;
	struct cmdview		 sub, inner;
	struct sh_script	 s = SH_SCRIPT_INIT;
	const char		*w, *slash;
	char			*cause = NULL;
	size_t			 k, i;

	if (cv->argc < 2 || cv->launcher == NULL)
		return NULL;
	for (k = 1; k < cv->argc && r == NULL; k++) {
		w = cv->argv[k];
		if (strcmp(w, "-c") == 0 && k + 1 < cv->argc &&
		    fnmatch("*sh", cv->name, 0) == 0) {
			if (sh_parse(cv->argv[k + 1], &s, &cause) != 0) {
				free(cause);
				cause = NULL;
				continue;
			}
			for (i = 0; i < s.ncmds && r == NULL; i++) {
				cmdview_init(&inner, &s.cmds[i]);
				r = allowlist_find_deny(al, only, &inner, lp);
				cmdview_release(&inner);
			}
			sh_script_release(&s);
			continue;
		}
		if (w[0] == '-' || w[0] == '\0' || strchr(w, '=') != NULL)
			continue;
		sub = *cv;
		sub.argv = cv->argv + k;
		sub.argc = cv->argc - k;
		slash = strrchr(w, '/');
		sub.name = slash != NULL ? slash + 1 : w;
		r = allowlist_find_deny(al, only, &sub, lp);
	}
	return r;
}

/* "FILE:ID" for a rule. */
static char *
allowlist_rule_name(const struct layer *l, const struct rule *r)
{
	return xasprintf("%s:%s", l->rf.path, r->id);
}

/*
 * Decide one simple command. With only != NULL, just that rule is
 * considered (checking a rule's examples).
 */
static void
allowlist_decide(const struct allowlist *al, const struct rule *only,
    const struct cmdview *cv, struct decision *d)
{
	const struct layer	*l, *hint_layer = NULL;
	const struct rule	*r, *hint_rule = NULL;
	const struct rule	*deny = NULL, *ask = NULL, *allow = NULL;
	const struct layer	*deny_l = NULL, *ask_l = NULL, *allow_l = NULL;
	char			*why, *hint = NULL, *untrusted = NULL;
	enum match		 m;
	size_t			 i, j;

	memset(d, 0, sizeof *d);
	for (i = 0; i < al->nlayers; i++) {
		l = &al->layers[i];
		for (j = 0; j < l->rf.nrules; j++) {
			r = &l->rf.rules[j];
			if (only != NULL && r != only)
				continue;
			m = allowlist_rule_match(r, cv, &why);
			if (m == MATCH_REJECT && hint == NULL) {
				hint = why;
				hint_rule = r;
				hint_layer = l;
				why = NULL;
			}
			free(why);
			if (m != MATCH_YES)
				continue;
			if (r->verdict == VERDICT_DENY && deny == NULL) {
				deny = r;
				deny_l = l;
			} else if (r->verdict == VERDICT_ASK && ask == NULL) {
				ask = r;
				ask_l = l;
			} else if (r->verdict == VERDICT_ALLOW &&
			    allow == NULL) {
				if (!l->trusted && only == NULL) {
					if (untrusted == NULL)
						untrusted = xasprintf("the "
						    "project rule \"%s\" would "
						    "allow it, but '%s' is not "
						    "trusted (bwgate trust)",
						    r->id, l->rf.path);
					continue;
				}
				if (!cv->name_ok)
					continue;
				if (r->type == RULE_GRAMMAR &&
				    cv->launcher != NULL)
					continue;
				allow = r;
				allow_l = l;
			}
		}
	}
	if (deny == NULL)
		deny = allowlist_find_nested_deny(al, only, cv, &deny_l);
	if (deny != NULL) {
		d->verdict = VERDICT_DENY;
		d->rule = deny;
		d->layer = deny_l;
		d->reason = xstrdup(deny->reason);
		d->profile = deny_l->trusted ? deny->profile : "project";
	} else if (ask != NULL) {
		d->verdict = VERDICT_ASK;
		d->rule = ask;
		d->layer = ask_l;
		d->reason = xstrdup(ask->reason);
		d->profile = ask_l->trusted ? ask->profile : "project";
	} else if (allow != NULL && cv->unsafe != NULL) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: %s", cv->name, cv->unsafe);
	} else if (allow != NULL && cv->writes != NULL &&
	    !allow->redirect_writes) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: %s", cv->name, cv->writes);
	} else if (allow != NULL && only == NULL &&
	    (d->reason = allowlist_resolve_check(cv)) != NULL) {
		d->verdict = VERDICT_ASK;
	} else if (allow != NULL) {
		d->verdict = VERDICT_ALLOW;
		d->rule = allow;
		d->layer = allow_l;
		d->reason = xstrdup(allow->reason);
		d->profile = allow->profile;
	} else {
		d->verdict = VERDICT_ASK;
		if (hint != NULL) {
			d->reason = xasprintf("%s: %s (rule \"%s\" in '%s')",
			    cv->name, hint, hint_rule->id,
			    hint_layer->rf.path);
		} else if (untrusted != NULL)
			d->reason = xstrdup(untrusted);
		else if (cv->argc > 0 && !cv->name_ok)
			d->reason = xasprintf("'%s' is not a plain command "
			    "name or a program in a system directory",
			    cv->argv[0]);
		else if (cv->argc > 0 && cv->launcher != NULL)
			d->reason = xasprintf("%s: %s", cv->name,
			    cv->launcher);
		else if (cv->unsafe != NULL)
			d->reason = xasprintf("%s: %s", cv->name, cv->unsafe);
		else
			d->reason = xasprintf("no rule allows '%s'", cv->name);
	}
	free(hint);
	free(untrusted);
}

/* Decide the redirections of a compound command ({ ...; } >f). */
static void
allowlist_decide_redirs(const struct cmdview *cv, struct decision *d)
{
	memset(d, 0, sizeof *d);
	d->profile = "readonly";
	if (cv->unsafe != NULL || cv->writes != NULL) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("a compound command's %s",
		    cv->unsafe != NULL ? cv->unsafe : cv->writes);
		d->profile = "project";
	} else {
		d->verdict = VERDICT_ALLOW;
		d->reason = xstrdup("harmless redirections");
	}
}

/* Add a profile name to a '+' list unless present. */
static void
allowlist_add_profile(struct strv *names, const char *p)
{
	if (!strv_contains(names, p))
		strv_push(names, p);
}

/* Classify text; with only != NULL consider just that rule. */
static void
allowlist_classify_only(const struct allowlist *al, const struct rule *only,
    const char *text, struct classification *c)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	struct cmdview		*cvs = NULL;
	struct decision		*ds = NULL;
	struct strv		 profiles = STRV_INIT, rules = STRV_INIT;
	struct strv		 reasons = STRV_INIT;
	char			*problem, *cause = NULL, *u;
	size_t			 i, first_deny = SIZE_MAX, first_ask = SIZE_MAX;

	classification_release(c);
	problem = allowlist_text_problem(text);
	if (sh_parse(text, &s, &cause) != 0) {
		c->verdict = VERDICT_ASK;
		c->reason = xasprintf("the command cannot be parsed: %s%s%s",
		    cause ? cause : "syntax error", problem ? "; " : "",
		    problem ? problem : "");
		c->profile = xstrdup("project");
		free(cause);
		free(problem);
		sh_script_release(&s);
		return;
	}
	cvs = xcalloc(s.ncmds + 1, sizeof *cvs);
	ds = xcalloc(s.ncmds + 1, sizeof *ds);
	for (i = 0; i < s.ncmds; i++) {
		cmdview_init(&cvs[i], &s.cmds[i]);
		if (s.cmds[i].nwords == 0 && s.cmds[i].nassigns == 0 &&
		    s.cmds[i].nredirs > 0) {
			/* The redirections of a compound command. */
			allowlist_decide_redirs(&cvs[i], &ds[i]);
		} else {
			strv_push_owned(&c->commands,
			    sh_cmd_string(&s.cmds[i]));
			allowlist_decide(al, only, &cvs[i], &ds[i]);
		}
		if (ds[i].verdict == VERDICT_DENY && first_deny == SIZE_MAX)
			first_deny = i;
		/* Prefer the reason of a command as written over that of
		   one inside a substitution ('$(x)' says more than x). */
		if (ds[i].verdict == VERDICT_ASK && (first_ask == SIZE_MAX ||
		    ((s.cmds[first_ask].flags & SH_C_SUBST) &&
		    !(s.cmds[i].flags & SH_C_SUBST) && ds[first_ask].rule ==
		    NULL)))
			first_ask = i;
	}
	if (first_deny != SIZE_MAX) {
		i = first_deny;
		c->verdict = VERDICT_DENY;
		c->reason = xstrdup(ds[i].reason);
		c->rule = allowlist_rule_name(ds[i].layer, ds[i].rule);
	} else if (problem != NULL) {
		c->verdict = VERDICT_ASK;
		c->reason = steal_pointer(&problem);
	} else if (s.unknown.n > 0) {
		c->verdict = VERDICT_ASK;
		u = strv_join(&s.unknown, ", ", false);
		c->reason = xasprintf("not checked: %s", u);
		free(u);
	} else if (s.ncmds == 0) {
		c->verdict = VERDICT_ASK;
		c->reason = xstrdup("there is no command");
	} else if (first_ask != SIZE_MAX) {
		i = first_ask;
		c->verdict = VERDICT_ASK;
		c->reason = xstrdup(ds[i].reason);
		if (ds[i].rule != NULL)
			c->rule = allowlist_rule_name(ds[i].layer, ds[i].rule);
	} else {
		c->verdict = VERDICT_ALLOW;
		for (i = 0; i < s.ncmds; i++) {
			if (ds[i].rule == NULL)
				continue;
			u = allowlist_rule_name(ds[i].layer, ds[i].rule);
			if (!strv_contains(&rules, u)) {
				strv_push(&rules, u);
				if (s.ncmds > 1)
					strv_pushf(&reasons, "%s: %s",
					    cvs[i].name, ds[i].reason);
				else
					strv_push(&reasons, ds[i].reason);
			}
			free(u);
		}
		if (rules.n > 0) {
			c->rule = strv_join(&rules, ", ", false);
			c->reason = strv_join(&reasons, "; ", false);
		} else
			c->reason = xstrdup("nothing but harmless "
			    "redirections");
	}
	for (i = 0; i < s.ncmds; i++) {
		if (ds[i].profile != NULL && (ds[i].rule == NULL ||
		    ds[i].verdict != VERDICT_ASK ||
		    ds[i].rule->verdict == VERDICT_ASK))
			allowlist_add_profile(&profiles, ds[i].profile);
		else
			allowlist_add_profile(&profiles, "project");
	}
	if (c->verdict != VERDICT_ALLOW && profiles.n == 0)
		strv_push(&profiles, "project");
	/* Next to any other profile, readonly adds nothing (all must be
	   read-only for the project to be): leave it out of the name. */
	for (i = 0; profiles.n > 1 && i < profiles.n; i++) {
		if (strcmp(profiles.v[i], "readonly") == 0) {
			free(profiles.v[i]);
			memmove(&profiles.v[i], &profiles.v[i + 1],
			    (profiles.n - i) * sizeof *profiles.v);
			profiles.n--;
			break;
		}
	}
	c->profile = profiles.n > 0 ? strv_join(&profiles, "+", false) :
	    xstrdup("project");
	for (i = 0; i < s.ncmds; i++) {
		cmdview_release(&cvs[i]);
		free(ds[i].reason);
	}
	free(cvs);
	free(ds);
	free(problem);
	strv_release(&profiles);
	strv_release(&rules);
	strv_release(&reasons);
	sh_script_release(&s);
}

/* Classify a command string. */
void
allowlist_classify(const struct allowlist *al, const char *text,
    struct classification *c)
{
	allowlist_classify_only(al, NULL, text, c);
}

/* Classify an argv by quoting it into a command string. */
void
allowlist_classify_argv(const struct allowlist *al, const struct strv *argv,
    struct classification *c)
{
	char	*text = strv_join(argv, " ", true);

	allowlist_classify_only(al, NULL, text, c);
	free(text);
}

/* Find a profile, later layers first; untrusted project files skipped. */
static const struct profile *
allowlist_profile(const struct allowlist *al, const char *name)
{
	const struct profile	*p;
	size_t			 i;

	for (i = al->nlayers; i > 0; i--) {
		if (!al->layers[i - 1].trusted)
			continue;
		p = rulefile_profile(&al->layers[i - 1].rf, name);
		if (p != NULL)
			return p;
	}
	return NULL;
}

/* Apply a profile ("a" or "a+b+...") to a policy. */
int
allowlist_profile_apply(const struct allowlist *al, const char *name,
    struct sandbox_policy *pol, char **cause)
{
	const struct profile	*p;
	struct strv		 rw = STRV_INIT;
	struct stat		 st;
	char			*copy, *n, *last, *path;
	bool			 ro = true, net = false, git = false;
	size_t			 i;

	copy = xstrdup(name);
	for (n = strtok_r(copy, "+", &last); n != NULL;
	    n = strtok_r(NULL, "+", &last)) {
		if ((p = allowlist_profile(al, n)) == NULL) {
			*cause = xasprintf("unknown sandbox profile '%s'", n);
			free(copy);
			strv_release(&rw);
			return -1;
		}
		ro = ro && p->project_readonly;
		net = net || p->network;
		git = git || p->git_writable;
		for (i = 0; i < p->writable.n; i++) {
			path = path_expand_home(p->writable.v[i]);
			if (path != NULL && stat(path, &st) == 0 &&
			    !strv_contains(&rw, path))
				strv_push(&rw, path);
			free(path);
		}
	}
	free(copy);
	pol->project_readonly = ro;
	pol->network = pol->network || net;
	pol->git_writable = pol->git_writable || git;
	for (i = 0; i < rw.n; i++)
		if (!strv_contains(&pol->rw_paths, rw.v[i]))
			strv_push(&pol->rw_paths, rw.v[i]);
	free(pol->profile);
	pol->profile = xstrdup(name);
	strv_release(&rw);
	return 0;
}

/* Path of the trust table (caller frees). */
static char *
allowlist_trust_path(void)
{
	char	*dir = config_user_dir(), *p;

	p = path_join(dir, "trusted.json");
	free(dir);
	return p;
}

/* The trust table: { "/abs/.bwgate.json": "sha256", ... }. */
cJSON *
allowlist_trusted(char **cause)
{
	_cleanup_free_ char	*path = allowlist_trust_path();
	cJSON			*j, *e;
	struct stat		 st;

	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return cJSON_CreateObject();
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return NULL;
	}
	if (rulefile_mode_problem(&st) != NULL) {
		*cause = xasprintf("'%s' is %s: refused (chmod go-w '%s')",
		    path, rulefile_mode_problem(&st), path);
		return NULL;
	}
	if ((j = json_load_file(path, cause)) == NULL)
		return NULL;
	if (!cJSON_IsObject(j))
		goto bad;
	cJSON_ArrayForEach(e, j) {
		if (!cJSON_IsString(e) || strlen(e->valuestring) != 64)
			goto bad;
	}
	return j;
bad:
	cJSON_Delete(j);
	*cause = xasprintf("'%s': expected an object mapping rule files to "
	    "sha256 digests", path);
	return NULL;
}

/* Canonical path of a project's rule file (it may not exist). */
char *
allowlist_project_file(const char *project, char **cause)
{
	char	*dir, *p;

	if ((dir = path_canonical(project, cause)) == NULL)
		return NULL;
	p = path_join(dir, ".bwgate.json");
	free(dir);
	return p;
}

/* Write the trust table atomically (mode 0600). */
static int
allowlist_trust_write(cJSON *j, char **cause)
{
	_cleanup_free_ char	*dir = config_user_dir();
	_cleanup_free_ char	*path = allowlist_trust_path();
	_cleanup_free_ char	*tmp = xasprintf("%s.%ld.tmp", path,
				    (long)getpid());
	_cleanup_free_ char	*text = cJSON_Print(j);
	char			*p;
	FILE			*f;
	int			 fd;

	for (p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0700);
		*p = '/';
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		*cause = xasprintf("cannot create '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		*cause = xasprintf("cannot write '%s': %s", tmp,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "%s\n", text);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0) {
		*cause = xasprintf("cannot write '%s': %s", path,
		    strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Trust (or, with sha NULL, stop trusting) a project's rule file. */
int
allowlist_trust_record(const char *file, const char *sha, char **cause)
{
	cJSON	*j;
	int	 rc;

	if ((j = allowlist_trusted(cause)) == NULL)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(j, file);
	if (sha != NULL)
		cJSON_AddStringToObject(j, file, sha);
	rc = allowlist_trust_write(j, cause);
	cJSON_Delete(j);
	return rc;
}

/* Is this content of file trusted? */
static bool
allowlist_is_trusted(const char *file, const char *sha, char **cause)
{
	cJSON		*j;
	const cJSON	*e;
	bool		 ok;

	if ((j = allowlist_trusted(cause)) == NULL)
		return false;
	e = cJSON_GetObjectItemCaseSensitive(j, file);
	ok = cJSON_IsString(e) && strcmp(e->valuestring, sha) == 0;
	cJSON_Delete(j);
	return ok;
}

/* Load one layer if its file exists; 1 loaded, 0 absent, -1 error. */
static int
allowlist_load_layer(struct allowlist *al, enum layer_kind kind,
    const char *path, bool must_exist, char **cause)
{
	struct layer	*l = &al->layers[al->nlayers];
	struct stat	 st;
	bool		 have = lstat(path, &st) == 0;

	if (!must_exist && !have && errno == ENOENT)
		return 0;
	/* An empty project file has no rules: it is also what a running
	   sandbox's placeholder for an absent .bwgate.json looks like. */
	if (kind == LAYER_PROJECT && have && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		return 0;
	rulefile_init(&l->rf);
	l->kind = kind;
	l->trusted = kind != LAYER_PROJECT;
	if (rulefile_load(path, &l->rf, cause) != 0) {
		rulefile_release(&l->rf);
		return -1;
	}
	al->nlayers++;
	return 1;
}

/* Check the profiles rules name exist, then the examples. */
static int
allowlist_check_layer(const struct allowlist *al, const struct layer *l,
    bool examples, char **cause)
{
	const struct rule	*r;
	char			*copy, *n, *last;
	size_t			 i;

	for (i = 0; i < l->rf.nrules; i++) {
		r = &l->rf.rules[i];
		copy = xstrdup(r->profile);
		for (n = strtok_r(copy, "+", &last); n != NULL;
		    n = strtok_r(NULL, "+", &last)) {
			if (allowlist_profile(al, n) == NULL &&
			    rulefile_profile(&l->rf, n) == NULL) {
				*cause = rulefile_error(&l->rf, i, "profile",
				    "unknown profile \"%s\"", n);
				free(copy);
				return -1;
			}
		}
		free(copy);
	}
	return examples ? allowlist_check_examples(al, l, cause) : 0;
}

/* Does the rule decide this example with its own verdict? */
static bool
allowlist_example_matches(const struct allowlist *al, const struct rule *r,
    const char *text)
{
	struct classification	c = CLASSIFICATION_INIT;
	bool			ok;

	allowlist_classify_only(al, r, text, &c);
	ok = c.verdict == r->verdict && c.rule != NULL;
	classification_release(&c);
	return ok;
}

/* Every rule's match examples match it and no_match ones do not. */
static int
allowlist_check_examples(const struct allowlist *al, const struct layer *l,
    char **cause)
{
	const struct rule	*r;
	size_t			 i, k;

	for (i = 0; i < l->rf.nrules; i++) {
		r = &l->rf.rules[i];
		for (k = 0; k < r->match.n; k++) {
			if (!allowlist_example_matches(al, r, r->match.v[k])) {
				*cause = rulefile_error(&l->rf, i, "match",
				    "the example '%s' does not match this "
				    "rule", r->match.v[k]);
				return -1;
			}
		}
		for (k = 0; k < r->no_match.n; k++) {
			if (allowlist_example_matches(al, r,
			    r->no_match.v[k])) {
				*cause = rulefile_error(&l->rf, i, "no_match",
				    "the example '%s' matches this rule",
				    r->no_match.v[k]);
				return -1;
			}
		}
	}
	return 0;
}

/* Load the shipped, user and project layers. */
/* Load the layers; check the rules' examples too when asked. */
static struct allowlist *
allowlist_load_opts(const char *project, bool examples, char **cause)
{
	struct allowlist	*al = xcalloc(1, sizeof *al);
	_cleanup_free_ char	*shipped = NULL, *dir = NULL, *user = NULL;
	_cleanup_free_ char	*file = NULL;
	struct layer		*l;
	size_t			 i;

	shipped = path_join(config_datadir(), "allowlist.json");
	if (allowlist_load_layer(al, LAYER_DEFAULT, shipped, true, cause) < 0)
		goto fail;
	if ((dir = config_user_dir()) != NULL) {
		user = path_join(dir, "allowlist.json");
		if (allowlist_load_layer(al, LAYER_USER, user, false,
		    cause) < 0)
			goto fail;
	}
	if (project != NULL) {
		if ((file = allowlist_project_file(project, cause)) == NULL)
			goto fail;
		switch (allowlist_load_layer(al, LAYER_PROJECT, file, false,
		    cause)) {
		case -1:
			goto fail;
		case 1:
			l = &al->layers[al->nlayers - 1];
			*cause = NULL;
			l->trusted = allowlist_is_trusted(file, l->rf.sha256,
			    cause);
			if (*cause != NULL)
				goto fail;
			break;
		}
	}
	for (i = 0; i < al->nlayers; i++)
		if (allowlist_check_layer(al, &al->layers[i], examples,
		    cause) != 0)
			goto fail;
	return al;
fail:
	allowlist_free(al);
	return NULL;
}

struct allowlist *
allowlist_load(const char *project, char **cause)
{
	return allowlist_load_opts(project, true, cause);
}

struct allowlist *
allowlist_load_profiles(const char *project, char **cause)
{
	return allowlist_load_opts(project, false, cause);
}

/* Load a single rule file as the only layer (for tests and tools). */
struct allowlist *
allowlist_load_file(const char *path, char **cause)
{
	struct allowlist	*al = xcalloc(1, sizeof *al);

	if (allowlist_load_layer(al, LAYER_DEFAULT, path, true, cause) < 0 ||
	    allowlist_check_layer(al, &al->layers[0], true, cause) != 0) {
		allowlist_free(al);
		return NULL;
	}
	return al;
}

/* Free an allowlist. */
void
allowlist_free(struct allowlist *al)
{
	size_t	i;

	if (al == NULL)
		return;
	for (i = 0; i < al->nlayers; i++)
		rulefile_release(&al->layers[i].rf);
	free(al);
}

/* The project's rule file, if one was loaded, and whether it counts. */
const char *
allowlist_project(const struct allowlist *al, bool *trusted)
{
	size_t	i;

	for (i = 0; i < al->nlayers; i++) {
		if (al->layers[i].kind == LAYER_PROJECT) {
			if (trusted != NULL)
				*trusted = al->layers[i].trusted;
			return al->layers[i].rf.path;
		}
	}
	return NULL;
}

/* The rule files in use, in layer order. */
void
allowlist_files(const struct allowlist *al, struct strv *out)
{
	size_t	i;

	for (i = 0; i < al->nlayers; i++)
		strv_push(out, al->layers[i].rf.path);
}
