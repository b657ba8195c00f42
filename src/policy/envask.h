/*
 * envask: environment variables that make a program run other code (the
 * loader's LD_PRELOAD, a shell's BASH_ENV and ENV, git's GIT_CONFIG_*,
 * interpreters' PYTHONSTARTUP, NODE_OPTIONS, PERL5OPT...). An allowlisted
 * command with such a variable set by the agent is no longer the command
 * the rule allowed, so the verdict becomes ask with the variable named.
 * The table is data: share/bwgate/env-ask.json, and the user's
 * env-ask.json beside allowlist.json, which can only add. Format:
 * bwgate-allowlist(5), ENVIRONMENT.
 *
 *	struct envask *e = envask_load(&cause);
 *	const char *why = envask_match(e, "BASH_ENV", value);
 *	envask_free(e);
 */
#ifndef BWGATE_ENVASK_H
#define BWGATE_ENVASK_H

struct envask;

/* The shipped table and the user's additions; NULL with cause. */
struct envask	*envask_load(char **cause);
/* One table file alone (tests, fuzzing); NULL with cause. */
struct envask	*envask_load_file(const char *path, char **cause);
/* The reason for a variable the table names, NULL if none or when the
   entry lists value as harmless. */
const char	*envask_match(const struct envask *, const char *name,
		    const char *value);
void		 envask_free(struct envask *);

#endif
