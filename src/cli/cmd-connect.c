/*
 * cmd-connect: `bwgate connect [USER@]HOST[:PROJECT]`, the link from an
 * executor on HOST to this machine's console, through the operator's own
 * ssh (doc/remote.md).
 *
 * It asks the executor's machine where its link socket is (`bwgate
 * executor --uplink-path` over ssh), then runs
 *
 *	ssh -N -o ExitOnForwardFailure=yes -R UPLINK:LINK HOST
 *
 * so sshd on HOST listens on UPLINK (in the executor's private runtime
 * directory) and carries each connection to this console's link socket
 * LINK. No port is opened and nothing of bwgate's crosses but JSON lines
 * inside ssh. When ssh ends it is started again (after a pause) until
 * connect is told to stop; --once runs it once. The console checks that
 * its peer is an ssh this command started (remote.h), and shows HOST as
 * given here: the destination must be the last argument.
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "cmd.h"
#include "display.h"
#include "remote.h"
#include "shquote.h"
#include "spawn.h"
#include "strv.h"
#include "xalloc.h"

#define CONNECT_PAUSE_S		2	/* between two ssh runs */

static volatile sig_atomic_t	connect_stop;
static volatile pid_t		connect_child;

enum { OPT_SSH = 256, OPT_REMOTE_BWGATE, OPT_ONCE };

static const struct option connect_options[] = {
	{ "ssh", required_argument, NULL, OPT_SSH },
	{ "remote-bwgate", required_argument, NULL, OPT_REMOTE_BWGATE },
	{ "socket", required_argument, NULL, 's' },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
connect_usage(FILE *f)
{
	fprintf(f, "usage: bwgate connect [--ssh CMD] [--remote-bwgate CMD] "
	    "[--socket PATH] [--once]\n"
	    "                      [USER@]HOST[:PROJECT]\n");
}

static void
connect_signal(int signo)
{
	(void)signo;
	connect_stop = 1;
	if (connect_child > 0)
		kill(connect_child, SIGTERM);
}

/* The ssh command: --ssh, else $BWGATE_SSH, else "ssh"; words split at
   blanks (no quoting: a wrapper script for anything more). */
static void
connect_ssh_argv(const char *opt, struct strv *av)
{
	const char	*s = opt != NULL ? opt : getenv("BWGATE_SSH");
	char		*copy, *w, *save = NULL;

	if (s == NULL || *s == '\0')
		s = "ssh";
	copy = xstrdup(s);
	for (w = strtok_r(copy, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save))
		strv_push(av, w);
	free(copy);
}

/* Ask HOST where its executor's link socket is. */
static char *
connect_uplink(const struct strv *ssh, const char *host, const char *project,
    const char *remote_bwgate, char **cause)
{
	struct strv	 av = STRV_INIT;
	struct buf	 out = BUF_INIT;
	char		*cmd, *q = NULL, *path = NULL;
	int		 st;

	strv_append_all(&av, ssh);
	strv_push(&av, "-o");
	strv_push(&av, "BatchMode=yes");
	strv_push(&av, host);
	strv_push(&av, "--");
	if (project != NULL)
		q = shell_quote(project);
	cmd = xasprintf("%s executor --uplink-path%s%s", remote_bwgate,
	    q != NULL ? " --project " : "", q != NULL ? q : "");
	strv_push(&av, cmd);
	st = spawn_capture(av.v, SPAWN_SEARCH, 1, &out, 4096, cause);
	if (st == -1)
		goto out;
	while (out.len > 0 && (out.data[out.len - 1] == '\n' ||
	    out.data[out.len - 1] == '\r'))
		out.len--;
	buf_add(&out, "", 1);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || out.data[0] != '/' ||
	    strchr(out.data, '\n') != NULL || strchr(out.data, ':') != NULL) {
		*cause = xasprintf("cannot learn the executor's link socket "
		    "on '%s' (ran: %s): %s", host, cmd, out.len > 1 ?
		    out.data : "no answer");
		goto out;
	}
	path = xstrdup(out.data);
out:
	free(cmd);
	free(q);
	buf_release(&out);
	strv_release(&av);
	return path;
}

