/*
 * mcp: the pieces of `bwgate mcp`, an MCP server on stdio (JSON-RPC 2.0,
 * MCP revision 2025-06-18; doc/agents.md).
 *
 *	mcp-rpc.c	JSON-RPC framing: replies, errors, notifications
 *	mcp-tools.c	the tool table (names, JSON Schemas, handlers)
 *	mcp-run.c	the run tool: a console request followed to its end
 *	mcp-path.c	paths inside the project, opened without escape
 *	mcp-files.c	read_file, write_file, edit_file, list_directory
 *	cmd-mcp.c	the subcommand: options and the poll loop
 *
 * One process serves one client. Tool calls that wait (run) keep their
 * console connection in a list of calls; the loop polls stdin and every
 * call's connection, so ping and cancellation are answered while a
 * command waits for the operator or runs.
 */
#ifndef BWGATE_MCP_H
#define BWGATE_MCP_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "strv.h"

#define MCP_PROTOCOL		"2025-06-18"	/* the revision we speak */

/* JSON-RPC 2.0 error codes. */
#define RPC_PARSE_ERROR		-32700
#define RPC_INVALID_REQUEST	-32600
#define RPC_METHOD_NOT_FOUND	-32601
#define RPC_INVALID_PARAMS	-32602
#define RPC_INTERNAL_ERROR	-32603

struct client;

/* A tool call still in progress (a run waiting or running). */
struct mcp_call {
	struct mcp_call	*next;
	cJSON		*rpc_id;	/* the JSON-RPC request id */
	cJSON		*token;		/* progressToken, or NULL */
	struct client	*cl;		/* the console connection */
	uint32_t	 id;		/* the console's request id, 0: none */
	char		*verdict;
	char		*reason;
	unsigned	 progress;	/* notifications sent */
	unsigned	 events;	/* live file events seen */
	int64_t		 last_ms;	/* of the last event notification */
	bool		 pending;	/* an event notification is due */
	int64_t		 wait_ms;	/* say "waiting" then, 0: no */
	int64_t		 start_ms;	/* when the call came */
	int64_t		 beat_ms;	/* the next steady progress, 0: none */
	bool		 decided;	/* approved: waits no more */
	/* A file write (write_file, edit_file), else NULL. */
	const char	*tool;
	char		*path;		/* relative to the project */
	size_t		 bytes;
	unsigned	 replacements;	/* edit_file */
	char		*diff;		/* edit_file */
};

struct mcp {
	const char	*socket;	/* --socket, else the default */
	const char	*agent;		/* the name the console shows */
	bool		 agent_named;	/* by --agent: the client's own name
					   does not replace it */
	char		*client;	/* "mcp NAME" from initialize */
	char		*project;	/* canonical project root */
	int		 project_fd;	/* O_PATH descriptor of it */
	struct strv	 protected;	/* configured protected paths */
	struct strv	 hidden;	/* hidden paths inside the project */
	struct mcp_call	*calls;
	bool		 initialized;
};

/* cmd-mcp.c: handle one line (one JSON-RPC message) from the client. */
void	 mcp_line(struct mcp *, const char *line, size_t len);

