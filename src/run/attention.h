/*
 * attention: which changes of a command the operator should look at,
 * whatever else it did. A change is called out (struct attention, the
 * report's "attention" list) when it:
 *
 *	git		is under a .git directory at any depth (hooks and
 *			configuration run code outside the sandbox);
 *	rules		is a .bwgate.json (bwgate's own rules);
 *	auto-run	is one of the configured auto-run paths (the
 *			configuration key "attention": project-relative
 *			paths, a trailing '/' for a directory and all below,
 *			a leading "**" "/" at any depth: .github/workflows/,
 *			and the agents' and editors' configuration, .claude/,
 *			.mcp.json, .vscode/, .envrc, ...: policy/agentcfg.h);
 *	executable	is a new file with an execute bit, or a file that
 *			gained one (when the state before is known);
 *	symlink		is a symbolic link that points outside the project;
 *	hardlink	is a file with more than one hard link (its content
 *			is shared with a name elsewhere).
 *
 * Deleted paths count for git, rules and auto-run only. The file system
 * is looked at after the run (lstat, readlink; nothing is followed).
 */
#ifndef BWGATE_ATTENTION_H
#define BWGATE_ATTENTION_H

#include "report.h"
#include "snapshot.h"
#include "strv.h"

/* Add r->attention entries for r->changes. before may be NULL. */
void	 attention_collect(struct result *r, const char *project,
	    const struct strv *patterns, const struct snapshot *before);
/* Does a project-relative path match one attention pattern? */
bool	 attention_match(const char *path, const char *pattern);

#endif
