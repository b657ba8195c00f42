/*
 * bwgate: the entry point. Dispatches to a subcommand from the table below;
 * with no subcommand (or only options) it starts the console.
 */
#include "autoconf.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "cmd.h"
#include "log.h"

struct command {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*summary;
};

/* Subcommands, in the order `bwgate help` lists them. */
static const struct command commands[] = {
	{ "exec", cmd_exec, "run one command in the sandbox and report" },
	{ "doctor", cmd_doctor, "check what this host supports" },
	{ "check", cmd_check, "classify a command string (verdict, rule, sandbox)" },
	{ "trust", cmd_trust, "trust a project's rule file (.bwgate.json)" },
	{ "console", cmd_console, "start the console (the default)" },
	{ "run", cmd_run, "submit a command to the console and wait" },
	{ "sh", cmd_sh, "like sh -c STRING, through the console" },
	{ "list", cmd_list, "list the console's requests" },
	{ "consoles", cmd_consoles, "list the running consoles (one per "
	  "project)" },
	{ "executor", cmd_executor, "serve a project's agents on this machine "
	  "for a console on another" },
	{ "connect", cmd_connect, "link an executor on HOST to this console "
	  "over ssh" },
	{ "hosts", cmd_hosts, "the machines linked to the console" },
	{ "approve", cmd_approve, "approve a pending request" },
	{ "deny", cmd_deny, "deny a pending request" },
	{ "kill", cmd_kill, "kill a running request" },
	{ "stop", cmd_stop, "stop a service (a request's background processes)" },
	{ "host", cmd_host, "answer a request's question about a new host" },
	{ "reload", cmd_reload, "read configuration and rules again" },
	{ "show", cmd_show, "one request's record, report or output" },
	{ "log", cmd_log, "the project's requests from the audit log" },
	{ "rules", cmd_rules, "rules suggest: rules from what you approved "
	  "again and again" },
	{ "undo", cmd_undo, "put a run's changes back" },
	{ "mcp", cmd_mcp, "an MCP server on stdio for agents (run, file tools)" },
	{ "hook", cmd_hook, "a Claude Code PreToolUse hook (hook claude-code)" },
	{ NULL, NULL, NULL }
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: bwgate [console options]\n"
	    "       bwgate COMMAND [options]\n\ncommands:\n");
	for (const struct command *c = commands; c->name != NULL; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\nconsole options (bwgate with no command starts the "
	    "console):\n");
	console_usage(f);
	fprintf(f, "\nsee bwgate(1)\n");
}

/* Is this path's last component "bwgate-sh"? */
static bool
bwgate_is_sh(const char *path)
{
	const char	*name;

	if (path == NULL)
		return false;
	name = strrchr(path, '/');
	return strcmp(name != NULL ? name + 1 : path, "bwgate-sh") == 0;
}

int
main(int argc, char **argv)
{
	const char	*name;

	/* Characters only (display width, wide-character display): numbers
	   and times print the same everywhere, and every process start
	   loads one locale file instead of thirteen (the console's screen
	   takes the rest, ui.c). */
	setlocale(LC_CTYPE, "");
	signal(SIGPIPE, SIG_IGN);
	/* A debug log for any subcommand (bwgate --log FILE does the same
	   for the console). */
	if ((name = getenv("BWGATE_LOG")) != NULL && name[0] == '/')
		log_open(name);
	LOG("%s", argc > 1 ? argv[1] : "console");
	/* Installed as bwgate-sh: behave like `bwgate sh`. The name run
	   counts too: Python's subprocess(shell=True, executable=...) keeps
	   argv[0] "/bin/sh". */
	if (bwgate_is_sh(argv[0]) ||
	    bwgate_is_sh((const char *)getauxval(AT_EXECFN))) {
		for (const struct command *c = commands; c->name != NULL; c++)
			if (strcmp(c->name, "sh") == 0)
				return c->fn(argc, argv);
	}
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
		    strcmp(argv[1], "-h") == 0)) {
			usage(stdout);
			return 0;
		}
		if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
			printf("bwgate %s\n", PACKAGE_VERSION);
			return 0;
		}
		for (const struct command *c = commands; c->name != NULL; c++)
			if (strcmp(c->name, "console") == 0)
				return c->fn(argc, argv);
		usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if (strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (const struct command *c = commands; c->name != NULL; c++)
		if (strcmp(c->name, argv[1]) == 0)
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "bwgate: unknown command '%s' (see bwgate help)\n",
	    argv[1]);
	return EXIT_BWGATE_FAILED;
}
