/*
 * cmd-hook: `bwgate hook claude-code [--socket PATH] [--without-console
 * deny|pass] [--writes check|console]`: a Claude Code PreToolUse hook. It
 * reads the hook's JSON on stdin and, for the Bash tool, answers "allow"
 * with updatedInput whose command runs the original string through
 * `bwgate sh -c` (quoted exactly), so the console classifies, sandboxes and
 * reports it. With no console reachable it denies with a reason saying how
 * to start one, or (--without-console pass) says nothing and lets Claude
 * Code decide. Write, Edit and MultiEdit to protected paths or outside the
 * project are denied with the sandbox's reason, to paths other tools run on
 * their own (filewrite.h) answered "ask"; with --writes console the console
 * writes the file instead (a file-write request, as bwgate mcp sends); a
 * Write it made is allowed (reported as done), other outcomes are denied
 * with what happened. Other tools pass.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "client.h"
#include "cmd.h"
#include "config.h"
#include "edge-refusal.h"
#include "filewrite.h"
#include "hook-guard.h"
#include "hook-path.h"
#include "hook-perms.h"
#include "hook-run.h"
#include "jsoncheck.h"
#include "jsonutil.h"
#include "mcp.h"
#include "path.h"
#include "strv.h"
#include "xalloc.h"

#define HOOK_MAX_INPUT	(16 * 1024 * 1024)
/* Claude Code's Bash tool: default and largest timeout; the time kept to
   withdraw the request and tell the model before the tool gives up. */
#define HOOK_BASH_TIMEOUT_MS	120000
#define HOOK_BASH_TIMEOUT_MAX_MS 600000
#define HOOK_WITHDRAW_MARGIN_MS	5000
/* The longest command passed on: one argument of the rewritten command
   (the kernel's MAX_ARG_STRLEN is 128 KiB), with room for the rest. */
#define HOOK_MAX_COMMAND	(120 * 1024)

static const struct option hook_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "without-console", required_argument, NULL, 'w' },
	{ "writes", required_argument, NULL, 'W' },
	{ "deadline", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The usage line. */
static void
hook_usage(FILE *f)
{
	fprintf(f, "usage: bwgate hook claude-code [--socket PATH] "
	    "[--without-console deny|pass]\n"
	    "                                [--writes check|console] "
	    "[--deadline SECONDS]\n");
}

/* Print the hook's answer (takes out). */
static void
hook_answer(cJSON *hso)
{
	cJSON	*out = cJSON_CreateObject();
	char	*line;

	cJSON_AddStringToObject(hso, "hookEventName", "PreToolUse");
	cJSON_AddItemToObject(out, "hookSpecificOutput", hso);
	line = json_line(out);
	printf("%s\n", line);
	free(line);
	cJSON_Delete(out);
	hook_guard_flush();
}

/* Answer deny with a reason Claude reads. */
static void
hook_deny(const char *reason)
{
	cJSON	*hso = cJSON_CreateObject();

	cJSON_AddStringToObject(hso, "permissionDecision", "deny");
	cJSON_AddStringToObject(hso, "permissionDecisionReason", reason);
	hook_answer(hso);
}

/* Answer ask: Claude Code asks the person, showing why. */
static void
hook_ask(const char *rel, const struct filewrite_match *fm)
{
	cJSON	*hso = cJSON_CreateObject();
	char	*reason;

	reason = xasprintf("bwgate: '%s' needs attention (%s: %s)", rel,
	    fm->entry, fm->why);
	cJSON_AddStringToObject(hso, "permissionDecision", "ask");
	cJSON_AddStringToObject(hso, "permissionDecisionReason", reason);
	hook_answer(hso);
	free(reason);
}

/* Is a console listening on the agent socket? */
static bool
hook_console(const char *socket, char **cause)
{
	struct client	*cl;
	char		*path;

	if ((path = client_socket_path(socket, cause)) == NULL)
		return false;
	cl = client_connect(path, cause);
	free(path);
	client_free(cl);
	return cl != NULL;
}

/*
 * A Bash command the hook refuses itself (the user's Claude Code deny
 * rule) goes on the record: to the console as a request it denies
 * ("refused", protocol.h), or with no console to the audit log.
 */
static void
hook_refused(const char *socket, const char *cwd, const char *command,
    const char *why)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	struct client		*cl;
	char			*cause = NULL, *proj;
	const char		*type;
	cJSON			*j;
	bool			 done = false;

	proj = cwd != NULL ? path_project_of(cwd, &cause) : NULL;
	free(cause);
	cause = NULL;
	rq.socket = socket;
	rq.cwd = proj;
	rq.command = command;
	rq.agent = "claude-code";
	rq.tag = "hook";
	rq.refused = why;
	if (proj != NULL && (cl = run_start(&rq, &cause)) != NULL) {
		/* Until the console has decided (it denies at once). */
		while (!done && (j = client_recv(cl, &cause)) != NULL) {
			type = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "type"));
			done = type == NULL || strcmp(type, "queued") != 0;
			cJSON_Delete(j);
		}
		client_free(cl);
		if (done) {
			free(proj);
			free(cause);
			return;
		}
	}
	free(cause);
	(void)edge_refusal_audit(&(struct edge_refusal){ .project = proj,
	    .edge = "hook", .agent = "claude-code", .tool = "Bash",
	    .command = command, .reason = why });
	free(proj);
}

