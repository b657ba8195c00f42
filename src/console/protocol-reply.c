/*
 * protocol-reply: every reply the console sends, built from one struct
 * proto_out by one table of members (doc/protocol.md, "Replies"). Callers
 * set what they have; a member is sent when set and when the table says
 * it belongs to the reply's type, so no call site spells a member name.
 */
#include "autoconf.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

/* Reply types, in enum proto_reply order. */
static const char *const proto_reply_names[] = {
	"hello", "queued", "decided", "withdrawn", "started", "output",
	"event", "result", "list", "ok", "error", "show", "hosts"
};

#define RT(t)	(1u << (t))

enum out_kind {
	OUT_STRING,	/* const char * */
	OUT_INT,	/* const int *, NULL: absent */
	OUT_BOOL,	/* const bool *, NULL: absent */
	OUT_STRV,	/* const struct strv *, NULL: absent */
	OUT_JSON,	/* const cJSON *, copied */
	OUT_MOUNTS,	/* const struct proto_mounts * */
};

static const struct out_member {
	const char	*name;
	enum out_kind	 kind;
	size_t		 off;
	unsigned	 types;
} out_members[] = {
	{ "console", OUT_STRING, offsetof(struct proto_out, console),
	  RT(PROTO_R_HELLO) },
	{ "project", OUT_STRING, offsetof(struct proto_out, project),
	  RT(PROTO_R_HELLO) | RT(PROTO_R_LIST) },
	{ "socket", OUT_STRING, offsetof(struct proto_out, socket),
	  RT(PROTO_R_HELLO) },
	{ "command", OUT_STRING, offsetof(struct proto_out, command),
	  RT(PROTO_R_QUEUED) },
	{ "cwd", OUT_STRING, offsetof(struct proto_out, cwd),
	  RT(PROTO_R_QUEUED) },
	{ "verdict", OUT_STRING, offsetof(struct proto_out, verdict),
	  RT(PROTO_R_QUEUED) },
	{ "rule", OUT_STRING, offsetof(struct proto_out, rule),
	  RT(PROTO_R_QUEUED) },
	{ "reason", OUT_STRING, offsetof(struct proto_out, reason),
	  RT(PROTO_R_QUEUED) },
	{ "profile", OUT_STRING, offsetof(struct proto_out, profile),
	  RT(PROTO_R_QUEUED) },
	{ "writes_project", OUT_BOOL, offsetof(struct proto_out,
	  writes_project), RT(PROTO_R_QUEUED) },
	{ "decision", OUT_STRING, offsetof(struct proto_out, decision),
	  RT(PROTO_R_DECIDED) },
	{ "by", OUT_STRING, offsetof(struct proto_out, by),
	  RT(PROTO_R_DECIDED) | RT(PROTO_R_WITHDRAWN) },
	{ "who", OUT_STRING, offsetof(struct proto_out, who),
	  RT(PROTO_R_DECIDED) },
	{ "edits", OUT_MOUNTS, offsetof(struct proto_out, edits),
	  RT(PROTO_R_DECIDED) },
	{ "bwrap_argv", OUT_STRV, offsetof(struct proto_out, bwrap_argv),
	  RT(PROTO_R_QUEUED) | RT(PROTO_R_DECIDED) },
	{ "mounts", OUT_JSON, offsetof(struct proto_out, mounts),
	  RT(PROTO_R_QUEUED) },
	{ "pid", OUT_INT, offsetof(struct proto_out, pid),
	  RT(PROTO_R_STARTED) },
	{ "stream", OUT_STRING, offsetof(struct proto_out, stream),
	  RT(PROTO_R_OUTPUT) },
	{ "event", OUT_JSON, offsetof(struct proto_out, event),
	  RT(PROTO_R_EVENT) },
	{ "state", OUT_STRING, offsetof(struct proto_out, state),
	  RT(PROTO_R_RESULT) },
	{ "exit_status", OUT_INT, offsetof(struct proto_out, exit_status),
	  RT(PROTO_R_RESULT) },
	{ "note", OUT_STRING, offsetof(struct proto_out, note),
	  RT(PROTO_R_DECIDED) | RT(PROTO_R_WITHDRAWN) | RT(PROTO_R_RESULT) },
	{ "error", OUT_STRING, offsetof(struct proto_out, error),
	  RT(PROTO_R_QUEUED) | RT(PROTO_R_RESULT) },
	{ "clients", OUT_INT, offsetof(struct proto_out, clients),
	  RT(PROTO_R_LIST) },
	{ "requests", OUT_JSON, offsetof(struct proto_out, requests),
	  RT(PROTO_R_LIST) },
	{ "services", OUT_JSON, offsetof(struct proto_out, services),
	  RT(PROTO_R_LIST) },
	{ "hosts", OUT_JSON, offsetof(struct proto_out, hosts),
	  RT(PROTO_R_HOSTS) },
	{ "request", OUT_JSON, offsetof(struct proto_out, request),
	  RT(PROTO_R_SHOW) },
	{ "report", OUT_JSON, offsetof(struct proto_out, report),
	  RT(PROTO_R_RESULT) | RT(PROTO_R_SHOW) },
	{ "action", OUT_STRING, offsetof(struct proto_out, action),
	  RT(PROTO_R_OK) },
	{ "code", OUT_STRING, offsetof(struct proto_out, code),
	  RT(PROTO_R_ERROR) },
	{ "message", OUT_STRING, offsetof(struct proto_out, message),
	  RT(PROTO_R_ERROR) },
};

