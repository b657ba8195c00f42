/*
 * gitops: what a git-write run did to the project's repository: commits
 * made, refs moved, created or deleted, HEAD moved, the index changed.
 *
 * Folder src/gitops (libgitops.a), the git operations layer: owns what a
 * git-write run did to the repository (gitops*.c) and the repository's
 * identity (gitid). May call util only (git itself through spawn.h); the
 * engine (run) and the console call it (tests/build/layers.sh).
 *
 * The change report leaves .git out (its files are git's business), so
 * without this a `git commit` in a git-write run reads "no changes in the
 * project". gitops_take() records, before the command is let go, the
 * refs (HEAD, packed-refs, every loose ref under refs/) and the index's
 * size and trailing checksum of the project's top-level .git directory,
 * read through the door (beneath.h: never a symbolic link, never outside
 * the project), no git involved; taken only when the profile makes .git
 * writable. gitops_report() takes them again after the run and compares.
 *
 * gitops_tracked() asks the same hardened git which paths its index
 * holds (`ls-files`), for what a delete puts at stake (stake.h).
 *
 * Only when refs changed is git run on the host, for the commits' ids and
 * subjects (`git log` of the new tips, minus every tip before) and to
 * tell a fast-forward from a forced move (`merge-base --is-ancestor`):
 * through spawn.h with an environment of its own (no system or global
 * configuration, no $HOME, no pager, no terminal prompt, no replace
 * objects, no transport: protocol.allow=never), `-c core.fsmonitor=
 * -c core.hooksPath=/dev/null` and the other keys that could make it
 * run a program, safe.directory for this repository only, a deadline
 * (GITOPS_TIMEOUT_MS, then the process group is killed) and bounded
 * output. Object ids reach git only after they are checked to be hex;
 * nothing of the repository is ever a command-line option. git is not
 * run when the object store is reached through a symbolic link.
 *
 * The report (JSON, doc/report.md):
 *	{ "commits": [ { "id", "subject" } ... ]	at most GITOPS_COMMITS
 *	  "commits_total": N,
 *	  "refs": [ { "name", "change": created|deleted|moved|forced,
 *		      "old", "new" } ... ]		HEAD among them
 *	  "index_changed": bool,
 *	  "escaped": true }				when a name or subject
 *							is not UTF-8 (json_path)
 * Subjects and ref names are the repository's: shown only through the
 * display escaper.
 */
#ifndef BWGATE_GITOPS_H
#define BWGATE_GITOPS_H

#include <cjson/cJSON.h>

#include "strv.h"

#define GITOPS_COMMITS		20	/* listed with their subjects */
#define GITOPS_MAX_REFS		100000	/* more: refs are not compared */
#define GITOPS_TIMEOUT_MS	10000	/* for each git run */
#define GITOPS_TRACKED_BYTES	(8 << 20)	/* gitops_tracked's output */

struct gitops;

/* The state of project/.git (empty when it is no directory: none, a
   .git file, a link), or NULL when the project cannot be opened. */
struct gitops	*gitops_take(const char *project);
/* Compare with now: the report object, or NULL when nothing changed.
   Notes (git could not be asked, ...) go to warnings. */
cJSON		*gitops_report(const struct gitops *before,
		    const char *project, struct strv *warnings);
/* One line for people ("2 commits, refs/heads/main moved, index
   changed"), from a report object; NULL for none. */
char		*gitops_summary(const cJSON *git);
void		 gitops_free(struct gitops *);
/* The paths git tracks under pathspecs (literal, relative to the
   project's top: `git ls-files -z -- PATHSPECS`, run as above), appended
   to out; -1 when not known (no .git directory or index, git failed, the
   list over GITOPS_TRACKED_BYTES). */
int		 gitops_tracked(const char *project,
		    const struct strv *pathspecs, struct strv *out);

#endif
