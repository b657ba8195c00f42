/*
 * mcp-run: tool calls that are console requests: the run tool and the file
 * writes (write_file, edit_file). A call is submitted like `bwgate run`
 * does (run_start) and followed from the poll loop: queued, decided,
 * started, live events, result. Progress notifications say where it is
 * when the client asked for them; the result carries the exit status, the
 * output (capped), the change report and the violations.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "client.h"
#include "cmd.h"
#include "display.h"
#include "edge-refusal.h"
#include "loop.h"
#include "mcp.h"
#include "path.h"
#include "protocol.h"
#include "report-text.h"
#include "xalloc.h"

#define RUN_OUTPUT_MAX		(64 * 1024)	/* per stream, in the result */
#define RUN_EVENT_EVERY_MS	500		/* event progress at most */
#define RUN_LIST_MAX		50		/* paths per kind in the text */
#define RUN_QUIET_MS		200		/* before saying it waits */
/* A progress notification at least this often while a call waits or
   runs: clients that reset their timeout on progress (the MCP SDK's
   resetTimeoutOnProgress) wait as long as the operator and the command
   take; 15 s is well inside their usual 60 s. */
#define RUN_BEAT_MS		15000

static struct mcp_call *run_call(struct mcp *, const cJSON *, const cJSON *,
		    struct run_request *);

/* Free a call and close its connection (the console then withdraws or
   kills what is left of the request). */
void
mcp_call_free(struct mcp_call *c)
{
	if (c == NULL)
		return;
	client_free(c->cl);
	cJSON_Delete(c->rpc_id);
	cJSON_Delete(c->token);
	free(c->verdict);
	free(c->reason);
	free(c->path);
	free(c->diff);
	free(c);
}

/* Unlink and free a call. */
static void
run_remove(struct mcp *m, struct mcp_call *c)
{
	struct mcp_call	**pp;

	for (pp = &m->calls; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	mcp_call_free(c);
}

/* The cwd argument as an absolute path inside the project. */
static char *
run_cwd(struct mcp *m, const char *cwd, char **cause)
{
	char	*rel, *abs;

	if (cwd == NULL)
		return xstrdup(m->project);
	if ((rel = mcp_path_relative(m, cwd, cause)) == NULL)
		return NULL;
	abs = strcmp(rel, ".") == 0 ? xstrdup(m->project) :
	    path_join(m->project, rel);
	free(rel);
	return abs;
}

/* The run tool's "env": NAME=VALUE for each string member (NULL: none). */
static int
run_env_arg(const cJSON *env, struct strv *out, char **cause)
{
	const cJSON	*e;

	if (env == NULL)
		return 0;
	if (!cJSON_IsObject(env)) {
		*cause = xstrdup("'env' must be an object of strings");
		return -1;
	}
	cJSON_ArrayForEach(e, env) {
		if (!cJSON_IsString(e) || e->string == NULL ||
		    e->string[0] == '\0' || strchr(e->string, '=') != NULL) {
			*cause = xstrdup("'env' must map names (without '=') "
			    "to strings");
			return -1;
		}
		strv_pushf(out, "%s=%s", e->string, e->valuestring);
	}
	return 0;
}

/* Start the run tool: submit to the console and keep the call. */
void
mcp_run_tool(struct mcp *m, const cJSON *id, const cJSON *args,
    const cJSON *token)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	const char		*command, *cwd, *description;
	char			*cause = NULL, *abs;
	long			 timeout = 0;
	bool			 network = false;

	if (mcp_arg_string(args, "command", true, &command, &cause) != 0 ||
	    mcp_arg_string(args, "cwd", false, &cwd, &cause) != 0 ||
	    mcp_arg_string(args, "description", false, &description,
	    &cause) != 0 ||
	    mcp_arg_int(args, "timeout", 1, 604800, &timeout, &cause) != 0 ||
	    mcp_arg_bool(args, "network", &network, &cause) != 0 ||
	    mcp_arg_strv(args, "domains", &rq.domains, &cause) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "run: %s", cause);
		free(cause);
		strv_release(&rq.domains);
		return;
	}
	if (*command == '\0') {
		mcp_error(id, RPC_INVALID_PARAMS, "run: 'command' is empty");
		strv_release(&rq.domains);
		return;
	}
	if ((abs = run_cwd(m, cwd, &cause)) == NULL) {
		mcp_tool_error(id, "run: %s", cause);
		free(cause);
		strv_release(&rq.domains);
		return;
	}
	rq.socket = m->socket;
	rq.cwd = abs;
	rq.command = command;
	rq.description = description;
	rq.timeout_s = (int)timeout;
	rq.network = network;
	if (run_env_arg(cJSON_GetObjectItem(args, "env"), &rq.env,
	    &cause) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "run: %s", cause);
		free(cause);
		free(abs);
		strv_release(&rq.domains);
		return;
	}
	(void)run_call(m, id, token, &rq);
	strv_release(&rq.env);
	strv_release(&rq.domains);
	free(abs);
}

