/*
 * agentcfg: the files and directories through which coding agents, editors
 * and hooks run programs on the host (.claude/, .mcp.json, .codex/,
 * .vscode/, .envrc, ...), a table shipped as share/bwgate/agent-config.json.
 *
 * They are protected like git metadata: read-only in every sandbox unless
 * the profile says agent_config_writable (config.c hands the sandbox the
 * list: sandbox_policy.agent_config), refused to the file tools and the
 * hook (filewrite.c), and called out in a report's attention when they
 * change. An entry of depth "any" counts at any depth of the project
 * (an agent started in a subdirectory reads it there), "root" only at the
 * project root.
 *
 *	const struct agentcfg *t = agentcfg_get(&cause);   // loaded once
 *	const struct agentcfg_entry *e = agentcfg_match(t, "sub/.claude/x");
 */
#ifndef BWGATE_AGENTCFG_H
#define BWGATE_AGENTCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "strv.h"

/* The prefix of a policy or attention entry that counts at any depth. */
#define AGENTCFG_ANY_DEPTH	"**/"

struct agentcfg_entry {
	char		*path;		/* project-relative, no trailing '/' */
	bool		 dir;
	bool		 any_depth;
	char		*why;
};

struct agentcfg {
	struct agentcfg_entry	*v;
	size_t			 n;
	char			*file;	/* where it was read */
};

/* The shipped table (config_datadir()/agent-config.json), read once; NULL
   with cause when it cannot be read or is malformed. */
const struct agentcfg	*agentcfg_get(char **cause);
/* Read a table from a file (tests); NULL with cause. */
struct agentcfg		*agentcfg_load(const char *path, char **cause);
void			 agentcfg_free(struct agentcfg *);
/* The entry rel (project-relative, normalised) is or lies under, or NULL. */
const struct agentcfg_entry *agentcfg_match(const struct agentcfg *,
			    const char *rel);
/* The entries as policy strings: "path" or "path/" for a directory,
   prefixed with AGENTCFG_ANY_DEPTH for depth "any"; appended to out. */
void			 agentcfg_strv(const struct agentcfg *,
			    struct strv *out);

#endif
