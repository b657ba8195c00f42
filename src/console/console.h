/*
 * console: the console core, everything but drawing.
 *
 * A struct console owns the agent socket, the control socket, the
 * optional FIFO, the connected clients, the request queue (queue.h), the
 * audit log (audit.h) and one `bwgate exec` child per running request. It
 * lives on a struct loop (loop.h) that the front end creates and drives:
 *
 *	struct loop *l = loop_new();
 *	struct console_opts o = CONSOLE_OPTS_INIT;  o.project = ...;
 *	struct console *c = console_new(&o, l, &cause);
 *	console_subscribe(c, on_event, ui);	optional, any number
 *	loop_add(l, STDIN_FILENO, POLLIN, ui_key, ui);	the UI's own fds
 *	while (!console_done(c)) {
 *		loop_run_once(l, -1);
 *		if (console_dirty(c) != 0) {	one redraw per pass
 *			ui_draw(ui, c);
 *			console_clear_dirty(c);
 *		}
 *	}
 *	console_free(c);
 *	loop_free(l);
 *
 * A front end learns what changed in two ways, use either or both:
 * callbacks (console_subscribe: each event as it happens, with the
 * request and the data: output chunks, filesystem events, messages), and
 * dirty bits (console_dirty: what kind of thing changed since the last
 * console_clear_dirty), for tmux-style "draw once per loop pass".
 *
 * Operator actions are plain functions (console_approve, console_deny,
 * console_kill, console_rerun, console_set_mounts). They return -1 with a
 * one-line cause (e.g. "cannot approve request 3: it is running") that a
 * front end shows as is. The control socket calls the same functions.
 *
 * Requests belong to the queue (console_queue); the console keeps the
 * last CONSOLE_OUTPUT_KEEP bytes of each request's output and its last
 * CONSOLE_EVENTS_KEEP filesystem events for the front end to show. A
 * request is freed only after CONSOLE_EV_REMOVED is delivered for it.
 */
#ifndef BWGATE_CONSOLE_H
#define BWGATE_CONSOLE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <time.h>

#include "buf.h"
#include "loop.h"
#include "protocol.h"
#include "queue.h"

#define CONSOLE_OUTPUT_KEEP	(256 * 1024)	/* bytes per request */
#define CONSOLE_EVENTS_KEEP	1000		/* events per request */
#define CONSOLE_OUTSIDE_KEEP	200		/* outside any request */
#define CONSOLE_HISTORY_KEEP	1000		/* ended requests kept */

struct console;

/* Writers side by side: each report is its own when changes are recorded
   from each sandbox's system calls, not when they come from scans. */
enum console_writers {
	CONSOLE_WRITERS_AUTO,		/* together where notification works */
	CONSOLE_WRITERS_ALONE,		/* one writer at a time, alone */
	CONSOLE_WRITERS_TOGETHER,	/* side by side */
};

struct console_opts {
	const char	*project;	/* NULL: git top level of cwd, or cwd */
	const char	*socket;	/* NULL: $BWGATE_SOCKET or the default */
	const char	*fifo;		/* NULL: no FIFO */
	const char	*config_file;	/* --config */
	const char	*audit_file;	/* NULL: $XDG_STATE_HOME/bwgate/... */
	const char	*exec_path;	/* the bwgate binary to run children */
	bool		 headless;	/* nobody at a terminal */
	bool		 auto_allowlisted; /* allow verdicts run at once */
	int		 approval_timeout_s; /* 0: wait forever */
	size_t		 max_running;	/* 0: CONSOLE_MAX_RUNNING */
	enum console_writers writers;	/* may writers run side by side */
	bool		 auto_sandboxed; /* what fits the project profile
					   runs at once (console-request.c) */
	bool		 unlisted_wait;	/* headless, auto-allowlisted: the
					   rest waits for the operator */
	bool		 link;		/* take executors' links (remote.h) */
};
#define CONSOLE_OPTS_INIT { NULL, NULL, NULL, NULL, NULL, NULL, false, \
	false, 0, 0, CONSOLE_WRITERS_AUTO, false, false, false }
#define CONSOLE_MAX_RUNNING	16

