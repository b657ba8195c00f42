/*
 * protect: the one policy of what a run may not make or change because the
 * host would run it later (protect.h). Pure: no I/O; built once per run,
 * judged at every call the observer sees.
 *
 * The rule (DESIGN.md, security rule 1; written again beside the table in
 * share/bwgate/agent-config.json): a path is protected when a tool reads it
 * and executes something while the operator uses that tool for another
 * purpose -- commits (git's hooks, its config's fsmonitor, hook managers),
 * opens the folder (editors, agents), runs the package manager, enters the
 * directory (direnv, a shell prompt running git). Such a path is protected
 * wherever it lies in the project, whatever the project's size, because the
 * operator may use the tool from any directory.
 *
 * git-write's allowlist. A .git (at any depth, a directory or a file that
 * names one elsewhere) is the most dangerous entry of all: its config runs
 * fsmonitor, hooks, filters, credential helpers and editors at the next
 * `git status`. Under git-write a command may still run git, so git must be
 * able to write its data; the names below are where it does (taken from
 * git's own sources: lockfile.c's "<name>.lock" and rename; refs/files-
 * backend.c and refs/packed-backend.c (packed-refs.new, the temporary
 * that replaces packed-refs when a ref is deleted); read-cache.c's index
 * and split index "sharedindex.*"; builtin/commit.c's "next-index-<pid>.lock";
 * builtin/stash.c's "index.stash.<pid>"; sequencer.c's rebase-merge/,
 * sequencer/, ORIG_HEAD, REBASE_HEAD, AUTO_MERGE, MERGE_MSG, SQUASH_MSG;
 * builtin/am.c's rebase-apply/; merge.c and builtin/merge.c's MERGE_HEAD,
 * MERGE_MODE, MERGE_RR and rerere's rr-cache/; builtin/fetch.c's
 * FETCH_HEAD and shallow; builtin/gc.c's gc.pid and gc.log; bisect.c's
 * BISECT_*; builtin/notes.c's NOTES_*; the object store's objects/ with
 * its temporary "tmp_obj_*" and "tmp_pack_*"). Everything else -- config,
 * config.worktree, commondir, gitdir, info/, hooks/, modules/, worktrees/,
 * objects/info/alternates and http-alternates, a symbolic link anywhere --
 * is refused: each of them makes git run or read something it otherwise
 * would not. A new .git (git init, git clone into the project) is refused
 * too: the operator entering that directory would run its config.
 *
 * Removing is allowed under git-write below a .git, whatever the name
 * (and renaming away, which is the same for the name left behind): a hook
 * or a config that is gone runs nothing, and git's own commands remove
 * locks, state files and packs. Putting a name back is a creation and is
 * judged as one. Outside git-write nothing below a .git changes.
 *
 * What remains trusted under git-write: rebase-merge/git-rebase-todo may
 * hold "exec" lines that `git rebase --continue` runs; a command allowed
 * to rebase can write them (the report lists every change below .git).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "pathglob.h"
#include "protect.h"
#include "sandbox.h"
#include "xalloc.h"

#define ANY_DEPTH	"**/"

enum pkind {
	PK_TABLE,	/* agent_config: lifted by agent_config_writable */
	PK_HOOKS,	/* git_hooks: lifted by agent_config_writable */
	PK_CONFIG,	/* the configured protected list */
	PK_OWN,		/* bwgate's own files */
};

struct pentry {
	char		*pat;		/* no any-depth prefix, no last '/' */
	size_t		 ncomp;		/* its components */
	bool		 any;		/* at any depth */
	enum pkind	 kind;
	char		*rule;
};

struct protect {
	struct pentry	*v;
	size_t		 n;
	bool		 git_writable;
	char		*git_rule;	/* .git, not git-write */
	char		*git_meta_rule;	/* not git's data */
	char		*git_new_rule;	/* a new .git, a link */
};

/* Below a .git: where git writes data (directories, anything below). */
static const char *const git_data_dirs[] = {
	"objects", "refs", "logs", "rebase-merge", "rebase-apply",
	"sequencer", "rr-cache", "reftable", "NOTES_MERGE_WORKTREE", NULL
};
/* ...and the files at its top. */
static const char *const git_data_files[] = {
	"index", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD",
	"CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "BISECT_HEAD",
	"MERGE_MSG", "MERGE_MODE", "MERGE_RR", "SQUASH_MSG", "AUTO_MERGE",
	"COMMIT_EDITMSG", "TAG_EDITMSG", "NOTES_EDITMSG", "packed-refs",
	"packed-refs.new",
	"shallow", "gc.pid", "gc.log", "BISECT_LOG", "BISECT_START",
	"BISECT_TERMS", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK",
	"BISECT_NAMES", "BISECT_RUN", "BISECT_FIRST_PARENT",
	"NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF", NULL
};
/* ...and the files named by a prefix (a pid, a hash, a temporary). */
static const char *const git_data_prefixes[] = {
	"index.stash.", "next-index-", "sharedindex.", "sharedindex_", NULL
};
/* Below objects/, what makes git read objects from elsewhere. */
static const char *const git_objects_refused[] = {
	"info/alternates", "info/http-alternates", NULL
};