/* Keep a submitted call until its answer, with its id and progress
   token. */
static void
call_keep(struct mcp *m, struct mcp_call *c, const cJSON *id,
    const cJSON *token)
{
	c->rpc_id = cJSON_Duplicate(id, true);
	c->token = token != NULL ? cJSON_Duplicate(token, true) : NULL;
	c->start_ms = loop_now_ms();
	if (c->token != NULL)
		c->beat_ms = c->start_ms + RUN_BEAT_MS;
	c->next = m->calls;
	m->calls = c;
}

/* Submit a request for a call and keep the call (NULL: answered with
   the reason it could not be submitted). */
static struct mcp_call *
run_call(struct mcp *m, const cJSON *id, const cJSON *token,
    struct run_request *rq)
{
	struct mcp_call	*c;
	char		*cause = NULL;

	rq->socket = m->socket;
	rq->agent = m->agent;
	rq->tag = "mcp";
	c = xcalloc(1, sizeof *c);
	if ((c->cl = run_start(rq, &cause)) == NULL) {
		mcp_tool_error(id, "%s", cause);
		free(cause);
		free(c);
		return NULL;
	}
	call_keep(m, c, id, token);
	return c;
}

/* A file write through the console. */
void
mcp_run_write(struct mcp *m, const cJSON *id, const cJSON *token,
    const char *tool, const char *rel, const char *content, size_t len,
    unsigned replacements, char *diff)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	struct mcp_call		*c;
	char			*abs;

	/* Absolute: the console resolves it against its own project. */
	abs = strcmp(rel, ".") == 0 ? xstrdup(m->project) :
	    path_join(m->project, rel);
	rq.cwd = m->project;
	rq.write_path = abs;
	rq.write_content = content;
	rq.write_len = len;
	c = run_call(m, id, token, &rq);
	free(abs);
	if (c == NULL) {
		free(diff);
		return;
	}
	c->tool = tool;
	c->path = xstrdup(rel);
	c->bytes = len;
	c->replacements = replacements;
	c->diff = diff;
}

void
mcp_run_refused(struct mcp *m, const cJSON *id, const cJSON *token,
    const char *tool, const char *rel, const char *content, size_t len,
    const char *why)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	struct mcp_call		*c;
	char			*abs, *cause = NULL;

	abs = path_join(m->project, rel);
	rq.socket = m->socket;
	rq.agent = m->agent;
	rq.tag = "mcp";
	rq.cwd = m->project;
	rq.write_path = abs;
	rq.write_content = content;
	rq.write_len = len;
	rq.refused = why;	/* denied by the console with our reason */
	c = xcalloc(1, sizeof *c);
	if ((c->cl = run_start(&rq, &cause)) == NULL) {
		/* No console: the audit log has it. */
		(void)edge_refusal_audit(&(struct edge_refusal){
		    .project = m->project, .edge = "mcp", .agent = m->agent,
		    .tool = tool, .path = rel, .reason = why });
		mcp_tool_error(id, "%s: %s", tool, why);
		free(cause);
		free(abs);
		free(c);
		return;
	}
	free(abs);
	call_keep(m, c, id, token);
	c->tool = tool;
	c->path = xstrdup(rel);
	c->bytes = len;
}

/* Append a change-report list to the text. */
static void
run_text_list(struct buf *b, const cJSON *ch, const char *name,
    const char *mark)
{
	const cJSON	*e;
	int		 i = 0, n = cJSON_GetArraySize(cJSON_GetObjectItem(ch,
			    name));

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(ch, name)) {
		if (i++ == RUN_LIST_MAX) {
			buf_printf(b, "  ... and %d more\n", n - RUN_LIST_MAX);
			break;
		}
		if (cJSON_IsString(e))
			buf_printf(b, "  %s %s\n", mark, e->valuestring);
		else
			buf_printf(b, "  %s %s -> %s\n", mark,
			    cJSON_GetStringValue(cJSON_GetObjectItem(e,
			    "from")), cJSON_GetStringValue(
			    cJSON_GetObjectItem(e, "to")));
	}
}

