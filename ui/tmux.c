/*
 * tmux: `bwgate --tmux` opens the console in a side pane of the current
 * tmux window and sets BWGATE_SOCKET in the tmux session's environment,
 * so agents started in new panes and windows of the session find it.
 *
 * The pane runs this same binary (by its absolute path) with the other
 * options given, in the current directory (changed into by the pane's
 * shell: never through a tmux format), with the variables bwgate
 * reads passed along (a tmux pane starts with the server's environment,
 * not ours). When it cannot (not inside tmux, tmux missing, the split
 * fails) it says why and returns -1.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "display.h"
#include "shlex.h"
#include "spawn.h"
#include "strv.h"
#include "ui.h"
#include "xalloc.h"

/* Width of the side pane. */
#define TMUX_PANE_WIDTH	"45%"

/* Variables bwgate reads, passed to the console's pane. */
static const char *const tmux_pass_env[] = {
	"BWGATE_DATADIR", "BWGATE_LOG", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
	"XDG_STATE_HOME", "HOME", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE",
	"ESCDELAY", NULL
};

/* Run tmux with args; its stdout into out (if not NULL). Exit status,
   or -1 when it could not run. When quiet, out must be NULL and nothing
   of tmux's reaches the terminal. */
static int
tmux_run_quiet(struct strv *args, char **out, bool quiet)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL;
	int		 status;

	if (quiet) {
		const int	 fds[] = { SPAWN_DEVNULL, SPAWN_DEVNULL,
				    SPAWN_DEVNULL };
		struct spawn	 sp = SPAWN_INIT;

		sp.argv = args->v;
		sp.fds = fds;
		sp.nfds = 3;
		sp.flags = SPAWN_SEARCH;
		if (spawn_start(&sp, &cause) != 0) {
			free(cause);
			return -1;
		}
		status = spawn_wait(&sp);
		spawn_release(&sp);
		return WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status);
	}
	status = spawn_capture(args->v, SPAWN_SEARCH, 1, &b, 0, &cause);
	if (status == -1) {
		free(cause);
		buf_release(&b);
		return -1;
	}
	if (out != NULL) {
		while (b.len > 0 && b.data[b.len - 1] == '\n')
			b.data[--b.len] = '\0';
		*out = b.data != NULL ? buf_detach(&b) : xstrdup("");
	}
	buf_release(&b);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Run tmux with args; its stdout into out (if not NULL). */
static int
tmux_run(struct strv *args, char **out)
{
	return tmux_run_quiet(args, out, false);
}

/* Inside tmux: the pending count in the console pane's title and in the
   window option @bwgate_pending, for status formats (only a number ever
   goes to tmux, never agent text). */
void
ui_tmux_mark(size_t pending)
{
	const char	*pane = getenv("TMUX_PANE"), *v = getenv("TMUX");
	struct strv	 t = STRV_INIT;

	if (pane == NULL || *pane == '\0' || v == NULL || *v == '\0')
		return;
	strv_push(&t, "tmux");
	strv_push(&t, "set-option");
	strv_push(&t, "-w");
	strv_push(&t, "-t");
	strv_push(&t, pane);
	if (pending == 0) {
		strv_push(&t, "-u");
		strv_push(&t, "@bwgate_pending");
	} else {
		strv_push(&t, "@bwgate_pending");
		strv_pushf(&t, "%zu", pending);
	}
	strv_push(&t, ";");
	strv_push(&t, "select-pane");
	strv_push(&t, "-t");
	strv_push(&t, pane);
	strv_push(&t, "-T");
	if (pending == 0)
		strv_push(&t, "bwgate");
	else
		strv_pushf(&t, "bwgate: %zu pending", pending);
	(void)tmux_run_quiet(&t, NULL, true);
	strv_release(&t);
}