/* Is s one of the NULL-terminated v? */
static bool
in_list(const char *const *v, const char *s, size_t n)
{
	for (; *v != NULL; v++)
		if (strlen(*v) == n && strncmp(*v, s, n) == 0)
			return true;
	return false;
}

/* Does the path p (n bytes) equal e or lie below it? */
static bool
within(const char *p, size_t n, const char *e)
{
	size_t	 el = strlen(e);

	return n >= el && strncmp(p, e, el) == 0 && (n == el || p[el] == '/');
}

bool
protect_git_data(const char *name)
{
	size_t	 n = strlen(name), first;

	/* A lock or a new file git renames into place is judged as the
	   name it stands for. */
	if (n > 5 && strcmp(name + n - 5, ".lock") == 0)
		n -= 5;
	if (n == 0)
		return false;	/* the .git itself */
	first = strcspn(name, "/");
	if (first > n)
		first = n;
	if (in_list(git_data_dirs, name, first)) {
		if (first == 7 && strncmp(name, "objects", 7) == 0 &&
		    n > 8)
			for (const char *const *r = git_objects_refused;
			    *r != NULL; r++)
				if (within(name + 8, n - 8, *r))
					return false;
		return true;
	}
	if (first != n)
		return false;
	if (in_list(git_data_files, name, n))
		return true;
	for (const char *const *p = git_data_prefixes; *p != NULL; p++)
		if (n > strlen(*p) && strncmp(name, *p, strlen(*p)) == 0)
			return true;
	return false;
}

/* The part of rel below its first .git component: NULL when rel has
   none, "" for the .git itself. */
static const char *
git_below(const char *rel)
{
	for (const char *p = rel; *p != '\0';) {
		size_t	 n = strcspn(p, "/");

		if (n == 4 && strncmp(p, ".git", 4) == 0)
			return p[n] == '/' ? p + n + 1 : p + n;
		p += n;
		if (*p == '/')
			p++;
	}
	return NULL;
}

/* The verdict for rel below a .git (below: the part after it). */
static int
judge_git(const struct protect *pr, const char *below, enum protect_op op,
    const char **rule)
{
	if (!pr->git_writable) {
		*rule = pr->git_rule;
		return EACCES;
	}
	if (op == PROTECT_REMOVE || op == PROTECT_RENAME_FROM)
		return 0;
	if (*below == '\0' || op == PROTECT_SYMLINK) {
		*rule = pr->git_new_rule;
		return EACCES;
	}
	/* A directory renamed onto objects/ (or its info/) would bring
	   names git must not get. */
	if (op == PROTECT_RENAME_TO && (strcmp(below, "objects") == 0 ||
	    strcmp(below, "objects/info") == 0)) {
		*rule = pr->git_meta_rule;
		return EACCES;
	}
	if (protect_git_data(below))
		return 0;
	*rule = pr->git_meta_rule;
	return EACCES;
}

/* The first entry of the kinds asked (own: bwgate's own, else the others)
   that refuses op on rel, or NULL. */
static const struct pentry *
judge_entries(const struct protect *pr, const char *rel, enum protect_op op,
    bool own)
{
	for (size_t i = 0; i < pr->n; i++) {
		const struct pentry	*e = &pr->v[i];
		enum pathglob_match	 m;

		if ((e->kind == PK_OWN) != own)
			continue;
		m = pathglob_match(e->pat, e->any, rel);
		/* An ancestor matters to a rename onto it only: a directory
		   moved there brings a protected path with it. An entry at
		   any depth is protected by its name wherever it lands, but
		   one of several components is not. */
		if (m == PATHGLOB_ANCESTOR && (op != PROTECT_RENAME_TO ||
		    *rel == '\0' || (e->any && e->ncomp == 1)))
			continue;
		if (m != PATHGLOB_NONE)
			return e;
	}
	return NULL;
}

/*
 * bwgate's own files first (the quarantine holds .git directories: not
 * git-write's to change), then .git (a branch may be named like an entry
 * of the table: refs/heads/lefthook.yml is git's data), then the rest.
 */
int
protect_judge(const struct protect *pr, const char *rel, enum protect_op op,
    const char **rule)
{
	const struct pentry	*e;
	const char		*below;

	*rule = NULL;
	if ((e = judge_entries(pr, rel, op, true)) != NULL) {
		*rule = e->rule;
		return EACCES;
	}
	if ((below = git_below(rel)) != NULL)
		return judge_git(pr, below, op, rule);
	if ((e = judge_entries(pr, rel, op, false)) != NULL) {
		*rule = e->rule;
		return EACCES;
	}
	return 0;
}

