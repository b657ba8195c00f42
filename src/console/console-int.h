/*
 * console-int.h: what the console's own files share (not for other
 * modules; console.h is the API). See console.c for the overview.
 */
#ifndef BWGATE_CONSOLE_INT_H
#define BWGATE_CONSOLE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "allowlist.h"
#include "audit.h"
#include "buf.h"
#include "config.h"
#include "pod.h"
#include "console.h"
#include "probe.h"
#include "protocol.h"
#include "queue.h"

#define CONSOLE_MAX_OUTBUF	(64 * 1024 * 1024)	/* unread replies */
#define CONSOLE_MAX_REPORT	(512 * 1024 * 1024)
#define CONSOLE_KILL_WAIT_MS	10000	/* SIGTERM -> SIGKILL of exec */
#define CONSOLE_DRAIN_MS	2000	/* pipes after the child exited */
#define CONSOLE_SHUTDOWN_MS	15000	/* longest orderly shutdown */
#define CONSOLE_EXIT_FAILED	125	/* bwgate failed before running it */
#define CONSOLE_AUDIT_RETRY_MS	500	/* while the audit log fails */
#define CONSOLE_MAX_INPUT	(1024 * 1024)	/* stdin buffered per job */

enum conn_kind {
	CONN_AGENT,
	CONN_CONTROL,
};

struct conn {
	struct console		*c;
	int			 fd;
	enum conn_kind		 kind;
	uid_t			 uid;
	pid_t			 pid;
	struct proto_reader	 rd;
	struct buf		 out;
	bool			 closing;	/* close once out is flushed */
	bool			 paused;	/* a job's stdin buffer is full */
	int			 resume_timer;	/* lines read while paused */
	bool			 dead;		/* close at the next chance */
	LIST_ENTRY(conn)	 entry;
};
LIST_HEAD(conn_list, conn);

enum {
	JOB_OUT,
	JOB_ERR,
	JOB_JSON,
	JOB_EVENTS,
	JOB_NFDS
};

struct job {
	struct console		*c;
	struct request		*r;
	struct conn		*conn;		/* NULL: FIFO, rerun, gone */
	pid_t			 pid;
	int			 fds[JOB_NFDS];
	struct buf		 json;
	struct proto_reader	 evrd;
	char			 hold[2][4];	/* split UTF-8 sequences */
	size_t			 holdlen[2];
	bool			 exited;
	int			 wstatus;
	bool			 killing;
	int			 kill_timer;
	int			 drain_timer;
	int			 approval_timer;
	struct buf		 log;		/* kept output (until spooled) */
	size_t			 log_len;	/* its length, once spooled */
	bool			 log_spooled;	/* on disk (spool.c) */
	bool			 streams_spooled; /* the report's too */
	int			 in_fd;		/* the command's stdin, or -1 */
	struct buf		 in;		/* stdin not yet written */
	bool			 in_end;	/* input-end came */
	bool			 in_closed;	/* stdin closed: drop input */
	cJSON			*events;	/* kept events */
	uint64_t		 out_seen;	/* output bytes in all */
	uint64_t		 ev_lines;	/* event lines in all */
	uint64_t		 ev_count;	/* events (repeats counted) */
	bool			 ev_uncertain;	/* an event it could not attribute */
	/* The proxy's questions about new hosts (hostask.c). */
	int			 ask_fd;	/* exec's --ask-fd, or -1 */
	struct buf		 ask_in;
	struct hostq		*askq;		/* oldest first; its head is
						   the request's "wants" */
};

/* One question about a new host (hostask.c). */
struct hostq {
	struct hostq		*next;
	struct job		*jb;
	double			 q;		/* exec's number for it */
	char			*host;
	int			 port;
	char			*class;		/* "a loopback address": where
						   it leads when not public */
	int			 timer;
};

/* One exec started ahead of need (console-warm.c). */
#define WARM_RETIRED_MAX	8

