/*
 * report: the result of one sandboxed command and its JSON form.
 *
 * The JSON field names are a stable interface (doc/report.md): agents,
 * the console, the audit log and the UI all read the same object.
 *
 *	struct result r = RESULT_INIT;
 *	... engine_run() fills it ...
 *	cJSON *j = result_json(&r);
 *	result_print_summary(stderr, &r);
 *	result_release(&r);
 */
#ifndef BWGATE_REPORT_H
#define BWGATE_REPORT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "strv.h"

struct rename {
	char	*from;
	char	*to;
};

/* What a command did to the project; paths relative to the project root. */
struct changes {
	struct strv	 created;
	struct strv	 modified;
	struct strv	 deleted;
	struct rename	*renamed;
	size_t		 nrenamed;
};

enum violation_reason {
	VIOLATION_READ_ONLY,	/* a read-only mount (system, extra ro path) */
	VIOLATION_NOT_VISIBLE,	/* outside everything the sandbox shows */
	VIOLATION_PROTECTED,	/* a protected path inside the project */
	VIOLATION_NETWORK,	/* network use while the network is off */
};

/* One thing the sandbox refused, merged with its repeats. */
struct violation {
	char			*path;		/* as the command saw it */
	char			*operation;	/* create, write, delete, ... */
	enum violation_reason	 reason;
	unsigned		 count;
	bool			 exact;		/* seen by seccomp, not inferred */
};

struct violations {
	struct violation	*v;
	size_t			 n;
};

struct result {
	struct strv	 argv;		/* the command */
	char		*command;	/* the command string, if it came as one */
	char		*cwd;
	char		*project;
	char		*profile;
	struct strv	 bwrap_argv;	/* exactly what was executed */
	bool		 started;	/* the command ran at all */
	int		 exit_code;	/* -1 when signalled or never ran */
	int		 signal;	/* 0 unless killed by a signal */
	bool		 timed_out;
	bool		 killed;	/* killed on request (console) */
	int64_t		 duration_ms;
	struct buf	 out;
	struct buf	 err;
	bool		 out_truncated;
	bool		 err_truncated;
	struct changes	 changes;
	bool		 changes_known;	/* a change report was made */
	bool		 changes_possible; /* the project was writable */
	const char	*changes_method; /* "syscalls", "snapshot", "none" */
	struct violations violations;
	bool		 events_lossy;	/* the live stream missed events */
	cJSON		*sandbox;	/* how the sandbox was built */
	struct strv	 warnings;
	char		*error;		/* bwgate's own failure, if any */
};
#define RESULT_INIT { .exit_code = -1, .changes_possible = true }

void	 changes_release(struct changes *);
void	 changes_add_rename(struct changes *, const char *, const char *);
size_t	 changes_count(const struct changes *);
cJSON	*changes_json(const struct changes *);

const char *violation_reason_name(enum violation_reason);
/* The hint an agent can act on, for a reason. */
const char *violation_hint(enum violation_reason);
/* Add one attempt; repeats of (path, operation, reason) bump count. */
void	 violations_add(struct violations *, const char *path,
	    const char *operation, enum violation_reason, bool exact);
void	 violations_release(struct violations *);
cJSON	*violations_json(const struct violations *);
/* The hint for v in a run in project (profile-aware inside it). */
const char *violation_hint_in(const struct violation *v,
	    const char *project);

void	 result_release(struct result *);
cJSON	*result_json(const struct result *);
/* A short human summary (the change report) for stderr. */
void	 result_print_summary(FILE *, const struct result *);
/* bwgate's exit status for this result (the command's own, 128+N, 125). */
int	 result_exit_status(const struct result *);

#endif
