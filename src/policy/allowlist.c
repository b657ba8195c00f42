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

#include "allowlist-int.h"

/* Longer command strings are never allowed automatically. */
#define ALLOWLIST_MAX_TEXT	(64 * 1024)

/* Devices that bash turns into network connections in redirections. */
static const char *const allowlist_netdevs[] = { "tcp", "udp", NULL };

/* Devices whose reading never ends. */
static const char *const allowlist_endless[] = {
	"zero", "urandom", "random", "full", NULL
};

/* Builtins that change the directory later commands run in. */
static const char *const allowlist_cd[] = { "cd", "pushd", "popd", NULL };

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
	char			 *network;	/* a /dev/tcp redirection */
	char			 *endless;	/* reads a device that never
						   ends (/dev/zero) */
	bool			 *globs;	/* per word: a glob pattern */
	const char		 *glob;		/* the first glob word */
	bool			  dirchange;	/* the string changes the
						   directory (cd, pushd, popd) */
};

/* The decision for one simple command. */
struct decision {
	enum verdict		 verdict;
	const struct layer	*layer;
	const struct rule	*rule;
	char			*reason;
	const char		*profile;
};

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
	strv_release(&c->runs);
	free(c->profile);
	c->project_root = false;
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

/* Is s one of the NULL-terminated list? */
static bool
allowlist_in(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/*
 * Does w, read as a path whatever its spelling (//, /./, a/../, after an
 * option's '='), name dev/X for an X in names (a directory of it when
 * below is set)? Looks for the components "dev" and X in a row; the
 * command's directory is not known, so relative paths count too.
 */
static bool
allowlist_dev_path(const char *w, const char *const *names, bool below)
{
	const char	*comp[64];
	size_t		 len[64], n = 0, i, l;
	const char	*p = w, *e;

	while (*p != '\0') {
		e = strchrnul(p, '/');
		l = e - p;
		/* An option's value ("--from=/dev/zero", "-f/dev/zero")
		   is a path too: the text before it is a component. */
		if (l == 0 || (l == 1 && p[0] == '.'))
			;
		else if (l == 2 && p[0] == '.' && p[1] == '.' && n > 0 &&
		    !(len[n - 1] == 2 && strncmp(comp[n - 1], "..", 2) == 0))
			n--;
		else if (n == sizeof comp / sizeof *comp)
			return true;	/* too deep to tell: assume so */
		else {
			comp[n] = p;
			len[n++] = l;
		}
		p = *e == '/' ? e + 1 : e;
	}
	for (i = 0; i + 1 < n; i++) {
		l = len[i];
		if (!(l >= 3 && strncmp(comp[i] + l - 3, "dev", 3) == 0 &&
		    (l == 3 || comp[i][l - 4] == '=')))
			continue;
		for (const char *const *x = names; *x != NULL; x++) {
			if (strlen(*x) == len[i + 1] &&
			    strncmp(*x, comp[i + 1], len[i + 1]) == 0 &&
			    (below || i + 2 == n))
				return true;
		}
	}
	return false;
}

/* Could glob pattern w expand to an endless device (/dev/zero)? */
static bool
allowlist_glob_endless(const char *w)
{
	char		 path[32];
	const char	*const *x;

	for (x = allowlist_endless; *x != NULL; x++) {
		snprintf(path, sizeof path, "/dev/%s", *x);
		if (fnmatch(w, path, FNM_PATHNAME | FNM_PERIOD) == 0 ||
		    fnmatch(w, path + 1, FNM_PATHNAME | FNM_PERIOD) == 0)
			return true;
	}
	return false;
}

/* Does w hold a path component "dev" (a directory of devices)? */
static bool
allowlist_dev_dir(const char *w)
{
	const char	*p;

	for (p = w; (p = strstr(p, "dev")) != NULL; p += 3)
		if ((p == w || p[-1] == '/') && (p[3] == '\0' || p[3] == '/'))
			return true;
	return false;
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
	cv->globs = xcalloc(cmd->nwords + 1, sizeof *cv->globs);
	for (i = 0; i < cmd->nwords; i++) {
		cv->argv[i] = cmd->words[i].text;
		/* A glob after the name may pass the command's grammar
		   (opt_check_words); it must not reach a device. */
		if (i > 0 && (cmd->words[i].flags & ~SH_W_QUOTED) ==
		    SH_W_GLOB && !allowlist_dev_dir(cv->argv[i]) &&
		    strstr(cv->argv[i], "..") == NULL) {
			cv->globs[i] = true;
			if (cv->glob == NULL)
				cv->glob = cmd->words[i].raw;
		} else if (!SH_WORD_LITERAL(&cmd->words[i]))
			cmdview_unsafe(cv, quoted_reason("", cmd->words[i].raw,
			    " is expanded when it runs: its value is not known "
			    "now"));
		if (i > 0 && cv->endless == NULL &&
		    (allowlist_dev_path(cv->argv[i], allowlist_endless, false) ||
		    (cv->globs[i] && allowlist_glob_endless(cv->argv[i]))))
			cv->endless = quoted_reason("it reads ", cv->argv[i],
			    ", which never ends");
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
	if (allowlist_in(allowlist_cd, cv->name)) {
		for (i = 1; i < cv->argc; i++) {
			if (strcmp(cv->argv[i], "-") == 0)
				cmdview_unsafe(cv, xstrdup("'cd -' returns to a "
				    "directory not known now"));
			else if (allowlist_dev_dir(cv->argv[i]))
				cmdview_unsafe(cv, quoted_reason("", cv->argv[i],
				    " is a directory of devices"));
		}
	}
	for (i = 0; i < cmd->nredirs; i++) {
		r = &cmd->redirs[i];
		t = r->target.text;
		if (!SH_WORD_LITERAL(&r->target)) {
			cmdview_unsafe(cv, quoted_reason("the redirection "
			    "target ", r->target.raw, " is expanded when it "
			    "runs"));
			continue;
		}
		if (r->op != SH_R_DUP_IN && r->op != SH_R_DUP_OUT &&
		    r->op != SH_R_HEREDOC && r->op != SH_R_HERESTRING &&
		    cv->network == NULL &&
		    allowlist_dev_path(t, allowlist_netdevs, true)) {
			cv->network = quoted_reason("the redirection ", t,
			    " opens a network connection (bash)");
			continue;
		}
		if ((r->op == SH_R_IN || r->op == SH_R_INOUT) &&
		    cv->endless == NULL &&
		    allowlist_dev_path(t, allowlist_endless, false))
			cv->endless = quoted_reason("it reads ", t,
			    ", which never ends");
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
	free(cv->globs);
	free(cv->unsafe);
	free(cv->writes);
	free(cv->network);
	free(cv->endless);
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
    bool *bounded, char **why)
{
	size_t	i;

	*why = NULL;
	*bounded = false;
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
	if (opt_check_words(&r->grammar, cv->argv + 1, cv->globs + 1,
	    cv->argc - 1, bounded, why) == 0)
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
	bool			 bounded;

	for (i = 0; i < al->nlayers; i++) {
		for (j = 0; j < al->layers[i].rf.nrules; j++) {
			r = &al->layers[i].rf.rules[j];
			if (r->verdict != VERDICT_DENY ||
			    (only != NULL && r != only))
				continue;
			m = allowlist_rule_match(r, cv, &bounded, &why);
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
		sub.globs = cv->globs + k;
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
	bool			 bounded, allow_bounded = false;

	memset(d, 0, sizeof *d);
	for (i = 0; i < al->nlayers; i++) {
		l = &al->layers[i];
		for (j = 0; j < l->rf.nrules; j++) {
			r = &l->rf.rules[j];
			if (only != NULL && r != only)
				continue;
			m = allowlist_rule_match(r, cv, &bounded, &why);
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
				allow_bounded = bounded;
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
	} else if (cv->network != NULL) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: %s", cv->name, cv->network);
	} else if (allow != NULL && cv->unsafe != NULL) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: %s", cv->name, cv->unsafe);
	} else if (allow != NULL && cv->glob != NULL &&
	    (allow->type != RULE_GRAMMAR ||
	    strcmp(allow->profile, "readonly") != 0)) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: '%s' is expanded when it runs: "
		    "patterns pass only with read-only command grammars",
		    cv->name, cv->glob);
	} else if (allow != NULL && cv->endless != NULL && !allow_bounded) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: %s (only an option that stops the "
		    "reading, such as head -c, makes it end)", cv->name,
		    cv->endless);
	} else if (allow != NULL && allow->project_root && cv->dirchange) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: the command changes the directory "
		    "first, so it may reach another repository, whose "
		    "configuration can run programs", cv->name);
	} else if (allow != NULL && cv->writes != NULL &&
	    !allow->redirect_writes) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("%s: %s", cv->name, cv->writes);
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
	/* A /dev/tcp redirection can only work with the network on. */
	if (cv->network != NULL && d->verdict == VERDICT_ASK &&
	    d->rule == NULL && allowlist_profile(al, "network") != NULL)
		d->profile = "network";
	free(hint);
	free(untrusted);
}