enum console_event_type {
	CONSOLE_EV_ADDED,	/* a request was queued (classified) */
	CONSOLE_EV_CHANGED,	/* state, decision or mounts changed */
	CONSOLE_EV_OUTPUT,	/* stream + data/len: a chunk of output */
	CONSOLE_EV_FSEVENT,	/* json: one live filesystem event */
	CONSOLE_EV_OUTSIDE,	/* json: a new event outside any request;
				   NULL: the list changed otherwise */
	CONSOLE_EV_REMOVED,	/* the request is about to be freed */
	CONSOLE_EV_MESSAGE,	/* message: a line for the status area */
	CONSOLE_EV_CLIENTS,	/* clients connected or went away */
	CONSOLE_EV_QUIT,	/* the console is shutting down */
	CONSOLE_EV_SERVICE,	/* services came, went, changed; data/len:
				   a chunk of a service's output */
};

struct console_event {
	enum console_event_type	 type;
	struct request		*r;		/* NULL for MESSAGE/CLIENTS */
	const char		*stream;	/* "stdout" or "stderr" */
	const char		*data;
	size_t			 len;
	const cJSON		*json;
	const char		*message;
};

typedef void (*console_cb)(struct console *, const struct console_event *,
    void *arg);

/* Dirty bits (console_dirty). */
enum {
	CONSOLE_DIRTY_QUEUE = (1 << 0),		/* requests added/changed */
	CONSOLE_DIRTY_OUTPUT = (1 << 1),	/* output of some request */
	CONSOLE_DIRTY_EVENTS = (1 << 2),	/* filesystem events */
	CONSOLE_DIRTY_STATUS = (1 << 3),	/* messages, client count */
};

/* Start: open the audit log, load config and allowlist, probe the host,
   bind the sockets (and FIFO), register with the loop. */
struct console	*console_new(const struct console_opts *, struct loop *,
		    char **cause);
/* Kill what runs, close everything, remove the sockets. */
void		 console_free(struct console *);

void		 console_subscribe(struct console *, console_cb, void *arg);
unsigned	 console_dirty(const struct console *);
void		 console_clear_dirty(struct console *);

/* Begin an orderly shutdown (what SIGINT/SIGTERM do): deny what waits,
   kill what runs, wait for their reports; console_done() turns true. */
void		 console_shutdown(struct console *, const char *why);
bool		 console_done(const struct console *);

/* What the front end shows. */
struct queue	*console_queue(struct console *);
struct loop	*console_loop(struct console *);
const char	*console_project(const struct console *);
const char	*console_socket_path(const struct console *);
const char	*console_control_path(const struct console *);
const char	*console_audit_path(const struct console *);
size_t		 console_clients(const struct console *);
/* Machines linked (bwgate hosts), *down of them with the link down. */
size_t		 console_machines(struct console *, size_t *down);
struct config;
/* The configuration in force (reloaded by console_reload). */
const struct config *console_config(const struct console *);
/* The kept output (interleaved stdout/stderr) and events of a request. */
const struct buf *console_output(struct console *,
		    const struct request *);
const cJSON	*console_events(const struct console *, const struct request *);
/* Live events that no running request's recorded calls made (a change on
   the host, or by something else), oldest first; *count: how many were
   seen, those dropped from the front included (console-outside.c). */
const cJSON	*console_outside(const struct console *, uint64_t *count);
/* How much of it was kept: output bytes seen and dropped from the front,
   event lines seen and dropped, events seen (a line's count of repeats
   counted). All 0 for a request that did not run here. */
struct console_kept {
	uint64_t	 out_seen;
	uint64_t	 out_dropped;
	uint64_t	 ev_lines;
	uint64_t	 ev_dropped;
	uint64_t	 ev_count;
};
void		 console_kept(const struct console *, const struct request *,
		    struct console_kept *);
/* The mounts a request will run with (the agent's ask or the edits). */
const struct proto_mounts *console_mounts(const struct request *);

/* Operator actions; who names the operator ("terminal", "uid 1000"). */
int		 console_approve(struct console *, uint32_t id,
		    const char *who, const char *note, char **cause);
/* The same for a request whose verdict is danger, once the operator
   confirmed it deliberately (console_approve refuses those). */