/* The wire name of a reply type. */
const char *
proto_reply_name(enum proto_reply r)
{
	if ((size_t)r >= sizeof proto_reply_names / sizeof *proto_reply_names)
		return "unknown";
	return proto_reply_names[r];
}

/* Which reply j is. */
enum proto_reply
proto_reply_type(const cJSON *j)
{
	const char	*t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));

	for (size_t i = 0; t != NULL &&
	    i < sizeof proto_reply_names / sizeof *proto_reply_names; i++)
		if (strcmp(t, proto_reply_names[i]) == 0)
			return (enum proto_reply)i;
	return PROTO_R_UNKNOWN;
}

/* The envelope every message has: {"v","type"[,"id"][,"tag"]}. */
cJSON *
proto_envelope(const char *type, uint32_t id, const char *tag)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "v", PROTO_VERSION);
	cJSON_AddStringToObject(j, "type", type);
	if (id != 0)
		cJSON_AddNumberToObject(j, "id", id);
	if (tag != NULL)
		cJSON_AddStringToObject(j, "tag", tag);
	return j;
}

/* A reply as JSON: the members set in o that belong to its type. */
cJSON *
proto_out_json(const struct proto_out *o)
{
	const char	*base = (const char *)o;
	cJSON		*j = proto_envelope(proto_reply_name(o->type), o->id,
			    o->tag);

	for (size_t i = 0; i < sizeof out_members / sizeof *out_members; i++) {
		const struct out_member	*f = &out_members[i];
		const void		*p = *(const void *const *)(base +
					    f->off);

		if (p == NULL || !(f->types & RT(o->type)))
			continue;
		switch (f->kind) {
		case OUT_STRING:
			cJSON_AddStringToObject(j, f->name, p);
			break;
		case OUT_INT:
			cJSON_AddNumberToObject(j, f->name, *(const int *)p);
			break;
		case OUT_BOOL:
			cJSON_AddBoolToObject(j, f->name, *(const bool *)p);
			break;
		case OUT_STRV:
			cJSON_AddItemToObject(j, f->name, json_strv(p));
			break;
		case OUT_JSON:
			cJSON_AddItemToObject(j, f->name,
			    cJSON_Duplicate(p, 1));
			break;
		case OUT_MOUNTS:
			cJSON_AddItemToObject(j, f->name,
			    proto_mounts_json(p));
			break;
		}
	}
	/* Output bytes: text as "data", anything else as "data_base64". */
	if (o->type == PROTO_R_OUTPUT && o->data != NULL) {
		if (proto_utf8_valid(o->data, o->data_len, NULL) &&
		    memchr(o->data, '\0', o->data_len) == NULL) {
			char *t = xstrndup(o->data, o->data_len);

			cJSON_AddStringToObject(j, "data", t);
			free(t);
		} else {
			char *t = proto_base64_encode(o->data, o->data_len);

			cJSON_AddStringToObject(j, "data_base64", t);
			free(t);
		}
	}
	return j;
}

/* An error reply. */
cJSON *
proto_error_new(uint32_t id, const char *tag, const char *code,
    const char *message)
{
	struct proto_out o = { .type = PROTO_R_ERROR, .id = id, .tag = tag,
	    .code = code, .message = message };

	return proto_out_json(&o);
}

/* Encode and free. */
char *
proto_encode(cJSON *j)
{
	char	*s = json_line(j), *line;

	cJSON_Delete(j);
	line = xasprintf("%s\n", s);
	free(s);
	return line;
}
