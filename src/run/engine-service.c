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
#include <stdlib.h>

#include "engine-int.h"
#include "limiter.h"
#include "log.h"
#include "loop.h"
#include "observe.h"
#include "sandbox.h"
#include "xalloc.h"

/* How often the service's cgroup is looked at (empty: the run ends). */
#define SERVICE_TICK_MS	250

/*
 * May this run keep what its command leaves behind? Only a console's run
 * (keep_services: somebody lists and stops it), in the project's shared
 * world (a service nobody else can reach serves nothing, and in a pid
 * namespace of its own it ends with its command), with a cgroup (its
 * processes are known by it, limits included).
 */
bool
engine_service_possible(const struct engine *e, const struct sandbox *sb)
{
	return e->opts->keep_services && sb->pod_net && sb->pod_pid &&
	    limiter_procs(e->lim, 0) >= 0;
}

/*
 * The command is over: are processes of it left? With may_keep, their
 * number (the run becomes a service); else 0.
 */
int
engine_service_keep(struct engine *e)
{
	int	n;

	if (!e->may_keep || e->killing || e->r->error != NULL)
		return 0;
	if ((n = limiter_procs(e->lim, 0)) <= 0)
		return 0;
	return n;
}

/* Not kept: kill what is left, and say so in one line. */
void
engine_service_leftovers(struct engine *e)
{
	struct result	*r = e->r;
	int		 n;

	/* A killed run's are part of the kill. */
	if ((n = limiter_procs(e->lim, SIGKILL)) <= 0 || e->killing)
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
	(void)limiter_procs(e->lim, SIGKILL);
}

/* Stop the service: SIGTERM now, SIGKILL after the grace period. */
void
engine_service_stop(struct engine *e)
{
	if (e->stopping) {
		(void)limiter_procs(e->lim, SIGKILL);	/* asked again */
		return;
	}
	e->stopping = true;
	LOG("service: stopping");
	(void)limiter_procs(e->lim, SIGTERM);
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
	if (limiter_procs(e->lim, 0) <= 0) {
		e->served = true;
		return;
	}
	if ((why = limiter_hit(e->lim)) != NULL && !e->stopping) {
		LOG("service: %s reached: killing it", why);
		e->stopping = true;
		(void)limiter_procs(e->lim, SIGKILL);
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
