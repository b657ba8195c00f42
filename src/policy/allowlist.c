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
#include "agentshape.h"
#include "danger.h"
#include "file.h"
#include "jsonutil.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "shparse.h"
#include "xalloc.h"

#include "allowlist-int.h"
#include "pathglob.h"

/* The decision for one simple command. */
struct decision {
	enum verdict		 verdict;
	const struct layer	*layer;
	const struct rule	*rule;
	char			*reason;
	const char		*profile;
	struct strv		 runs;		/* run through xargs or find
						   -exec, and their rules' runs */
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
	case VERDICT_DANGER:
		return "danger";
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
	free(c->danger);
	free(c->stake);
	strv_release(&c->targets);
	free(c->needs);
	free(c->needs_reason);
	free(c->needs_profile);
	c->needs_profile = NULL;
	c->needs_at_once = false;
	c->measured = c->undo_restores = false;
	free(c->at_stake);
	c->at_stake = NULL;
	c->project_root = false;
	c->verdict = VERDICT_ASK;
	c->rule = c->reason = c->profile = c->danger = c->stake = NULL;
	c->needs = c->needs_reason = NULL;
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
	if (c->verdict == VERDICT_ALLOW) {
		cJSON_AddItemToObject(j, "runs", json_strv(&c->runs));
		cJSON_AddBoolToObject(j, "project_root", c->project_root);
	}
	if (c->verdict == VERDICT_DANGER) {
		cJSON	*d = cJSON_AddObjectToObject(j, "danger");

		cJSON_AddStringToObject(d, "id", c->danger);
		cJSON_AddStringToObject(d, "stake", c->stake);
		cJSON_AddItemToObject(d, "targets", json_strv(&c->targets));
		cJSON_AddBoolToObject(d, "measured", c->measured);
		cJSON_AddBoolToObject(d, "undo_restores", c->undo_restores);
		if (c->at_stake != NULL)
			cJSON_AddStringToObject(d, "at_stake", c->at_stake);
	}
	if (c->at_stake != NULL)	/* a delete's, danger or not */
		cJSON_AddStringToObject(j, "at_stake", c->at_stake);
	if (c->needs != NULL) {
		cJSON	*n = cJSON_AddObjectToObject(j, "needs");

		cJSON_AddStringToObject(n, "id", c->needs);
		cJSON_AddStringToObject(n, "reason", c->needs_reason);
		if (c->needs_profile != NULL)
			cJSON_AddStringToObject(n, "profile",
			    c->needs_profile);
		else
			cJSON_AddNullToObject(n, "profile");
		cJSON_AddBoolToObject(n, "at_once", c->needs_at_once);
	}
	return j;
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
		if (k >= cv->argc ||
		    !pathglob_fnmatch(pat->v[k], cv->argv[k]))
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
	/* Deny and ask rules see a glob as the word it is written as:
	   a glob must never turn a stricter rule into a reject. */
	if (opt_check_words(&r->grammar, cv->argv + 1,
	    r->verdict != VERDICT_ALLOW ? NULL : cv->globs + 1,
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

/*
 * An allow that holds only in the project's top directory (project_root:
 * git) cannot hold where the command runs below it: another repository may
 * be there. Made ask, with the reason, when cwd is not the project (both
 * canonical).
 */
void
classification_at(struct classification *c, const char *project,
    const char *cwd)
{
	char	*s;

	if (c->verdict != VERDICT_ALLOW || !c->project_root ||
	    strcmp(project, cwd) == 0)
		return;
	s = xasprintf("%s; but it runs below the project's top directory, "
	    "where another repository's configuration may run programs",
	    c->reason != NULL ? c->reason : "");
	free(c->reason);
	c->reason = s;
	c->verdict = VERDICT_ASK;
}

/* Add a profile name to a '+' list unless present. */
static void
allowlist_add_profile(struct strv *names, const char *p)
{
	if (!strv_contains(names, p))
		strv_push(names, p);
}

/* Add the needs table's profile (names joined by '+') to names, in
   place of "project". */
static void
allowlist_needs_profile(struct strv *names, const char *need)
{
	char	*copy = xstrdup(need), *n, *last;

	for (size_t i = 0; i < names->n; i++) {
		if (strcmp(names->v[i], "project") != 0)
			continue;
		free(names->v[i]);
		memmove(&names->v[i], &names->v[i + 1],
		    (names->n - i) * sizeof *names->v);
		names->n--;
		break;
	}
	for (n = strtok_r(copy, "+", &last); n != NULL;
	    n = strtok_r(NULL, "+", &last))
		allowlist_add_profile(names, n);
	free(copy);
}

/* The danger and deletes tables (allowlist-danger.c), told which
   commands the rules allow. */
static void
allowlist_danger(const struct allowlist *al, const struct sh_script *s,
    const struct decision *ds, struct classification *c)
{
	bool	*allowed = xcalloc(s->ncmds + 1, sizeof *allowed);

	for (size_t i = 0; i < s->ncmds; i++)
		allowed[i] = ds[i].verdict == VERDICT_ALLOW;
	allowlist_danger_allowed(al, s, allowed, c);
	free(allowed);
}

/* What the words say the command needs beyond the project profile. */
static void
allowlist_needs(const struct allowlist *al, const struct sh_script *s,
    struct classification *c)
{
	struct danger_hit	hit = DANGER_HIT_INIT;
	char			*local = NULL, *r;

	if (al->needs != NULL && danger_check_project(al->needs, s, NULL,
	    al->project, &hit, &local)) {
		free(c->needs);
		free(c->needs_reason);
		c->needs = steal_pointer(&hit.id);
		c->needs_reason = steal_pointer(&hit.reason);
		if (hit.profiles.n > 0)
			c->needs_profile = strv_join(&hit.profiles, "+",
			    false);
		c->needs_at_once = hit.at_once;
	}
	/* Said in the verdict: why npx TOOL needs nothing more. */
	if (local != NULL) {
		r = xasprintf("%s (%s)", c->reason != NULL ? c->reason : "",
		    local);
		free(c->reason);
		c->reason = r;
		free(local);
	}
	danger_hit_release(&hit);
}

/*
 * xargs and find -exec run a command over what they read or find: when
 * the rules allow each command they run (with a pattern where the input
 * goes, agentshape.h) and find itself read-only, the whole is allowed. d
 * is replaced only then; true when it was.
 */
static bool
allowlist_through(const struct allowlist *al, const struct rule *only,
    const struct sh_cmd *cmd, struct decision *d)
{
	struct sh_cmd	*v;
	size_t		 n = 0, i;
	struct decision	*sub;
	struct buf	 why = BUF_INIT;
	bool		 ok = true, xargs;

	if ((v = agentshape_xargs(cmd)) != NULL)
		n = 1;
	else if ((v = agentshape_find_exec(cmd, &n)) == NULL)
		return false;
	xargs = n == 1;
	sub = xcalloc(n, sizeof *sub);
	for (i = 0; i < n && ok; i++) {
		struct cmdview cv;

		cmdview_init(&cv, &v[i]);
		allowlist_decide(al, only, &cv, &sub[i]);
		ok = sub[i].verdict == VERDICT_ALLOW && sub[i].profile !=
		    NULL && strcmp(sub[i].profile, "readonly") == 0;
		if (ok && xargs)
			buf_printf(&why, "runs %s over its input: %s", cv.name,
			    sub[i].reason);
		else if (ok && i == 0)
			buf_puts(&why, sub[i].reason);
		else if (ok)
			buf_printf(&why, "; -exec %s: %s", cv.name,
			    sub[i].reason);
		if (ok && (xargs || i > 0)) {
			strv_push(&d->runs, cv.name);
			for (size_t k = 0; k < sub[i].rule->runs.n; k++)
				strv_push(&d->runs, sub[i].rule->runs.v[k]);
		}
		cmdview_release(&cv);
	}
	agentshape_cmds_release(v, n);
	if (ok) {
		struct strv runs = d->runs;

		free(d->reason);
		*d = sub[0];
		d->runs = runs;
		d->reason = buf_detach(&why);
	} else {
		strv_release(&d->runs);
		buf_release(&why);
	}
	for (i = 0; i < n; i++)
		free(sub[i].reason);
	free(sub);
	return ok;
}

/* Strings handed to a shell are read through to this depth. */
#define SHELL_STRING_DEPTH	4

static void allowlist_classify_depth(const struct allowlist *,
    const struct rule *, const char *, struct classification *, int);

/*
 * "bash -lc 'STRING'" and the like, alone: judge STRING as if it had come
 * by itself (agentshape.h), and say so in the reason. True when done.
 */
static bool
allowlist_shell_wrapper(const struct allowlist *al, const struct rule *only,
    const struct sh_script *s, struct classification *c, int depth)
{
	const char	*shell, *inner;
	char		*reason;

	if (depth >= SHELL_STRING_DEPTH ||
	    (inner = agentshape_shell_string(s, &shell)) == NULL)
		return false;
	allowlist_classify_depth(al, only, inner, c, depth + 1);
	reason = xasprintf("%s -c: %s", shell, c->reason);
	free(c->reason);
	c->reason = reason;
	return true;
}

/* Classify text; with only != NULL consider just that rule. */
void
allowlist_classify_only(const struct allowlist *al, const struct rule *only,
    const char *text, struct classification *c)
{
	allowlist_classify_depth(al, only, text, c, 0);
}

/* A secret kept in the project reaches the agent only with a person's
   yes: an allowed command that would read one asks. */
static void
allowlist_secrets(const struct allowlist *al, const struct sh_script *s,
    const struct cmdview *cvs, struct classification *c)
{
	char	*u;

	for (size_t i = 0; c->verdict == VERDICT_ALLOW && i < s->ncmds; i++) {
		if ((u = allowlist_secret_read(al, &cvs[i])) == NULL)
			continue;
		c->verdict = VERDICT_ASK;
		free(c->reason);
		c->reason = u;
		free(c->rule);
		c->rule = NULL;
		strv_release(&c->runs);
		c->project_root = false;
		/* Sandboxed mode asks too: the command says what it reads. */
		c->needs = xstrdup("secret");
		c->needs_reason = xstrdup("reads a secret kept in the project "
		    "(secrets.json), which goes to the agent only with a yes");
	}
}

/* The verdict's profile: its commands' profiles joined by '+'. */
static void
allowlist_profile_name(const struct sh_script *s, const struct decision *ds,
    struct classification *c)
{
	struct strv	profiles = STRV_INIT;
	size_t		i;

	for (i = 0; i < s->ncmds; i++) {
		if (ds[i].profile != NULL && (ds[i].rule == NULL ||
		    ds[i].verdict != VERDICT_ASK ||
		    ds[i].rule->verdict == VERDICT_ASK))
			allowlist_add_profile(&profiles, ds[i].profile);
		else
			allowlist_add_profile(&profiles, "project");
	}
	if (c->verdict != VERDICT_ALLOW && profiles.n == 0)
		strv_push(&profiles, "project");
	/* A yes gives what the verdict says the command needs: an ask's
	   (or a danger's) profile is the needs table's, and the project
	   profile next to it adds nothing. */
	if ((c->verdict == VERDICT_ASK || c->verdict == VERDICT_DANGER) &&
	    c->needs_profile != NULL)
		allowlist_needs_profile(&profiles, c->needs_profile);
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
	strv_release(&profiles);
}

/* Is the command 'cd PROJECT', the project's own directory as a literal
   word, no more? After it git reaches the project's repository, as it
   would where the agent runs (cd /home/me/proj && git status). */
static bool
allowlist_cd_project(const struct allowlist *al, const struct cmdview *cv,
    bool moved)
{
	const struct sh_cmd *cmd = cv->cmd;

	if (al->project == NULL || strcmp(cv->name, "cd") != 0 ||
	    cmd->nwords != 2 || cmd->nredirs != 0 || cmd->nassigns != 0 ||
	    !SH_WORD_LITERAL(&cmd->words[1]) ||
	    (cmd->words[1].flags & SH_W_GLOB) != 0 ||
	    strcmp(cmd->words[0].text, "cd") != 0)
		return false;
	if (strcmp(cmd->words[1].text, al->project) == 0)
		return true;
	/* cd DIR into the project where git finds its own repository
	   (a relative DIR only while the directory is the one it runs
	   in). */
	return cv->home[1] == NULL && !moved &&
	    allowlist_dir_own_repo(al, cmd->words[1].text);
}

/* Each command's view (the directory changes first: they count for
   all), then each command decided; the first denied and the first asking
   one (SIZE_MAX: none). */
static void
allowlist_decide_all(const struct allowlist *al, const struct rule *only,
    const struct sh_script *s, struct cmdview *cvs, struct decision *ds,
    struct classification *c, size_t *deny, size_t *ask)
{
	size_t			 i, first_deny = SIZE_MAX, first_ask = SIZE_MAX;
	bool			 dirchange = false, moved = false;

	for (i = 0; i < s->ncmds; i++) {
		cmdview_init(&cvs[i], &s->cmds[i]);
		/* Not while a rule's examples are checked: they mean the
		   same in every project. */
		if (only == NULL)
			allowlist_git_c(al, &cvs[i], moved);
		if (cmdview_changes_dir(&cvs[i])) {
			if (!allowlist_cd_project(al, &cvs[i], moved ||
			    only != NULL))
				dirchange = true;
			moved = true;
		}
	}
	for (i = 0; i < s->ncmds; i++) {
		cvs[i].dirchange = dirchange;
		if (s->cmds[i].nwords == 0 && s->cmds[i].nassigns == 0 &&
		    s->cmds[i].nredirs > 0) {
			/* The redirections of a compound command. */
			allowlist_decide_redirs(al, &cvs[i], &ds[i]);
		} else {
			strv_push_owned(&c->commands,
			    sh_cmd_string(&s->cmds[i]));
			allowlist_decide(al, only, &cvs[i], &ds[i]);
			if (ds[i].verdict == VERDICT_ASK)
				(void)allowlist_through(al, only, &s->cmds[i],
				    &ds[i]);
		}
		if (ds[i].verdict == VERDICT_DENY && first_deny == SIZE_MAX)
			first_deny = i;
		/* Prefer the reason of a command as written over that of
		   one inside a substitution ('$(x)' says more than x). */
		if (ds[i].verdict == VERDICT_ASK && (first_ask == SIZE_MAX ||
		    ((s->cmds[first_ask].flags & SH_C_SUBST) &&
		    !(s->cmds[i].flags & SH_C_SUBST) && ds[first_ask].rule ==
		    NULL)))
			first_ask = i;
	}
	*deny = first_deny;
	*ask = first_ask;
}

/* All allowed: the rules that allowed and their reasons, what they may
   run and what they foresee. */
static void
allowlist_allowed(const struct sh_script *s, struct cmdview *cvs,
    struct decision *ds, struct classification *c)
{
	struct strv		 rules = STRV_INIT;
	struct strv		 reasons = STRV_INIT;
	char			*u;
	size_t			 i;

	c->verdict = VERDICT_ALLOW;
	for (i = 0; i < s->ncmds; i++) {
		if (ds[i].rule == NULL)
			continue;
		allowlist_foresee(c, &cvs[i], ds[i].rule);
		for (size_t k = 0; k < ds[i].runs.n; k++)
			if (!strv_contains(&c->runs, ds[i].runs.v[k]))
				strv_push(&c->runs, ds[i].runs.v[k]);
		u = allowlist_rule_name(ds[i].layer, ds[i].rule);
		if (!strv_contains(&rules, u)) {
			strv_push(&rules, u);
			if (s->ncmds > 1)
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
	strv_release(&rules);
	strv_release(&reasons);
}

static void
allowlist_classify_depth(const struct allowlist *al, const struct rule *only,
    const char *text, struct classification *c, int depth)
{
	struct sh_script	 s = SH_SCRIPT_INIT, orig = SH_SCRIPT_INIT;
	struct agentshape_view	 view = { SH_SCRIPT_INIT, NULL };
	struct cmdview		*cvs = NULL;
	struct decision		*ds = NULL;
	char			*problem, *cause = NULL, *u;
	size_t			 i, first_deny = SIZE_MAX, first_ask = SIZE_MAX;
	bool			 rule_asks = false;

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
	if (problem == NULL && allowlist_shell_wrapper(al, only, &s, c,
	    depth)) {
		sh_script_release(&s);
		return;
	}
	/* for f in WORDS; do ...; done: judged unrolled (agentshape.h). */
	if (agentshape_unroll_for(&s, &view)) {
		orig = s;
		s = view.s;
	}
	cvs = xcalloc(s.ncmds + 1, sizeof *cvs);
	ds = xcalloc(s.ncmds + 1, sizeof *ds);
	allowlist_decide_all(al, only, &s, cvs, ds, c, &first_deny,
	    &first_ask);
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
		rule_asks = ds[i].rule != NULL &&
		    ds[i].rule->verdict == VERDICT_ASK;
	} else
		allowlist_allowed(&s, cvs, ds, c);
	if (only == NULL)
		allowlist_secrets(al, &s, cvs, c);
	/* Not while a rule's own examples are checked (only). */
	if (only == NULL && c->verdict != VERDICT_DENY)
		allowlist_danger(al, &s, ds, c);
	if (only == NULL)
		allowlist_needs(al, &s, c);
	/* A rule of verdict ask wants a person, whatever the sandbox. */
	if (rule_asks || c->verdict != VERDICT_ASK)
		c->needs_at_once = false;
	allowlist_profile_name(&s, ds, c);
	for (i = 0; i < s.ncmds; i++) {
		cmdview_release(&cvs[i]);
		free(ds[i].reason);
		strv_release(&ds[i].runs);
	}
	free(cvs);
	free(ds);
	free(problem);
	if (view.s.cmds != NULL) {
		view.s = s;
		s = orig;
		agentshape_view_release(&view);
	}
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