/* Copy a stream of the report, capped at a UTF-8 boundary. */
static void
run_stream(cJSON *st, struct buf *text, const cJSON *rep, const char *name)
{
	const char	*s = cJSON_GetStringValue(cJSON_GetObjectItem(rep,
			    name));
	char		 key[32];
	size_t		 len = s != NULL ? strlen(s) : 0, n = len;
	bool		 trunc;

	if (n > RUN_OUTPUT_MAX)
		n = proto_utf8_complete(s, RUN_OUTPUT_MAX);
	snprintf(key, sizeof key, "%s_truncated", name);
	trunc = n < len || cJSON_IsTrue(cJSON_GetObjectItem(rep, key));
	cJSON_AddItemToObject(st, name, cJSON_CreateString(""));
	if (n > 0) {
		char *copy = xstrndup(s, n);

		cJSON_ReplaceItemInObject(st, name, cJSON_CreateString(copy));
		buf_printf(text, "%s:\n%s%s", name, copy,
		    copy[n - 1] == '\n' ? "" : "\n");
		free(copy);
	}
	cJSON_AddBoolToObject(st, key, trunc);
	if (trunc)
		buf_printf(text, "(%s truncated)\n", name);
}

/* The final answer for a file write that ran. */
static void
run_write_result(struct mcp_call *c, const cJSON *j)
{
	const cJSON	*rep = cJSON_GetObjectItem(j, "report");
	const cJSON	*ch = cJSON_GetObjectItem(rep, "changes");
	const cJSON	*v = cJSON_GetObjectItem(rep, "violations"), *e;
	const cJSON	*es = cJSON_GetObjectItem(j, "exit_status");
	const char	*state = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "state"));
	const char	*err = cJSON_GetStringValue(cJSON_GetObjectItem(rep,
			    "stderr"));
	struct buf	 text = BUF_INIT;
	cJSON		*st = cJSON_CreateObject();
	bool		 ok;

	ok = state != NULL && strcmp(state, "finished") == 0 &&
	    cJSON_IsNumber(es) && es->valueint == 0;
	cJSON_AddNumberToObject(st, "id", c->id);
	cJSON_AddStringToObject(st, "state", state != NULL ? state : "failed");
	cJSON_AddStringToObject(st, "path", c->path);
	cJSON_AddNumberToObject(st, "bytes", (double)c->bytes);
	if (c->verdict != NULL)
		cJSON_AddStringToObject(st, "verdict", c->verdict);
	if (c->reason != NULL)
		cJSON_AddStringToObject(st, "reason", c->reason);
	if (strcmp(c->tool, "edit_file") == 0) {
		cJSON_AddNumberToObject(st, "replacements", c->replacements);
		cJSON_AddStringToObject(st, "diff", c->diff != NULL ? c->diff :
		    "");
	}
	cJSON_AddItemToObject(st, "changes", cJSON_IsObject(ch) ?
	    cJSON_Duplicate(ch, true) : cJSON_CreateNull());
	cJSON_AddItemToObject(st, "violations", cJSON_IsArray(v) ?
	    cJSON_Duplicate(v, true) : cJSON_CreateArray());
	if (ok) {
		if (strcmp(c->tool, "edit_file") == 0)
			buf_printf(&text, "edited '%s' (%u replacement%s)\n%s",
			    c->path, c->replacements, c->replacements == 1 ?
			    "" : "s", c->diff != NULL ? c->diff : "");
		else
			buf_printf(&text, "wrote '%s' (%zu bytes)\n", c->path,
			    c->bytes);
	} else {
		buf_printf(&text, "%s: '%s' was not written (%s)\n", c->tool,
		    c->path, state != NULL ? state : "failed");
		if (err != NULL && *err != '\0') {
			buf_puts(&text, err);
			cJSON_AddStringToObject(st, "error", err);
		}
	}
	cJSON_ArrayForEach(e, v) {
		const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "reason"));

		buf_printf(&text, "%s %s '%s' (%s): %s\n", r != NULL &&
		    strcmp(r, "discarded") == 0 ? "discarded" : "refused",
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "operation")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "path")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "hint")));
	}
	mcp_tool_result(c->rpc_id, st, text.data, !ok);
	buf_release(&text);
}

