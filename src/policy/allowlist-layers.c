/*
 * allowlist-layers: loading the shipped, user and project rule files,
 * checking their examples, and applying the profiles they define.
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
#include "danger.h"
#include "secrets.h"
#include "jsonutil.h"
#include "narrow.h"
#include "netgroups.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "shparse.h"
#include "xalloc.h"

#include "allowlist-int.h"

static int	 allowlist_check_examples(const struct allowlist *,
		    const struct layer *, char **);

/* Find a profile, later layers first; untrusted project files skipped. */
const struct profile *
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

/* Was this profile defined by the project's file? */
static bool
allowlist_profile_is_project(const struct allowlist *al,
    const struct profile *p)
{
	for (size_t i = 0; i < al->nlayers; i++) {
		const struct rulefile *rf = &al->layers[i].rf;

		if (al->layers[i].kind == LAYER_PROJECT &&
		    p >= rf->profiles && p < rf->profiles + rf->nprofiles)
			return true;
	}
	return false;
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
	bool			 agents = false;
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
		if (netgroups_expand(&p->domains, &pol->domains, cause) != 0) {
			char *s = xasprintf("profile '%s': %s", n, *cause);

			free(*cause);
			*cause = s;
			free(copy);
			strv_release(&rw);
			return -1;
		}
		git = git || p->git_writable;
		agents = agents || p->agent_config_writable;
		for (i = 0; i < p->writable.n; i++) {
			/* A project profile's path must still be inside
			   (a symbolic link may have appeared since). */
			if (allowlist_profile_is_project(al, p) &&
			    (pol->project == NULL || !narrow_path_inside(
			    p->writable.v[i], pol->project)))
				continue;
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
	pol->agent_config_writable = pol->agent_config_writable || agents;
	for (i = 0; i < rw.n; i++)
		if (!strv_contains(&pol->rw_paths, rw.v[i]))
			strv_push(&pol->rw_paths, rw.v[i]);
	free(pol->profile);
	pol->profile = xstrdup(name);
	strv_release(&rw);
	return 0;
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

/* Load the project's rule file (file: its canonical path) through the
   door; 1 loaded, 0 absent or empty, -1 error (*refused: others could
   have written it). */
static int
allowlist_load_project_layer(struct allowlist *al, const char *file,
    bool *refused, char **cause)
{
	struct layer		*l = &al->layers[al->nlayers];
	const char		*slash = strrchr(file, '/');
	_cleanup_free_ char	*dir = slash == NULL || slash == file ?
	    xstrdup("/") : xstrndup(file, (size_t)(slash - file));
	int			 rc;

	rulefile_init(&l->rf);
	l->kind = LAYER_PROJECT;
	l->trusted = false;
	if ((rc = rulefile_load_project(dir, &l->rf, refused, cause)) != 1) {
		rulefile_release(&l->rf);
		return rc;
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

/* Does the project layer (the last) only narrow? Keeps the error. */
static int
allowlist_narrows(struct allowlist *al, const char *project)
{
	const struct rulefile	*lower[2];
	size_t			 n;

	for (n = 0; n + 1 < al->nlayers && n < 2; n++)
		lower[n] = &al->layers[n].rf;
	free(al->project_error);
	al->project_error = NULL;
	return narrow_check(&al->layers[al->nlayers - 1].rf, lower, n,
	    project, &al->project_error);
}

/* The project's rule file cannot be used (invalid JSON, an unknown
   profile, a failing example): keep why, as for one that widens; the
   other layers still count. Takes *cause. */
static void
allowlist_project_ignored(struct allowlist *al, char **cause)
{
	free(al->project_error);
	al->project_error = xasprintf("%s; the project's rule file is "
	    "ignored until it is fixed", *cause);
	free(*cause);
	*cause = NULL;
}

/* Why the project's rule file was refused, or NULL. */
const char *
allowlist_project_error(const struct allowlist *al)
{
	return al->project_error;
}

struct danger_check {
	const struct allowlist	 *al;
	char			**cause;
};

/* A danger entry's example, classified with the shipped rules alone (a
   user's rule must not make the table fail to load): a match must come
   out as danger by that entry, a no_match not by it. */
static int
allowlist_danger_example(const char *id, const char *example, bool match,
    void *arg)
{
	struct danger_check	*dc = arg;
	struct classification	 c = CLASSIFICATION_INIT;
	bool			 by = false;

	allowlist_classify(dc->al, example, &c);
	by = c.verdict == VERDICT_DANGER && strcmp(c.danger, id) == 0;
	if (by != match)
		*dc->cause = xasprintf("danger entry '%s': the example '%s' "
		    "%s (verdict %s%s%s)", id, example, match ?
		    "is not danger by it" : "must not be danger by it",
		    verdict_name(c.verdict), c.danger != NULL ? " by " : "",
		    c.danger != NULL ? c.danger : "");
	classification_release(&c);
	return by == match ? 0 : -1;
}

/* A needs entry's example: a match must need what that entry says. */
static int
allowlist_needs_example(const char *id, const char *example, bool match,
    void *arg)
{
	struct danger_check	*dc = arg;
	struct classification	 c = CLASSIFICATION_INIT;
	bool			 by;

	allowlist_classify(dc->al, example, &c);
	by = c.needs != NULL && strcmp(c.needs, id) == 0;
	if (by != match)
		*dc->cause = xasprintf("needs entry '%s': the example '%s' "
		    "%s (it needs %s)", id, example, match ? "does not need "
		    "what it says" : "must not match it", c.needs != NULL ?
		    c.needs : "nothing more");
	classification_release(&c);
	return by == match ? 0 : -1;
}

/* A deletes entry's example: a match has targets whose at-stake line
   is said (stake "delete"), whatever its verdict. */
static int
allowlist_deletes_example(const char *id, const char *example, bool match,
    void *arg)
{
	struct danger_check	*dc = arg;
	struct classification	 c = CLASSIFICATION_INIT;
	bool			 by;

	allowlist_classify(dc->al, example, &c);
	by = c.stake != NULL && strcmp(c.stake, "delete") == 0 &&
	    c.targets.n > 0;
	if (by != match)
		*dc->cause = xasprintf("deletes entry '%s': the example '%s' "
		    "%s", id, example, match ? "names nothing it deletes" :
		    "must not match it");
	classification_release(&c);
	return by == match ? 0 : -1;
}

static char *allowlist_session_path;

void
allowlist_set_session_file(const char *path)
{
	free(allowlist_session_path);
	allowlist_session_path = path != NULL ? xstrdup(path) : NULL;
}

const char *
allowlist_session_file(void)
{
	return allowlist_session_path;
}

/* Load the layers; check the rules' examples too when asked. */
static struct allowlist *
allowlist_load_opts(const char *project, bool examples, char **cause)
{
	struct allowlist	*al = xcalloc(1, sizeof *al);
	_cleanup_free_ char	*shipped = NULL, *dir = NULL, *user = NULL;
	_cleanup_free_ char	*file = NULL;
	struct layer		*l;
	bool			 refused;
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
		al->project = xstrdup(project);
		if ((file = allowlist_user_project_file(project, cause)) ==
		    NULL)
			goto fail;
		if (allowlist_load_layer(al, LAYER_USER_PROJECT, file, false,
		    cause) < 0)
			goto fail;
		free(file);
		if (allowlist_session_path != NULL && allowlist_load_layer(al,
		    LAYER_SESSION, allowlist_session_path, false, cause) < 0)
			goto fail;
		if ((file = allowlist_project_file(project, cause)) == NULL)
			goto fail;
		switch (allowlist_load_project_layer(al, file, &refused,
		    cause)) {
		case -1:
			/* One other users may write is refused outright
			   (rules.h); one that cannot be read as rules (a
			   link, a FIFO, a directory, too large) never keeps
			   bwgate from starting: ignored as a whole, and
			   said. */
			if (refused)
				goto fail;
			allowlist_project_ignored(al, cause);
			break;
		case 1:
			l = &al->layers[al->nlayers - 1];
			*cause = NULL;
			l->trusted = allowlist_is_trusted(file, l->rf.sha256,
			    cause);
			if (*cause != NULL)
				goto fail;
			/* It may narrow, never widen (narrow.h): refused as a
			   whole, the other layers still count. */
			if (allowlist_narrows(al, project) != 0) {
				rulefile_release(&l->rf);
				al->nlayers--;
			}
			break;
		}
	}
	for (i = 0; i < al->nlayers; i++) {
		if (allowlist_check_layer(al, &al->layers[i], examples,
		    cause) == 0)
			continue;
		if (al->layers[i].kind != LAYER_PROJECT)
			goto fail;
		/* The project's layer is the last one. */
		rulefile_release(&al->layers[i].rf);
		al->nlayers--;
		allowlist_project_ignored(al, cause);
	}
	if ((al->danger = danger_load(cause)) == NULL)
		goto fail;
	if ((al->needs = danger_load_table("needs.json", "needs",
	    cause)) == NULL)
		goto fail;
	if ((al->deletes = danger_load_table("deletes.json", "deletes",
	    cause)) == NULL)
		goto fail;
	if ((al->secrets = secrets_load(cause)) == NULL)
		goto fail;
	if (examples) {
		struct allowlist alone = *al;

		alone.nlayers = 1;
		/* Examples mean the same in any project (no node_modules/.bin
		   of its own: needs.json's "unless_local"). */
		alone.project = NULL;
		if (danger_examples(al->danger, allowlist_danger_example,
		    &(struct danger_check){ &alone, cause }) != 0 ||
		    danger_examples(al->needs, allowlist_needs_example,
		    &(struct danger_check){ &alone, cause }) != 0 ||
		    danger_examples(al->deletes, allowlist_deletes_example,
		    &(struct danger_check){ &alone, cause }) != 0)
			goto fail;
	}
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
	danger_free(al->danger);
	danger_free(al->needs);
	danger_free(al->deletes);
	secrets_free(al->secrets);
	free(al->project_error);
	free(al->project);
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