/* mcp-rpc.c */
void	 mcp_send(cJSON *msg);
void	 mcp_reply(const cJSON *id, cJSON *result);
void	 mcp_error(const cJSON *id, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 mcp_notify(const char *method, cJSON *params);
/* A tools/call result: text for the model, structured content, isError. */
void	 mcp_tool_result(const cJSON *id, cJSON *structured, const char *text,
	    bool is_error);
/* A tool error the model can read (isError, text only). */
void	 mcp_tool_error(const cJSON *id, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* notifications/progress for a token (no-op when token is NULL). */
void	 mcp_progress(const cJSON *token, unsigned progress, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));

/* mcp-tools.c */
cJSON	*mcp_tools_list(void);
/* Run a tools/call; replies now or later (run, writes). */
void	 mcp_tools_call(struct mcp *, const cJSON *id, const cJSON *params);
/* Argument helpers: -1 with cause when present but mistyped, or absent
   and required. */
int	 mcp_arg_string(const cJSON *args, const char *name, bool required,
	    const char **out, char **cause);
int	 mcp_arg_int(const cJSON *args, const char *name, long min, long max,
	    long *out, char **cause);
int	 mcp_arg_strv(const cJSON *args, const char *name, struct strv *out,
	    char **cause);
int	 mcp_arg_bool(const cJSON *args, const char *name, bool *out,
	    char **cause);

/* mcp-run.c */
void	 mcp_run_tool(struct mcp *, const cJSON *id, const cJSON *args,
	    const cJSON *token);
/* Ask the console to write a file (write_file, edit_file): a request
   like a command; the call is answered when it ends. The call takes
   diff. */
void	 mcp_run_write(struct mcp *, const cJSON *id, const cJSON *token,
	    const char *tool, const char *rel, const char *content,
	    size_t len, unsigned replacements, char *diff);
/* A write the file tools refuse (a protected path): it still goes to the
   console, whose verdict refuses it on the record (queue, history, audit
   log); with no console, the refusal goes to the audit log
   (edge-refusal.h) and the agent reads why. */
void	 mcp_run_refused(struct mcp *, const cJSON *id, const cJSON *token,
	    const char *tool, const char *rel, const char *content,
	    size_t len, const char *why);
/* The call's connection is readable; false when the call ended. */
bool	 mcp_run_readable(struct mcp *, struct mcp_call *);
/* Send due event progress; the ms until the next is due (-1: none). */
int	 mcp_run_timers(struct mcp *);
/* Cancel the call with this JSON-RPC id (no reply is sent). */
void	 mcp_run_cancel(struct mcp *, const cJSON *rpc_id);
void	 mcp_call_free(struct mcp_call *);

/* mcp-path.c */
/*
 * Check a path an agent gave and make it relative to the project: refuses
 * empty paths, ".." components and absolute paths outside the project.
 * Returns the relative path ("." for the root; caller frees) or NULL.
 */
char	*mcp_path_relative(const struct mcp *, const char *path,
	    char **cause);
/* Open rel (from mcp_path_relative) beneath the project with no symbolic
   link followed; flags as for openat. -1 with cause. */
int	 mcp_path_open(const struct mcp *, const char *rel, int flags,
	    mode_t mode, char **cause);
/* Open the directory holding rel (creating missing directories when
   mkdirs); *name is rel's last component (points into rel). */
int	 mcp_path_parent(const struct mcp *, const char *rel, bool mkdirs,
	    const char **name, char **cause);
/* Why a write to rel is refused (caller frees), or NULL when it may be
   written. */
char	*mcp_path_protected(const struct mcp *, const char *rel);
/* Why a read of rel is refused (hidden), or NULL. */
char	*mcp_path_hidden(const struct mcp *, const char *rel);

/* mcp-files.c */
void	 mcp_read_file(struct mcp *, const cJSON *id, const cJSON *args,
	    const cJSON *token);
void	 mcp_write_file(struct mcp *, const cJSON *id, const cJSON *args,
	    const cJSON *token);
void	 mcp_edit_file(struct mcp *, const cJSON *id, const cJSON *args,
	    const cJSON *token);
void	 mcp_list_directory(struct mcp *, const cJSON *id, const cJSON *args,
	    const cJSON *token);
/* A whole text file beneath the project (no NUL bytes, at most 16 MiB). */
int	 mcp_file_load(struct mcp *, const char *rel, struct buf *,
	    char **cause);
/* Replace old by new in text (all: every occurrence, else exactly one);
   out gets the result, diff the hunks, *count the replacements. */
int	 mcp_edit_apply(const char *text, const char *old, const char *new,
	    bool all, struct buf *out, struct buf *diff, size_t *count,
	    char **cause);

#endif