/* The final answer for a result message. */
static void
run_result(struct mcp_call *c, const cJSON *j)
{
	const cJSON	*rep = cJSON_GetObjectItem(j, "report");
	const cJSON	*ch = cJSON_GetObjectItem(rep, "changes");
	const cJSON	*v, *e;
	const char	*state = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "state"));
	const char	*note = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "note"));
	const char	*err = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "error"));
	const cJSON	*es = cJSON_GetObjectItem(j, "exit_status");
	struct buf	 text = BUF_INIT;
	cJSON		*st = cJSON_CreateObject();
	bool		 failed;

	if (state == NULL)
		state = "failed";
	failed = strcmp(state, "finished") != 0;
	cJSON_AddNumberToObject(st, "id", c->id);
	cJSON_AddStringToObject(st, "state", state);
	if (cJSON_IsNumber(es)) {
		cJSON_AddNumberToObject(st, "exit_status", es->valuedouble);
		buf_printf(&text, "exit status %d", es->valueint);
	} else {
		cJSON_AddNullToObject(st, "exit_status");
		buf_puts(&text, "no exit status");
	}
	buf_printf(&text, " (%s)\n", state);
	if (c->verdict != NULL)
		cJSON_AddStringToObject(st, "verdict", c->verdict);
	if (c->reason != NULL)
		cJSON_AddStringToObject(st, "reason", c->reason);
	if (note != NULL) {
		cJSON_AddStringToObject(st, "note", note);
		buf_printf(&text, "note: %s\n", note);
	}
	if (err != NULL) {
		cJSON_AddStringToObject(st, "error", err);
		buf_printf(&text, "error: %s\n", err);
	}
	run_stream(st, &text, rep, "stdout");
	run_stream(st, &text, rep, "stderr");
	if (cJSON_IsObject(ch)) {
		cJSON_AddItemToObject(st, "changes", cJSON_Duplicate(ch, true));
		const char *scope = cJSON_GetStringValue(cJSON_GetObjectItem(
		    rep, "changes_scope"));
		const cJSON *w = cJSON_GetObjectItem(rep, "changes_widened");

		buf_printf(&text, "changes: %d created, %d modified, %d "
		    "deleted, %d renamed%s\n",
		    cJSON_GetArraySize(cJSON_GetObjectItem(ch, "created")),
		    cJSON_GetArraySize(cJSON_GetObjectItem(ch, "modified")),
		    cJSON_GetArraySize(cJSON_GetObjectItem(ch, "deleted")),
		    cJSON_GetArraySize(cJSON_GetObjectItem(ch, "renamed")),
		    scope == NULL ? "" : strcmp(scope, "exact") == 0 ?
		    " (exact)" : " (whole project compared)");
		cJSON_AddStringToObject(st, "changes_scope", scope != NULL ?
		    scope : "unknown");
		cJSON_ArrayForEach(e, w) {
			if (cJSON_IsString(e))
				buf_printf(&text, "change report widened to "
				    "the whole project: %s\n", e->valuestring);
		}
		run_text_list(&text, ch, "created", "+");
		run_text_list(&text, ch, "modified", "~");
		run_text_list(&text, ch, "deleted", "-");
		run_text_list(&text, ch, "renamed", ">");
	} else
		cJSON_AddNullToObject(st, "changes");
	v = cJSON_GetObjectItem(rep, "violations");
	cJSON_AddItemToObject(st, "violations", cJSON_IsArray(v) ?
	    cJSON_Duplicate(v, true) : cJSON_CreateArray());
	cJSON_ArrayForEach(e, v) {
		const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "reason"));

		buf_printf(&text, "%s %s '%s' (%s): %s\n", r != NULL &&
		    strcmp(r, "discarded") == 0 ? "discarded" : "refused",
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "operation")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "path")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "hint")));
	}
	/* What a git-write run did to the repository: the report's "git",
	   and its lines as the console shows them (subjects escaped). */
	v = cJSON_GetObjectItem(rep, "git");
	if (cJSON_IsObject(v)) {
		struct report_text	 t = REPORT_TEXT_INIT;
		struct report_text_opts	 o = { display_escape, false };

		cJSON_AddItemToObject(st, "git", cJSON_Duplicate(v, true));
		report_text_build(rep, &o, &t);
		for (size_t i = 0; i < t.n; i++)
			if (t.v[i].kind == RL_GIT)
				buf_printf(&text, "%s\n", t.v[i].text);
		report_text_release(&t);
	}
	/* The operator undid an earlier request of this agent. */
	v = cJSON_GetObjectItem(rep, "undone");
	if (cJSON_IsArray(v)) {
		cJSON_AddItemToObject(st, "undone", cJSON_Duplicate(v, true));
		cJSON_ArrayForEach(e, v)
			if (cJSON_IsString(e))
				buf_printf(&text, "note: %s\n", e->valuestring);
	}
	/* Named hosts: what the proxy let through and what it refused. */
	v = cJSON_GetObjectItem(rep, "network");
	if (cJSON_IsObject(v)) {
		cJSON_AddItemToObject(st, "network", cJSON_Duplicate(v, true));
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(v, "hosts"))
			buf_printf(&text, "network: %s:%.0f, %.0f connections, "
			    "%.0f bytes out, %.0f bytes in\n",
			    cJSON_GetStringValue(cJSON_GetObjectItem(e,
			    "host")), cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "port")),
			    cJSON_GetNumberValue(cJSON_GetObjectItem(e,
			    "connections")), cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "bytes_out")),
			    cJSON_GetNumberValue(cJSON_GetObjectItem(e,
			    "bytes_in")));
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(v, "refused"))
			buf_printf(&text, "refused host '%s:%.0f': %s\n",
			    cJSON_GetStringValue(cJSON_GetObjectItem(e,
			    "host")), cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "port")),
			    cJSON_GetStringValue(cJSON_GetObjectItem(e,
			    "why")));
	}
	mcp_tool_result(c->rpc_id, st, text.data, failed);
	buf_release(&text);
}

