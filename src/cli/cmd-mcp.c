/*
 * cmd-mcp: `bwgate mcp [--socket PATH] [--project DIR] [--agent NAME]`: an
 * MCP server on stdin/stdout (JSON-RPC 2.0, one message per line, MCP
 * revision 2025-06-18) that gives an agent the run tool (commands through
 * the console) and file tools confined to the project. Ends cleanly at
 * EOF on stdin, closing every console connection (the console withdraws
 * or kills what was still going).
 */
#include "beneath.h"
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "cmd.h"
#include "config.h"
#include "jsoncheck.h"
#include "mcp.h"
#include "path.h"
#include "protocol.h"
#include "xalloc.h"

#define MCP_MAX_LINE	(64 * 1024 * 1024)	/* one JSON-RPC message */
#define MCP_MAX_CALLS	64			/* runs in flight */

static const struct option mcp_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "project", required_argument, NULL, 'p' },
	{ "agent", required_argument, NULL, 'A' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Revisions we accept from a client; the first is ours. */
static const char *const mcp_revisions[] = {
	MCP_PROTOCOL, "2025-03-26", "2024-11-05", NULL
};

/* The usage line. */
static void
mcp_usage(FILE *f)
{
	fprintf(f, "usage: bwgate mcp [--socket PATH] [--project DIR] "
	    "[--agent NAME]\n");
}

/* The initialize result. */
static cJSON *
mcp_initialize(const cJSON *params)
{
	const cJSON	*v = cJSON_GetObjectItem(params, "protocolVersion");
	const char	*asked = cJSON_GetStringValue(v);
	const char	*rev = MCP_PROTOCOL;
	cJSON		*res = cJSON_CreateObject(), *caps, *info;

	for (size_t i = 0; asked != NULL && mcp_revisions[i] != NULL; i++)
		if (strcmp(asked, mcp_revisions[i]) == 0)
			rev = mcp_revisions[i];
	cJSON_AddStringToObject(res, "protocolVersion", rev);
	caps = cJSON_AddObjectToObject(res, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"),
	    "listChanged", false);
	info = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(info, "name", "bwgate");
	cJSON_AddStringToObject(info, "title", "bwgate console");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(res, "instructions", "Run shell commands "
	    "with the run tool: each goes through the bwgate console, where "
	    "an operator may have to approve it, and runs sandboxed (project "
	    "writable, .git read-only, network off unless asked). Use the "
	    "file tools for files of the project; paths are relative to the "
	    "project root.");
	return res;
}

/* One request (has an id). */
static void
mcp_request(struct mcp *m, const char *method, const cJSON *id,
    const cJSON *params)
{
	if (params != NULL && !cJSON_IsObject(params)) {
		mcp_error(id, RPC_INVALID_PARAMS, "'params' must be an object");
		return;
	}
	if (strcmp(method, "initialize") == 0) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(
		    cJSON_GetObjectItem(params, "clientInfo"), "name"));

		m->initialized = true;
		/* The client names the agent (claude-code, codex ...),
		   unless --agent did. */
		if (!m->agent_named && name != NULL && *name != '\0') {
			free(m->client);
			m->client = xasprintf("mcp %.64s", name);
			m->agent = m->client;
		}
		mcp_reply(id, mcp_initialize(params));
	} else if (strcmp(method, "ping") == 0)
		mcp_reply(id, cJSON_CreateObject());
	else if (strcmp(method, "tools/list") == 0)
		mcp_reply(id, mcp_tools_list());
	else if (strcmp(method, "tools/call") == 0) {
		if (params == NULL)
			mcp_error(id, RPC_INVALID_PARAMS, "tools/call needs "
			    "params");
		else {
			int n = 0;

			for (struct mcp_call *c = m->calls; c != NULL;
			    c = c->next)
				n++;
			if (n >= MCP_MAX_CALLS)
				mcp_error(id, RPC_INTERNAL_ERROR, "too many "
				    "calls in flight (%d)", n);
			else
				mcp_tools_call(m, id, params);
		}
	} else
		mcp_error(id, RPC_METHOD_NOT_FOUND, "method '%s' not found",
		    method);
}