struct warm {
	pid_t			 pid;		/* 0: none */
	int			 fds[JOB_NFDS];	/* its output pipes, read ends */
	int			 spec_fd;	/* its policy pipe, write end */
	int			 in_fd;		/* its stdin pipe, write end */
	int			 timer;
	bool			 broken;	/* died unused: wait for a run */
	size_t			 predicted;	/* bytes of prediction written */
	char			*predict;	/* the next one's prediction: the
						   last read-only request's spec
						   line, or NULL */
	char			*predict_key;	/* engine_spec_sandbox_key */
	char			*given;		/* the waiting one's key, or NULL */
	pid_t			 retired[WARM_RETIRED_MAX]; /* told to end (the
						   end of their spec), not
						   reaped yet; 0: free */
};

struct console_sub {
	console_cb	 cb;
	void		*arg;
};

struct console {
	struct loop		*loop;
	struct pod		 pod;		/* the project's world, held */
	uint32_t		 ids_saved;	/* the last id in the state dir */
	struct digestcache	*digests;	/* of rule and config files */
	char			*project;
	char			*socket_path;
	char			*link_path;	/* console-link.c */
	struct remote		*remote;	/* remote.c: executors' links */
	char			*control_path;
	char			*session_rules;	/* the A form's "this session"
						   rules (allowlist.h) */
	char			*fifo_path;
	char			*exec_path;
	char			*config_file;
	bool			 headless;
	bool			 auto_allowlisted;
	bool			 auto_sandboxed;
	bool			 unlisted_wait;	/* --unlisted wait */
	int			 approval_timeout_s;
	uid_t			 uid;
	char			*console_id;	/* in every audit record */
	struct strv		 git_identity;	/* GIT_AUTHOR_*=... (gitid.h) */

	struct queue		 q;
	struct audit		*audit;
	struct config		 cfg;
	struct allowlist	*al;
	struct probe		 probe;

	int			 lock_fd;	/* flock on <socket>.lock */
	int			 agent_fd;
	int			 control_fd;
	int			 accept_backoff_ms; /* >0: accepting paused */
	struct stat		 agent_st;
	struct stat		 control_st;
	int			 fifo_fd;
	bool			 fifo_created;
	struct proto_reader	 fiford;

	struct conn_list	 conns;
	size_t			 nconns;
	bool			 reap_armed;
	bool			 audit_dirty;	/* appended, not yet synced */
	char			*audit_failing;	/* why the last sync failed */
	bool			 commit_armed;
	void			(*commit)(void *);	/* console_commit */

	cJSON			*outside;	/* events no request made */
	cJSON			*outside_held;	/* waiting for a claim */
	int			 outside_timer;
	uint64_t		 outside_count;	/* seen, less those claimed */

	struct console_sub	*subs;
	size_t			 nsubs;
	unsigned		 dirty;

	int			 undo_timer;	/* console_undo_watch */
	char			*spool;		/* ended requests' output
						   (spool.c), or NULL */
	int			 spool_lock;	/* flock held on its .lock */
	struct buf		 out_cache;	/* one read back */
	uint32_t		 out_cache_id;

	TAILQ_HEAD(, service)	 services;	/* console-service.c */
	size_t			 nservices;
	bool			 shutting_down;
	struct warm		 warm;
	bool			 done;
	int			 shutdown_timer;
};

/* spool.c: an ended request's output on disk, read back when shown. */
void	spool_init(struct console *c);
void	spool_release(struct console *c);
/* Move a finished job's kept output and its report's streams to disk. */
void	spool_job(struct console *c, struct job *jb);
/* The kept output read back (cached for one request at a time). */
const struct buf *spool_output(struct console *c, const struct job *jb);
/* r's report with its streams read back (caller frees), or NULL when
   they are not spooled (r->report holds them). */
cJSON	*spool_report(struct console *c, const struct request *r);
/* Forget request id's files. */
void	spool_drop(struct console *c, uint32_t id);

/* console-undo.c: add the undo notices for r's agent to its report. */
/* A finished request's run is known by the request's number: in its report
   ("undo": {"request": N}) and in the undo store (undo_set_request). */
void	console_undo_tag(struct console *c, struct request *r);
/* Mark the finished requests whose runs were undone since (`bwgate undo`
   on the command line marks only the store). */
void	console_undo_refresh(struct console *c);
/* Look for such undos every CONSOLE_UNDO_WATCH_MS while on. */
void	console_undo_watch(struct console *c, bool on);
void	console_undo_notices(struct console *c, const struct request *r,
	    cJSON *report);

