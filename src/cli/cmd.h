/*
 * cmd: the bwgate subcommands (one file each, cmd-NAME.c). The table that
 * maps names to these functions is in bwgate.c.
 */
#ifndef BWGATE_CMD_H
#define BWGATE_CMD_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "strv.h"

/* Exit statuses shared by the front ends (see bwgate(1)). */
#define EXIT_BWGATE_FAILED	125	/* bwgate failed before running it */
#define EXIT_DENIED		77	/* denied (by rule, operator, headless) */
#define EXIT_ASK		1	/* bwgate check: the verdict is ask */

int	cmd_exec(int, char **);
/* exec-prestart.c: the console's warm exec with a prediction on fd. */
struct engine_opts;
struct result;
int	exec_prestart(int fd, const struct engine_opts *base,
	    struct result *r, char **shown);
int	cmd_doctor(int, char **);
int	cmd_check(int, char **);
int	cmd_trust(int, char **);
int	cmd_console(int, char **);
int	cmd_run(int, char **);
int	cmd_sh(int, char **);
int	cmd_list(int, char **);
int	cmd_consoles(int, char **);
int	cmd_executor(int, char **);
int	cmd_connect(int, char **);
int	cmd_hosts(int, char **);
int	cmd_approve(int, char **);
int	cmd_deny(int, char **);
int	cmd_kill(int, char **);
int	cmd_stop(int, char **);
int	cmd_host(int, char **);
int	cmd_reload(int, char **);
int	cmd_show(int, char **);
int	cmd_log(int, char **);
int	cmd_rules(int, char **);
int	cmd_undo(int, char **);
int	cmd_mcp(int, char **);
int	cmd_hook(int, char **);

/* One command for the console, as `bwgate run` and `bwgate sh` send it. */
struct run_request {
	const char	*socket;	/* NULL: $BWGATE_SOCKET or default */
	const char	*cwd;		/* NULL: the current directory */
	const char	*command;	/* a shell string, or */
	struct strv	 argv;		/* an argv, or */
	const char	*write_path;	/* a file to write (bwgate mcp) */
	const char	*write_content;
	size_t		 write_len;	/* of write_content */
	const char	*agent;
	const char	*description;	/* why, in the agent's words */
	const char	*refused;	/* refused by the adapter itself: why
					   (the console denies it, on the
					   record) */
	const char	*tag;		/* NULL: "run" */
	int		 timeout_s;
	bool		 json;		/* print the report, not the output */
	bool		 quiet;		/* no summary lines on stderr */
	bool		 network;
	struct strv	 rw;
	struct strv	 ro;
	struct strv	 domains;	/* hosts through the proxy */
	double		 memory;	/* lower the limits; 0: as is */
	int		 pids;
	int		 cpu_s;
	struct strv	 shell_options;	/* with command: -e, -o pipefail */
	struct strv	 args;		/* with command: $0 and $1... */
	bool		 forward;	/* send our environment, stdin and
					   output order (run, sh) */
	struct strv	 env;		/* NAME=VALUE over our environment
					   (bwgate mcp's run tool) */
	int		 approval_ms;	/* withdraw when not decided by then
					   (BWGATE_APPROVAL_MS); 0: wait */
	int		 cwd_fd;	/* >0: write where the command ended
					   there (bwgate sh --cwd-fd) */
};
#define RUN_REQUEST_INIT { .argv = STRV_INIT, .rw = STRV_INIT, \
	.ro = STRV_INIT, .shell_options = STRV_INIT, .args = STRV_INIT, \
	.env = STRV_INIT }

/* BWGATE_QUIET set (and not "0"): no summary lines on stderr. */
bool	run_quiet_env(void);
char	*denied_text(const char *by, const char *note);
/* BWGATE_APPROVAL_MS as milliseconds, 0 when unset or not a number. */
int	run_approval_env(void);

/* Text a command or a file controls, control characters visible (the
   escaping point until the display function lands). */
void	summary_text(FILE *, const char *);
char	*summary_escape(const char *);
/* A JSON change report as a few lines, each after pfx (summary.c). */
void	summary_print(FILE *, const char *pfx, const cJSON *report);
void	console_usage(FILE *);

struct client;
/* Connect and submit (cmd-run.c); NULL with cause. The caller reads the
   replies (doc/protocol.md) and frees the client. */
struct client	*run_start(const struct run_request *, char **cause);
/* Submit and follow to the end (cmd-run.c); returns the exit status. */
int	run_submit(const struct run_request *);

#endif