int		 console_approve_danger(struct console *, uint32_t id,
		    const char *who, const char *note, char **cause);
int		 console_deny(struct console *, uint32_t id, const char *who,
		    const char *note, char **cause);
int		 console_kill(struct console *, uint32_t id, const char *who,
		    char **cause);
/* Why the project's .bwgate.json was refused (it widens the sandbox;
   the other rule files count), or NULL. */
const char	*console_rules_problem(const struct console *);
/* Queue an ended request's command again; returns the new id or 0. */
uint32_t	 console_rerun(struct console *, uint32_t id, const char *who,
		    char **cause);
/* Replace a pending request's extra mounts (network, rw, ro, hide) and
   rebuild its bwrap argv; the agent sees them in the decided message. */
int		 console_set_mounts(struct console *, uint32_t id,
		    const struct proto_mounts *, char **cause);
/* The project a console started here would serve: opt, else the git top
   level of the current directory, else the directory; caller frees. */
char		*console_find_project(const char *opt, char **cause);
/* Undo a finished request (undo.h): the plan's lines for a preview and
   the number of conflicts (-1 with cause when it cannot be undone); then
   the undo itself, audited, its agent told with its next result. */
int		 console_undo_preview(struct console *, uint32_t id,
		    struct strv *lines, char **cause);
int		 console_undo(struct console *, uint32_t id, const char *who,
		    bool force, char **cause);
/* Run a pending request with the named sandbox profile instead of its
   verdict's (bwgate approve --profile, the UI's approve keys). */
int		 console_set_profile(struct console *, uint32_t id,
		    const char *profile, char **cause);
/* Submit a command as if it came from the FIFO (for front ends). */
uint32_t	 console_submit(struct console *, const char *command,
		    const char *agent, char **cause);

/*
 * The project's services (console-service.c): a request's background
 * processes kept after its command ended, known by the request's id.
 * Front ends read them (console_services), never change them.
 */
enum { SERVICE_OUT, SERVICE_ERR, SERVICE_EVENTS, SERVICE_NFDS };
#define CONSOLE_SERVICE_KEEP	(64 * 1024)	/* output kept, bytes */
#define CONSOLE_SERVICE_TAIL	3		/* lines in bwgate list */
struct service {
	struct console		*c;
	uint32_t		 id;		/* its request's */
	char			*command;
	char			*agent;		/* or NULL */
	pid_t			 pid;		/* its bwgate exec */
	int			 processes;	/* when it began */
	time_t			 started;
	struct buf		 out;		/* the last output */
	uint64_t		 out_seen;	/* bytes in all */
	int			 ports[16];	/* TCP ports it listens on */
	size_t			 nports;
	struct buf		 evin;		/* exec's event lines, partial */
	bool			 stopping;	/* asked to stop */
	bool			 exited;
	char			*stopped_by;	/* who stopped it, or NULL */
	int			 fds[SERVICE_NFDS];
	int			 kill_timer;
	int			 drain_timer;
	TAILQ_ENTRY(service)	 entry;
};
/* The services (at most max into v, oldest first); how many there are. */
size_t		 console_services(struct console *,
		    const struct service **v, size_t max);
/* The service request id started, or NULL. */
const struct service *console_service(struct console *, uint32_t id);
/* Where the last n lines of b begin. */
const char	*service_tail(const struct buf *b, int n);
/* Stop service id (SIGTERM to its processes, SIGKILL after the grace
   period); -1 with cause when there is none. */
int		 console_service_stop(struct console *, uint32_t id,
		    const char *who, char **cause);

/* Read the configuration and rule files again (after the operator added a
   rule, `bwgate reload`, SIGHUP when headless); requests already queued
   keep their verdicts and sandboxes. -1 with cause (old ones kept). */
int		 console_reload(struct console *, const char *who, char **cause);
/* Answer a request's question about a new host (hostask.c): "once",
   "project" (the operator's rules for this project) or "deny". When its
   proxy asks about several at once, the oldest ("wants"; the others are
   "wants_also", answered one after another). */
int		 console_host_answer(struct console *, uint32_t id,
		    const char *answer, const char *who, const char *note,
		    char **cause);

#endif
