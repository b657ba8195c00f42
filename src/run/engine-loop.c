/*
 * engine-loop: what happens while the command runs (engine.c starts it):
 * its output captured and passed on, bwrap's status stream, bwrap's exit,
 * the monitor's events, the timeout, the limits, signals, and killing the
 * sandbox (SIGTERM to its pid namespace, SIGKILL after the grace period).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine-int.h"
#include "jsonutil.h"
#include "limiter.h"
#include "log.h"
#include "loop.h"
#include "monitor.h"
#include "netbackend.h"
#include "observe.h"
#include "probe.h"
#include "snapshot.h"
#include "runner.h"
#include "xalloc.h"

static void	engine_kill(struct engine *, bool timeout);

/* Capture up to the limit; remember bwrap's own error lines. */
static void
engine_capture(struct engine *e, struct buf *b, bool *truncated,
    const char *p, size_t n, bool is_err)
{
	size_t	limit = e->opts->output_limit;

	if (is_err && !e->have_exit && strncmp(p, "bwrap: ", 7) == 0)
		buf_add(&e->bwrap_err, p, n);
	if (b->len + n > limit) {
		*truncated = true;
		n = b->len < limit ? limit - b->len : 0;
	}
	buf_add(b, p, n);
}

void
engine_output(int fd, short revents, void *arg)
{
	struct engine	*e = arg;
	bool		 is_err = fd == e->run.err_fd;
	char		 chunk[65536];
	ssize_t		 n;

	n = read(fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_remove(e->loop, fd);
		if (is_err)
			e->err_open = false;
		else
			e->out_open = false;
		LOG("%s closed after %lld ms", is_err ? "stderr" : "stdout",
		    (long long)(loop_now_ms() - e->start_ms));
		return;
	}
	if (e->opts->passthrough)
		(void)write_full(is_err ? 2 : 1, chunk, (size_t)n);
	if (e->serving)
		return;		/* a service's: the report is out */
	if (is_err)
		engine_capture(e, &e->r->err, &e->r->err_truncated, chunk,
		    (size_t)n, true);
	else
		engine_capture(e, &e->r->out, &e->r->out_truncated, chunk,
		    (size_t)n, e->run.err_fd < 0);
}

/* bwrap's status stream: one JSON object per line. */
void
engine_status(int fd, short revents, void *arg)
{
	struct engine	*e = arg;
	char		 chunk[4096], *nl;
	ssize_t		 n;

	n = read(fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		loop_remove(e->loop, fd);
		return;
	}
	buf_add(&e->status, chunk, (size_t)n);
	while ((nl = memchr(e->status.data, '\n', e->status.len)) != NULL) {
		cJSON	*j, *v;

		*nl = '\0';
		j = cJSON_Parse(e->status.data);
		buf_consume(&e->status, (size_t)(nl - e->status.data) + 1);
		if (j == NULL)
			continue;
		/* Never the project's (bwrap 0.8 reports only namespaces
		   it made; a later one might report the one it joined). */
		if ((v = cJSON_GetObjectItem(j, "pid-namespace")) != NULL &&
		    cJSON_IsNumber(v) && !e->pod_pid)
			e->pidns = (uint64_t)v->valuedouble;
		if ((v = cJSON_GetObjectItem(j, "ipc-namespace")) != NULL &&
		    cJSON_IsNumber(v))
			e->ipcns = (uint64_t)v->valuedouble;
		if ((v = cJSON_GetObjectItem(j, "child-pid")) != NULL &&
		    cJSON_IsNumber(v))
			e->child_pid = (pid_t)v->valueint;
		if ((v = cJSON_GetObjectItem(j, "exit-code")) != NULL &&
		    cJSON_IsNumber(v)) {
			e->have_exit = true;
			e->exit_code = v->valueint;
		}
		cJSON_Delete(j);
	}
}