/* Decide the redirections of a compound command ({ ...; } >f). */
static void
allowlist_decide_redirs(const struct allowlist *al, const struct cmdview *cv,
    struct decision *d)
{
	memset(d, 0, sizeof *d);
	d->profile = "readonly";
	if (cv->network != NULL) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("a compound command: %s", cv->network);
		d->profile = allowlist_profile(al, "network") != NULL ?
		    "network" : "project";
	} else if (cv->unsafe != NULL || cv->writes != NULL) {
		d->verdict = VERDICT_ASK;
		d->reason = xasprintf("a compound command's %s",
		    cv->unsafe != NULL ? cv->unsafe : cv->writes);
		d->profile = "project";
	} else {
		d->verdict = VERDICT_ALLOW;
		d->reason = xstrdup("harmless redirections");
	}
}

/* Note what an allowed command may run: itself and its rule's "runs". */
static void
allowlist_foresee(struct classification *c, const struct cmdview *cv,
    const struct rule *r)
{
	size_t	i;

	if (cv->name[0] != '\0' && !strv_contains(&c->runs, cv->name))
		strv_push(&c->runs, cv->name);
	for (i = 0; i < r->runs.n; i++)
		if (!strv_contains(&c->runs, r->runs.v[i]))
			strv_push(&c->runs, r->runs.v[i]);
	if (r->project_root)
		c->project_root = true;
}

