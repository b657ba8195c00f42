/*
 * queue: the console's requests and the rules for moving them along.
 *
 * Pure bookkeeping, no I/O: each request has an id, who sent it, the
 * command, its verdict and sandbox, and a state:
 *
 *	pending -> approved -> running -> finished | failed | killed | timed-out
 *	        -> denied
 *	pending | approved -> withdrawn   (the agent cancelled or went away)
 *
 * Every transition records who made it (request_by + a free-form "who").
 * queue_next() says which approved request may start now. With
 * writers_alone (the default, and the only safe choice when change reports
 * come from scanning the project) commands whose profile can write the
 * project run one at a time and alone (so each change report belongs to
 * one command); read-only ones run alongside each other; a waiting writer
 * holds back later requests so it is not starved. Without it (change
 * reports from each sandbox's own recorded calls) every approved request
 * starts in id order, up to max_running. Requests are kept in id order.
 *
 *	struct queue q;  queue_init(&q);
 *	struct request *r = queue_add(&q);	state pending, id assigned
 *	queue_decide(&q, r, true, BY_OPERATOR, "uid 1000", NULL, &cause);
 *	while ((r = queue_next(&q)) != NULL) queue_start(&q, r, &cause) ...
 *	queue_finish(&q, r, REQUEST_FINISHED, &cause);
 *	queue_release(&q);
 *
 * The queue owns its requests; queue_remove() frees one.
 */
#ifndef BWGATE_QUEUE_H
#define BWGATE_QUEUE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include "allowlist.h"
#include "protocol.h"
#include "strv.h"

enum request_state {
	REQUEST_PENDING,
	REQUEST_APPROVED,
	REQUEST_DENIED,
	REQUEST_RUNNING,
	REQUEST_FINISHED,	/* ran to the end (any exit status) */
	REQUEST_FAILED,		/* bwgate could not run it */
	REQUEST_KILLED,
	REQUEST_TIMED_OUT,
	REQUEST_WITHDRAWN,
};

/* Who moved a request. */
enum request_by {
	BY_NOBODY,
	BY_ALLOWLIST,		/* allow/deny rule, auto-allowlisted mode */
	BY_OPERATOR,		/* terminal UI or control socket */
	BY_HEADLESS,		/* headless rule: ask -> denied */
	BY_TIMEOUT,		/* approval timeout */
	BY_CONSOLE,		/* console shutting down, sandbox error */
	BY_AGENT,		/* cancel, or disconnect */
	BY_SANDBOX,		/* sandboxed mode: fits the project
				   profile, runs without review */
};

struct request {
	uint32_t		 id;
	uint32_t		 rerun_of;	/* 0, or the request repeated */
	char			*agent;
	char			*description;	/* the agent's why, or NULL */
	char			*refused;	/* refused at the edge: why */
	char			*tag;		/* agent's label */
	int64_t			 submitted;	/* wall clock, ms since epoch */
	int64_t			 started;
	int64_t			 ended;

	char			*command;	/* what was classified */
	bool			 is_argv;	/* came as an argv */
	struct strv		 argv;		/* the argv run inside */
	char			*cwd;		/* canonical, in the project */
	int			 timeout_s;	/* 0: default */
	double			 memory;	/* lowered limits, 0: as is */
	int			 pids;
	int			 cpu_s;
	struct proto_mounts	 asked;		/* agent's requested changes */
	struct proto_mounts	 edits;		/* operator's changes */
	bool			 edited;	/* edits replace asked */
	bool			 has_env;	/* the agent sent its env */
	struct strv		 env;		/* the agent's NAME=VALUE */
	struct strv		 env_changed;	/* inside, unlike the default */
	bool			 stdin_stream;	/* the agent streams stdin */
	bool			 merge_output;	/* stderr into stdout */
	bool			 track_cwd;	/* report cwd_after */
	struct strv		 shell_options;	/* for a command string */
	struct strv		 args;		/* $0 and positional params */

