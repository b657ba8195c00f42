/*
 * danger: commands whose mistakes the sandbox does not stop.
 *
 * An approved command may write the whole project (and reach the network
 * when approved so), so the sandbox does not protect the project from
 * `rm -rf src`, a force push or `curl ... | sh`. A table of such commands
 * (share/bwgate/danger.json, and the user's danger.json beside their
 * allowlist.json, which can only add) gives a command string that holds
 * one the verdict danger (allowlist.h): shown apart, approved only by a
 * deliberate confirmation, never automatically. Format: bwgate-allowlist(5),
 * DANGER.
 *
 * An entry matches a simple command by its name (after wrappers such as
 * sudo, env, xargs, nice or timeout), an optional subcommand (the first
 * word that is not an option or an option's value), and, when given, any
 * of its "options" (a short one also inside a cluster: -rf holds -r; a
 * long one also abbreviated) or "words" (glob(7) patterns). Two more
 * kinds: "fetch" with "run" (a download piped into an interpreter, or
 * substituted into a command line) and "writes" (a path written by a
 * redirection, or named by a command no rule allows). The string given to
 * sh -c, bash -lc and the like is parsed and checked the same way.
 *
 *	struct danger *d = danger_load(&cause);
 *	struct danger_hit h = DANGER_HIT_INIT;
 *	if (danger_check(d, &script, allowed, &h)) ... h.reason ...
 *	danger_hit_release(&h);
 *	danger_free(d);
 */
#ifndef BWGATE_DANGER_H
#define BWGATE_DANGER_H

#include <stdbool.h>

#include "shparse.h"
#include "strv.h"

struct danger;

struct danger_hit {
	char		*id;		/* the entry's id */
	char		*reason;	/* what is at stake, in words */
	char		*stake;		/* "delete", "history", "mode",
					   "publish", "run", "ci" */
	struct strv	 targets;	/* a delete's operands, as written */
	struct strv	 profiles;	/* danger_check_project: the "profile"
					   of every entry that holds */
	bool		 at_once;	/* ... and every one has "at_once" */
};
#define DANGER_HIT_INIT { NULL, NULL, NULL, STRV_INIT, STRV_INIT, false }

/* The shipped table and the user's additions; NULL with cause. */
struct danger	*danger_load(char **cause);
/* A table of the same form by file name (the shipped file, then the
   user's beside their allowlist.json) and array key: the needs table
   (share/bwgate/needs.json, "needs") is one. */
struct danger	*danger_load_table(const char *name, const char *key,
		    char **cause);
/* One table file alone (tests); NULL with cause. */
struct danger	*danger_load_file(const char *path, char **cause);
void		 danger_free(struct danger *);
/* Does the script hold a dangerous command? allowed[i] (or NULL: none)
   says the rules allow the script's i-th command. The first hit fills
   hit (released first). */
bool		 danger_check(const struct danger *, const struct sh_script *,
		    const bool *allowed, struct danger_hit *hit);
/* The same, for a command run in project (or NULL): an entry with
   "unless_local" does not hold when the program run is a file in that
   directory of the project; *local (caller frees) then says so, when
   nothing else was found. Every entry is checked (the needs table): hit
   is the first that holds, its profiles those of all that hold. */
bool		 danger_check_project(const struct danger *,
		    const struct sh_script *, const bool *allowed,
		    const char *project, struct danger_hit *hit, char **local);
void		 danger_hit_release(struct danger_hit *);
/* Can what the script deletes be measured before it runs? True when every
   command an entry holds for is a delete (stake "delete") by the program
   itself (no wrapper: xargs, sudo), every word literal, no command runs
   words it does not show (eval, source, a shell, an "opaque" entry) and
   the directory changes only by `cd DIR`; targets (released first) are
   then every operand of every delete, as written, and again under each
   directory a cd may have reached (DIR/operand: the cd may fail and the
   script go on). */
bool		 danger_measurable(const struct danger *,
		    const struct sh_script *, const bool *allowed,
		    struct strv *targets);
/* danger-loopback.c: do the words of c from "from" on name a loopback URL
   and nothing that may be another host ("unless_loopback")? */
bool		 danger_loopback_only(const struct sh_cmd *c, size_t from);
/* Does an entry's "writes" name the project-relative path rel (an
   agent's direct file write)? The first hit fills hit. */
bool		 danger_check_write(const struct danger *, const char *rel,
		    struct danger_hit *hit);
/* Each entry's examples as (id, example, must match), for checking them
   against the whole classification: fn returns -1 to stop. */
int		 danger_examples(const struct danger *,
		    int (*fn)(const char *id, const char *example, bool match,
		    void *arg), void *arg);

#endif