/* Our own executable, for the rewritten command. */
static char *
hook_self(void)
{
	char	*p = path_canonical("/proc/self/exe", &(char *){ NULL });

	return p != NULL ? p : xstrdup("bwgate");
}

/* How long the approval may take: the Bash tool's timeout less a margin. */
static int
hook_wait_ms(const cJSON *input)
{
	const cJSON	*t = cJSON_GetObjectItem(input, "timeout");
	double		 ms = HOOK_BASH_TIMEOUT_MS;

	if (cJSON_IsNumber(t) && t->valuedouble > 0)
		ms = t->valuedouble < HOOK_BASH_TIMEOUT_MAX_MS ? t->valuedouble :
		    HOOK_BASH_TIMEOUT_MAX_MS;
	ms -= HOOK_WITHDRAW_MARGIN_MS;
	return ms < 1000 ? 1000 : (int)ms;
}

/*
 * Who asks and why, for the console: the agent is Claude Code's session
 * (its first 8 characters: several sessions tell apart), the reason its
 * Bash call's description. Both become variables of the rewritten command,
 * through the one quoting function.
 */
static void
hook_who(struct buf *b, const char *session, const char *description)
{
	char	*name, *q;

	name = xasprintf("claude-code%s%.8s", session != NULL &&
	    *session != '\0' ? " " : "", session != NULL ? session : "");
	q = shell_squote(name);
	buf_printf(b, "BWGATE_AGENT=%s ", q);
	free(q);
	free(name);
	if (description != NULL && *description != '\0' &&
	    strlen(description) <= 2000) {
		q = shell_squote(description);
		buf_printf(b, "BWGATE_DESCRIPTION=%s ", q);
		free(q);
	}
}

/* Bash: route the command through the console, keeping the user's own
   Claude Code rules (hook-perms.h): a deny rule refuses it here, an ask
   rule answers "ask" with the rewritten command so Claude Code asks. */
