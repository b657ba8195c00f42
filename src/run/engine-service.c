/*
 * engine-service: a command's background processes (`npm run dev &`)
 * after the command itself ended (issue 41).
 *
 * A sandbox in the project's shared world (the pod's network and pid
 * namespace, pod.h) keeps them as the project's service: the report goes
 * out at once (engine.h, report_ready), and the run goes on serving them
 * until none is left of the run (its cgroup, else its IPC namespace:
 * limiter_mark): the observer still judges every
 * call they make (their seccomp filter answers to its listener: closed,
 * their judged calls would fail), the cgroup keeps their limits, and
 * their output is passed through to whoever reads exec's (the console).
 * A SIGTERM, SIGINT or SIGHUP stops them: SIGTERM to the cgroup, SIGKILL
 * after the grace period. What they change from then on is in no report
 * and no undo (the report says so).
 *
 * Anywhere else (no shared world, nothing to tell them apart, no
 * console to list them) they are killed when the command ends, and the
 * report says how many.
 */
#include "autoconf.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "engine-int.h"
#include "jsonutil.h"
#include "libexec.h"
#include "limiter.h"
#include "log.h"
#include "loop.h"
#include "observe.h"
#include "report.h"
#include "sandbox.h"
#include "proctree.h"
#include "xalloc.h"

/* How often the service's cgroup is looked at (empty: the run ends),
   and every how many looks its listening ports. */
#define SERVICE_TICK_MS		250
#define SERVICE_PORTS_TICKS	8
#define SERVICE_MAX_PIDS	64
#define SERVICE_MAX_SOCKETS	256

/* The service's processes (not the helper), for the port scan. */
struct service_pids {
	const struct engine	*e;
	pid_t			 v[SERVICE_MAX_PIDS];
	size_t			 n;
};

/*
 * Is pid bwgate's helper (bwgate-helper.c: the observer's delegate in the
 * sandbox, there as long as the observer is), or exiting? Known by its
 * executable's file. A command that runs the helper's program itself only
 * makes that process count as not its own: then it is not kept, and it is
 * killed with the rest when the run ends (limiter_free, the pod).
 */
static bool
engine_is_helper(pid_t pid, void *arg)
{
	const struct engine	*e = arg;
	char			 path[64];
	struct stat		 st;

	/* On its way out (the helper's delegate ends with the command: seen
	   then, it is neither the helper any more nor anything left). */
	if (proc_exiting(pid))
		return true;
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
 * namespace of its own it ends with its command), with its processes
 * known (limiter_procs: its cgroup, limits included, or its IPC
 * namespace, limits per process and per user).
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

/* limiter_procs' callback: collect (and count none). */
static bool
engine_service_collect(pid_t pid, void *arg)
{
	struct service_pids	*sp = arg;

	if (!engine_is_helper(pid, (void *)sp->e) &&
	    sp->n < SERVICE_MAX_PIDS)
		sp->v[sp->n++] = pid;
	return true;
}

/* The socket inodes the processes hold (at most max). */
static size_t
engine_service_sockets(const struct service_pids *sp, unsigned long *ino,
    size_t max)
{
	char		 path[300], link[64];
	struct dirent	*de;
	DIR		*d;
	size_t		 n = 0;
	ssize_t		 len;

	for (size_t i = 0; i < sp->n && n < max; i++) {
		snprintf(path, sizeof path, "/proc/%ld/fd", (long)sp->v[i]);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL && n < max) {
			snprintf(path, sizeof path, "/proc/%ld/fd/%s",
			    (long)sp->v[i], de->d_name);
			len = readlink(path, link, sizeof link - 1);
			if (len <= 0)
				continue;
			link[len] = '\0';
			if (sscanf(link, "socket:[%lu]", &ino[n]) == 1)
				n++;
		}
		closedir(d);
	}
	return n;
}

/* Add the listening TCP ports of one /proc/PID/net table whose socket is
   one of ino[0..n) to ports (sorted, no repeats). */
static void
engine_service_table(const char *path, const unsigned long *ino, size_t n,
    int *ports, size_t *nports)
{
	char		 line[512];
	unsigned	 port, state;
	unsigned long	 inode;
	FILE		*f;

	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		size_t	 i, j;

		if (!proc_net_listener(line, &port, &state, &inode) ||
		    state != 0x0A)	/* TCP_LISTEN */
			continue;
		for (i = 0; i < n && ino[i] != inode; i++)
			;
		if (i == n || *nports >= SERVICE_MAX_PORTS)
			continue;
		for (i = 0; i < *nports && ports[i] < (int)port; i++)
			;
		if (i < *nports && ports[i] == (int)port)
			continue;
		for (j = *nports; j > i; j--)
			ports[j] = ports[j - 1];
		ports[i] = (int)port;
		(*nports)++;
	}
	fclose(f);
}

