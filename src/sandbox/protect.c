/*
 * protect: what a run may not make or change because the host would run it
 * later (DESIGN.md, security rule 1), judged by the observer at every call.
 *
 * Interim rules over the tables bwgate already has (the helper "protect"
 * replaces this file with the full table in share/ and core.hooksPath):
 * every ".git" at any depth (lifted by git-write below a ".git"), every
 * agent or editor configuration of share/bwgate/agent-config.json at the
 * depth it names (lifted by agent_config_writable), the built-in paths
 * (.bwgate.json) and the policy's protected list ("!path" lifts one).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agentcfg.h"
#include "protect.h"
#include "sandbox.h"
#include "strv.h"
#include "xalloc.h"

struct protect {
	const struct agentcfg	*agents;	/* NULL: lifted */
	bool			 git_writable;
	struct strv		 paths;		/* protected, project-relative */
	struct strv		 lifted;	/* "!path": agent entries lifted */
};

struct protect *
protect_new(const struct sandbox_policy *pol, char **cause)
{
	struct protect	*p = xcalloc(1, sizeof *p);

	p->git_writable = pol->git_writable;
	strv_push(&p->paths, ".bwgate.json");
	for (size_t i = 0; i < pol->protected.n; i++) {
		const char	*s = pol->protected.v[i];
		size_t		 n;

		if (s[0] != '!') {
			strv_push(&p->paths, s);
			continue;
		}
		/* "!.envrc", "!.vscode/", "!**" "/.claude/": the entry's path. */
		s++;
		if (strncmp(s, AGENTCFG_ANY_DEPTH, strlen(AGENTCFG_ANY_DEPTH)) == 0)
			s += strlen(AGENTCFG_ANY_DEPTH);
		n = strlen(s);
		while (n > 0 && s[n - 1] == '/')
			n--;
		strv_push_owned(&p->lifted, xstrndup(s, n));
	}
	if (!pol->agent_config_writable &&
	    (p->agents = agentcfg_get(cause)) == NULL) {
		protect_free(p);
		return NULL;
	}
	return p;
}

void
protect_free(struct protect *p)
{
	if (p == NULL)
		return;
	strv_release(&p->paths);
	strv_release(&p->lifted);
	free(p);
}

/* Is rel name, or below it? */
static bool
protect_under(const char *rel, const char *name)
{
	size_t	n = strlen(name);

	while (n > 0 && name[n - 1] == '/')
		n--;
	return n > 0 && strncmp(rel, name, n) == 0 &&
	    (rel[n] == '\0' || rel[n] == '/');
}

/* Does rel have a ".git" component; *below: a name under it. */
static bool
protect_git(const char *rel, bool *below)
{
	for (const char *p = rel; p != NULL; ) {
		if (strncmp(p, ".git", 4) == 0 && (p[4] == '\0' ||
		    p[4] == '/')) {
			*below = p[4] == '/';
			return true;
		}
		if ((p = strchr(p, '/')) != NULL)
			p++;
	}
	return false;
}

/* Under git-write, what .git may not gain: what makes git read another
   repository's configuration or run something (interim denylist; the
   protect helper replaces it with an allowlist). */
static const char *const protect_git_never[] = {
	"commondir", "gitdir", "config.worktree", "config", "info",
	"hooks", "objects/info/alternates", NULL
};

/* g: below a repository's directory (.git, or modules/X, worktrees/X of
   it): is it one of those, here or in a nested one? */
static bool
protect_git_in(const char *g)
{
	const char	*p;

	for (size_t i = 0; protect_git_never[i] != NULL; i++)
		if (protect_under(g, protect_git_never[i]))
			return true;
	if (strncmp(g, "modules/", 8) == 0)
		p = g + 8;
	else if (strncmp(g, "worktrees/", 10) == 0)
		p = g + 10;
	else
		return false;
	if ((p = strchr(p, '/')) == NULL)
		return false;
	return protect_git_in(p + 1);
}

/* rel is ".git/NAME..." or "x/.git/NAME...": is NAME one of those? */
static bool
protect_git_denied(const char *rel)
{
	const char	*g = NULL;

	for (const char *p = rel; p != NULL; ) {
		if (strncmp(p, ".git/", 5) == 0)
			g = p + 5;
		if ((p = strchr(p, '/')) != NULL)
			p++;
	}
	return g != NULL && protect_git_in(g);
}

int
protect_judge(const struct protect *p, const char *rel, enum protect_op op,
    const char **rule)
{
	const struct agentcfg_entry	*e;
	bool				 below = false;

	if (p == NULL)
		return 0;
	if (protect_git(rel, &below) && !(p->git_writable && below &&
	    !protect_git_denied(rel))) {
		*rule = "git metadata (.git) is protected: approve with the "
		    "git-write profile to change it";
		return EACCES;
	}
	if (p->agents != NULL && (e = agentcfg_match(p->agents, rel)) != NULL &&
	    !strv_contains(&p->lifted, e->path)) {
		*rule = "agent or editor configuration is read-only: approve "
		    "with the agent-config profile to change it";
		return EACCES;
	}
	/* Made new it is not trusted (trust is by hash): only changing
	   the one there is refused. */
	if (strcmp(rel, ".bwgate.json") == 0 && (op == PROTECT_CREATE ||
	    op == PROTECT_MKDIR || op == PROTECT_SYMLINK || op == PROTECT_LINK))
		return 0;
	for (size_t i = 0; i < p->paths.n; i++)
		if (protect_under(rel, p->paths.v[i])) {
			*rule = "a protected path (bwgate policy or the "
			    "configuration's protected list)";
			return EACCES;
		}
	(void)op;
	return 0;
}