int
cmd_connect(int argc, char **argv)
{
	const char		*ssh_opt = NULL, *sock_opt = NULL;
	const char		*remote_bwgate = "bwgate";
	struct strv		 ssh = STRV_INIT, av = STRV_INIT;
	struct spawn		 sp;
	struct sigaction	 sa;
	struct stat		 st;
	char			*host, *project = NULL, *sock, *link, *uplink;
	char			*cause = NULL, *fwd;
	bool			 once = false;
	int			 ch, rc = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+s:h", connect_options,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_SSH: ssh_opt = optarg; break;
		case OPT_REMOTE_BWGATE: remote_bwgate = optarg; break;
		case 's': sock_opt = optarg; break;
		case OPT_ONCE: once = true; break;
		case 'h':
			connect_usage(stdout);
			return 0;
		default:
			connect_usage(stderr);
			return EXIT_BWGATE_FAILED;
		}
	}
	/* The console reads the host from our last argument. */
	if (optind != argc - 1 || argv[optind][0] == '\0' ||
	    argv[optind][0] == '-' || argv[optind][0] == ':') {
		connect_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	host = xstrdup(argv[optind]);
	if ((project = strchr(host, ':')) != NULL)
		*project++ = '\0';
	if (project != NULL && *project == '\0')
		project = NULL;

	if ((sock = client_socket_path(sock_opt, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		free(host);
		return EXIT_BWGATE_FAILED;
	}
	link = remote_link_path(sock);
	free(sock);
	if (stat(link, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "bwgate: no console takes links at '%s': "
		    "start the console (bwgate) first\n", display_str(link));
		free(link);
		free(host);
		return EXIT_BWGATE_FAILED;
	}
	connect_ssh_argv(ssh_opt, &ssh);
	if ((uplink = connect_uplink(&ssh, host, project, remote_bwgate,
	    &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		rc = EXIT_BWGATE_FAILED;
		goto out;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = connect_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	fwd = xasprintf("%s:%s", uplink, link);
	strv_append_all(&av, &ssh);
	strv_push(&av, "-N");
	strv_push(&av, "-o");
	strv_push(&av, "ExitOnForwardFailure=yes");
	strv_push(&av, "-o");
	strv_push(&av, "ControlPath=none");
	strv_push(&av, "-o");
	strv_push(&av, "ServerAliveInterval=10");
	strv_push(&av, "-R");
	strv_push(&av, fwd);
	strv_push(&av, host);
	free(fwd);
	while (!connect_stop) {
		sp = (struct spawn)SPAWN_INIT;
		sp.argv = av.v;
		sp.flags = SPAWN_SEARCH;
		if (spawn_start(&sp, &cause) != 0) {
			fprintf(stderr, "bwgate: %s\n", display_str(cause));
			free(cause);
			rc = EXIT_BWGATE_FAILED;
			break;
		}
		connect_child = sp.pid;
		if (connect_stop)
			kill(sp.pid, SIGTERM);
		fprintf(stderr, "bwgate: linking %s to this console (ssh pid "
		    "%ld: '%s' there to '%s' here)\n", display_str(host),
		    (long)sp.pid, display_str(uplink), display_str(link));
		spawn_wait(&sp);
		connect_child = 0;
		spawn_release(&sp);
		fprintf(stderr, "bwgate: ssh to %s ended (%s %d)%s\n",
		    display_str(host), WIFEXITED(sp.status) ? "exit status" :
		    "signal", WIFEXITED(sp.status) ? WEXITSTATUS(sp.status) :
		    WTERMSIG(sp.status), once || connect_stop ? "" :
		    ": again in a moment");
		if (once) {
			rc = WIFEXITED(sp.status) && WEXITSTATUS(sp.status) ==
			    0 ? 0 : EXIT_BWGATE_FAILED;
			break;
		}
		for (int i = 0; i < CONNECT_PAUSE_S * 10 && !connect_stop; i++)
			usleep(100000);
	}
	free(uplink);
out:
	strv_release(&av);
	strv_release(&ssh);
	free(link);
	free(host);
	return rc;
}