/* One notification (no id, no reply). */
static void
mcp_notification(struct mcp *m, const char *method, const cJSON *params)
{
	const cJSON	*rid;

	if (strcmp(method, "notifications/cancelled") == 0) {
		rid = cJSON_GetObjectItem(params, "requestId");
		if (cJSON_IsString(rid) || cJSON_IsNumber(rid))
			mcp_run_cancel(m, rid);
	}
	/* notifications/initialized and anything else: nothing to do. */
}

/* One line from the client. */
void
mcp_line(struct mcp *m, const char *line, size_t len)
{
	cJSON		*j;
	const cJSON	*id, *method, *params, *ver;
	char		*mended, *flaw = NULL;

	/* What cJSON would cut short (\u0000) or refuse unnamed (a lone
	   surrogate) is refused naming the field; the mended copy is
	   parsed only to answer the request it came in. */
	(void)jsoncheck_text(line, len, &mended, &flaw);
	j = cJSON_ParseWithLength(mended, len);
	free(mended);
	if (j == NULL) {
		if (flaw != NULL)
			mcp_error(NULL, RPC_PARSE_ERROR, "parse error: %s",
			    flaw);
		else
			mcp_error(NULL, RPC_PARSE_ERROR, "parse error: not "
			    "JSON");
		free(flaw);
		return;
	}
	id = cJSON_GetObjectItem(j, "id");
	if (!cJSON_IsObject(j)) {
		mcp_error(NULL, RPC_INVALID_REQUEST, "a message must be a "
		    "JSON object (batches are not part of MCP %s)",
		    MCP_PROTOCOL);
		goto out;
	}
	if (id != NULL && !cJSON_IsString(id) && !cJSON_IsNumber(id)) {
		mcp_error(NULL, RPC_INVALID_REQUEST, "'id' must be a string "
		    "or a number");
		goto out;
	}
	ver = cJSON_GetObjectItem(j, "jsonrpc");
	method = cJSON_GetObjectItem(j, "method");
	params = cJSON_GetObjectItem(j, "params");
	if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0) {
		mcp_error(id, RPC_INVALID_REQUEST, "'jsonrpc' must be "
		    "\"2.0\"");
		goto out;
	}
	if (method == NULL && (cJSON_GetObjectItem(j, "result") != NULL ||
	    cJSON_GetObjectItem(j, "error") != NULL))
		goto out;	/* a response; we send no requests */
	if (!cJSON_IsString(method)) {
		if (id != NULL)
			mcp_error(id, RPC_INVALID_REQUEST, "'method' must be "
			    "a string");
		goto out;
	}
	if (flaw != NULL) {
		/* A tool call is answered as a tool error the model reads;
		   anything else as an invalid request. */
		if (id != NULL && strcmp(method->valuestring,
		    "tools/call") == 0)
			mcp_tool_error(id, "refused: %s", flaw);
		else if (id != NULL)
			mcp_error(id, RPC_INVALID_PARAMS, "%s", flaw);
		goto out;
	}
	if (id == NULL)
		mcp_notification(m, method->valuestring, params);
	else
		mcp_request(m, method->valuestring, id, params);
out:
	cJSON_Delete(j);
	free(flaw);
}

/* The project root: --project, else the git top level, else the current
   directory. */
static char *
mcp_project(const char *opt, char **cause)
{
	char	*cwd, *p;

	if (opt != NULL)
		return path_canonical(opt, cause);
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		*cause = xasprintf("cannot get the current directory: %s",
		    strerror(errno));
		return NULL;
	}
	p = path_project_of(cwd, cause);	/* the console's rule */
	free(cwd);
	return p;
}

