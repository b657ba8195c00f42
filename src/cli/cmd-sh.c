/*
 * cmd-sh: `bwgate sh` (also installed as `bwgate-sh`), a shell as far as
 * callers that run `$SHELL -c STRING` can tell: make (SHELL, .SHELLFLAGS),
 * Python's subprocess, npm's script-shell, git aliases, agent harnesses.
 *
 * It takes what `bash -c` and `dash -c` take in that position:
 *
 *	bwgate-sh [-+OPTS] [-o NAME | +o NAME]... [-l | --login] [--]
 *	    -c STRING [NAME [ARG...]]
 *
 * Option clusters (-ec, -euo pipefail) are split; -l/--login, --norc and
 * --noprofile are accepted and dropped (the sandbox has no profile of the
 * user's to read); the other options and the positional parameters are
 * passed on to the shell that runs STRING in the sandbox. STRING is what
 * the console classifies: no accepted option widens what it can do (-e,
 * -u, -x, pipefail change when it stops or what it prints), and $1... are
 * unknown values there, so a string that runs them needs the operator.
 * -i and reading commands from stdin or a file are refused: there is no
 * interactive mode. Usage errors exit 2, as a shell's do.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "protocol.h"

#define SH_USAGE_STATUS	2	/* what bash and dash exit with */

/* Long options a shell takes that mean nothing here. */
static const char *const sh_long_ignored[] = {
	"--login", "--norc", "--noprofile", "--noediting", NULL
};

/* Say what is wrong, as a shell would, and how bwgate-sh is used. */
static int
sh_usage_error(const char *what, const char *why)
{
	fprintf(stderr, "bwgate-sh: %s: %s", what, why);
	fprintf(stderr, "\nusage: bwgate-sh [-euxo OPTION ...] [-l] -c STRING "
	    "[NAME [ARG...]]\n");
	return SH_USAGE_STATUS;
}

/* One option cluster (-euo, +x); *i moves past words -o takes. */
static int
sh_cluster(struct run_request *rq, int argc, char **argv, int *i,
    bool *have_c)
{
	const char	*a = argv[*i];
	char		 one[3] = { a[0], '\0', '\0' };

	for (const char *p = a + 1; *p != '\0'; p++) {
		one[1] = *p;
		if (*p == 'c' && a[0] == '-') {
			*have_c = true;
			continue;
		}
		if (*p == 'l' && a[0] == '-')
			continue;	/* login shell: nothing to read */
		if (*p == 'i')
			return sh_usage_error("-i", "there is no "
			    "interactive mode; give the command with -c STRING");
		if (*p == 's')
			return sh_usage_error("-s", "reading commands "
			    "from stdin is not supported; give them with -c "
			    "STRING");
		if (*p == 'o') {
			if (*i + 1 >= argc)
				return sh_usage_error(a[0] == '-' ? "-o" :
				    "+o", "option requires an argument");
			(*i)++;
			if (!proto_shell_option_ok(a[0] == '-' ? "-o" : "+o",
			    argv[*i]))
				return sh_usage_error(argv[*i],
				    "invalid option name");
			strv_push(&rq->shell_options, a[0] == '-' ? "-o" :
			    "+o");
			strv_push(&rq->shell_options, argv[*i]);
			continue;
		}
		if (!proto_shell_option_ok(one, NULL))
			return sh_usage_error(one, "invalid option");
		strv_push(&rq->shell_options, one);
	}
	return 0;
}

int
cmd_sh(int argc, char **argv)
{
	struct run_request	 rq = RUN_REQUEST_INIT;
	bool			 have_c = false, ignored;
	int			 i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0 || strcmp(a, "-") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--posix") == 0) {
			strv_push(&rq.shell_options, "-o");
			strv_push(&rq.shell_options, "posix");
			continue;
		}
		/* bwgate's own: where the string ended, for a harness that
		   keeps its directory between calls (bwgate hook). */
		if (strncmp(a, "--cwd-fd=", 9) == 0) {
			char	*end;
			long	 fd = strtol(a + 9, &end, 10);

			if (*end != '\0' || fd < 1 || fd > 1024 ||
			    end == a + 9) {
				rc = sh_usage_error(a, "invalid descriptor");
				goto out;
			}
			rq.cwd_fd = (int)fd;
			continue;
		}
		if (strncmp(a, "--", 2) == 0) {
			ignored = false;
			for (const char *const *l = sh_long_ignored; *l != NULL;
			    l++)
				ignored = ignored || strcmp(a, *l) == 0;
			if (!ignored) {
				rc = sh_usage_error(a, "invalid option");
				goto out;
			}
			continue;
		}
		if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
			break;
		if ((rc = sh_cluster(&rq, argc, argv, &i, &have_c)) != 0)
			goto out;
	}
	if (!have_c) {
		rc = sh_usage_error(i < argc ? argv[i] : "stdin", i < argc ?
		    "running a script file is not supported; give the "
		    "command with -c STRING" : "there is no interactive "
		    "mode; give the command with -c STRING");
		goto out;
	}
	if (i >= argc) {
		rc = sh_usage_error("-c", "option requires an argument");
		goto out;
	}
	rq.command = argv[i++];
	if (rq.command[strspn(rq.command, " \t\n")] == '\0') {
		rc = 0;	/* an empty string succeeds, as in any shell */
		goto out;
	}
	for (; i < argc; i++)
		strv_push(&rq.args, argv[i]);
	rq.quiet = run_quiet_env();
	rq.approval_ms = run_approval_env();
	rc = run_submit(&rq);
out:
	strv_release(&rq.shell_options);
	strv_release(&rq.args);
	return rc;
}
