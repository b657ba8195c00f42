/*
 * tmux: `bwgate --tmux` opens the console in a side pane of the current
 * tmux window, for the project only: agents in the project find its socket
 * as they find any console's, and a second project's `bwgate --tmux` in
 * the same session opens a console of its own. Only a socket named with
 * --socket is set in the tmux session's environment (agents could not
 * find it otherwise).
 *
 * The pane runs this same binary (by its absolute path) with the other
 * options given, in the current directory (changed into by the pane's
 * shell: never through a tmux format), with the variables bwgate
 * reads passed along (a tmux pane starts with the server's environment,
 * not ours). When it cannot (not inside tmux, tmux missing, the split
 * fails) it says why and returns -1.
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"
#include "display.h"
#include "shlex.h"
#include "proctree.h"
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

/* The project's name as tmux gets it: letters, digits and ._+- only (a
   directory name is no tmux format and no terminal text), at most 32. */
static void
tmux_safe_name(char *out, size_t size, const char *name, const char *also)
{
	size_t	i;

	for (i = 0; i + 1 < size && i < 32 && name[i] != '\0'; i++) {
		unsigned char	ch = (unsigned char)name[i];

		out[i] = (ch < 128 && (isalnum(ch) || strchr("._+-", ch) !=
		    NULL || (also != NULL && strchr(also, ch) != NULL))) ?
		    (char)ch : '_';
	}
	out[i] = '\0';
}

/* Is the console alone in its tmux window (started full screen, not in a
   side pane), whose name tmux keeps itself (no name the user chose)? Then
   the window's name is the console's too. */
static bool
tmux_window_alone(const char *pane)
{
	struct strv	 t = STRV_INIT;
	char		*out = NULL;
	bool		 alone;

	strv_push(&t, "tmux");
	strv_push(&t, "display-message");
	strv_push(&t, "-p");
	strv_push(&t, "-t");
	strv_push(&t, pane);
	strv_push(&t, "#{window_panes} #{automatic-rename}");
	alone = tmux_run(&t, &out) == 0 && out != NULL &&
	    strcmp(out, "1 1") == 0;
	free(out);
	strv_release(&t);
	return alone;
}

/*
 * Inside tmux: which project the console serves and how much waits for
 * the operator (pending requests and host questions), in the console
 * pane's title ("bwgate NAME: 2 pending"), with the machine the next
 * decision goes to when it is another (host: "bwgate NAME: 2 pending
 * (build-box)"), in the window's name when the console has the window to
 * itself, and the count in the window option @bwgate_pending, for status
 * formats. Only the project's name and the host the operator gave
 * `bwgate connect`, both made safe, and a number ever go to tmux, never
 * agent text. With stop, the console ends: the option goes and the
 * window names itself again.
 */