/*
 * Signal the run's processes and only them. A sandbox with a pid
 * namespace of its own: everything in it (and bwrap's group). One in the
 * project's pid namespace (pod.h), which holds every request of the
 * project: the run's cgroup, which holds exactly what this request
 * started, or where it has none, its sandbox's IPC namespace, which does
 * too (limiter_mark; proctree.h says why); bwrap itself only with
 * SIGKILL, as runner_kill_tree does.
 */
void
engine_signal_run(struct engine *e, int sig)
{
	if (!e->pod_pid) {
		runner_kill_tree(&e->run, e->pidns, sig);
		return;
	}
	limiter_kill(e->lim, sig, sig == SIGKILL ? 0 : e->run.pid);
	if (sig == SIGKILL)
		runner_kill_tree(&e->run, 0, SIGKILL);
}

/*
 * The command exited: what remains of the request. In a pid namespace of
 * its own it died with the namespace; in the project's, its background
 * processes (`server &`) are still in the request's cgroup (or IPC
 * namespace): a console's
 * run keeps them as the project's service (engine-service.c); else they
 * are ended here, counted for the report, as they would have been (and
 * their pipes close now, not at the drain deadline).
 */
static void
engine_end_leftovers(struct engine *e)
{
	if (!e->pod_pid)
		return;
	if (e->may_keep && engine_service_keep(e) > 0)
		return;
	engine_service_leftovers(e);
	limiter_kill(e->lim, SIGKILL, 0);
}

void
engine_bwrap_exited(int fd, short revents, void *arg)
{
	struct engine	*e = arg;

	loop_remove(e->loop, fd);
	runner_wait(&e->run);
	e->bwrap_done = true;
	LOG("bwrap exited after %lld ms", (long long)(loop_now_ms() -
	    e->start_ms));
	engine_end_leftovers(e);
	/* Pipes close when the pid namespace is gone; do not wait forever
	   for a descriptor something leaked outside it. Processes left in
	   its cgroup hold them: what the command wrote is there now. */
	e->drain_deadline = loop_now_ms() + (e->may_keep &&
	    engine_service_keep(e) > 0 ? 200 : 2000);
}

static void
engine_grace_over(void *arg)
{
	struct engine	*e = arg;

	e->grace_timer = 0;
	LOG("grace period over: SIGKILL");
	engine_signal_run(e, SIGKILL);
}

static void
engine_kill(struct engine *e, bool timeout)
{
	if (e->killing || e->bwrap_done)
		return;
	e->killing = true;
	if (timeout)
		e->r->timed_out = true;
	else
		e->r->killed = true;
	engine_signal_run(e, SIGTERM);
	e->grace_timer = loop_timer(e->loop, e->opts->grace_ms,
	    engine_grace_over, e);
}

void
engine_timeout(void *arg)
{
	engine_kill(arg, true);
}

/* A cgroup counter says a limit was reached (a fork failed): stop. */
void
engine_limits_tick(void *arg)
{
	struct engine	*e = arg;
	const char	*why;

	e->lim_timer = 0;
	if (e->bwrap_done || e->killing)
		return;
	if ((why = limiter_hit(e->lim)) != NULL) {
		LOG("%s reached: killing the sandbox", why);
		e->r->killed_by = why;
		engine_kill(e, false);
		return;
	}
	e->lim_timer = loop_timer(e->loop, 250, engine_limits_tick, e);
}

void
engine_signal(int signo, void *arg)
{
	struct engine	*e = arg;

	if (e->serving) {
		LOG("signal %d: stopping the service", signo);
		engine_service_stop(e);
		return;
	}
	LOG("signal %d: killing the sandbox", signo);
	engine_kill(e, false);
}

/* One JSON line on the events descriptor (takes j). */
static void
engine_emit(struct engine *e, cJSON *j)
{
	char	*line = json_line(j);
	size_t	 n = strlen(line);

	cJSON_Delete(j);
	line = xrealloc(line, n + 2);
	line[n++] = '\n';
	(void)write_full(e->opts->events_fd, line, n);
	free(line);
}

