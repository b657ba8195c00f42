/*
 * protect: what a run may not make or change because the host would run it
 * later (DESIGN.md, security rule 1). Pure: data in, verdict out. Built once
 * per run from the sandbox policy (which the console hands to the exec, so
 * what runs is what was approved); judged by the observer at every call.
 *
 * Agreed interface between helpers "protect" (writes src/sandbox/protect.c
 * and this header as src/sandbox/protect.h; may ADD to it, must not change
 * what is there) and "decide" (calls it from src/run/observe*.c).
 *
 * What is protected, from the policy:
 *   - every .git at any depth, a directory or a file, and all below it;
 *     under git-write (policy git_writable) the names below a .git where
 *     git writes data are writable (protect_git_data: objects, refs, logs,
 *     the index, HEAD and git's other state files), nothing else;
 *   - the table of what tools run later (share/bwgate/agent-config.json,
 *     the policy's agent_config: "**" "/" prefix for any depth, a trailing
 *     '/' for a directory, shell globs in a component), unless the profile
 *     says agent_config_writable or a "!entry" of the policy's protected
 *     list lifts the entry;
 *   - what the repository's own config makes git run (policy git_hooks:
 *     core.hooksPath directories, config files it includes from inside the
 *     project; see protect_git_read), lifted by agent_config_writable too;
 *   - the configured protected paths (policy protected, "!path" lifts) and
 *     bwgate's own .bwgate.json at the root.
 *
 *	char *cause;
 *	struct protect *p = protect_new(&pol, &cause);
 *	const char *rule;
 *	int e = protect_judge(p, "sub/.vscode/tasks.json", PROTECT_CREATE,
 *	    &rule);		// EACCES, rule names .vscode/
 *	protect_free(p);
 */
#ifndef BWGATE_PROTECT_H
#define BWGATE_PROTECT_H

#include <stdbool.h>

struct sandbox_policy;
struct strv;

enum protect_op {
	PROTECT_CREATE,		/* a new non-directory: open O_CREAT, creat, mknod */
	PROTECT_MKDIR,		/* a new directory */
	PROTECT_SYMLINK,	/* the new link's own name */
	PROTECT_LINK,		/* a hard link's new name */
	PROTECT_RENAME_TO,	/* what a rename lands on (both names of an exchange) */
	PROTECT_RENAME_FROM,	/* what a rename takes away */
	PROTECT_WRITE,		/* open for writing or truncate an existing file */
	PROTECT_REMOVE,		/* unlink, rmdir */
	PROTECT_MODE,		/* chmod of an existing path (mode bits judged elsewhere) */
};

struct protect;

/* From the policy (its table, the repository's core.hooksPath as the policy
   carries it, the profile: git-write, agent_config_writable). NULL and
   *cause on error. */
struct protect	*protect_new(const struct sandbox_policy *, char **cause);
void		 protect_free(struct protect *);

/* rel: a normalised project-relative path ("" the root, no leading '/', no
   "." or ".." components) of the name the call makes or changes. 0 when the
   call may go on; else the errno to fail it with (EACCES) and *rule set to a
   short static description of the rule that refused it, for the report and
   its hint (e.g. "agent configuration (.envrc) is read-only: approve with
   the agent-config profile to change it"). */
int		 protect_judge(const struct protect *, const char *rel,
		    enum protect_op, const char **rule);

/*
 * Added by "protect":
 *
 * *rule stays valid until protect_free (it may name the entry).
 *
 * A hard link's existing name is judged too, as PROTECT_WRITE: the new name
 * writes the same inode. A rename onto a directory that would bring a
 * protected path with it (an ancestor of a path protected at the root, or
 * of a name git must not get below .git) is refused as PROTECT_RENAME_TO.
 */

/* Is name (the part of a path below a .git, "" for the .git itself) where
   git writes data, so writable under git-write? For the mounts: an
   existing entry of .git for which this is false stays read-only. */
bool		 protect_git_data(const char *name);

/* Read the repository's own config (<project>/.git/config, and what it
   includes from inside the project) through the door, without running
   git, and append to out the policy's git_hooks entries: each
   core.hooksPath inside the project as "dir/" (relative to the work tree),
   each included config file inside the project (even one not there yet),
   and, where a value cannot be known (a file that cannot be read or
   parsed), the usual hook directories. Non-blocking; 0, or -1 and *cause
   when the project cannot be opened. */
int		 protect_git_read(const char *project, struct strv *out,
		    char **cause);

#endif