/* The final answer when the request ended without running. */
static void
run_refused(struct mcp_call *c, const char *state, const char *by,
    const char *note, const char *what)
{
	cJSON	*st = cJSON_CreateObject();
	char	*text;

	if (c->id != 0)
		cJSON_AddNumberToObject(st, "id", c->id);
	cJSON_AddStringToObject(st, "state", state);
	if (c->path != NULL)
		cJSON_AddStringToObject(st, "path", c->path);
	cJSON_AddNullToObject(st, "exit_status");
	if (c->verdict != NULL)
		cJSON_AddStringToObject(st, "verdict", c->verdict);
	if (c->reason != NULL)
		cJSON_AddStringToObject(st, "reason", c->reason);
	if (by != NULL)
		cJSON_AddStringToObject(st, "by", by);
	if (note != NULL)
		cJSON_AddStringToObject(st, "note", note);
	if (strcmp(state, "denied") == 0)
		text = denied_text(by, note);	/* as bwgate run says it */
	else
		text = xasprintf("%s%s%s%s%s", what, by != NULL ? " by " : "",
		    by != NULL ? by : "", note != NULL ? ": " : "",
		    note != NULL ? note : "");
	if (strcmp(state, "error") == 0)
		cJSON_AddStringToObject(st, "error", text);
	mcp_tool_result(c->rpc_id, st, text, true);
	free(text);
}

/* Say how many file events the command caused so far. */
static void
run_events(struct mcp_call *c, int64_t now)
{
	mcp_progress(c->token, ++c->progress, "running: %u file event%s",
	    c->events, c->events == 1 ? "" : "s");
	c->last_ms = now;
	c->pending = false;
}

/* One message from the console; false when the call ended. */
static bool
run_message(struct mcp_call *c, const cJSON *j)
{
	const char	*type = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "type"));
	const char	*s;
	bool		 named;
