/*
 * console-warm: one `bwgate exec` started ahead of need. It waits on its
 * policy descriptor (a pipe here, instead of the sealed memory file of a
 * cold start) with its output pipes in place; the next request that runs
 * takes it, so the process start and the dynamic linking of exec are not
 * on the request's path, and a new one is started after. Its stdin is a
 * pipe: a request that streams input gets its write end, any other closes
 * it (and its spec says "stdin": "null", so the command reads /dev/null as
 * in a cold start). A request that merges stderr into stdout says so in
 * its spec ("merge"): exec then gives the command one pipe for both and
 * passes it on as its stdout. A warm exec that dies unused is not
 * restarted until a request has run, so a broken exec cannot make the
 * console spin.
 *
 * With console.prestart the warm exec also gets a prediction, the spec of
 * the last read-only request, as the first line of its pipe (exec
 * --prestart): it makes that sandbox at once and waits with it, and the
 * next request runs there if it asks for exactly that sandbox (the argv it
 * was shown is the sandbox's; exec-prestart.c, engine-prestart.c), else
 * as usual. Nothing of a request runs before it is started here.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/wait.h>
#include <unistd.h>

#include "console-int.h"
#include "console.h"
#include "engine-spec.h"
#include "log.h"
#include "proctree.h"
#include "spawn.h"
#include "xalloc.h"

/* How long after a request started the next warm exec starts at the
   latest (one that ends sooner starts it then). */
#define WARM_AFTER_START_MS	100
/* How long a stopping console waits for retired ones to end. */
#define WARM_STOP_MS		2000

/* The `bwgate exec` command line for a request (console-job.c) and for
   the warm exec waiting for one. */
void
console_exec_argv(struct console *c, struct strv *av)
{
	/* Everything else is in the spec on descriptor 5. */
	strv_push(av, c->exec_path);
	strv_push(av, "exec");
	strv_push(av, "--policy-fd");
	strv_push(av, "5");
	strv_push(av, "--json-fd");
	strv_push(av, "3");
	strv_push(av, "--events-fd");
	strv_push(av, "4");
	strv_push(av, "--quiet");
}

/* Close what the console holds of the warm exec (not the process). */
static void
warm_close(struct warm *w)
{
	for (int i = 0; i < JOB_NFDS; i++) {
		if (w->fds[i] >= 0)
			close(w->fds[i]);
		w->fds[i] = -1;
	}
	if (w->spec_fd >= 0)
		close(w->spec_fd);
	if (w->in_fd >= 0)
		close(w->in_fd);
	w->spec_fd = w->in_fd = -1;
	w->pid = 0;
	free(w->given);
	w->given = NULL;
}