/* bwgate --tmux; socket is the parsed --socket value (or NULL). */
int
ui_tmux(const char *socket, int argc, char **argv)
{
	struct strv	 t = STRV_INIT;
	char		 exe[PATH_MAX], *sock, *cause = NULL, *cwd;
	char		*pane = NULL;
	const char	*v;
	ssize_t		 n;
	int		 rc;

	if ((v = getenv("TMUX")) == NULL || *v == '\0') {
		fprintf(stderr, "bwgate: --tmux: not inside tmux (TMUX is not "
		    "set); start tmux first, or run 'bwgate' in a terminal\n");
		return -1;
	}
	if ((v = spawn_which("tmux")) == NULL) {
		fprintf(stderr, "bwgate: --tmux: tmux is not installed (not "
		    "found on PATH)\n");
		return -1;
	}
	free((char *)v);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		fprintf(stderr, "bwgate: --tmux: cannot find the bwgate "
		    "binary (/proc/self/exe): %s\n", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	if ((sock = client_socket_path(socket,
	    &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return -1;
	}
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		fprintf(stderr, "bwgate: --tmux: cannot get the current "
		    "directory: %s\n", strerror(errno));
		free(sock);
		return -1;
	}

	/* Agents started in this session find the console. */
	strv_push(&t, "tmux");
	strv_push(&t, "set-environment");
	strv_push(&t, "BWGATE_SOCKET");
	strv_push(&t, sock);
	if ((rc = tmux_run(&t, NULL)) != 0) {
		fprintf(stderr, "bwgate: --tmux: 'tmux set-environment' "
		    "failed (%s %d)\n", rc < 0 ? "could not run," : "status",
		    rc);
		goto fail;
	}
	strv_release(&t);

	strv_push(&t, "tmux");
	strv_push(&t, "split-window");
	strv_push(&t, "-h");
	strv_push(&t, "-l");
	strv_push(&t, TMUX_PANE_WIDTH);
	strv_push(&t, "-P");
	strv_push(&t, "-F");
	strv_push(&t, "#{pane_id}");
	/*
	 * No -c: tmux expands formats in it, so a directory named
	 * 'x#(cmd)' would run cmd on the host. The directory goes to the
	 * pane's shell as an argument instead (arguments and -e values are
	 * not expanded) and the shell changes into it.
	 */
	strv_push(&t, "-e");
	strv_pushf(&t, "BWGATE_SOCKET=%s", sock);
	for (size_t i = 0; tmux_pass_env[i] != NULL; i++) {
		if ((v = getenv(tmux_pass_env[i])) == NULL)
			continue;
		strv_push(&t, "-e");
		strv_pushf(&t, "%s=%s", tmux_pass_env[i], v);
	}
	strv_push(&t, "--");
	/* If the console cannot start, keep the pane open to say why. */
	strv_push(&t, "/bin/sh");
	strv_push(&t, "-c");
	strv_push(&t, "d=$1; shift; cd -- \"$d\" && \"$0\" \"$@\" || { s=$?; "
	    "printf '\\nbwgate exited with status %d; press Enter to close "
	    "this pane\\n' \"$s\"; read x; }");
	strv_push(&t, exe);
	strv_push(&t, cwd);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--tmux") != 0)
			strv_push(&t, argv[i]);
	if ((rc = tmux_run(&t, &pane)) != 0) {
		fprintf(stderr, "bwgate: --tmux: 'tmux split-window' failed "
		    "(%s %d)\n", rc < 0 ? "could not run," : "status", rc);
		goto fail;
	}
	v = shell_quote(sock);
	printf("export BWGATE_SOCKET=%s\n", v);
	free((char *)v);
	fprintf(stderr, "bwgate: console opened in tmux pane %s; "
	    "BWGATE_SOCKET is set for new panes of this tmux session\n",
	    display_str(pane));
	free(pane);
	free(sock);
	free(cwd);
	strv_release(&t);
	return 0;
fail:
	free(pane);
	free(sock);
	free(cwd);
	strv_release(&t);
	return -1;
}
