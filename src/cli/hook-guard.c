/*
 * hook-guard: every failure of the Claude Code hook is a block. Claude Code
 * runs the tool call anyway when a hook exits with anything but 0 or 2,
 * crashes or times out (unless the hook is configured with onFailure:
 * "block", doc/agents.md), so the hook itself turns each of those into
 * exit 2 with the reason on stderr: a fatal signal it can catch, running
 * out of memory, its own deadline, a decision it cannot write. A block
 * the hook decides (bad input, no console) is on the record too: a
 * "refused" record in the audit log (edge-refusal.h) with what the hook
 * knew of the call by then (hook_guard_context).
 */
#include "autoconf.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edge-refusal.h"
#include "hook-guard.h"
#include "path.h"
#include "xalloc.h"

/* Made at install: the signal handler only writes it. */
static char	hook_deadline_msg[160];

/* What the hook knows of the call, checked input only (copies). */
static struct {
	char	*cwd;
	char	*tool;
	char	*command;
	char	*path;
} hook_ctx;

/* Write a constant line and leave blocking; async-signal-safe. */
static void
hook_die(const char *msg)
{
	(void)!write(2, msg, strlen(msg));
	_exit(HOOK_EXIT_BLOCK);
}

/* A fatal signal or the deadline. */
static void
hook_signal(int sig)
{
	switch (sig) {
	case SIGALRM:
		hook_die(hook_deadline_msg);
		break;
	case SIGTERM:
	case SIGINT:
	case SIGHUP:
		hook_die("bwgate: hook: stopped by a signal before deciding; "
		    "the tool call is blocked\n");
		break;
	default:
		hook_die("bwgate: hook: internal error (fatal signal); the "
		    "tool call is blocked\n");
	}
}

/* Out of memory (xalloc): block rather than exit 125. */
static void
hook_oom(void)
{
	hook_die("bwgate: hook: out of memory; the tool call is blocked\n");
}

void
hook_guard_install(unsigned deadline_s)
{
	static const int	 sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				    SIGABRT, SIGSYS, SIGTRAP, SIGXCPU, SIGXFSZ,
				    SIGALRM, SIGTERM, SIGINT, SIGHUP };
	struct sigaction	 sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = hook_signal;
	sa.sa_flags = SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	/* A closed stdout is a write error below, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	xalloc_on_fatal(hook_oom);
	snprintf(hook_deadline_msg, sizeof hook_deadline_msg, "bwgate: hook: "
	    "no decision within the hook's deadline (%u s, --deadline); the "
	    "tool call is blocked\n", deadline_s);
	alarm(deadline_s);
}

/* Replace one field of the context. */
static void
hook_ctx_set(char **field, const char *value)
{
	free(*field);
	*field = value != NULL ? xstrdup(value) : NULL;
}

void
hook_guard_context(const char *cwd, const char *tool, const char *command,
    const char *path)
{
	if (cwd != NULL)
		hook_ctx_set(&hook_ctx.cwd, cwd);
	if (tool != NULL)
		hook_ctx_set(&hook_ctx.tool, tool);
	if (command != NULL)
		hook_ctx_set(&hook_ctx.command, command);
	if (path != NULL)
		hook_ctx_set(&hook_ctx.path, path);
}

/* The block on the record: once (a failure while writing it blocks
   without another try). */
static void
hook_block_audit(const char *reason)
{
	static int	 done;
	char		*proj = NULL, *cause = NULL;

	if (done++)
		return;
	if (hook_ctx.cwd != NULL)
		proj = path_project_of(hook_ctx.cwd, &cause);
	free(cause);
	(void)edge_refusal_audit(&(struct edge_refusal){ .project = proj,
	    .edge = "hook", .agent = "claude-code", .tool = hook_ctx.tool,
	    .command = hook_ctx.command, .path = hook_ctx.path,
	    .reason = reason });
	free(proj);
}

void
hook_block(const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	alarm(0);
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "bwgate: hook: %s\n", msg);
	fflush(stderr);
	/* A record that cannot be written soon still leaves a block. */
	alarm(10);
	hook_block_audit(msg);
	free(msg);
	_exit(HOOK_EXIT_BLOCK);
}

void
hook_guard_flush(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		hook_block("cannot write the decision to Claude Code; the tool "
		    "call is blocked");
	alarm(0);
}