/* Start one if there is none; quietly nothing when it cannot. */
static void
warm_start(void *arg)
{
	struct console	*c = arg;
	struct warm	*w = &c->warm;
	struct spawn	 sp = SPAWN_INIT;
	struct strv	 av = STRV_INIT;
	int		 p[JOB_NFDS][2], sp_pipe[2] = { -1, -1 };
	int		 ip[2] = { -1, -1 };
	int		 map[2 + JOB_NFDS], i;
	char		*cause = NULL;

	w->timer = 0;
	if (w->pid > 0 || w->broken || c->shutting_down ||
	    c->audit_failing != NULL)
		return;
	/* Replies waiting for the audit log go out first. */
	if (c->commit_armed) {
		w->timer = loop_timer(c->loop, 0, warm_start, c);
		return;
	}
	for (i = 0; i < JOB_NFDS; i++)
		p[i][0] = p[i][1] = -1;
	if (pipe2(sp_pipe, O_CLOEXEC) != 0 || pipe2(ip, O_CLOEXEC) != 0)
		goto fail;
	map[0] = ip[0];
	for (i = 0; i < JOB_NFDS; i++) {
		if (pipe2(p[i], O_CLOEXEC) != 0)
			goto fail;
		map[1 + i] = p[i][1];
	}
	map[1 + JOB_NFDS] = sp_pipe[0];
	console_exec_argv(c, &av);
	if (c->cfg.prestart && w->predict != NULL)
		strv_push(&av, "--prestart");
	sp.argv = av.v;
	sp.fds = map;
	sp.nfds = 2 + JOB_NFDS;
	sp.flags = SPAWN_SETSID;	/* reap_session finds what it leaves */
	sp.deathsig = SIGTERM;
	if (spawn_start(&sp, &cause) != 0) {
		LOG("no warm exec: %s", cause);
		free(cause);
		w->broken = true;
		goto fail;
	}
	spawn_release(&sp);
	w->pid = sp.pid;
	for (i = 0; i < JOB_NFDS; i++) {
		close(p[i][1]);
		w->fds[i] = p[i][0];
	}
	close(sp_pipe[0]);
	w->spec_fd = sp_pipe[1];
	close(ip[0]);
	w->in_fd = ip[1];
	strv_release(&av);
	/* The prediction, in one write into the empty pipe. */
	w->predicted = 0;
	if (c->cfg.prestart && w->predict != NULL) {
		size_t	len = strlen(w->predict);

		if (len < (size_t)fcntl(w->spec_fd, F_GETPIPE_SZ) / 2 &&
		    write(w->spec_fd, w->predict, len) == (ssize_t)len) {
			w->predicted = len;
			w->given = xstrdup(w->predict_key);
		} else
			(void)!write(w->spec_fd, "\n", 1);	/* none */
	}
	return;
fail:
	for (i = 0; i < JOB_NFDS; i++) {
		if (p[i][0] >= 0)
			close(p[i][0]);
		if (p[i][1] >= 0)
			close(p[i][1]);
	}
	if (sp_pipe[0] >= 0)
		close(sp_pipe[0]);
	if (sp_pipe[1] >= 0)
		close(sp_pipe[1]);
	for (i = 0; i < 2; i++)
		if (ip[i] >= 0)
			close(ip[i]);
	strv_release(&av);
}

/* Kill a warm exec and its sandbox outright, deepest first (bwrap does
   not wait for its parent-death signal), and reap it. */
static void
warm_kill(pid_t pid)
{
	proctree_kill(pid, SIGKILL);
	reap_session(pid, NULL, true);
}

/*
 * Retire the waiting one: the end of its spec makes it drop its sandbox
 * (removing its cgroup, which a kill would leave) and exit; SIGCHLD reaps
 * it (warm_reap). With no room left to remember it, kill it.
 */
static void
warm_discard(struct warm *w)
{
	size_t	i;

	if (w->pid > 0) {
		for (i = 0; i < WARM_RETIRED_MAX && w->retired[i] != 0; i++)
			;
		if (i < WARM_RETIRED_MAX)
			w->retired[i] = w->pid;
		else
			warm_kill(w->pid);
	}
	warm_close(w);
}

/* Nothing yet (before anything can fail: warm_stop must find -1s). */
void
warm_init(struct console *c)
{
	memset(&c->warm, 0, sizeof c->warm);
	c->warm.spec_fd = c->warm.in_fd = -1;
	for (int i = 0; i < JOB_NFDS; i++)
		c->warm.fds[i] = -1;
}

/*
 * Hand the spec to the warm exec and give its pipes to jb (*in_fd: the
 * write end of its stdin when the request streams input, else -1). The
 * spec goes in one write into the empty pipe, so the console never blocks
 * on it; one larger than the pipe takes the cold path. false: start cold.
 */