/* console-outside.c: an exec's event no recorded call of its own
   named (takes e); a request's own event, which no longer is outside; a
   request's uncertain event, which it may have made. */
void	outside_event(struct console *c, struct job *jb, cJSON *e);
void	outside_claim(struct console *c, const cJSON *e);
void	outside_maybe(struct console *c, const struct request *r,
	    const cJSON *e);

/* console.c */
void	console_emit(struct console *c, const struct console_event *ev);
void	console_emit_request(struct console *c, enum console_event_type type,
	    struct request *r);
void	console_commit(void *arg);
void	console_arm_commit(struct console *c);
int	console_audit(struct console *c, cJSON *rec);
cJSON	*audit_record(const char *what, const struct request *r);
struct request	*console_find(struct console *c, uint32_t id, char **cause);
void	console_message(struct console *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* console-server.c */
void	conn_flush(struct conn *cn);
void	conn_pause(struct conn *cn, bool paused);
void	request_send(struct request *r, cJSON *j);
void	console_accept(int lfd, short revents, void *arg);
int	console_open_fifo(struct console *c, char **cause);
int	console_lock(const char *path, char **cause);
int	console_listen(const char *path, struct stat *stp, char **cause);
void	console_close_listeners(struct console *c);
/* console-link.c: the link to the agent socket in the default runtime
   directory, made and removed. */
void	console_link_default(struct console *c);
void	console_unlink_default(struct console *c);

/* console-request.c */
void	request_classify(struct console *c, struct request *r);
/* request-env.c: an agent's code-running variables make it ask. */
void	request_env_verdict(struct request *r);
int	request_announce(struct console *c, struct request *r);
/* The rule and configuration files that changed since the request was
   classified, as a JSON array, or NULL. */
cJSON	*request_sources_changed(struct console *c,
	    const struct request *r);
void	request_auto_deny(struct console *c, struct request *r,
	    enum request_by by, const char *note);
void	request_first_decision(struct console *c, struct request *r,
	    const char *operator);
struct job	*job_new(struct console *c, struct request *r, struct conn *cn);
void	job_free(struct job *jb);
void	request_ended_cleanup(struct console *c, struct request *r);
void	request_decided(struct console *c, struct request *r);
uint32_t	console_submit_msg(struct console *c, struct conn *cn,
	    struct proto_msg *m, const char *agent, char **cause);

/* console-job.c */
void	job_kill(struct job *jb, enum request_by by, const char *why);
/* console-warm.c */
/* The argv of `bwgate exec` for a job (everything else is in the spec). */
void	console_exec_argv(struct console *c, struct strv *av);
void	warm_init(struct console *c);
bool	warm_take(struct console *c, struct job *jb, const char *spec,
	    int *in_fd);
/* Have one ready for the next request: once a request ended, or a while
   after one started (not at once: making the next sandbox would share the
   CPUs with the request's own start); now at start-up. */
void	warm_again(struct console *c, bool now);
void	warm_reap(struct console *c);
/* A request's spec was handed to an exec: predict the next from it. */
void	warm_predict(struct console *c, const struct request *r,
	    const char *spec);
void	warm_stop(struct console *c);
/* SIGKILL now: exec, bwrap and the sandbox, whatever phase it is in. */
void	job_kill_now(struct job *jb);
void	console_schedule(struct console *c);
void	console_sigchld(int signo, void *arg);
void	job_input(struct job *jb, const void *data, size_t len, bool end);

/* hostask.c */
void	hostask_open(struct job *jb, int fd);
/* Deny a pending question, close the socket. */
void	hostask_close(struct job *jb);
int	hostask_answer(struct console *c, uint32_t id, const char *answer,
	    const char *who, const char *note, bool *reload, char **cause);

/* console.c */
void	console_check_done(struct console *c);

/* console-service.c: a finished request's exec child that serves its
   background processes; reaping; stopping them all (the console ends);
   freeing what is left; the list for bwgate list. */
void	service_adopt(struct console *c, struct job *jb, int processes);
void	service_reap(struct console *c);
void	service_stop_all(struct console *c, const char *who);
void	service_free_all(struct console *c);
void	service_free(struct console *c, struct service *s);
cJSON	*console_services_json(struct console *c);
cJSON	*service_json(const struct service *s);

#endif
