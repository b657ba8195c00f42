/*
 * cmd: the bwgate subcommands (one file each, cmd-NAME.c). The table that
 * maps names to these functions is in bwgate.c.
 */
#ifndef BWGATE_CMD_H
#define BWGATE_CMD_H

/* Exit statuses shared by the front ends (see bwgate(1)). */
#define EXIT_BWGATE_FAILED	125	/* bwgate failed before running it */
#define EXIT_DENIED		77	/* denied (by rule, operator, headless) */

int	cmd_exec(int, char **);
int	cmd_doctor(int, char **);

#endif