/* One line on the events descriptor (takes j). */
static void
engine_service_emit(struct engine *e, cJSON *j)
{
	char	*line = json_line(j);

	cJSON_Delete(j);
	line = xrealloc(line, strlen(line) + 2);
	strcat(line, "\n");
	(void)write_full(e->opts->events_fd, line, strlen(line));
	free(line);
}

/* What the observer refused the service since the last look: a line
   {"event":"service","refused":[...]} (the report's violation objects),
   then forgotten (the report is out: memory stays bounded). */
static void
engine_service_refused(struct engine *e)
{
	cJSON	*j;

	if (e->r->violations.n == 0)
		return;
	if (e->opts->events_fd >= 0) {
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "event", "service");
		cJSON_AddItemToObject(j, "refused",
		    violations_json(&e->r->violations));
		engine_service_emit(e, j);
	}
	violations_release(&e->r->violations);
}

/*
 * The ports the service listens on (TCP, the project's loopback: its
 * processes' sockets found in its network namespace's tables); a line on
 * the events descriptor when they changed: {"event":"service","ports":[]}.
 */
static void
engine_service_ports(struct engine *e)
{
	struct service_pids	 sp = { .e = e };
	unsigned long		 ino[SERVICE_MAX_SOCKETS];
	int			 ports[SERVICE_MAX_PORTS];
	size_t			 n, nports = 0;
	char			 path[64];
	cJSON			*j, *a;

	if (e->opts->events_fd < 0)
		return;
	(void)limiter_procs(e->lim, 0, engine_service_collect, &sp);
	n = engine_service_sockets(&sp, ino, SERVICE_MAX_SOCKETS);
	if (sp.n > 0 && n > 0) {
		snprintf(path, sizeof path, "/proc/%ld/net/tcp", (long)sp.v[0]);
		engine_service_table(path, ino, n, ports, &nports);
		snprintf(path, sizeof path, "/proc/%ld/net/tcp6",
		    (long)sp.v[0]);
		engine_service_table(path, ino, n, ports, &nports);
	}
	if (nports == e->nports && memcmp(ports, e->ports, nports *
	    sizeof *ports) == 0)
		return;
	memcpy(e->ports, ports, nports * sizeof *ports);
	e->nports = nports;
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "event", "service");
	a = cJSON_AddArrayToObject(j, "ports");
	for (size_t i = 0; i < nports; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(ports[i]));
	engine_service_emit(e, j);
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
		if (e->opts->events_fd >= 0) {
			cJSON	*j = cJSON_CreateObject();

			cJSON_AddStringToObject(j, "event", "service");
			cJSON_AddStringToObject(j, "killed", why);
			engine_service_emit(e, j);
		}
	}
	if (e->serve_ticks++ % SERVICE_PORTS_TICKS == 0)
		engine_service_ports(e);
	engine_service_refused(e);
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
	int64_t	deadline;

	e->serving = true;
	observe_record(e->obs, NULL, pol->project);
	observe_record_exec(e->obs, NULL);
	observe_record_ports(e->obs, NULL, NULL);
	if (e->timeout_timer != 0) {
		/* The request's timeout was the request's. */
		loop_cancel(e->loop, e->timeout_timer);
		e->timeout_timer = 0;
	}
	if (e->lim_timer != 0) {
		loop_cancel(e->loop, e->lim_timer);
		e->lim_timer = 0;
	}
	/* The report has what was refused before. */
	violations_release(&e->r->violations);
	LOG("serving the command's background processes");
	e->serve_timer = loop_timer(e->loop, SERVICE_TICK_MS,
	    engine_service_tick, e);
	while (!e->served)
		loop_run_once(e->loop, -1);
	/* Its last words: the pipes close as its processes are gone. */
	deadline = loop_now_ms() + 500;
	while ((e->out_open || e->err_open) && loop_now_ms() < deadline)
		loop_run_once(e->loop, (int)(deadline - loop_now_ms()));
	if (e->serve_grace != 0)
		loop_cancel(e->loop, e->serve_grace);
	e->serve_grace = 0;
	LOG("service over");
}
