/*
 * cmd-sh: `bwgate sh -c STRING` (also installed as `bwgate-sh`), for agents
 * that run commands through `$SHELL -c`. The string is what the console
 * classifies; it runs as `bash -c STRING` in the sandbox.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"

int
cmd_sh(int argc, char **argv)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	bool			 have_c = false;
	int			 i;

	/* Flags as a shell takes them: -c, -l (ignored), bundled (-lc). */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		for (const char *p = a + 1; *p != '\0'; p++) {
			if (*p == 'c')
				have_c = true;
			else if (*p != 'l') {
				fprintf(stderr, "bwgate: sh: option '-%c' is "
				    "not supported (use sh -c STRING)\n", *p);
				return EXIT_BWGATE_FAILED;
			}
		}
	}
	if (!have_c || i >= argc) {
		fprintf(stderr, "usage: bwgate sh -c STRING\n"
		    "bwgate: sh runs only command strings (-c); there is no "
		    "interactive mode\n");
		return EXIT_BWGATE_FAILED;
	}
	if (i + 1 < argc) {
		fprintf(stderr, "bwgate: sh: arguments after the command "
		    "string ($0, $1, ...) are not supported\n");
		return EXIT_BWGATE_FAILED;
	}
	rq.command = argv[i];
	return run_submit(&rq);
}
