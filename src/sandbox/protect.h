/*
 * protect: what a run may not make or change because the host would run it
 * later (DESIGN.md, security rule 1). Pure: data in, verdict out. Built once
 * per run from the sandbox policy (which the console hands to the exec, so
 * what runs is what was approved); judged by the observer at every call.
 *
 * Agreed interface between helpers "protect" (writes src/sandbox/protect.c
 * and this header as src/sandbox/protect.h; may ADD to it, must not change
 * what is here) and "decide" (calls it from src/run/observe*.c).
 */
#ifndef BWGATE_PROTECT_H
#define BWGATE_PROTECT_H

struct sandbox_policy;

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

#endif