/*
 * The programs an allowed command executed that its rules did not
 * foresee (git -> gpg): basenames of executed that match no name in
 * c->runs (glob(7) patterns), each once, pushed to out.
 */
void
classification_unforeseen(const struct classification *c,
    const struct strv *executed, struct strv *out)
{
	const char	*e, *slash;
	size_t		 i, j;

	for (i = 0; i < executed->n; i++) {
		e = executed->v[i];
		if ((slash = strrchr(e, '/')) != NULL)
			e = slash + 1;
		if (*e == '\0')
			continue;
		for (j = 0; j < c->runs.n; j++)
			if (fnmatch(c->runs.v[j], e, 0) == 0)
				break;
		if (j == c->runs.n && !strv_contains(out, e))
			strv_push(out, e);
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
void
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
	bool			 dirchange = false;

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
		if (allowlist_in(allowlist_cd, cvs[i].name))
			dirchange = true;
	}
	for (i = 0; i < s.ncmds; i++) {
		cvs[i].dirchange = dirchange;
		if (s.cmds[i].nwords == 0 && s.cmds[i].nassigns == 0 &&
		    s.cmds[i].nredirs > 0) {
			/* The redirections of a compound command. */
			allowlist_decide_redirs(al, &cvs[i], &ds[i]);
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
			allowlist_foresee(c, &cvs[i], ds[i].rule);
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
