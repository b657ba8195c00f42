/*
 * allowlist: verdicts for command strings (allow / ask / deny) and the
 * sandbox profile each verdict runs with.
 *
 * Rules come in layers: the shipped share/bwgate/allowlist.json, the
 * user's $XDG_CONFIG_HOME/bwgate/allowlist.json and the project's
 * .bwgate.json. The strictest decision wins (deny > ask > allow). A
 * command the danger table names (danger.h) gets the verdict danger
 * unless a rule denies it, whatever the rules allow. A
 * project file's allow rules count only once the operator trusted that
 * file's exact content. Format: bwgate-allowlist(5).
 *
 *	struct allowlist *al = allowlist_load(project, &cause);
 *	struct classification c = CLASSIFICATION_INIT;
 *	allowlist_classify(al, "git status", &c);
 *	allowlist_profile_apply(al, c.profile, &policy, &cause);
 *	classification_release(&c);
 *	allowlist_free(al);
 */
#ifndef BWGATE_ALLOWLIST_H
#define BWGATE_ALLOWLIST_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "sandbox.h"
#include "strv.h"

enum verdict {
	VERDICT_ALLOW,
	VERDICT_ASK,
	VERDICT_DENY,
	VERDICT_DANGER,	/* ask, for a command whose mistakes the sandbox
			   does not stop (danger.h): approved only by a
			   deliberate confirmation, never automatically */
};

struct classification {
	enum verdict	 verdict;
	char		*rule;		/* "FILE:ID" that decided, or NULL */
	char		*reason;	/* in words, for people and agents */
	struct strv	 commands;	/* the simple commands found */
	char		*profile;	/* sandbox profile name */
	struct strv	 runs;		/* allow: the programs its rules
					   foresee (glob(7) patterns) */
	bool		 project_root;	/* allow: only where it runs in the
					   project's top directory */
	char		*danger;	/* danger: the table entry's id */
	char		*stake;		/* danger: "delete", "history", ...;
					   "delete" also for a delete that is
					   not danger (deletes.json) */
	struct strv	 targets;	/* a delete's operands */
	char		*needs;		/* more than the project profile, by
					   its words: the needs table's id
					   (git-write, network ...), or NULL */
	char		*needs_reason;	/* in words */
	char		*needs_profile;	/* the profile that gives what it
					   needs (an ask's or a danger's
					   profile is then this one), or
					   NULL: no profile gives it */
	bool		 needs_at_once;	/* all it needs is git metadata that
					   git-write's protections and undo
					   cover: sandboxed mode runs it */
	bool		 measured;	/* a delete: only deletes, every operand
					   in targets (danger_measurable) */
	bool		 undo_restores;	/* measured, and undo keeps all they
					   delete: set by the caller that
					   looked (stake_judge) */
	char		*at_stake;	/* what a danger or a delete puts at
					   stake, in
					   words, or NULL: set by the same
					   caller (stake_judge) */
};
#define CLASSIFICATION_INIT \
	{ VERDICT_ASK, NULL, NULL, STRV_INIT, NULL, STRV_INIT, false, \
	  NULL, NULL, STRV_INIT, NULL, NULL, NULL, false, false, false, NULL }

struct allowlist;

/* The console's session rule file (the A form's "this session"), a layer
   after the user's own while it exists; NULL: none. Process-wide: the
   console sets it once it knows its runtime directory. */
void		 allowlist_set_session_file(const char *path);
const char	*allowlist_session_file(void);

/* Load all layers for a project (NULL: no project layer). */
struct allowlist *allowlist_load(const char *project, char **cause);
/* The same without checking the rules' examples (about 2 ms): for
   applying a profile in a process that classifies nothing. */
struct allowlist *allowlist_load_profiles(const char *project, char **cause);
void		 allowlist_free(struct allowlist *);
/* Classify a command string; never fails (unparsable -> ask). */
void		 allowlist_classify(const struct allowlist *, const char *command,
		    struct classification *);
/* Classify an argv (quoted and classified as a command string). */
void		 allowlist_classify_argv(const struct allowlist *,
		    const struct strv *argv, struct classification *);
/* Classify an agent's direct write to rel (project-relative; protected:
   the configuration's list) as a command writing it would be: a
   protected path is deny (the sandbox keeps it read-only), one the danger
   table's "writes" names is danger, a path the file-write table calls
   for attention is ask, anything else allow by the rule "file-write"
   with the project profile (allowlist-write.c). */
void		 allowlist_classify_write(const struct allowlist *,
		    const char *rel, const struct strv *protected,
		    struct classification *);
/* Apply a named profile to a policy; -1 with cause if unknown. */
int		 allowlist_profile_apply(const struct allowlist *,
		    const char *profile, struct sandbox_policy *, char **cause);
/* The hosts the operator's own rule files allow for every command with
   named hosts (top-level "domains"; allowlist-hosts.c), groups expanded,
   appended to out; -1 with cause. */
int		 allowlist_hosts(const struct allowlist *, struct strv *out,
		    char **cause);
/* Add a host pattern to the operator's rules for this project (never the
   project's file); the file's path in *path (caller frees). */
int		 allowlist_add_project_host(const char *project,
		    const char *pattern, char **path, char **cause);
/* Why the project's .bwgate.json was refused (it widened the sandbox,
   narrow.h), or NULL; the other layers loaded all the same. */
const char	*allowlist_project_error(const struct allowlist *);
/* Load one rule file as the only layer (tests, tools); -1 with cause. */
struct allowlist *allowlist_load_file(const char *path, char **cause);
/* The rule files in use, in layer order (paths pushed to out). */
void		 allowlist_files(const struct allowlist *, struct strv *out);
/* The project rule file in use (or NULL) and whether it is trusted. */
const char	*allowlist_project(const struct allowlist *, bool *trusted);

/*
 * Trust: $XDG_CONFIG_HOME/bwgate/trusted.json maps the canonical path of
 * a project's .bwgate.json to the sha256 of the content the operator
 * trusted. Any change to the file makes its allow rules inert again.
 */
/* Canonical path of DIR/.bwgate.json (it may not exist); NULL with cause. */
char		*allowlist_project_file(const char *project, char **cause);
/* The user's own rule file for a project (in the user's configuration,
   not the project): it applies only there. NULL with cause. */
char		*allowlist_user_project_file(const char *project,
		    char **cause);
/* The trust table as a JSON object (caller deletes); NULL with cause. */
cJSON		*allowlist_trusted(char **cause);
/* Record that file's content with this sha256 is trusted (sha NULL:
   forget it); -1 with cause. */
int		 allowlist_trust_record(const char *file, const char *sha256,
		    char **cause);

void		 classification_release(struct classification *);
/* An allow that holds only in the project's top directory becomes ask
   when cwd (canonical, like project) is below it. */
void		 classification_at(struct classification *, const char *project,
		    const char *cwd);
/* Basenames of the executed programs (paths or names) that an allowed
   command's rules did not foresee (git -> gpg), each once, into out. */
void		 classification_unforeseen(const struct classification *,
		    const struct strv *executed, struct strv *out);
cJSON		*classification_json(const struct classification *);
const char	*verdict_name(enum verdict);

#endif
