/*
 * remote: the console's side of executors on other machines (doc/remote.md).
 *
 * An executor (`bwgate executor`, src/cli/cmd-executor.c) is a console
 * without a screen beside a project on another machine: it classifies,
 * builds the bwrap argv and runs. It reaches this console through ssh's
 * Unix-socket forwarding (`bwgate connect`), on the link socket beside the
 * agent socket (<name>.link.sock). This module accepts those links and
 * mirrors each executor's requests into the console's queue, keyed by host:
 * the front end shows them like local ones (their agent reads
 * "HOST:AGENT"), and the operator actions (console_approve, console_deny,
 * console_kill, console_host_answer, console_undo) on a mirror send the
 * decision over the link instead of doing anything here. A mirror never
 * runs on this machine: queue_next skips every request with a host.
 *
 * Who may link: the peer of the link socket must be our uid (the socket
 * is 0600 in our 0700 runtime directory) and an ssh started by `bwgate
 * connect` (the process that connected, or one of its three nearest
 * ancestors, is this very program with "connect" as its command);
 * the host the console shows is the destination the operator gave
 * connect, never the executor's claim. Anything else is refused, on the
 * record.
 *
 * The wire (one JSON object per line, doc/remote.md):
 *   executor -> console  link, request, output, event, gone, refused
 *   console -> executor  linked; approve, deny, kill, host, undo (the
 *                        control socket's own messages, ids the
 *                        executor's)
 */
#ifndef BWGATE_REMOTE_H
#define BWGATE_REMOTE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "loop.h"
#include "protocol.h"

struct console;
struct request;
struct loop;

/*
 * One end of a link (remote-chan.c): a connected socket on a loop, JSON
 * objects one per line both ways. on_msg gets each message (with a string
 * "type"); on_close runs once, when either side ends it or a line is not
 * a message. Neither may free the struct at once (free it from a timer:
 * the reader may still look at it).
 */
struct rchan {
	struct loop		*loop;
	int			 fd;
	struct proto_reader	 rd;
	struct buf		 out;
	bool			 dead;
	void			(*on_msg)(struct rchan *, const cJSON *,
				    void *);
	void			(*on_close)(struct rchan *, const char *why,
				    void *);
	void			*arg;
};
void	rchan_open(struct rchan *, struct loop *, int fd,
	    void (*on_msg)(struct rchan *, const cJSON *, void *),
	    void (*on_close)(struct rchan *, const char *, void *),
	    void *arg);
/* Queue one message (frees j). */
void	rchan_send(struct rchan *, cJSON *j);
void	rchan_close(struct rchan *, const char *why);

/* The link socket a console of this agent socket listens on; caller
   frees. */
char	*remote_link_path(const char *agent_socket);
/* Listen on the link socket; -1 with cause. */
int	 remote_listen(struct console *, char **cause);
void	 remote_free(struct console *);

/* Free a mirror's record before its request goes. */
void	 remote_forget(struct request *);
/* Is this request a mirror of another machine's? */
bool	 remote_is(const struct request *);
/* Send an operator's decision on a mirror to its executor (m->type:
   approve, deny, kill, host, undo; m->id is ignored); -1 with cause when
   it cannot (the link is down: the request waits there). */
int	 remote_decide(struct console *, struct request *,
	    struct proto_msg *m, const char *who, char **cause);
/* A pending mirror's profile or mounts, sent with its approval. */
int	 remote_set_profile(struct request *, const char *profile);
int	 remote_set_mounts(struct request *, const struct proto_mounts *);
/* Undo a mirror on its machine: the preview its executor sent with the
   ended request (lines and conflicts, as console_undo_preview), and the
   undo itself, sent over the link (its executor checks again). */
int	 remote_undo_preview(struct request *, struct strv *lines,
	    char **cause);
int	 remote_undo(struct console *, struct request *, const char *who,
	    bool force, char **cause);
/* The linked machines, as `bwgate hosts --json` gives them: host,
   project, executor, state ("linked" or "down": its requests wait
   there), since_ms, pending, running. Caller frees. */
cJSON	*remote_hosts(struct console *);
/* The executor's id of a mirror. */
uint32_t remote_id(const struct request *);
/* A mirror's kept output and events. */
const struct buf *remote_output(const struct request *);
const cJSON	*remote_events(const struct request *);

#endif
