/*
 * cmd-console: `bwgate [options]`, the console itself.
 *
 * Sets up the core (console.h) on a loop and picks a front end: the
 * terminal UI (ui_main) when stdout is a terminal and --headless is not
 * given, otherwise the headless front end, which prints one line per
 * request event on stderr.
 */
#include "autoconf.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cmd.h"
#include "console.h"
#include "display.h"
#include "jsonutil.h"
#include "log.h"
#include "ui.h"
#include "xalloc.h"

enum {
	OPT_AUDIT = 256, OPT_APPROVAL_TIMEOUT, OPT_MAX_RUNNING, OPT_WRITERS,
	OPT_TMUX,	/* the terminal UI in a tmux side pane (ui/tmux.c) */
	OPT_AUTO_SANDBOXED,
	OPT_UNLISTED,	/* --unlisted wait|deny */
};

static const struct option console_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "socket", required_argument, NULL, 's' },
	{ "fifo", required_argument, NULL, 'f' },
	{ "headless", no_argument, NULL, 'H' },
	{ "auto-allowlisted", no_argument, NULL, 'a' },
	{ "auto-sandboxed", no_argument, NULL, OPT_AUTO_SANDBOXED },
	{ "config", required_argument, NULL, 'c' },
	{ "log", required_argument, NULL, 'l' },
	{ "audit", required_argument, NULL, OPT_AUDIT },
	{ "approval-timeout", required_argument, NULL, OPT_APPROVAL_TIMEOUT },
	{ "max-running", required_argument, NULL, OPT_MAX_RUNNING },
	{ "writers", required_argument, NULL, OPT_WRITERS },
	{ "tmux", no_argument, NULL, OPT_TMUX },
	{ "unlisted", required_argument, NULL, OPT_UNLISTED },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The console's options (bwgate --help prints them too) and where its
   keys are. */
void
console_usage(FILE *f)
{
	fprintf(f, "usage: bwgate [--project DIR] [--socket PATH] "
	    "[--fifo PATH] [--headless]\n"
	    "              [--auto-allowlisted | --auto-sandboxed] "
	    "[--approval-timeout SECONDS]\n"
	    "              [--config FILE] [--log FILE] [--audit FILE] "
	    "[--max-running N]\n"
	    "              [--writers auto|alone|together] [--tmux] "
	    "[--unlisted wait|deny]\n"
	    "in the console, ? lists the keys (a approve, d deny, m/M mark "
	    "for a bulk approval, u undo, q quit)\n");
}

