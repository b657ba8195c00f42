/*
 * protocol: the console's newline-delimited JSON protocol (doc/protocol.md).
 *
 * Pure code, no I/O: a line reader that splits a byte stream into lines
 * with a length limit, a decoder that turns one line into a typed struct
 * proto_msg (or a one-line error naming the problem), and helpers that
 * build the console's replies.
 *
 * Every message is one JSON object on one line with a "type" member and an
 * optional "v" (protocol version, PROTO_VERSION when absent). Which types a
 * channel accepts is the server's business: the agent socket takes submit
 * and cancel, the control socket takes list, approve, deny, kill, rerun.
 *
 *	struct proto_reader rd = PROTO_READER_INIT;
 *	proto_reader_feed(&rd, bytes, n);
 *	while ((r = proto_reader_next(&rd, &line, &len)) != PROTO_LINE_NONE) {
 *		struct proto_msg m = PROTO_MSG_INIT;
 *		if (r == PROTO_LINE_OK && proto_decode(line, len, &m, &cause) == 0)
 *			...
 *		proto_msg_release(&m);
 *	}
 *	proto_reader_release(&rd);
 *
 * Requests (what agents and the control clients send) are encoded from the
 * same struct the decoder fills, by one table of members: a client fills a
 * struct proto_msg and sends proto_msg_json(&m); decoding that line gives
 * m back.
 *
 * Replies are encoded the same way (protocol-reply.c): the console fills
 * a struct proto_out and sends proto_out_json(&o); proto_encode() turns
 * any message into "...\n".
 */
#ifndef BWGATE_PROTOCOL_H
#define BWGATE_PROTOCOL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "strv.h"

#define PROTO_VERSION		1
#define PROTO_MAX_LINE		(1024 * 1024)	/* bytes, without '\n' */
#define PROTO_MAX_ID		UINT32_MAX

enum proto_type {
	PROTO_SUBMIT,		/* agent: run this command */
	PROTO_CANCEL,		/* agent: withdraw or kill my request */
	PROTO_LIST,		/* control: the queue */
	PROTO_APPROVE,		/* control: approve (maybe with mount edits) */
	PROTO_DENY,		/* control: deny with a note */
	PROTO_KILL,		/* control: kill a running request */
	PROTO_RERUN,		/* control: submit a finished request again */
	PROTO_RELOAD,		/* control: read configuration and rules again */
	PROTO_SHOW,		/* control: one request with its report */
	PROTO_INPUT,		/* agent: bytes for a request's stdin */
	PROTO_INPUT_END,	/* agent: end of a request's stdin */
	PROTO_HOST,		/* control: answer a request's host question */
	PROTO_HOSTS,		/* control: the linked machines */
	PROTO_STOP,		/* control: stop a service (its request's id) */
};

/* Sandbox changes asked for by an agent or made by the operator. */
struct proto_mounts {
	int		 network;	/* -1 unchanged, 0 off, 1 on */
	struct strv	 rw;
	struct strv	 ro;
	struct strv	 hide;
	struct strv	 domains;	/* hosts through the proxy, as asked
					   ("@group" allowed) */
};

struct proto_msg {
	enum proto_type	 type;
	int		 version;
	char		*tag;		/* agent's label, echoed back */
	uint32_t	 id;		/* cancel/approve/deny/kill/rerun */
	char		*command;	/* submit: a shell string, or */
	struct strv	 argv;		/* submit: an argv */
	char		*cwd;		/* submit: NULL = project root */
	char		*agent;		/* submit: agent name */
	char		*description;	/* submit: why, in the agent's own
					   words (shown, never judged) */
	char		*refused;	/* submit: an adapter refused it
					   itself (bwgate hook): why; the
					   console denies it, on the record */
	int		 timeout_s;	/* submit: 0 = default */
	char		*note;		/* approve/deny: operator's note */
	char		*answer;	/* host: once, project or deny */
	struct proto_mounts mounts;	/* submit (asked), approve (edits) */
	/* submit with "write": write one file of the project. */
	char		*write_path;	/* as the agent gave it */
	char		*write_content;	/* write_len bytes, NUL-ended */
	size_t		 write_len;
	/* submit: lower this command's limits (never raise); 0: as is */
	double		 memory;	/* bytes */
	int		 pids;
	int		 cpu_s;
	bool		 has_env;	/* submit: "env" given */
	struct strv	 env;		/* submit: NAME=VALUE, sorted */
	bool		 stdin_stream;	/* submit: input messages follow */
	bool		 merge_output;	/* submit: stderr into stdout */
	bool		 track_cwd;	/* submit: report where the shell
					   string ended (cwd_after) */
	struct strv	 shell_options;	/* submit: shell options for command */
	struct strv	 args;		/* submit: $0 and positional params */
	char		*profile;	/* approve: run with this profile */
	bool		 danger;	/* approve: the operator confirmed a
					   danger verdict */
	struct buf	 data;		/* input: the bytes */
};
#define PROTO_MOUNTS_INIT { -1, STRV_INIT, STRV_INIT, STRV_INIT, STRV_INIT }
#define PROTO_MSG_INIT { .type = PROTO_SUBMIT, .version = PROTO_VERSION, \
	.argv = STRV_INIT, .mounts = PROTO_MOUNTS_INIT, .env = STRV_INIT, \
	.shell_options = STRV_INIT, .args = STRV_INIT, .data = BUF_INIT }

#define PROTO_MAX_ENV		4096	/* variables in a submit */