/*
 * Whose event it is, decided from the recorded calls (the observer saw
 * the call before it ran, so its path is recorded before inotify can see
 * the change): "outside" before the command was let start (the helper
 * holds it until then), "request" when a call of this sandbox named the path,
 * "outside" when none did and every call was resolved, "uncertain" when
 * the calls are not recorded (no observer) or some could not be resolved
 * (widened): then it may be this request's or not.
 */
static const char *
engine_event_by(const struct engine *e, const struct fs_event *ev)
{
	if (!e->cmd_may_run)
		return "outside";
	if (e->rec == NULL)
		return "uncertain";
	if (snapshot_paths_claims(e->rec, ev->path) ||
	    (ev->to != NULL && snapshot_paths_claims(e->rec, ev->to)))
		return "request";
	return snapshot_paths_widened(e->rec) ? "uncertain" : "outside";
}

void
engine_event(const struct fs_event *ev, void *arg)
{
	struct engine	*e = arg;
	cJSON		*j;

	if (e->opts->events_fd < 0)
		return;
	j = fs_event_json(ev);
	cJSON_AddStringToObject(j, "by", engine_event_by(e, ev));
	engine_emit(e, j);
}

/* Tell the stream's readers at once that it lost events. */
void
engine_lossy_event(struct engine *e)
{
	const struct strv	*w = monitor_warnings(e->mon);
	cJSON			*j;

	if (e->lossy_told || !monitor_lossy(e->mon) || e->opts->events_fd < 0)
		return;
	e->lossy_told = true;
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "event", "lossy");
	cJSON_AddStringToObject(j, "warning", w->n > 0 ? w->v[w->n - 1] :
	    "live events incomplete; the change report is still exact");
	cJSON_AddNumberToObject(j, "time_ms", (double)(time(NULL) * 1000));
	engine_emit(e, j);
}

void
engine_monitor(int fd, short revents, void *arg)
{
	struct engine	*e = arg;

	if (monitor_read(e->mon, engine_event, e) < 0)
		loop_remove(e->loop, fd);
	engine_lossy_event(e);
}

void
engine_fail(struct result *r, char *cause)
{
	free(r->error);
	r->error = cause;
}

/* Fill the exit fields from bwrap's status stream and wait status. */
void
engine_exit_status(struct engine *e)
{
	struct result	*r = e->r;

	if (!e->have_exit) {
		/* bwrap failed before the command ran (or was killed). */
		if (e->r->killed || e->r->timed_out) {
			r->started = true;
			r->signal = SIGKILL;
			return;
		}
		if (e->bwrap_err.len > 0) {
			char *nl = memchr(e->bwrap_err.data, '\n',
			    e->bwrap_err.len);

			if (nl != NULL)
				*nl = '\0';
			if (strstr(e->bwrap_err.data, "execvp") != NULL) {
				/* The command itself was not found. */
				r->started = true;
				r->exit_code = 127;
				return;
			}
			engine_fail(r, xasprintf("sandbox setup failed: %s",
			    e->bwrap_err.data + 7));
		} else
			engine_fail(r, xstrdup("sandbox setup failed (bwrap "
			    "exited before running the command)"));
		return;
	}
	r->started = true;
	/* As in a shell: a status above 128 means death by signal. */
	if (e->exit_code > 128 && e->exit_code <= 128 + 64) {
		r->signal = e->exit_code - 128;
		r->exit_code = -1;
	} else
		r->exit_code = e->exit_code;
}

void
engine_loop(struct engine *e)
{
	while (!e->bwrap_done || e->out_open || e->err_open) {
		int wait = -1;

		if (e->bwrap_done) {
			int64_t left = e->drain_deadline - loop_now_ms();

			if (left <= 0)
				break;
			wait = (int)left;
		}
		loop_run_once(e->loop, wait);
	}
	/* Whatever the status stream still holds. */
	if (e->status_fd >= 0)
		engine_status(e->status_fd, POLLIN, e);
}
