/*
 * report: the result of one sandboxed command and its JSON form.
 *
 * Folder src/report (libreport.a), the change report layer: owns the
 * result of a run and its JSON and text forms (report*.c) and the
 * snapshots that compute the changes (snapshot*.c). May call policy and
 * util; undo, the engine (run) and the console read it
 * (tests/build/layers.sh).
 *
 * The JSON field names are a stable interface (doc/report.md): agents,
 * the console, the audit log and the UI all read the same object.
 *
 *	struct result r = RESULT_INIT;
 *	... engine_run() fills it ...
 *	cJSON *j = result_json(&r);
 *	result_print_summary(stderr, &r, escape);
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
	VIOLATION_LOCAL,	/* a loopback port nothing in the sandbox
				   listens on: the host's are not there */
	VIOLATION_DISCARDED,	/* done inside a place private to the sandbox
				   (its empty $HOME), thrown away at the end */
	VIOLATION_SETID,	/* a setuid or setgid bit, in any profile */
	VIOLATION_NESTED,	/* a nested sandbox's call on the project's
				   file system (its place there unknown) */
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

/* A change the operator should look at (attention.h), path relative. */
struct attention {
	char		*path;
	const char	*kind;		/* "git", "rules", "auto-run", ... */
	char		*why;		/* in words, for people */
};

struct attentions {
	struct attention	*v;
	size_t			 n;
};

/* A program the command ran (execve, execveat), with its repeats. */
struct execution {
	char		*path;		/* as named, resolved against the cwd */
	struct strv	 argv;		/* at most EXECUTION_MAX_ARGS */
	unsigned	 count;
	uint32_t	 hash;		/* of path and argv, to find repeats */
};

struct executions {
	struct execution	*v;
	size_t			 n;
	unsigned long		 total;		/* every exec seen */
	bool			 truncated;	/* distinct ones beyond the cap */
};
#define EXECUTIONS_MAX		256
#define EXECUTION_MAX_ARGS	64

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
	const char	*killed_by;	/* "memory limit", ... or NULL */
	int64_t		 duration_ms;
	struct buf	 out;
	struct buf	 err;
	bool		 out_truncated;
	bool		 err_truncated;
	struct changes	 changes;
	bool		 changes_known;	/* a change report was made */
	bool		 changes_possible; /* the project was writable */
	const char	*changes_method; /* "syscalls", "snapshot", "none" */
	/* "exact": every call resolved, only the paths they named looked
	   at; "project": the whole project compared (a snapshot, or
	   widened: changes_widened says why); NULL: no report. */
	const char	*changes_scope;
	struct strv	 changes_widened;
	struct violations violations;
	struct attentions attention;	/* changes that need a look */
	struct executions executed;	/* what actually ran inside */
	struct strv	 project_ports;	/* ports of the project's own
					   loopback it connected to, where a
					   server listened (pod.h) */
	struct strv	 project_services; /* for each, the command line of
					   what listened there, "" unknown */
	bool		 loopback_apart; /* the project has a shared loopback
					   and this sandbox is not on it: its
					   access is not the project profile's
					   (sandbox_pod_peer) */
	int		 service;	/* background processes kept as the
					   project's service (engine.h), or 0 */
	int		 background_killed; /* left behind and killed */
	bool		 events_lossy;	/* the live stream missed events */
	cJSON		*sandbox;	/* how the sandbox was built */
	cJSON		*network;	/* the proxy's story (netproxy.h), or
					   NULL without named hosts */
	struct strv	 warnings;
	char		*error;		/* bwgate's own failure, if any */
	char		*cwd_after;	/* where the shell ended (track_cwd) */
	char		*cwd_refused;	/* why it is not cwd_after */
	cJSON		*undo;		/* can it be undone (undo.h), or NULL */
	cJSON		*git;		/* commits, refs, index a git-write
					   run changed (gitops.h), or NULL */
};
#define RESULT_INIT { .exit_code = -1, .changes_possible = true }

void	 changes_release(struct changes *);
void	 changes_add_rename(struct changes *, const char *, const char *);
size_t	 changes_count(const struct changes *);
cJSON	*changes_json(const struct changes *);

/* The hint of a direct connection where only the proxy leads out. */
/* A local port refused in a sandbox off the project's loopback. */
#define REPORT_APART_HINT "the project's services are not on this " \
	"sandbox's loopback: reaching one acts with its access, so only a " \
	"command run with the 'project' profile reaches them; ask the " \
	"operator to approve the command with that profile (its verdict " \
	"names it)"
#define REPORT_PROXY_HINT "direct connections are refused: the allowed " \
	"hosts are reached only through the proxy http://127.0.0.1:3128 " \
	"(HTTP_PROXY, HTTPS_PROXY, ALL_PROXY are set to it); tell the " \
	"client to use them"

const char *violation_reason_name(enum violation_reason);
/* The hint an agent can act on, for a reason. */
const char *violation_hint(enum violation_reason);
/* The hint for a protected project-relative path: names only the profile
   that unlocks it (git-write for git metadata, agent-config for the
   agents' configuration, none for bwgate's policy). */
const char *violation_protected_hint(const char *rel);
/* Add one attempt; repeats of (path, operation, reason) bump count. */
void	 violations_add(struct violations *, const char *path,
	    const char *operation, enum violation_reason, bool exact);
void	 violations_release(struct violations *);
/* Add one attention entry (at most ATTENTION_MAX are kept). */
#define ATTENTION_MAX	256
void	 attentions_add(struct attentions *, const char *path,
	    const char *kind, const char *why);
void	 attentions_release(struct attentions *);
/* Record one exec; repeats of (path, argv) bump count. */
void	 executions_add(struct executions *, const char *path,
	    const struct strv *argv);
void	 executions_release(struct executions *);
cJSON	*executions_json(const struct executions *);
cJSON	*attentions_json(const struct attentions *);
cJSON	*violations_json(const struct violations *);
/* The hint for v in a run in project (profile-aware inside it). */
const char *violation_hint_in(const struct violation *v,
	    const char *project);

void	 result_release(struct result *);
cJSON	*result_json(const struct result *);
/* A short human summary (report-text.c's lines) for stderr; text from
   the command or its files goes through escape (the display function). */
void	 result_print_summary(FILE *, const struct result *,
	    char *(*escape)(const char *));
/* Exit status of a command stopped by its timeout (timeout(1)'s). */
#define RESULT_TIMED_OUT	124
/* bwgate's exit status for this result (the command's own, 128+N, 124
   for a timeout, 125). */
int	 result_exit_status(const struct result *);

#endif