void
ui_tmux_mark(const char *project, size_t pending, const char *host,
    bool stop)
{
	static int	 owns_window = -1;
	const char	*pane = getenv("TMUX_PANE"), *v = getenv("TMUX");
	struct strv	 t = STRV_INIT;
	char		 name[40], hname[40], *title;

	if (pane == NULL || *pane == '\0' || v == NULL || *v == '\0')
		return;
	if (owns_window == -1)
		owns_window = tmux_window_alone(pane);
	tmux_safe_name(name, sizeof name, project, NULL);
	if (pending == 0)
		title = xasprintf("bwgate %s", name);
	else if (host != NULL) {
		tmux_safe_name(hname, sizeof hname, host, "@");
		title = xasprintf("bwgate %s: %zu pending (%s)", name,
		    pending, hname);
	} else
		title = xasprintf("bwgate %s: %zu pending", name, pending);
	strv_push(&t, "tmux");
	strv_push(&t, "set-option");
	strv_push(&t, "-w");
	strv_push(&t, "-t");
	strv_push(&t, pane);
	if (pending == 0 || stop) {
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
	strv_push(&t, stop ? "bwgate" : title);
	if (owns_window) {
		strv_push(&t, ";");
		if (stop) {
			strv_push(&t, "set-option");
			strv_push(&t, "-w");
			strv_push(&t, "-t");
			strv_push(&t, pane);
			strv_push(&t, "automatic-rename");
			strv_push(&t, "on");
		} else {
			strv_push(&t, "rename-window");
			strv_push(&t, "-t");
			strv_push(&t, pane);
			strv_push(&t, title);
		}
	}
	(void)tmux_run_quiet(&t, NULL, true);
	strv_release(&t);
	free(title);
}

/* Is pid, or its parent, the process of a pane? Its id, or NULL. */
static char *
tmux_pane_of(pid_t pid)
{
	struct strv	 t = STRV_INIT;
	char		*out = NULL, *line, *save = NULL, *found = NULL, *p;
	long		 ppid = (long)proc_ppid(pid);

	strv_push(&t, "tmux");
	strv_push(&t, "list-panes");
	strv_push(&t, "-a");
	strv_push(&t, "-F");
	strv_push(&t, "#{pane_pid} #{pane_id}");
	if (tmux_run(&t, &out) == 0 && out != NULL) {
		for (line = strtok_r(out, "\n", &save); line != NULL &&
		    found == NULL; line = strtok_r(NULL, "\n", &save)) {
			long	pp = strtol(line, &p, 10);

			if ((pp == (long)pid || pp == ppid) && *p == ' ')
				found = xstrdup(p + 1);
		}
	}
	free(out);
	strv_release(&t);
	return found;
}

/* The project's console already runs: select its pane if it is in tmux.
   0 done, 1 not a live console, -1 live but not in a pane (said). */
static int
tmux_select_existing(const char *sock)
{
	struct sockaddr_un	 sun;
	struct ucred		 cred;
	socklen_t		 len = sizeof cred;
	struct strv		 t = STRV_INIT;
	char			*pane, *q;
	int			 fd, rc;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(sock) >= sizeof sun.sun_path)
		return 1;
	strcpy(sun.sun_path, sock);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		close(fd);
		return 1;
	}
	close(fd);
	if (cred.uid != getuid() && cred.uid != 0) {
		fprintf(stderr, "bwgate: --tmux: refusing the console at "
		    "'%s': it runs as uid %u, not as you (uid %u)\n",
		    display_str(sock), (unsigned)cred.uid, (unsigned)getuid());
		return -1;
	}
	if ((pane = tmux_pane_of(cred.pid)) == NULL) {
		q = shell_quote(sock);
		fprintf(stderr, "bwgate: --tmux: a console for this project "
		    "already runs (pid %ld, not in a tmux pane); reach it "
		    "with BWGATE_SOCKET=%s\n", (long)cred.pid, display_str(q));
		free(q);
		return -1;
	}
	strv_push(&t, "tmux");
	strv_push(&t, "select-window");
	strv_push(&t, "-t");
	strv_push(&t, pane);
	rc = tmux_run(&t, NULL);
	strv_release(&t);
	strv_push(&t, "tmux");
	strv_push(&t, "select-pane");
	strv_push(&t, "-t");
	strv_push(&t, pane);
	rc = rc != 0 ? rc : tmux_run(&t, NULL);
	strv_release(&t);
	q = shell_quote(sock);
	printf("export BWGATE_SOCKET=%s\n", q);
	free(q);
	fprintf(stderr, "bwgate: this project's console already runs in tmux "
	    "pane %s (pid %ld)%s\n", pane, (long)cred.pid, rc == 0 ?
	    ": selected it" : "");
	free(pane);
	return 0;
}

/* bwgate --tmux, with what the option parser saw (ui.h). */
int
ui_tmux(const char *socket, const char *project, const struct strv *args)
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
	/* The socket the console will have: the project's own unless
	   --socket names one. A BWGATE_SOCKET inherited from the session
	   (another project's console) is not this project's. */
	if (socket != NULL)
		sock = client_socket_path(socket, &cause);
	else if ((cwd = console_find_project(project, &cause)) != NULL) {
		sock = client_project_socket(cwd, &cause);
		free(cwd);
	} else
		sock = NULL;
	if (sock == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return -1;
	}
	/* One console per project: go to the one that runs. */
	if ((rc = tmux_select_existing(sock)) != 1) {
		free(sock);
		return rc == 0 ? 0 : -1;
	}
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		fprintf(stderr, "bwgate: --tmux: cannot get the current "
		    "directory: %s\n", strerror(errno));
		free(sock);
		return -1;
	}

	/* A socket of the operator's choosing: agents started in this
	   session find it through the session's environment. The project's
	   own socket needs nothing: agents in the project find it, and
	   another project's panes keep finding their own console. */
	if (socket != NULL) {
		strv_push(&t, "tmux");
		strv_push(&t, "set-environment");
		strv_push(&t, "BWGATE_SOCKET");
		strv_push(&t, sock);
		if ((rc = tmux_run(&t, NULL)) != 0) {
			fprintf(stderr, "bwgate: --tmux: 'tmux "
			    "set-environment' failed (%s %d)\n", rc < 0 ?
			    "could not run," : "status", rc);
			goto fail;
		}
		strv_release(&t);
	}

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
	strv_append_all(&t, args);
	if ((rc = tmux_run(&t, &pane)) != 0) {
		fprintf(stderr, "bwgate: --tmux: 'tmux split-window' failed "
		    "(%s %d)\n", rc < 0 ? "could not run," : "status", rc);
		goto fail;
	}
	v = shell_quote(sock);
	printf("export BWGATE_SOCKET=%s\n", v);
	free((char *)v);
	if (socket != NULL)
		fprintf(stderr, "bwgate: console opened in tmux pane %s; "
		    "BWGATE_SOCKET is set for new panes of this tmux "
		    "session\n", display_str(pane));
	else
		fprintf(stderr, "bwgate: console opened in tmux pane %s; "
		    "agents in this project find it (another project's "
		    "bwgate --tmux opens its own)\n", display_str(pane));
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