#define STR(k)	cJSON_GetStringValue(cJSON_GetObjectItem(j, (k)))

	if (type == NULL)
		return true;
	if (strcmp(type, "queued") == 0) {
		c->id = (uint32_t)cJSON_GetNumberValue(cJSON_GetObjectItem(j,
		    "id"));
		free(c->verdict);
		free(c->reason);
		c->verdict = xstrdup((s = STR("verdict")) != NULL ? s : "");
		c->reason = xstrdup((s = STR("reason")) != NULL ? s : "");
		/* A danger reason says "danger: ..." itself: not twice. */
		named = strncmp(c->reason, c->verdict, strlen(c->verdict)) ==
		    0 && c->reason[strlen(c->verdict)] == ':';
		mcp_progress(c->token, ++c->progress, "request %u queued "
		    "(%s%s%s)", c->id, named ? "" : c->verdict, named ? "" :
		    ": ", c->reason);
		/* Say it waits only if no decision follows at once
		   (headless consoles decide immediately). */
		if (c->token != NULL)
			c->wait_ms = loop_now_ms() + RUN_QUIET_MS;
	} else if (strcmp(type, "decided") == 0) {
		c->wait_ms = 0;
		s = STR("decision");
		if (s != NULL && strcmp(s, "denied") == 0) {
			run_refused(c, "denied", STR("by"), STR("note"),
			    "denied");
			return false;
		}
		c->decided = true;
		mcp_progress(c->token, ++c->progress, "approved by %s",
		    STR("by"));
	} else if (strcmp(type, "started") == 0) {
		mcp_progress(c->token, ++c->progress, "running");
	} else if (strcmp(type, "event") == 0) {
		c->events++;
		c->pending = c->token != NULL;
	} else if (strcmp(type, "result") == 0) {
		if (c->pending)
			run_events(c, loop_now_ms());
		if (c->tool != NULL)
			run_write_result(c, j);
		else
			run_result(c, j);
		return false;
	} else if (strcmp(type, "withdrawn") == 0) {
		run_refused(c, "withdrawn", STR("by"), STR("note"),
		    "withdrawn");
		return false;
	} else if (strcmp(type, "error") == 0) {
		run_refused(c, "error", NULL, STR("message"),
		    "the console refused the request");
		return false;
	}
#undef STR
	return true;
}

/* Read what the console sent. */
bool
mcp_run_readable(struct mcp *m, struct mcp_call *c)
{
	char	*cause = NULL;
	cJSON	*j;
	bool	 more;

	do {
		if ((j = client_recv(c->cl, &cause)) == NULL) {
			run_refused(c, "error", NULL, cause != NULL ? cause :
			    "the console closed the connection before the "
			    "command finished", "failed");
			free(cause);
			run_remove(m, c);
			return false;
		}
		more = run_message(c, j);
		cJSON_Delete(j);
		if (!more) {
			run_remove(m, c);
			return false;
		}
	} while (client_buffered(c->cl));
	return true;
}

/* Send event counts that are due; ms until the next one. */
int
mcp_run_timers(struct mcp *m)
{
	int64_t	 now = loop_now_ms();
	int	 next = -1, left;

	for (struct mcp_call *c = m->calls; c != NULL; c = c->next) {
		if (c->beat_ms != 0 && c->beat_ms <= now) {
			unsigned s = (unsigned)((now - c->start_ms) / 1000);

			if (c->decided)
				mcp_progress(c->token, ++c->progress,
				    "request %u still running (%u s)", c->id, s);
			else
				mcp_progress(c->token, ++c->progress,
				    "request %u still waiting for approval "
				    "(%u s)", c->id, s);
			c->beat_ms = now + RUN_BEAT_MS;
		}
		if (c->beat_ms != 0 && (next < 0 || c->beat_ms - now < next))
			next = (int)(c->beat_ms - now);
		if (c->wait_ms != 0 && c->wait_ms <= now) {
			mcp_progress(c->token, ++c->progress, "request %u is "
			    "waiting for approval", c->id);
			c->wait_ms = 0;
		} else if (c->wait_ms != 0 && (next < 0 ||
		    c->wait_ms - now < next))
			next = (int)(c->wait_ms - now);
		if (!c->pending)
			continue;
		left = (int)(c->last_ms + RUN_EVENT_EVERY_MS - now);
		if (left <= 0)
			run_events(c, now);
		else if (next < 0 || left < next)
			next = left;
	}
	return next;
}

/* notifications/cancelled: withdraw or kill, and answer nothing. */
void
mcp_run_cancel(struct mcp *m, const cJSON *rpc_id)
{
	struct mcp_call	*c;
	char		*cause = NULL;
	cJSON		*msg;

	for (c = m->calls; c != NULL; c = c->next)
		if (cJSON_Compare(c->rpc_id, rpc_id, true))
			break;
	if (c == NULL)
		return;		/* finished already, or never ours */
	if (c->id != 0) {
		msg = cJSON_CreateObject();
		cJSON_AddNumberToObject(msg, "v", PROTO_VERSION);
		cJSON_AddStringToObject(msg, "type", "cancel");
		cJSON_AddNumberToObject(msg, "id", c->id);
		(void)client_send(c->cl, msg, &cause);
		free(cause);
	}
	/* Closing the connection withdraws or kills it too (before queued). */
	run_remove(m, c);
}