static void
hook_bash(const cJSON *input, const char *cwd, const char *session,
    const char *socket, bool pass)
{
	const char	*command = cJSON_GetStringValue(cJSON_GetObjectItem(
			    input, "command"));
	char		*cause = NULL, *self, *q, *rule = NULL;
	cJSON		*hso, *upd;
	struct buf	 b = BUF_INIT;
	struct strv	 run = STRV_INIT;
	enum hook_perm	 perm;

	if (command == NULL) {
		hook_deny("bwgate: the Bash tool input has no 'command' "
		    "string");
		return;
	}
	if (jsoncheck_string("tool_input.command", command, HOOK_MAX_COMMAND,
	    &cause) != 0)
		hook_block("%s; the command is refused, not cut short", cause);
	hook_guard_context(NULL, NULL, command, NULL);
	if ((perm = hook_perms_check(command, cwd, &rule)) == HOOK_PERM_DENY) {
		/* The user's own Claude Code rule: on the record too. */
		hook_refused(socket, cwd, command, rule);
		hook_deny(rule);
		free(rule);
		return;
	}
	if (!hook_console(socket, &cause)) {
		if (!pass)
			hook_block("commands run only through the bwgate "
			    "console, and none is reachable (%s)", cause);
		free(cause);
		return;
	}
	self = hook_self();
	/* `bwgate run --domain private:127.0.0.1:5432 -- psql ...`: the
	   agent asks for hosts, or the host's local port, through the Bash
	   tool; it goes to the console as that request. */
	if (hook_run_args(command, &run) == 1) {
		hook_who(&b, session, cJSON_GetStringValue(cJSON_GetObjectItem(
		    input, "description")));
		buf_printf(&b, "BWGATE_APPROVAL_MS=%d ", hook_wait_ms(input));
		if (socket != NULL) {
			q = shell_squote(socket);
			buf_printf(&b, "BWGATE_SOCKET=%s ", q);
			free(q);
		}
		q = shell_squote(self);
		buf_printf(&b, "%s run", q);
		free(q);
		for (size_t i = 0; i < run.n; i++) {
			q = shell_squote(run.v[i]);
			buf_printf(&b, " %s", q);
			free(q);
		}
		strv_release(&run);
		free(self);
		goto answer;
	}
	/* Claude Code keeps the directory a call ends in for the next one
	   (its wrapper runs `pwd -P` after the command): the sandbox's
	   final directory inside the project comes back on descriptor 3
	   and the host's shell goes there; the status stays the
	   command's. */
	buf_puts(&b, "{ __bwgate_cwd=$(");
	/* The decision must come within the call's own timeout (the Bash
	   tool's, in ms: default 2 min, at most 10), with time left to say
	   why it was withdrawn. */
	buf_printf(&b, "BWGATE_APPROVAL_MS=%d ", hook_wait_ms(input));
	hook_who(&b, session, cJSON_GetStringValue(cJSON_GetObjectItem(input,
	    "description")));
	if (socket != NULL) {
		q = shell_squote(socket);
		buf_printf(&b, "BWGATE_SOCKET=%s ", q);
		free(q);
	}
	/* Plain single quotes, never $'...': the harness's shell may be
	   any POSIX shell. */
	q = shell_squote(self);
	buf_printf(&b, "%s sh --cwd-fd=3 -c ", q);
	free(q);
	q = shell_squote(command);
	buf_puts(&b, q);
	free(q);
	free(self);
	/* bwgate checked the directory (no symbolic link from the
	   project's root); another sandbox of the project may swap one in
	   before this cd: the host's shell checks where it landed and goes
	   back when it is not there. */
	buf_puts(&b, " 3>&1 >&4 4>&-); } 4>&1; __bwgate_st=$?; "
	    "[ -z \"$__bwgate_cwd\" ] || if cd -P -- \"$__bwgate_cwd\"; "
	    "then [ \"$(pwd -P)\" = \"$__bwgate_cwd\" ] || { cd -- "
	    "\"$OLDPWD\"; echo 'bwgate: the final directory changed on the "
	    "way: not carried over' >&2; }; fi; "
	    "(exit \"$__bwgate_st\")");
answer:
	hso = cJSON_CreateObject();
	cJSON_AddStringToObject(hso, "permissionDecision",
	    perm == HOOK_PERM_ASK ? "ask" : "allow");
	cJSON_AddStringToObject(hso, "permissionDecisionReason", rule != NULL ?
	    rule : "routed through the bwgate console (verdict, approval, "
	    "sandbox)");
	free(rule);
	upd = cJSON_Duplicate(input, true);
	cJSON_ReplaceItemInObject(upd, "command", cJSON_CreateString(b.data));
	cJSON_AddItemToObject(hso, "updatedInput", upd);
	hook_answer(hso);
	buf_release(&b);
}


/* The content a Write, Edit or MultiEdit would leave in rel; NULL with
   cause. */
static char *
hook_new_content(struct mcp *m, const char *tool, const cJSON *input,
    const char *rel, char **cause)
{
	struct buf	 cur = BUF_INIT, out = BUF_INIT, diff = BUF_INIT;
	const cJSON	*edits, *e;
	const char	*c, *old, *new;
	size_t		 n;

	if (strcmp(tool, "Write") == 0) {
		if ((c = cJSON_GetStringValue(cJSON_GetObjectItem(input,
		    "content"))) == NULL) {
			*cause = xstrdup("the Write input has no 'content'");
			return NULL;
		}
		return xstrdup(c);
	}
	if (mcp_file_load(m, rel, &cur, cause) != 0)
		return NULL;
	edits = cJSON_GetObjectItem(input, "edits");
	e = strcmp(tool, "MultiEdit") == 0 ? cJSON_IsArray(edits) ?
	    edits->child : NULL : input;
	for (; e != NULL; e = strcmp(tool, "MultiEdit") == 0 ? e->next :
	    NULL) {
		old = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "old_string"));
		new = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "new_string"));
		if (old == NULL || new == NULL) {
			*cause = xasprintf("the %s input lacks old_string or "
			    "new_string", tool);
			goto fail;
		}
		buf_reset(&out);
		buf_reset(&diff);
		if (mcp_edit_apply(cur.data, old, new, cJSON_IsTrue(
		    cJSON_GetObjectItem(e, "replace_all")), &out, &diff, &n,
		    cause) != 0)
			goto fail;
		buf_reset(&cur);
		buf_add(&cur, out.data, out.len);
	}
	buf_release(&out);
	buf_release(&diff);
	return buf_detach(&cur);
