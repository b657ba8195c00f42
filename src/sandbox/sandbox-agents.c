/*
 * sandbox-agents: the agents' and editors' configuration (.claude/,
 * .mcp.json, .codex/, .vscode/, .envrc, ...: the policy's agent_config,
 * from share/bwgate/agent-config.json) is read-only like git metadata.
 *
 * What decides is the observer at the call (protect.h, observe-act.c):
 * creating, renaming onto, linking onto or rewriting any of them, at the
 * depth the table names, is refused before it runs, whatever the
 * project's size. The mounts here only add the kernel's read-only bind
 * over the ones that exist: at the project root, and deeper for entries
 * marked for any depth ("**" "/" prefix), found from the git scan's
 * directories (no further reads for directories, one lstat per directory
 * for files). A large project's watcher knows .git only: its deeper ones
 * get no bind, and need none (every open for writing is judged).
 *
 * The profile key agent_config_writable lifts all of it; the mount table
 * then says so for each root entry, so the operator sees it.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "beneath.h"
#include "cleanup.h"
#include "gitscan.h"
#include "path.h"
#include "sandbox-int.h"
#include "xalloc.h"

#define ANY_DEPTH	"**/"

static int	agent_nested_one(struct build *, const char *, bool, char **);

/* One entry: its project-relative path (no prefix, no trailing '/'). */
struct agent_entry {
	char	*rel;
	bool	 dir;
	bool	 any_depth;
	bool	 lifted;	/* "!path" in the protected list */
};

/* Split a policy string. */
static void
agent_entry(const struct sandbox_policy *pol, const char *s,
    struct agent_entry *e)
{
	size_t	 n;

	e->any_depth = strncmp(s, ANY_DEPTH, strlen(ANY_DEPTH)) == 0;
	if (e->any_depth)
		s += strlen(ANY_DEPTH);
	n = strlen(s);
	e->dir = n > 0 && s[n - 1] == '/';
	e->rel = xstrndup(s, e->dir ? n - 1 : n);
	e->lifted = false;
	for (size_t i = 0; i < pol->protected.n; i++)
		if (pol->protected.v[i][0] == '!' &&
		    strcmp(pol->protected.v[i] + 1, s) == 0)
			e->lifted = true;
}

int
build_agent_config(struct build *b, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;
	struct agent_entry		 e;
	int				 rc = 0;

	for (size_t i = 0; i < pol->agent_config.n && rc == 0; i++) {
		agent_entry(pol, pol->agent_config.v[i], &e);
		if (strcspn(e.rel, "*?[") < strlen(e.rel))
			;	/* a glob: the observer's (protect.c) alone */
		else if (strchr(e.rel, '/') != NULL &&
		    !pol->agent_config_writable && !e.lifted &&
		    !path_has_dotdot(e.rel))
			/* No placeholder that would make a directory such as
			   .config/ read-only: the observer refuses creating. */
			rc = agent_nested_one(b, e.rel, e.dir, cause);
		else if (e.rel[0] == '\0' || path_has_dotdot(e.rel)) {
			*cause = xasprintf("agent configuration path '%s' must "
			    "be inside the project", pol->agent_config.v[i]);
			rc = -1;
		} else if (pol->agent_config_writable) {
			_cleanup_free_ char *abs = path_join(pol->project,
			    e.rel);

			build_mount(b, MOUNT_RW, abs, "agent configuration, "
			    "WRITABLE (profile: agent_config_writable)");
		} else if (!e.lifted)
			rc = build_protect(b, e.rel, e.dir, cause);
		free(e.rel);
	}
	/* The directories the repository's core.hooksPath names (and the
	   config files it includes), where they exist: git runs them. */
	for (size_t i = 0; i < pol->git_hooks.n && rc == 0 &&
	    !pol->agent_config_writable; i++) {
		_cleanup_free_ char *rel = xstrdup(pol->git_hooks.v[i]);
		size_t n = strlen(rel);
		bool dir = n > 0 && rel[n - 1] == '/';

		if (dir)
			rel[n - 1] = '\0';
		if (rel[0] != '\0' && !path_has_dotdot(rel))
			rc = agent_nested_one(b, rel, dir, cause);
	}
	return rc;
}

/* Protect rel (below the root) when it exists and is no link. */
static int
agent_nested_one(struct build *b, const char *rel, bool dir, char **cause)
{
	struct stat		 st;

	/* Through the door: a racing sandbox cannot swap a directory on
	   the way for a link out (the root may not be open in a dry run). */
	if (b->root < 0 || beneath_lstat(b->root, rel, &st) != 0)
		return 0;
	if (S_ISLNK(st.st_mode)) {
		strv_pushf(&b->sb->warnings, "'%s' is a symbolic link: the "
		    "agent configuration it stands for is not protected there",
		    rel);
		return 0;
	}
	return build_protect(b, rel, dir && S_ISDIR(st.st_mode), cause);
}

int
build_agent_nested(struct build *b, const struct gitscan *gs, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;
	struct agent_entry		*v;
	size_t				 n = pol->agent_config.n;
	int				 rc = 0;

	if (pol->agent_config_writable || n == 0)
		return 0;
	if (gs->watched)
		return 0;	/* the observer decides (see the top) */
	v = xcalloc(n, sizeof *v);
	for (size_t i = 0; i < n; i++)
		agent_entry(pol, pol->agent_config.v[i], &v[i]);
	for (size_t d = 0; d < gs->ndirs && rc == 0; d++) {
		const char	*dir = gs->dirs[d].rel;
		size_t		 dl = strlen(dir), el;

		for (size_t i = 0; i < n && rc == 0; i++) {
			_cleanup_free_ char *rel = NULL;

			if (!v[i].any_depth || v[i].lifted ||
			    strcspn(v[i].rel, "*?[") < strlen(v[i].rel))
				continue;
			el = strlen(v[i].rel);
			if (v[i].dir) {
				/* The scan saw every directory: this one is
				   such an entry when its name ends so. */
				if (dl > el && dir[dl - el - 1] == '/' &&
				    strcmp(dir + dl - el, v[i].rel) == 0)
					rc = agent_nested_one(b, dir, true,
					    cause);
				continue;
			}
			if (dl == 0)
				continue;	/* the root: build_agent_config */
			rel = path_join(dir, v[i].rel);
			rc = agent_nested_one(b, rel, false, cause);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].rel);
	free(v);
	return rc;
}