/* Settings the file tools follow (protected and hidden paths). */
static int
mcp_setup(struct mcp *m, const char *project, char **cause)
{
	struct config	 cfg;
	struct stat	 rst;

	if ((m->project = mcp_project(project, cause)) == NULL)
		return -1;
	if ((m->project_fd = beneath_root(m->project, &rst, cause)) < 0)
		return -1;
	config_init(&cfg);
	if (config_load(&cfg, NULL, cause) != 0) {
		config_release(&cfg);
		return -1;
	}
	strv_append_all(&m->protected, &cfg.protected);
	for (size_t i = 0; i < cfg.hide_paths.n; i++) {
		char *abs = path_expand_home(cfg.hide_paths.v[i]);

		if (path_is_under(abs, m->project) &&
		    strcmp(abs, m->project) != 0)
			strv_push(&m->hidden, abs + strlen(m->project) + 1);
		free(abs);
	}
	config_release(&cfg);
	return 0;
}

/* Read what stdin has; false at EOF. */
static bool
mcp_input(struct mcp *m, struct proto_reader *rd)
{
	char	 buf[65536], *line;
	size_t	 len;
	ssize_t	 n;

	n = read(0, buf, sizeof buf);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	proto_reader_feed(rd, buf, (size_t)n);
	for (;;) {
		switch (proto_reader_next(rd, &line, &len)) {
		case PROTO_LINE_OK:
			if (len > 0 && line[len - 1] == '\r')
				len--;
			if (len > 0)
				mcp_line(m, line, len);
			continue;
		case PROTO_LINE_TOO_LONG:
			mcp_error(NULL, RPC_INVALID_REQUEST, "message longer "
			    "than %d bytes", MCP_MAX_LINE);
			continue;
		case PROTO_LINE_NONE:
			break;
		}
		break;
	}
	return true;
}

/* Serve until EOF. */
static void
mcp_serve(struct mcp *m)
{
	struct proto_reader	 rd = PROTO_READER_INIT;
	struct pollfd		*pfd = NULL;
	struct mcp_call		*c, *next, **which = NULL;
	size_t			 n, i;
	int			 timeout;

	rd.max = MCP_MAX_LINE;
	for (;;) {
		n = 1;
		for (c = m->calls; c != NULL; c = c->next)
			n++;
		pfd = xreallocarray(pfd, n, sizeof *pfd);
		which = xreallocarray(which, n, sizeof *which);
		pfd[0] = (struct pollfd){ 0, POLLIN, 0 };
		for (i = 1, c = m->calls; c != NULL; c = c->next, i++) {
			pfd[i] = (struct pollfd){ client_fd(c->cl), POLLIN, 0 };
			which[i] = c;
		}
		timeout = mcp_run_timers(m);
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			break;
		/* Console messages first: a call may end before a cancel
		   for it is read. */
		for (i = 1; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			for (c = m->calls; c != NULL && c != which[i];
			    c = c->next)
				;
			if (c != NULL)
				mcp_run_readable(m, c);
		}
		if (pfd[0].revents != 0 && !mcp_input(m, &rd))
			break;
	}
	for (c = m->calls; c != NULL; c = next) {
		next = c->next;
		mcp_call_free(c);
	}
	m->calls = NULL;
	free(pfd);
	free(which);
	proto_reader_release(&rd);
}

/* bwgate mcp: options, the project, then serve until EOF. */
int
cmd_mcp(int argc, char **argv)
{
	struct mcp	 m;
	const char	*project = NULL;
	char		*cause = NULL;
	int		 c;

	memset(&m, 0, sizeof m);
	m.project_fd = -1;
	m.agent = "mcp";
	m.protected = (struct strv)STRV_INIT;
	m.hidden = (struct strv)STRV_INIT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+s:p:A:h", mcp_options,
	    NULL)) != -1) {
		switch (c) {
		case 's': m.socket = optarg; break;
		case 'p': project = optarg; break;
		case 'A': m.agent = optarg; m.agent_named = true; break;
		case 'h':
			mcp_usage(stdout);
			return 0;
		default:
			mcp_usage(stderr);
			return EXIT_BWGATE_FAILED;
		}
	}
	if (optind != argc) {
		mcp_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if (mcp_setup(&m, project, &cause) != 0) {
		fprintf(stderr, "bwgate: mcp: %s\n", cause);
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	mcp_serve(&m);
	close(m.project_fd);
	free(m.project);
	free(m.client);
	strv_release(&m.protected);
	strv_release(&m.hidden);
	return 0;
}