fail:
	buf_release(&cur);
	buf_release(&out);
	buf_release(&diff);
	return NULL;
}

/*
 * The console wrote what a Write asked for: let the tool run, so Claude
 * Code reports success and knows the file as it is now (its Write puts the
 * same bytes there again; denying would count as a refusal and tell the
 * model the write failed).
 */
static void
hook_written(const char *rel, double id)
{
	cJSON	*hso = cJSON_CreateObject();
	char	*reason;

	reason = xasprintf("bwgate: the console wrote '%s' (request %.0f, "
	    "approved and run in the sandbox)", rel, id);
	cJSON_AddStringToObject(hso, "permissionDecision", "allow");
	cJSON_AddStringToObject(hso, "permissionDecisionReason", reason);
	hook_answer(hso);
	free(reason);
}

/* Have the console write the file (a request like a command) and tell
   Claude Code the outcome: a Write it made is allowed (hook_written); an
   edit it made, or a write it did not, is denied with what happened. */
static void
hook_write_console(struct mcp *m, const char *socket, const char *tool,
    const cJSON *input, const char *rel)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	struct client		*cl;
	char			*cause = NULL, *content, *abs, *msg = NULL;
	const char		*type, *s, *d;
	cJSON			*j;
	double			 id = 0;
	bool			 failed = false, done = false;

	if ((content = hook_new_content(m, tool, input, rel, &cause)) ==
	    NULL) {
		msg = xasprintf("bwgate: %s '%s': %s", tool, rel, cause);
		goto out;
	}
	abs = path_join(m->project, rel);
	rq.socket = socket;
	rq.cwd = m->project;
	rq.write_path = abs;
	rq.write_content = content;
	rq.write_len = strlen(content);
	rq.agent = "claude-code";
	rq.tag = "hook";
	cl = run_start(&rq, &cause);
	free(abs);
	free(content);
	if (cl == NULL) {
		msg = xasprintf("bwgate: the console cannot write '%s': %s",
		    rel, cause);
		failed = true;
		goto out;
	}
	while (msg == NULL && (j = client_recv(cl, &cause)) != NULL) {
		type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
		s = cJSON_GetStringValue(cJSON_GetObjectItem(j, "note"));
		if (type == NULL)
			;
		else if (strcmp(type, "queued") == 0)
			id = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));
		else if (strcmp(type, "decided") == 0 && (d =
		    cJSON_GetStringValue(cJSON_GetObjectItem(j,
		    "decision"))) != NULL && strcmp(d, "denied") == 0) {
			char *dt = denied_text(cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "by")), s);

			msg = xasprintf("bwgate: writing '%s' (request %.0f) "
			    "%s", rel, id, dt);
			free(dt);
		}
		else if (strcmp(type, "result") == 0) {
			const cJSON *rep = cJSON_GetObjectItem(j, "report");

			if (cJSON_GetNumberValue(cJSON_GetObjectItem(j,
			    "exit_status")) == 0) {
				done = true;
				msg = xasprintf("bwgate: done: the console "
				    "wrote '%s' (request %.0f, approved and "
				    "run in the sandbox); the file has the "
				    "new content now, so this tool call is "
				    "not needed and was stopped", rel, id);
			} else
				msg = xasprintf("bwgate: writing '%s' through "
				    "the console failed (request %.0f): %s",
				    rel, id, cJSON_GetStringValue(
				    cJSON_GetObjectItem(rep, "stderr")));
		} else if (strcmp(type, "withdrawn") == 0 ||
		    strcmp(type, "error") == 0)
			msg = xasprintf("bwgate: the console did not write "
			    "'%s': %s", rel, s != NULL ? s :
			    cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "message")));
		cJSON_Delete(j);
	}
	if (msg == NULL && (failed = true))
		msg = xasprintf("bwgate: the console closed the connection "
		    "before writing '%s'%s%s", rel, cause != NULL ? ": " : "",
		    cause != NULL ? cause : "");
	client_free(cl);