bool
warm_take(struct console *c, struct job *jb, const char *spec, int *in_fd)
{
	struct warm	*w = &c->warm;
	size_t		 len = strlen(spec);
	int		 status;

	*in_fd = -1;
	if (w->pid <= 0)
		return false;
	/* Gone meanwhile (killed from outside)? */
	if (reap_session(w->pid, &status, false) == w->pid) {
		warm_close(w);
		return false;
	}
	if (len + w->predicted >= (size_t)fcntl(w->spec_fd, F_GETPIPE_SZ) ||
	    write(w->spec_fd, spec, len) != (ssize_t)len) {
		kill(w->pid, SIGKILL);
		reap_session(w->pid, NULL, true);
		warm_close(w);
		return false;
	}
	jb->pid = w->pid;
	for (int i = 0; i < JOB_NFDS; i++) {
		jb->fds[i] = w->fds[i];
		w->fds[i] = -1;
	}
	close(w->spec_fd);	/* end of the spec: exec goes on */
	w->spec_fd = -1;
	if (jb->r->stdin_stream && !jb->in_closed)
		*in_fd = w->in_fd;
	else
		close(w->in_fd);
	w->in_fd = -1;
	w->pid = 0;
	free(w->given);
	w->given = NULL;
	return true;
}

void
warm_again(struct console *c, bool now)
{
	struct warm	*w = &c->warm;

	w->broken = false;
	if (!c->cfg.warm_exec || w->pid > 0 || c->shutting_down)
		return;
	if (w->timer != 0) {
		if (!now)
			return;
		loop_cancel(c->loop, w->timer);
	}
	w->timer = loop_timer(c->loop, now ? 0 : WARM_AFTER_START_MS,
	    warm_start, c);
}

void
warm_predict(struct console *c, const struct request *r, const char *spec)
{
	struct warm	*w = &c->warm;
	size_t		 len = strlen(spec);

	/* Only what cannot write the project: a sandbox waiting with it
	   leaves nothing in it (no placeholders). */
	if (!c->cfg.prestart || r->writes || r->stdin_stream || len == 0)
		return;
	/* Named hosts ask the console about new ones on a channel only a
	   cold exec has (job_spawn). */
	if (r->domains.n > 0)
		return;
	free(w->predict);
	w->predict = spec[len - 1] == '\n' ? xstrdup(spec) :
	    xasprintf("%s\n", spec);
	free(w->predict_key);
	w->predict_key = engine_spec_sandbox_key(r->spec);
	/* One waiting for another sandbox, or none, is replaced (after this
	   request: warm_again). */
	if (w->pid > 0 && (w->given == NULL ||
	    strcmp(w->given, w->predict_key) != 0))
		warm_discard(w);
}

/* Reap the retired that ended; are some left? */
static bool
warm_reap_retired(struct warm *w)
{
	bool	left = false;

	for (size_t i = 0; i < WARM_RETIRED_MAX; i++) {
		if (w->retired[i] > 0 && reap_session(w->retired[i], NULL,
		    false) == w->retired[i])
			w->retired[i] = 0;
		left = left || w->retired[i] > 0;
	}
	return left;
}

/* SIGCHLD: reap the retired, and the waiting one if it died unused. */
void
warm_reap(struct console *c)
{
	struct warm	*w = &c->warm;

	(void)warm_reap_retired(w);
	if (w->pid > 0 && reap_session(w->pid, NULL, false) == w->pid) {
		LOG("the warm exec (pid %ld) ended unused", (long)w->pid);
		warm_close(w);
		w->broken = true;
	}
}

/* Stop (shutdown): retire the waiting one; wait a moment for the retired
   to end by themselves, then kill what is left. */
void
warm_stop(struct console *c)
{
	struct warm	*w = &c->warm;
	int64_t		 deadline = loop_now_ms() + WARM_STOP_MS;

	if (w->timer != 0)
		loop_cancel(c->loop, w->timer);
	w->timer = 0;
	warm_discard(w);
	while (warm_reap_retired(w) && loop_now_ms() < deadline &&
	    poll(NULL, 0, 5) == 0)
		;
	for (size_t i = 0; i < WARM_RETIRED_MAX; i++) {
		if (w->retired[i] > 0)
			warm_kill(w->retired[i]);
		w->retired[i] = 0;
	}
	free(w->predict);
	free(w->predict_key);
	w->predict = w->predict_key = NULL;
}