/* Is this a shell option bwgate passes to the shell in the sandbox?
   Takes one word ("-e", "+x") or an -o/+o pair (opt, name). */
bool		 proto_shell_option_ok(const char *opt, const char *name);

/* Splits a byte stream into lines; overlong lines are reported, then
   skipped up to their newline. */
struct proto_reader {
	struct buf	 in;
	size_t		 scanned;	/* bytes of in already searched */
	size_t		 consume;	/* the line handed out last */
	bool		 skipping;	/* inside an overlong line */
	size_t		 max;		/* 0: PROTO_MAX_LINE */
};
#define PROTO_READER_INIT { BUF_INIT, 0, 0, false, 0 }

enum proto_line {
	PROTO_LINE_NONE,	/* need more bytes */
	PROTO_LINE_OK,		/* *line (NUL-terminated, no '\n') */
	PROTO_LINE_TOO_LONG,	/* a line went over the limit (once) */
};

void		 proto_reader_feed(struct proto_reader *, const void *,
		    size_t);
/* Next line; *line points into the reader until the next call. */
enum proto_line	 proto_reader_next(struct proto_reader *, char **line,
		    size_t *len);
/* Bytes of an unfinished line (a client that vanished mid-line). */
size_t		 proto_reader_pending(const struct proto_reader *);
void		 proto_reader_release(struct proto_reader *);

/* Decode one line (without '\n'); -1 with cause (the reply text). */
int		 proto_decode(const char *line, size_t len, struct proto_msg *,
		    char **cause);
void		 proto_msg_release(struct proto_msg *);
void		 proto_mounts_release(struct proto_mounts *);
void		 proto_mounts_copy(struct proto_mounts *,
		    const struct proto_mounts *);
bool		 proto_mounts_empty(const struct proto_mounts *);
cJSON		*proto_mounts_json(const struct proto_mounts *);
const char	*proto_type_name(enum proto_type);
/* A message type by its wire name; false for an unknown name. */
bool		 proto_type_lookup(const char *name, enum proto_type *,
		    bool *has_id);

/* Is s[0..len) valid UTF-8? *bad is the offset of the first bad byte. */
bool		 proto_utf8_valid(const char *s, size_t len, size_t *bad);
/* Length of the longest prefix that does not end inside a UTF-8
   sequence (so output chunks are not split mid-character). */
size_t		 proto_utf8_complete(const char *s, size_t len);

/* Base64 (RFC 4648) for output that is not UTF-8. */
char		*proto_base64_encode(const void *, size_t);
/* Decode into b; -1 if s is not base64. */
int		 proto_base64_decode(const char *s, struct buf *b);

/* A request message as JSON (the decoder's inverse; caller frees). */
cJSON		*proto_msg_json(const struct proto_msg *);
/* What the console sends (doc/protocol.md, "Replies"). */
enum proto_reply {
	PROTO_R_HELLO,		/* greeting on connect */
	PROTO_R_QUEUED,		/* a submit was accepted: verdict, reason */
	PROTO_R_DECIDED,	/* approved or denied, by whom */
	PROTO_R_WITHDRAWN,	/* cancelled before it ran */
	PROTO_R_STARTED,	/* running: pid */
	PROTO_R_OUTPUT,		/* a chunk of stdout or stderr */
	PROTO_R_EVENT,		/* a live file event */
	PROTO_R_RESULT,		/* the end: state, exit status, report */
	PROTO_R_LIST,		/* control: the queue */
	PROTO_R_OK,		/* control: done */
	PROTO_R_ERROR,		/* code and message */
	PROTO_R_SHOW,		/* control: one request and its report */
	PROTO_R_HOSTS,		/* control: the linked machines */
	PROTO_R_UNKNOWN		/* anything else (a newer console) */
};

/*
 * A reply's members (protocol-reply.c has the table saying which type
 * carries which). NULL is "not sent"; numbers and booleans are pointers
 * for that reason. Nothing is owned: proto_out_json() copies.
 */
struct proto_out {
	enum proto_reply	 type;
	uint32_t		 id;
	const char		*tag;
	const char		*console, *project, *socket;	/* hello */
	const char		*command, *cwd, *verdict, *rule, *reason,
				*profile;			/* queued */
	const bool		*writes_project;
	const char		*decision, *by, *who;		/* decided */
	const struct proto_mounts *edits;
	const struct strv	*bwrap_argv;
	const cJSON		*mounts;
	const int		*pid;				/* started */
	const char		*stream;			/* output */
	const char		*data;
	size_t			 data_len;
	const cJSON		*event;				/* event */
	const char		*state;				/* result */
	const int		*exit_status;
	const char		*note, *error;
	const int		*clients;			/* list */
	const cJSON		*requests, *request, *report;
	const cJSON		*services;	/* R_LIST */
	const cJSON		*hosts;				/* hosts */
	const char		*action;			/* ok */
	const char		*code, *message;		/* error */
};

const char	*proto_reply_name(enum proto_reply);
/* The type of a reply a client received. */
enum proto_reply proto_reply_type(const cJSON *);
/* A reply as JSON (caller frees). */
cJSON		*proto_out_json(const struct proto_out *);
/* An error reply; code is a stable word (doc/protocol.md). */
cJSON		*proto_error_new(uint32_t id, const char *tag,
		    const char *code, const char *message);
/* Every message's envelope {"v":1,"type":type[,"id":id][,"tag":tag]}. */
cJSON		*proto_envelope(const char *type, uint32_t id,
		    const char *tag);
/* One line, '\n'-terminated; frees j. */
char		*proto_encode(cJSON *j);

#endif
