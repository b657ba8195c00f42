/*
 * danger-int: what danger.c and danger-measure.c share: the table's
 * entries and the matching of one simple command against one.
 */
#ifndef BWGATE_DANGER_INT_H
#define BWGATE_DANGER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "shparse.h"
#include "strv.h"

struct danger_entry {
	char		*id;
	char		*reason;
	char		*stake;
	struct strv	 command;	/* names, or empty */
	struct strv	 subcommand;	/* or empty: any */
	struct strv	 options;	/* any of them, or empty: always */
	struct strv	 words;		/* glob(7) patterns: any of them */
	struct strv	 fetch, run;	/* download-and-run */
	struct strv	 writes;	/* path prefixes */
	struct strv	 match, no_match;
	char		*unless_local;	/* project-relative directory: no hit
					   when the program run is there */
	char		*profile;	/* needs: the profile that gives it */
	bool		 at_once;	/* needs: sandboxed mode runs it at
					   once (git-write's protections
					   hold, undo covers it) */
	bool		 opaque;	/* holds for words not known before
					   the command runs (danger_opaque) */
	bool		 unless_loopback; /* needs: no hit when the words
					   name only the loopback (the
					   project's pod: danger-loopback.c) */
	bool		 only_loopback;	/* needs: a hit only when they do (the
					   project's services, reached with
					   their access) */
};

struct danger {
	struct danger_entry	*e;
	size_t			 n;
};

struct danger_ctx;
struct danger_hit;

/* Shells whose -c string is parsed and checked too (NULL-terminated). */
extern const char *const danger_shells[];

/* The basename of a command word. */
const char	*danger_base(const char *w);
/* The index of the command word after wrappers (sudo, env, xargs ...),
   or argc when there is none. */
size_t		 danger_skip_wrappers(const struct sh_cmd *c);
/* Does one simple command match a command entry (ctx may be NULL)? */
bool		 danger_command(const struct danger_entry *e,
		    const struct sh_cmd *c, struct danger_ctx *ctx,
		    struct danger_hit *hit);
/* Does the command write one of e's paths? */
bool		 danger_writes(const struct danger_entry *e,
		    const struct sh_cmd *c, bool allowed);
/* A download piped into, or substituted into, a program that runs it. */
bool		 danger_fetch_run(const struct danger_entry *e,
		    const struct sh_script *s);
/* danger-measure.c: words not known before the command runs (an "opaque"
   entry). */
bool		 danger_opaque(const struct danger_entry *e,
		    const struct sh_cmd *c);

#endif