out:
	if (failed)	/* the hook's own failure: block (hook-guard.h) */
		hook_block("%s", msg + strlen("bwgate: "));
	if (done && strcmp(tool, "Write") == 0)
		hook_written(rel, id);
	else
		hook_deny(msg);
	free(msg);
	free(cause);
}

/* Write/Edit/MultiEdit: refuse protected paths and paths outside the
   project (the same rules as the MCP file tools); with --writes console,
   have the console write plain and attention paths. */
static void
hook_file(const char *tool, const cJSON *input, const char *cwd,
    const char *socket, bool pass, bool route)
{
	const char	*fp = cJSON_GetStringValue(cJSON_GetObjectItem(input,
			    "file_path"));
	struct mcp		 m;
	struct config		 cfg;
	struct filewrite_match	 fm;
	char			*cause = NULL, *rel, *why, *abs;
	bool			 up = false;

	if (fp == NULL)
		hook_block("the %s input has no 'file_path' string", tool);
	if (jsoncheck_path("tool_input.file_path", fp, &cause) != 0 ||
	    fp[0] == '\0')
		hook_block("%s", cause != NULL ? cause : "field "
		    "'tool_input.file_path' is empty");
	hook_guard_context(NULL, NULL, NULL, fp);
	memset(&m, 0, sizeof m);
	m.project = path_project_of(cwd != NULL ? cwd : ".", &cause);
	if (m.project == NULL)
		hook_block("cannot tell the project of the call's cwd: %s",
		    cause);
	/* The project bounds where files may be written: never the whole
	   file system. */
	if (strcmp(m.project, "/") == 0)
		hook_block("the call's cwd is '/': no project to keep %s "
		    "inside", tool);
	config_init(&cfg);
	if (config_load(&cfg, NULL, &cause) == 0)
		strv_append_all(&m.protected, &cfg.protected);
	config_release(&cfg);
	free(cause);
	cause = NULL;
	/* Resolve the path as Claude Code does (~, relative to the call's
	   cwd) and then what exists of it, so a link cannot hide where it
	   leads (hook-path.h). */
	abs = hook_path_resolve(fp, cwd, getenv("HOME"), &cause);
	if (abs == NULL) {
		why = xasprintf("bwgate: %s: %s", fp, cause);
		hook_deny(why);
		free(why);
		rel = NULL;
	} else if ((rel = mcp_path_relative(&m, abs, &cause)) == NULL) {
		/* Outside the project: no request, on the record all the
		   same (edge-refusal.h). */
		(void)edge_refusal_audit(&(struct edge_refusal){
		    .project = m.project, .edge = "hook",
		    .agent = "claude-code", .tool = tool, .path = abs,
		    .reason = cause });
		why = xasprintf("bwgate: %s", cause);
		hook_deny(why);
		free(why);
	} else if ((why = mcp_path_protected(&m, rel)) != NULL) {
		/* On the record: the console refuses it as a request (its
		   verdict for a protected path), else the audit log has it. */
		struct stat	 rst;

		if (hook_console(socket, &cause) && (m.project_fd =
		    beneath_root(m.project, &rst, &cause)) >= 0) {
			hook_write_console(&m, socket, tool, input, rel);
			close(m.project_fd);
		} else {
			(void)edge_refusal_audit(&(struct edge_refusal){
			    .project = m.project, .edge = "hook",
			    .agent = "claude-code", .tool = tool, .path = rel,
			    .reason = why });
			free(abs);
			abs = xasprintf("bwgate: %s", why);
			hook_deny(abs);
		}
		free(why);
	} else if (route && !(up = hook_console(socket, &cause)) && !pass) {
		hook_block("file writes go through the bwgate console, and "
		    "none is reachable (%s)", cause);
	} else if (up) {
		struct stat	 rst;

		if ((m.project_fd = beneath_root(m.project, &rst,
		    &cause)) < 0)
			hook_block("%s", cause);
		hook_write_console(&m, socket, tool, input, rel);
		close(m.project_fd);
	} else {
		filewrite_classify(rel, &m.protected, &fm);
		if (fm.kind == FILEWRITE_ATTENTION)
			hook_ask(rel, &fm);
	}
	free(abs);
	free(rel);
	free(cause);
	free(m.project);
	strv_release(&m.protected);
}

