/* mcp-rpc: JSON-RPC 2.0 messages to the MCP client, one per line on
   stdout. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonutil.h"
#include "mcp.h"
#include "xalloc.h"

/* Write one message as a line (frees msg). */
void
mcp_send(cJSON *msg)
{
	char	*line;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	line = json_line(msg);
	cJSON_Delete(msg);
	/* A client that went away is seen as EOF on stdin. */
	(void)write_full(1, line, strlen(line));
	(void)write_full(1, "\n", 1);
	free(line);
}

/* The reply to a request (takes result). */
void
mcp_reply(const cJSON *id, cJSON *result)
{
	cJSON	*msg = cJSON_CreateObject();

	cJSON_AddItemToObject(msg, "id", cJSON_Duplicate(id, true));
	cJSON_AddItemToObject(msg, "result", result);
	mcp_send(msg);
}

/* An error reply; id may be NULL (JSON null: the id was unreadable). */
void
mcp_error(const cJSON *id, int code, const char *fmt, ...)
{
	cJSON	*msg = cJSON_CreateObject(), *err;
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON_AddItemToObject(msg, "id", id != NULL ?
	    cJSON_Duplicate(id, true) : cJSON_CreateNull());
	err = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", text);
	free(text);
	mcp_send(msg);
}

/* A notification (takes params, which may be NULL). */
void
mcp_notify(const char *method, cJSON *params)
{
	cJSON	*msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(msg, "params", params);
	mcp_send(msg);
}

/* A tools/call result (takes structured, which may be NULL). */
void
mcp_tool_result(const cJSON *id, cJSON *structured, const char *text,
    bool is_error)
{
	cJSON	*res = cJSON_CreateObject(), *content, *c;

	content = cJSON_AddArrayToObject(res, "content");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(content, c);
	if (structured != NULL)
		cJSON_AddItemToObject(res, "structuredContent", structured);
	cJSON_AddBoolToObject(res, "isError", is_error);
	mcp_reply(id, res);
}

/* A tool error for the model to read. */
void
mcp_tool_error(const cJSON *id, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;
	cJSON	*st = cJSON_CreateObject();

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(st, "error", text);
	mcp_tool_result(id, st, text, true);
	free(text);
}

/* Tell the client how a long call is doing. */
void
mcp_progress(const cJSON *token, unsigned progress, const char *fmt, ...)
{
	cJSON	*p;
	va_list	 ap;
	char	*text;

	if (token == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	p = cJSON_CreateObject();
	cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(token, true));
	cJSON_AddNumberToObject(p, "progress", progress);
	cJSON_AddStringToObject(p, "message", text);
	free(text);
	mcp_notify("notifications/progress", p);
}
