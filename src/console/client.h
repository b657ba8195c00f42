/*
 * client: what the console and its clients share about finding and
 * talking to each other: socket paths, the per-user socket directory,
 * connecting, and a blocking line-at-a-time reader for the small clients
 * (bwgate run, sh, list, approve, deny, kill).
 *
 * Socket paths: --socket, else $BWGATE_SOCKET, else one per project:
 * $XDG_RUNTIME_DIR/bwgate/agent-HASH.sock (or under /tmp/bwgate-UID),
 * HASH the first 16 hex digits of the sha256 of the project's path.
 * The control socket sits beside it: "agent.sock" -> "control.sock",
 * "NAME.sock" -> "NAME.control.sock", anything else -> "NAME.control".
 *
 *	char *path = client_socket_path(opt, &cause);
 *	struct client *cl = client_connect(path, &cause);
 *	client_send(cl, json, &cause);
 *	while ((j = client_recv(cl, &cause)) != NULL) { ...; cJSON_Delete(j); }
 *	client_free(cl);
 */
#ifndef BWGATE_CLIENT_H
#define BWGATE_CLIENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "protocol.h"
#include "rundir.h"

/* The agent socket path from an option (may be NULL); caller frees.
   Without an option or $BWGATE_SOCKET: the socket of the console whose
   project holds the current directory (the nearest ancestor that has
   one), else the per-user agent.sock of older consoles, else the
   current directory's own per-project path (for the error). */
char		*client_socket_path(const char *opt, char **cause);
/* A project's own agent socket: DIR/agent-HASH.sock in the runtime
   directory, HASH from the project's canonical path; caller frees. */
char		*client_project_socket(const char *project, char **cause);
/* The control socket path beside an agent socket path; caller frees. */
char		*client_control_path(const char *agent_path);
struct client;

/* Connect; NULL with cause (saying how to start the console). */
struct client	*client_connect(const char *path, char **cause);
int		 client_fd(const struct client *);
/* Send one message (frees j). */
int		 client_send(struct client *, cJSON *j, char **cause);
/* The next message; NULL at end of stream (cause NULL) or on error. */
cJSON		*client_recv(struct client *, char **cause);
/* After a failed send: the console's error message if it refused us
   before closing (caller frees), else NULL. */
char		*client_refusal(struct client *);
/* Does the client hold unread data (a message may be ready)? */
bool		 client_buffered(const struct client *);
void		 client_free(struct client *);

/* The hint printed when the console cannot be reached. */
const char	*client_start_hint(void);

#endif