/* claude-code: read the event and answer. */
static int
hook_claude_code(const char *socket, bool pass, bool route)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL;
	const char	*tool, *event;
	cJSON		*j;

	if (buf_read_fd(&b, 0, HOOK_MAX_INPUT) != 0)
		hook_block("cannot read the hook input: %s", strerror(errno));
	if (b.data == NULL || b.len == 0)
		hook_block("the hook input is empty");
	/* What cJSON would cut short (\u0000) or refuse without saying
	   where (a lone surrogate), named before it parses. */
	if (jsoncheck_text(b.data, b.len, NULL, &cause) != 0)
		hook_block("the hook input: %s", cause);
	j = json_parse_text(b.data, "the hook input", &cause);
	buf_release(&b);
	if (j == NULL || !cJSON_IsObject(j))
		hook_block("%s", cause != NULL ? cause : "the hook input is "
		    "not a JSON object");
	if ((tool = cJSON_GetStringValue(cJSON_GetObjectItem(j, "cwd"))) !=
	    NULL && jsoncheck_path("cwd", tool, &cause) != 0)
		hook_block("the hook input: %s", cause);
	if (tool != NULL && tool[0] != '/')
		hook_block("the hook input: field 'cwd' must be an absolute "
		    "path");
	hook_guard_context(tool, NULL, NULL, NULL);
	event = cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "hook_event_name"));
	tool = cJSON_GetStringValue(cJSON_GetObjectItem(j, "tool_name"));
	if ((event == NULL || strcmp(event, "PreToolUse") == 0) &&
	    tool != NULL) {
		const cJSON *in = cJSON_GetObjectItem(j, "tool_input");

		if (strcmp(tool, "Bash") == 0 || strcmp(tool, "Write") == 0 ||
		    strcmp(tool, "Edit") == 0 || strcmp(tool, "MultiEdit") == 0)
			hook_guard_context(NULL, tool, NULL, NULL);
		if (strcmp(tool, "Bash") == 0)
			hook_bash(in, cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "cwd")),
			    cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "session_id")), socket, pass);
		else if (strcmp(tool, "Write") == 0 ||
		    strcmp(tool, "Edit") == 0 ||
		    strcmp(tool, "MultiEdit") == 0)
			hook_file(tool, in, cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "cwd")), socket, pass,
			    route);
	}
	cJSON_Delete(j);
	return 0;
}

/* bwgate hook HARNESS: options, then answer one event. */
int
cmd_hook(int argc, char **argv)
{
	const char	*socket = NULL;
	bool		 pass = false, route = false;
	unsigned long	 deadline = HOOK_DEADLINE_S;
	char		*end;
	int		 c;

	/* From here on, every way out blocks the call (hook-guard.h). */
	hook_guard_install(HOOK_DEADLINE_S);
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:w:W:h", hook_options,
	    NULL)) != -1) {
		switch (c) {
		case 's': socket = optarg; break;
		case 'w':
			if (strcmp(optarg, "pass") == 0)
				pass = true;
			else if (strcmp(optarg, "deny") != 0) {
				hook_block("--without-console: '%s' is not "
				    "deny or pass", optarg);
			}
			break;
		case 'd':
			errno = 0;
			deadline = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    deadline == 0 || deadline > 86400)
				hook_block("--deadline: '%s' is not a number "
				    "of seconds from 1 to 86400", optarg);
			break;
		case 'W':
			if (strcmp(optarg, "console") == 0)
				route = true;
			else if (strcmp(optarg, "check") != 0) {
				hook_block("--writes: '%s' is not check or "
				    "console", optarg);
			}
			break;
		case 'h':
			hook_usage(stdout);
			return 0;
		default:
			hook_usage(stderr);
			hook_block("bad options; the tool call is blocked");
		}
	}
	if (optind + 1 != argc || strcmp(argv[optind], "claude-code") != 0) {
		hook_usage(stderr);
		hook_block("only 'bwgate hook claude-code' is known; the tool "
		    "call is blocked");
	}
	hook_guard_install((unsigned)deadline);
	return hook_claude_code(socket, pass, route);
}
