/*
 * engine-service: a command's background processes (`npm run dev &`)
 * after the command itself ended (issue 41).
 *
 * A sandbox in the project's shared world (the pod's network and pid
 * namespace, pod.h) keeps them as the project's service: the report goes
 * out at once (engine.h, report_ready), and the run goes on serving them
 * until none is left in the run's cgroup: the observer still judges every
 * call they make (their seccomp filter answers to its listener: closed,
 * their judged calls would fail), the cgroup keeps their limits, and
 * their output is passed through to whoever reads exec's (the console).
 * A SIGTERM, SIGINT or SIGHUP stops them: SIGTERM to the cgroup, SIGKILL
 * after the grace period. What they change from then on is in no report
 * and no undo (the report says so).
 *
 * Anywhere else (no shared world, no cgroup to tell them apart, no
 * console to list them) they are killed when the command ends, and the
 * report says how many.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "engine-int.h"
#include "libexec.h"
#include "limiter.h"
#include "log.h"
#include "loop.h"
#include "observe.h"
#include "sandbox.h"
#include "xalloc.h"

/* How often the service's cgroup is looked at (empty: the run ends). */
#define SERVICE_TICK_MS	250

/*
 * Is pid bwgate's helper (bwgate-helper.c: the observer's delegate in the
 * sandbox, there as long as the observer is)? Known by its executable's
 * file. A command that runs the helper's program itself only makes that
 * process count as not its own: then it is not kept, and killed with the
 * rest when the run ends (limiter_free).
 */
static bool
engine_is_helper(pid_t pid, void *arg)
{
	const struct engine	*e = arg;
	char			 path[64];
	struct stat		 st;

	if (e->helper_ino == 0)
		return false;
	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	return stat(path, &st) == 0 && st.st_dev == e->helper_dev &&
	    st.st_ino == e->helper_ino;
}

/*
 * May this run keep what its command leaves behind? Only a console's run
 * (keep_services: somebody lists and stops it), in the project's shared
 * world (a service nobody else can reach serves nothing, and in a pid
 * namespace of its own it ends with its command), with a cgroup (its
 * processes are known by it, limits included).
 */
bool
engine_service_possible(struct engine *e, const struct sandbox *sb)
{
	char		*helper;
	struct stat	 st;

	/* Which process is bwgate's, whatever is decided. */
	if ((helper = libexec_find("bwgate-helper", "BWGATE_HELPER")) != NULL &&
	    stat(helper, &st) == 0) {
		e->helper_dev = st.st_dev;
		e->helper_ino = st.st_ino;
	}
	free(helper);
	return e->opts->keep_services && sb->pod_net && sb->pod_pid &&
	    limiter_procs(e->lim, 0, NULL, NULL) >= 0;
}

/*
 * The command is over: are processes of it left? With may_keep, their
 * number (the run becomes a service); else 0. The sandbox's first
 * process is bwgate's helper, the observer's delegate inside (it stays
 * while the observer does): not the command's.
 */
int
engine_service_keep(struct engine *e)
{
	int	n;

	if (!e->may_keep || e->killing || e->r->error != NULL)
		return 0;
	if ((n = limiter_procs(e->lim, 0, engine_is_helper, e)) <= 0)
		return 0;
	return n;
}

/* Not kept: kill what is left, and say so in one line. */
void
engine_service_leftovers(struct engine *e)
{
	struct result	*r = e->r;
	int		 n;

	/* A killed run's are part of the kill; the helper ends with the
	   observer. */
	if ((n = limiter_procs(e->lim, SIGKILL, engine_is_helper, e)) <= 0 ||
	    e->killing)
		return;
	r->background_killed = n;	/* a line of the report says so */
	LOG("%d leftover process(es) killed", n);
}

static void
engine_service_grace_over(void *arg)
{
	struct engine	*e = arg;

	e->serve_grace = 0;
	LOG("service: grace period over: SIGKILL");
	(void)limiter_procs(e->lim, SIGKILL, NULL, NULL);
}

/* Stop the service: SIGTERM now, SIGKILL after the grace period. */
void
engine_service_stop(struct engine *e)
{
	if (e->stopping) {
		/* Asked again: now. */
		(void)limiter_procs(e->lim, SIGKILL, NULL, NULL);
		return;
	}
	e->stopping = true;
	LOG("service: stopping");
	(void)limiter_procs(e->lim, SIGTERM, engine_is_helper, e);
	e->serve_grace = loop_timer(e->loop, e->opts->grace_ms,
	    engine_service_grace_over, e);
}

/* Is anything left? A limit reached stops it all at once. */
static void
engine_service_tick(void *arg)
{
	struct engine	*e = arg;
	const char	*why;

	e->serve_timer = 0;
	if (limiter_procs(e->lim, 0, engine_is_helper, e) <= 0) {
		e->served = true;
		return;
	}
	if ((why = limiter_hit(e->lim)) != NULL && !e->stopping) {
		LOG("service: %s reached: killing it", why);
		e->stopping = true;
		(void)limiter_procs(e->lim, SIGKILL, NULL, NULL);
	}
	e->serve_timer = loop_timer(e->loop, SERVICE_TICK_MS,
	    engine_service_tick, e);
}

/*
 * Serve until the service is gone. The report was sent: from now on the
 * observer decides but records nothing (undo_rec and the report are
 * done), and output is passed on, not kept.
 */
void
engine_serve(struct engine *e, struct sandbox_policy *pol)
{
	e->serving = true;
	observe_record(e->obs, NULL, pol->project);
	observe_record_exec(e->obs, NULL);
	observe_record_ports(e->obs, NULL);
	if (e->timeout_timer != 0) {
		/* The request's timeout was the request's. */
		loop_cancel(e->loop, e->timeout_timer);
		e->timeout_timer = 0;
	}
	if (e->lim_timer != 0) {
		loop_cancel(e->loop, e->lim_timer);
		e->lim_timer = 0;
	}
	LOG("serving the command's background processes");
	e->serve_timer = loop_timer(e->loop, SERVICE_TICK_MS,
	    engine_service_tick, e);
	while (!e->served)
		loop_run_once(e->loop, -1);
	if (e->serve_grace != 0)
		loop_cancel(e->loop, e->serve_grace);
	e->serve_grace = 0;
	LOG("service over");
}