/* Add one entry from a policy string ("**" "/" prefix, trailing '/');
   -1 with cause for one that could not name a path inside the project. */
static int
protect_add(struct protect *pr, const char *s, bool any, enum pkind kind,
    char **cause)
{
	struct pentry	*e;
	size_t		 n;
	const char	*what;

	if (strncmp(s, ANY_DEPTH, strlen(ANY_DEPTH)) == 0) {
		s += strlen(ANY_DEPTH);
		any = true;
	}
	while (*s == '/')
		s++;
	n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		n--;
	if (n == 0 || path_has_dotdot(s) || strstr(s, "//") != NULL) {
		*cause = xasprintf("protected path '%s' must name a path "
		    "inside the project", s);
		return -1;
	}
	pr->v = xreallocarray(pr->v, pr->n + 1, sizeof *pr->v);
	e = &pr->v[pr->n++];
	e->pat = xstrndup(s, n);
	e->ncomp = 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			e->ncomp++;
	e->any = any;
	e->kind = kind;
	switch (kind) {
	case PK_TABLE:
		e->rule = xasprintf("configuration a tool runs on the host "
		    "(%s) is read-only: approve with the agent-config profile "
		    "to change it", e->pat);
		break;
	case PK_HOOKS:
		e->rule = xasprintf("what the repository's git config runs "
		    "(%s) is read-only: approve with the agent-config profile "
		    "to change it", e->pat);
		break;
	case PK_CONFIG:
		e->rule = xasprintf("'%s' is protected by the configuration",
		    e->pat);
		break;
	case PK_OWN:
		what = e->pat;
		e->rule = xasprintf("bwgate's own '%s' (the project's rules, "
		    "what the sweep kept aside) is read-only", what);
		break;
	}
	return 0;
}

/* Does a "!entry" of the protected list lift the policy string s? Both
   with and without the any-depth prefix count ("!.vscode/" lifts
   "**" "/.vscode/", as the mounts always took it). */
static bool
protect_lifted(const struct strv *list, const char *s)
{
	const char	*bare = s;

	if (strncmp(s, ANY_DEPTH, strlen(ANY_DEPTH)) == 0)
		bare = s + strlen(ANY_DEPTH);
	for (size_t i = 0; i < list->n; i++) {
		const char *l = list->v[i];

		if (l[0] == '!' && (strcmp(l + 1, s) == 0 ||
		    strcmp(l + 1, bare) == 0))
			return true;
	}
	return false;
}

struct protect *
protect_new(const struct sandbox_policy *pol, char **cause)
{
	struct protect	*pr = xcalloc(1, sizeof *pr);
	int		 rc;

	pr->git_writable = pol->git_writable;
	pr->git_rule = xstrdup("git metadata (.git) is read-only: approve "
	    "with the git-write profile to let git write its data");
	pr->git_meta_rule = xstrdup("below .git only git's data (objects, "
	    "refs, logs, the index, HEAD and git's state files) is writable, "
	    "in every profile: hooks, config, info/ and the like run on the "
	    "host");
	pr->git_new_rule = xstrdup("a new .git, or a link below one, is "
	    "refused in every profile: the host's git would run its "
	    "config");
	rc = protect_add(pr, ".bwgate.json", false, PK_OWN, cause);
	if (rc == 0)
		rc = protect_add(pr, SANDBOX_QUARANTINE, false, PK_OWN, cause);
	for (size_t i = 0; i < pol->protected.n && rc == 0; i++) {
		const char *s = pol->protected.v[i];

		if (s[0] == '!' || protect_lifted(&pol->protected, s))
			continue;
		rc = protect_add(pr, s, false, PK_CONFIG, cause);
	}
	if (!pol->agent_config_writable) {
		for (size_t i = 0; i < pol->agent_config.n && rc == 0; i++) {
			const char *s = pol->agent_config.v[i];

			if (!protect_lifted(&pol->protected, s))
				rc = protect_add(pr, s, false, PK_TABLE,
				    cause);
		}
		for (size_t i = 0; i < pol->git_hooks.n && rc == 0; i++)
			rc = protect_add(pr, pol->git_hooks.v[i], false,
			    PK_HOOKS, cause);
	}
	if (rc != 0) {
		protect_free(pr);
		return NULL;
	}
	return pr;
}

void
protect_free(struct protect *pr)
{
	if (pr == NULL)
		return;
	for (size_t i = 0; i < pr->n; i++) {
		free(pr->v[i].pat);
		free(pr->v[i].rule);
	}
	free(pr->v);
	free(pr->git_rule);
	free(pr->git_meta_rule);
	free(pr->git_new_rule);
	free(pr);
}