	enum verdict		 verdict;
	char			*rule;
	char			*reason;
	char			*at_stake;	/* danger: what it puts at stake
						   (stake.h), or NULL */
	bool			 undo_restores;	/* danger: only deletes that
						   undo puts back
						   (stake_judge) */
	char			*profile;
	char			*needs;		/* more than the project profile,
						   by its words (allowlist.h) */
	bool			 needs_at_once;	/* only what git-write's
						   protections and undo cover:
						   sandboxed mode runs it */
	char			*op_profile;	/* the operator's choice, or NULL */
	bool			 writes;	/* profile can write the project */
	bool			 network;	/* the sandbox below has it (the
						   argv never says: slirp4netns) */
	struct strv		 domains;	/* or these hosts only (proxy) */
	char			*wants;		/* "host:port" its proxy asks
						   about now (hostask.c), or NULL */
	char			*wants_class;	/* what it resolves to when not
						   public, or NULL */
	struct strv		 wants_also;	/* "host:port" asked about
						   after it, oldest first */
	struct strv		 bwrap_argv;	/* dry-run argv, for people */
	cJSON			*mounts;	/* mount table of that argv */
	cJSON			*spec;		/* what exec runs (engine-spec.h) */
	cJSON			*sources;	/* {file: sha256} it came from */

	enum request_state	 state;
	enum request_by		 by;		/* who decided / ended it */
	char			*who;
	char			*note;		/* operator's or console's note */

	int			 exit_status;	/* bwgate run's exit status */
	cJSON			*report;	/* the exec JSON report */
	char			*error;

	bool			 file_write;	/* a "write" submit (filereq.h) */
	char			*write_path;	/* its project-relative path */
	char			*write_diff;	/* what the operator sees */
	size_t			 write_bytes;
	bool			 write_exec;	/* the file has an execute bit */
	bool			 undo_told;	/* its agent heard it was undone */
	bool			 undone;	/* its run was put back */
	char			*host;		/* the machine it runs on (a
						   mirror, remote.h), or NULL */
	void			*remote;	/* remote.c's record of it */
	void			*owner;		/* the server's (connection) */
	void			*data;		/* the front end's */
	TAILQ_ENTRY(request)	 entry;
};
TAILQ_HEAD(request_list, request);

struct queue {
	struct request_list	 requests;	/* id order */
	uint32_t		 next_id;
	size_t			 n;
	size_t			 running;
	size_t			 running_writers;
	size_t			 max_running;	/* 0: no limit */
	bool			 writers_alone;	/* one writer at a time, alone
						   (queue_init: true) */
};

void		 queue_init(struct queue *);
void		 queue_release(struct queue *);
/* A new pending request with the next id. */
struct request	*queue_add(struct queue *);
struct request	*queue_find(const struct queue *, uint32_t id);
/* Unlink and free (any state; the caller stops what runs first). */
void		 queue_remove(struct queue *, struct request *);

/* pending -> approved | denied. */
int		 queue_decide(struct queue *, struct request *, bool approve,
		    enum request_by, const char *who, const char *note,
		    char **cause);
/* pending | approved -> withdrawn. */
int		 queue_withdraw(struct queue *, struct request *,
		    enum request_by, const char *why, char **cause);
/* The approved request that may start now, or NULL. */
struct request	*queue_next(const struct queue *);
/* approved -> running (only what queue_next allows). */
int		 queue_start(struct queue *, struct request *, char **cause);
/* running -> finished | failed | killed | timed-out. */
int		 queue_finish(struct queue *, struct request *,
		    enum request_state, char **cause);

bool		 request_ended(const struct request *);
/* Wall-clock milliseconds (the times requests carry). */
int64_t		 queue_wall_ms(void);
const char	*request_state_name(enum request_state);
const char	*request_by_name(enum request_by);
/* The request for lists, the UI and the audit log (no report). */
cJSON		*request_json(const struct request *);

#endif