/* A whole number option in [min, max]. */
static int
console_number(const char *s, const char *opt, long min, long max, long *out)
{
	char	*end;
	long	 v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "bwgate: %s: invalid value '%s' (a whole "
		    "number from %ld to %ld)\n", opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* The headless front end: one line per event on stderr. */
static void
headless_event(struct console *c, const struct console_event *ev, void *arg)
{
	const struct request	*r = ev->r;
	const cJSON		*rep, *ch, *att;

	switch (ev->type) {
	case CONSOLE_EV_ADDED:
		fprintf(stderr, "bwgate: [%u] %s from %s: %s (%s%s%s)\n",
		    r->id, verdict_name(r->verdict), display_str(r->agent),
		    display_str(r->command),
		    r->rule != NULL ? display_str(r->rule) : "no rule",
		    r->reason[0] != '\0' ? ": " : "", display_str(r->reason));
		break;
	case CONSOLE_EV_CHANGED:
		switch (r->state) {
		case REQUEST_PENDING:
			fprintf(stderr, "bwgate: [%u] waits for approval "
			    "(bwgate approve %u / bwgate deny %u)\n", r->id,
			    r->id, r->id);
			break;
		case REQUEST_APPROVED:
		case REQUEST_DENIED:
		case REQUEST_WITHDRAWN:
			fprintf(stderr, "bwgate: [%u] %s by %s%s%s\n", r->id,
			    request_state_name(r->state),
			    request_by_name(r->by),
			    r->note != NULL ? ": " : "",
			    display_str(r->note));
			break;
		case REQUEST_RUNNING:
			fprintf(stderr, "bwgate: [%u] running\n", r->id);
			break;
		default:
			rep = r->report;
			ch = rep != NULL ? cJSON_GetObjectItem(rep, "changes") :
			    NULL;
			fprintf(stderr, "bwgate: [%u] %s, exit status %d",
			    r->id, request_state_name(r->state),
			    r->exit_status);
			if (cJSON_IsObject(ch))
				fprintf(stderr, ", %d created, %d modified, "
				    "%d deleted",
				    cJSON_GetArraySize(cJSON_GetObjectItem(ch,
				    "created")),
				    cJSON_GetArraySize(cJSON_GetObjectItem(ch,
				    "modified")),
				    cJSON_GetArraySize(cJSON_GetObjectItem(ch,
				    "deleted")));
			if (r->error != NULL)
				fprintf(stderr, ": %s", display_str(r->error));
			fputc('\n', stderr);
			att = rep != NULL ? cJSON_GetObjectItem(rep,
			    "attention") : NULL;
			cJSON_ArrayForEach(ch, att)
				fprintf(stderr, "bwgate: [%u] ! attention: "
				    "%s: %s\n", r->id, display_str(
				    cJSON_GetStringValue(cJSON_GetObjectItem(
				    ch, "path"))), display_str(
				    cJSON_GetStringValue(cJSON_GetObjectItem(
				    ch, "why"))));
			break;
		}
		break;
	case CONSOLE_EV_OUTSIDE:
		/* A change no running request made (console-outside.c). */
		if (ev->json == NULL)
			break;
		fprintf(stderr, "bwgate: changed outside any request: %s %s",
		    display_str(cJSON_GetStringValue(cJSON_GetObjectItem(
		    ev->json, "event"))), display_str(cJSON_GetStringValue(
		    cJSON_GetObjectItem(ev->json, "path"))));
		if (cJSON_GetStringValue(cJSON_GetObjectItem(ev->json,
		    "to")) != NULL)
			fprintf(stderr, " -> %s", display_str(
			    cJSON_GetStringValue(cJSON_GetObjectItem(ev->json,
			    "to"))));
		fputc('\n', stderr);
		break;
	case CONSOLE_EV_MESSAGE:
	case CONSOLE_EV_QUIT:
		fprintf(stderr, "bwgate: %s\n", display_str(ev->message));
		break;
	default:
		break;
	}
	fflush(stderr);
}

/* The headless front end: one line per request event on stderr. */
static void
console_front_end(struct console *c, bool headless)
{
	(void)headless;
	console_subscribe(c, headless_event, NULL);
}

int
cmd_console(int argc, char **argv)
{
	struct console_opts	 o = CONSOLE_OPTS_INIT;
	struct console		*c;
	struct loop		*l;
	char			*cause = NULL, *q;
	const char		*logfile = NULL;
	long			 v;
	int			 ch, rc = 0;
	bool			 tmux = false;
	_cleanup_free_ bool	*tmux_at = xcalloc((size_t)argc + 1,
				    sizeof *tmux_at);

	optind = 1;
	while ((ch = getopt_long(argc, argv, "p:s:f:Hac:l:h",
	    console_options, NULL)) != -1) {
		switch (ch) {
		case 'p': o.project = optarg; break;
		case 's': o.socket = optarg; break;
		case 'f': o.fifo = optarg; break;
		case 'H': o.headless = true; break;
		case 'a': o.auto_allowlisted = true; break;
		case OPT_AUTO_SANDBOXED: o.auto_sandboxed = true; break;
		case 'c': o.config_file = optarg; break;
		case 'l': logfile = optarg; break;
		case OPT_AUDIT: o.audit_file = optarg; break;
		case OPT_APPROVAL_TIMEOUT:
			if (console_number(optarg, "--approval-timeout", 1,
			    7 * 24 * 3600, &v) != 0)
				return EXIT_BWGATE_FAILED;
			o.approval_timeout_s = (int)v;
			break;
		case OPT_MAX_RUNNING:
			if (console_number(optarg, "--max-running", 1, 1024,
			    &v) != 0)
				return EXIT_BWGATE_FAILED;
			o.max_running = (size_t)v;
			break;
		case OPT_WRITERS:
			if (strcmp(optarg, "auto") == 0)
				o.writers = CONSOLE_WRITERS_AUTO;
			else if (strcmp(optarg, "alone") == 0)
				o.writers = CONSOLE_WRITERS_ALONE;
			else if (strcmp(optarg, "together") == 0)
				o.writers = CONSOLE_WRITERS_TOGETHER;
			else {
				fprintf(stderr, "bwgate: bad --writers '%s': "
				    "want auto, alone or together\n", optarg);
				return EXIT_BWGATE_FAILED;
			}
			break;
		case OPT_UNLISTED:
			if (strcmp(optarg, "wait") == 0)
				o.unlisted_wait = true;
			else if (strcmp(optarg, "deny") != 0) {
				fprintf(stderr, "bwgate: bad --unlisted '%s': "
				    "want wait or deny\n", optarg);
				return EXIT_BWGATE_FAILED;
			}
			break;
		case OPT_TMUX:
			/* No short form and no value: its own word, and
			   argv is not permuted (no operands are taken). */
			tmux = true;
			tmux_at[optind - 1] = true;
			break;
		case 'h':
			console_usage(stdout);
			return 0;
		default:
			console_usage(stderr);
			return EXIT_BWGATE_FAILED;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bwgate: unexpected argument '%s'\n",
		    argv[optind]);
		console_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if (tmux) {
		/* The pane's console gets the same arguments but --tmux
		   (however it was spelled: getopt takes abbreviations). */
		struct strv	args = STRV_INIT;

		for (int i = 1; i < argc; i++)
			if (!tmux_at[i])
				strv_push(&args, argv[i]);
		rc = ui_tmux(o.socket, o.project, &args);
		strv_release(&args);
		return rc == 0 ? 0 : EXIT_BWGATE_FAILED;
	}
	if (logfile != NULL && log_open(logfile) != 0) {
		fprintf(stderr, "bwgate: cannot open '%s'\n", logfile);
		return EXIT_BWGATE_FAILED;
	}
	/* Executors on other machines may link to it (remote.h). */
	o.link = true;
	/* With no terminal there is nobody to ask: headless. */
	if (!o.headless && !isatty(STDOUT_FILENO))
		o.headless = true;
	/* At the terminal UI, allowlisted commands run at once and the
	   operator decides the rest (ui/, bwgate(1) THE TERMINAL CONSOLE). */
	if (!o.headless || o.auto_sandboxed)
		o.auto_allowlisted = true;

	l = loop_new();
	if ((c = console_new(&o, l, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		loop_free(l);
		return EXIT_BWGATE_FAILED;
	}
	q = shell_quote(console_socket_path(c));
	printf("export BWGATE_SOCKET=%s\n", q);
	fflush(stdout);
	free(q);
	fprintf(stderr, "bwgate: console for '%s'%s%s%s; control socket "
	    "'%s'; audit log '%s'\n", display_str(console_project(c)),
	    o.headless ? ", headless" : "",
	    o.auto_sandboxed ? ", what fits the project sandbox runs at "
	    "once" : o.auto_allowlisted ? ", allowlisted commands run at once" :
	    "",
	    o.headless && o.auto_allowlisted ? o.unlisted_wait ?
	    ", the rest waits for the operator" : ", the rest is denied" : "",
	    display_str(console_control_path(c)),
	    display_str(console_audit_path(c)));
	if (console_rules_problem(c) != NULL)
		fprintf(stderr, "bwgate: warning: %s\n",
		    display_str(console_rules_problem(c)));
	if (!o.headless) {
		/* The terminal UI drives the loop until the console is done. */
		if (ui_main(c, l, &cause) != 0) {
			fprintf(stderr, "bwgate: %s\n", display_str(cause));
			free(cause);
			rc = EXIT_BWGATE_FAILED;
		}
	} else {
		console_front_end(c, o.headless);
		while (!console_done(c))
			loop_run_once(l, -1);
	}
	console_free(c);
	loop_free(l);
	log_close();
	return rc;
}
