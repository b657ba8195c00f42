/*
 * engine: one command in the sandbox, from policy to report.
 *
 * The order matters; engine_run() takes these steps (run_*() below):
 *	run_probe: the host's abilities -> the run's cgroups made beside
 *	the rest (limiter) ->
 *	run_build: the observer (recorded calls or not) -> build the
 *	sandbox -> whether it writes the project -> the status and block
 *	pipes -> the cwd pipe (engine-cwd.c) ->
 *	run_spawn: spawn bwrap (born in the run's cgroup, its argv through
 *	a descriptor) -> wait for the sandbox's first process -> start the
 *	network: the user-mode stack and the proxy for named hosts ->
 *	run_release: snapshot before (only without recorded calls) -> start
 *	the monitor (only when someone reads live events) -> limits and
 *	network ready -> release bwrap -> a profile that writes the project
 *	goes on only where the observer decides (observe_deciding) ->
 *	run_record (recorded calls): wait for the helper's answer, undo
 *	saves what each call replaces (snapshot before after all if no
 *	listener came) ->
 *	run_take (prestarted) or directly: git operations' refs before
 *	(git-write) -> let the command start ->
 *	run_loop: event loop until bwrap is gone and its pipes are closed
 *	-> run_violations -> run_changes: the change report
 *	(recorded calls or snapshot after), undo kept -> run_git_cwd: git
 *	operations after, the cwd pipe's last directory ->
 *	run_kill (on a failure once bwrap runs) -> run_release_all: the
 *	proxy's report, everything released.
 *
 * A profile that cannot write the project (readonly) takes no snapshot and
 * arms no monitor: its report says so (changes_possible false). Such a
 * sandbox may also be prestarted: made before its request is known, with
 * the command coming to the helper at "go" (engine-prestart.c).
 *
 * The loop (engine-loop.c) multiplexes the command's stdout/stderr (captured up to the
 * limit, passed through live when asked), bwrap's --json-status-fd stream
 * (child pid, pid namespace, exit code), bwrap's pidfd, the monitor,
 * timers (timeout, grace) and SIGINT/SIGTERM/SIGHUP (kill the sandbox,
 * still report).
 *
 * Killing: every process in the sandbox's pid namespace gets SIGTERM, then
 * after the grace period bwrap gets SIGKILL; --die-with-parent and the pid
 * namespace take everything else down with it. A sandbox in the project's
 * pid namespace (pod.h) is ended by its cgroup instead, and what remains
 * of it when the command exits is killed there (engine-loop.c).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aside.h"
#include "attention.h"
#include "gitops.h"
#include "engine.h"
#include "engine-int.h"
#include "jsonutil.h"
#include "log.h"
#include "loop.h"
#include "monitor.h"
#include "netbackend.h"
#include "netproxy.h"
#include "netstack.h"
#include "path.h"
#include "observe.h"
#include "probe.h"
#include "proctree.h"
#include "runner.h"
#include "snapshot.h"
#include "undo.h"
#include "xalloc.h"


void
engine_opts_init(struct engine_opts *o)
{
	memset(o, 0, sizeof *o);
	sandbox_policy_init(&o->policy);
	o->grace_ms = 2000;
	o->output_limit = 1024 * 1024;
	o->stdin_fd = 0;
	o->events_fd = -1;
	o->monitor = true;
	o->observe = true;
	o->snapshot = true;
}

void
engine_opts_release(struct engine_opts *o)
{
	sandbox_policy_release(&o->policy);
	strv_release(&o->argv);
	strv_release(&o->exclude);
	strv_release(&o->attention);
	free(o->command);
	memset(o, 0, sizeof *o);
}

/* Can the policy change the project at all (before the build)? */
static bool
engine_policy_writes(const struct sandbox_policy *pol)
{
	if (!pol->project_readonly || pol->git_writable)
		return true;
	for (size_t i = 0; i < pol->rw_paths.n; i++) {
		if (path_is_under(pol->rw_paths.v[i], pol->project) ||
		    path_is_under(pol->project, pol->rw_paths.v[i]))
			return true;
	}
	return false;
}

/* Does a writable mount of the built sandbox reach into the project? */
static bool
engine_sandbox_writes(const struct sandbox *sb, const char *project)
{
	for (size_t i = 0; i < sb->nmounts; i++) {
		const struct sandbox_mount *m = &sb->mounts[i];

		if (m->kind == MOUNT_RW && (path_is_under(m->path, project) ||
		    path_is_under(project, m->path)))
			return true;
	}
	return false;
}

/* How the sandbox was built, for the report. */
static cJSON *
engine_sandbox_json(const struct probe *p, const struct sandbox *sb,
    const struct sandbox_policy *pol)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "profile", pol->profile ? pol->profile :
	    "");
	cJSON_AddBoolToObject(j, "nested", p->nested);
	if (p->nested_in != NULL)
		cJSON_AddStringToObject(j, "nested_in", p->nested_in);
	cJSON_AddStringToObject(j, "proc", sb->proc_mode ? sb->proc_mode :
	    "");
	cJSON_AddBoolToObject(j, "network", pol->network);
	if (pol->network)
		cJSON_AddStringToObject(j, "network_backend", NETBACKEND_NAME);
	else if (sandbox_policy_proxied(pol)) {
		cJSON_AddStringToObject(j, "network_backend", "proxy");
		cJSON_AddItemToObject(j, "domains", json_strv(&pol->domains));
	}
	cJSON_AddBoolToObject(j, "seccomp", pol->seccomp);
	cJSON_AddBoolToObject(j, "disable_userns", !pol->allow_userns &&
	    p->disable_userns);
	sandbox_facts_json(sb, j);
	cJSON_AddItemToObject(j, "mounts", sandbox_mounts_json(sb));
	cJSON_AddItemToObject(j, "warnings", json_strv(&sb->warnings));
	return j;
}

/* The limits and how they are enforced, for the report. */
static cJSON *
engine_limits_json(const struct engine *e)
{
	const struct limits	*l = &e->opts->limits;
	cJSON			*j = cJSON_CreateObject();

	if (l->memory > 0)
		cJSON_AddNumberToObject(j, "memory", (double)l->memory);
	else
		cJSON_AddNullToObject(j, "memory");
	if (l->pids > 0)
		cJSON_AddNumberToObject(j, "pids", l->pids);
	else
		cJSON_AddNullToObject(j, "pids");
	if (l->cpu_s > 0)
		cJSON_AddNumberToObject(j, "cpu", l->cpu_s);
	else
		cJSON_AddNullToObject(j, "cpu");
	cJSON_AddStringToObject(j, "enforced_by",
	    limits_backend_name(limiter_backend(e->lim)));
	return j;
}

/*
 * Before the command runs (bwrap holds it on --block-fd): wait for bwrap to
 * name the sandbox's first process and, with the network on, start the
 * user-mode network for its namespace (it comes up while we take the
 * snapshot).
 */
static int
engine_prepare(struct engine *e, const struct sandbox_policy *pol,
    char **cause)
{
	int64_t		deadline = loop_now_ms() + 30000;
	struct pollfd	pfd = { .fd = e->status_fd, .events = POLLIN };

	while (e->child_pid <= 0) {
		int64_t left = deadline - loop_now_ms();

		if (left <= 0) {
			*cause = xstrdup("bwrap did not report the sandbox's "
			    "process");
			return -1;
		}
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			break;
		if (pfd.revents & POLLIN)
			engine_status(e->status_fd, POLLIN, e);
		else if (pfd.revents & (POLLHUP | POLLERR))
			break;
	}
	if (e->child_pid <= 0) {
		*cause = xstrdup("bwrap ended before the sandbox was ready");
		return -1;
	}
	if (pol->network && (e->net = netstack_start(e->child_pid, cause)) ==
	    NULL)
		return -1;
	if (sandbox_policy_proxied(pol) && (e->proxy = netproxy_start(
	    e->child_pid, &pol->domains, e->opts->net_ask, cause)) == NULL)
		return -1;
	return 0;
}

/* The last step before "go": limits applied, network up. So the command
   never runs without its limits or its own network. */
static int
engine_ready(struct engine *e, char **cause)
{
	cJSON	*j;
	char	*caveat;

	if (limiter_attach(e->lim, e->child_pid, cause) != 0)
		return -1;
	/* What the report says is what applies (report.md): no process
	   limit for root without a cgroup, memory per process. */
	j = cJSON_GetObjectItem(e->r->sandbox, "limits");
	if (j != NULL && e->opts->limits.pids > 0 &&
	    !limiter_pids_enforced(e->lim))
		cJSON_ReplaceItemInObject(j, "pids", cJSON_CreateNull());
	if (j != NULL && (caveat = limiter_caveat(e->lim)) != NULL) {
		cJSON_AddStringToObject(j, "caveat", caveat);
		free(caveat);
	}
	if (e->net != NULL)
		return netstack_wait_ready(e->net, 30000, cause);
	return 0;
}

/* The cgroups are made and removed beside the rest (the kernel's work
   on them waits more than it computes). */
static void *
engine_limiter_new(void *arg)
{
	struct engine	*e = arg;

	e->lim = limiter_new(&e->opts->limits);
	return NULL;
}

static void *
engine_limiter_free(void *arg)
{
	limiter_free(arg);
	return NULL;
}

/* In the project's pid namespace, the run's processes do not die with a
   namespace of their own: the pod ends what is left of the run (its
   cgroup, else its IPC namespace: engine_mark) once we are gone, killed
   before we could (pod_watch). 0 always. */
static int
engine_pod_watch(struct engine *e, const struct sandbox *sb)
{
	char	kind;
	int	fd;

	if (!sb->pod_pid || (fd = limiter_open_dir(e->lim, &kind)) < 0)
		return 0;
	if (pod_watch(&sb->pod, kind, fd) != 0)
		LOG("the pod does not watch this run: %s", strerror(errno));
	close(fd);
	return 0;
}

/*
 * A run in the project's pid namespace without a cgroup of its own: its
 * processes are those of its sandbox's IPC namespace (proctree.h,
 * ipcns_signal: why that is exact). The namespace is read from bwrap's
 * child while bwrap holds it on --block-fd (it has run nothing of the
 * command's yet), and must be the one bwrap reported making: a child
 * that died and whose number was reused names someone else's. Then the
 * pod watches it. -1 with cause: a run whose processes cannot be told
 * apart in the shared pid namespace never starts.
 */
static int
engine_mark(struct engine *e, const struct sandbox *sb, char **cause)
{
	if (!e->pod_pid || limiter_knows_procs(e->lim))
		return 0;
	if (!limiter_mark(e->lim, ipcns_open(e->child_pid, e->ipcns))) {
		*cause = xstrdup("the sandbox shares the project's pid "
		    "namespace, but its processes cannot be told apart (no "
		    "cgroup of its own, and its IPC namespace cannot be "
		    "read)");
		return -1;
	}
	return engine_pod_watch(e, sb);
}

/* Start bwrap in the limiter's cgroups; once more in new ones when ours
   were removed before it joined (limiter_renew). -1 with cause. */
static int
engine_spawn(struct engine *e, const struct strv *argv,
    const struct sandbox *sb, char **cause)
{
	const struct engine_opts *o = e->opts;
	int			 join[2];
	size_t			 njoin = limiter_join_fds(e->lim, join);
	/* The project's loopback: its pod's namespaces (pod.h); bwrap
	   joins the pid namespace itself (--userns, --pidns). */
	const int		 ns[2] = { sb->pod.userns, sb->pod.netns };
	size_t			 nns = sb->pod_net ? 2 : 0;

	if (runner_spawn(argv, sb->fds, sb->nfds, o->stdin_fd,
	    o->merge_output, join, njoin, ns, nns, &e->run, cause) == 0)
		return engine_pod_watch(e, sb);
	if (limiter_renew(e->lim) != 0)
		return -1;
	free(*cause);
	*cause = NULL;
	njoin = limiter_join_fds(e->lim, join);
	if (runner_spawn(argv, sb->fds, sb->nfds, o->stdin_fd,
	    o->merge_output, join, njoin, ns, nns, &e->run, cause) != 0)
		return -1;
	return engine_pod_watch(e, sb);
}

/*
 * One run's state between the steps of engine_run(), in the order of the
 * comment at the top of this file. A step returns STEP_ON to go on,
 * STEP_OUT when nothing was started (r says why, rc is set) or STEP_KILL
 * when bwrap runs and must be taken down (cause says why).
 */
struct run {
	struct engine		 e;
	const struct engine_opts *o;	/* the taken request's, once taken */
	struct result		*r;
	struct sandbox_policy	 pol;
	struct sandbox		 sb;
	struct probe		 probe;
	struct strv		 full;		/* bwrap's argv and the command */
	struct snapshot		*before, *after;
	struct snapshot_paths	*rec;
	struct undo_rec		*undo;
	struct gitops		*git;		/* refs before: git-write */
	bool			 record, writes, prestart, unused;
	struct strv		 skip;
	struct snapshot_opts	 snap;
	struct aside		 lim_new, lim_free;
	char			*cause;
	int			 spipe[2], bpipe[2];
	int			 rc;
};

enum { STEP_ON, STEP_OUT, STEP_KILL };

/* A snapshot before the command; a warning when there is none. */
static void
run_snapshot_before(struct run *s)
{
	s->before = snapshot_take(s->pol.project, &s->snap, &s->cause);
	if (s->before == NULL) {
		strv_push_owned(&s->r->warnings, xasprintf("no change "
		    "report: %s", s->cause));
		free(s->cause);
	}
}

/* Probe: the result's fields from the request, the host's abilities. */
static int
run_probe(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct result		*r = s->r;

	strv_append_all(&r->argv, &o->argv);
	r->command = o->command ? xstrdup(o->command) : NULL;
	r->cwd = xstrdup(o->policy.cwd);
	r->project = xstrdup(o->policy.project);
	r->profile = xstrdup(o->policy.profile ? o->policy.profile : "");
	sandbox_policy_copy(&s->pol, &o->policy);
	probe_init(&s->probe);
	LOG("start");
	probe_host(&s->probe, true);
	LOG("probed");
	if (!s->probe.userns_ok) {
		engine_fail(r, s->probe.fix != NULL ? xasprintf("%s (fix: %s)",
		    s->probe.error, s->probe.fix) : xstrdup(s->probe.error));
		return STEP_OUT;
	}
	if (o->argv.n == 0 && !s->prestart) {
		engine_fail(r, xstrdup("no command to run"));
		return STEP_OUT;
	}
	aside_start(&s->lim_new, engine_limiter_new, &s->e);
	return STEP_ON;
}

/* Build the sandbox: the observer, bwrap's argv, whether the run writes
   the project and records its calls, the status and block pipes, the cwd
   pipe. */
static int
run_build(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct result		*r = s->r;
	int			 slot;

	/*
	 * Record the file-changing calls for the change report when the
	 * kernel can notify them; not with nested namespaces inside (their
	 * calls are not ours to resolve) nor when a scan is asked for.
	 */
	s->writes = engine_policy_writes(&s->pol);
	s->record = o->observe && o->snapshot && s->writes &&
	    !o->force_snapshot && !s->pol.allow_userns &&
	    s->probe.seccomp_notify;
	/* The violation observer: bwrap runs its helper first. */
	if (o->observe && (s->e.obs = observe_prepare(&s->pol,
	    (s->record ? OBSERVE_RECORD : 0) |
	    (s->prestart ? OBSERVE_ARGV : 0), &s->cause)) == NULL) {
		strv_push_owned(&r->warnings, xasprintf("violations are "
		    "inferred from error output: %s", s->cause));
		free(s->cause);
		s->cause = NULL;
	}
	if (!observe_armed(s->e.obs))
		s->record = false;
	aside_join(&s->lim_new);
	if (sandbox_build(&s->pol, &s->probe, 0, &s->sb, &s->cause) != 0) {
		engine_fail(r, s->cause);
		return STEP_OUT;
	}
	s->e.pod_pid = s->sb.pod_pid;
	LOG("sandbox built");
	/* Off the project's loopback by its access: a refused local port
	   is then said as what it is (report.h). */
	r->loopback_apart = s->sb.pod.held && !s->sb.pod_peer;
	if (!engine_sandbox_writes(&s->sb, s->pol.project))
		s->writes = false;
	else if (!s->writes) {
		s->writes = true;	/* the mounts have the last word */
		s->record = false;
	}
	if (s->prestart && !engine_prestart_possible(o, s->writes, s->e.obs)) {
		s->rc = ENGINE_UNUSED;
		return STEP_OUT;
	}
	r->sandbox = engine_sandbox_json(&s->probe, &s->sb, &s->pol);
	/* With a bound /proc the command can see our /proc entry: keep our
	   descriptors and memory out of its reach. */
	if (!s->probe.proc_fresh)
		prctl(PR_SET_DUMPABLE, 0);
	strv_append_all(&r->warnings, &s->sb.warnings);
	if (pipe2(s->spipe, O_CLOEXEC) != 0 ||
	    pipe2(s->bpipe, O_CLOEXEC) != 0) {
		engine_fail(r, xasprintf("cannot create a pipe: %s",
		    strerror(errno)));
		return STEP_OUT;
	}
	slot = sandbox_status_slot(&s->sb);
	s->sb.fds[slot] = s->spipe[1];	/* now owned by sb */
	s->spipe[1] = -1;
	slot = sandbox_fd_slot(&s->sb, "--block-fd");
	s->sb.fds[slot] = s->bpipe[0];
	s->bpipe[0] = -1;
	if (engine_cwd_open(&s->e, &s->sb, &s->cause) != 0) {
		engine_fail(r, s->cause);
		return STEP_OUT;
	}
	if (!s->prestart)
		engine_argv_digests(&s->e, &s->sb, &o->argv);
	return STEP_ON;
}

/* Spawn bwrap (in the run's cgroup), its argv through a descriptor, and
   start the network (the proxy included) for its namespace. */
static int
run_spawn(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct engine		*e = &s->e;
	struct result		*r = s->r;
	int			 slot;

	/*
	 * bwrap builds the namespaces and mounts while we take the snapshot
	 * and start the monitor; it waits on --block-fd before running the
	 * command, so nothing the command does is missed.
	 */
	e->loop = loop_new();
	e->start_ms = loop_now_ms();
	/* Before bwrap exists: a signal from now on stops the sandbox
	   instead of killing us and leaving it behind (nor closing
	   --block-fd, which would release the command). */
	loop_signal(e->loop, SIGINT, engine_signal, e);
	loop_signal(e->loop, SIGTERM, engine_signal, e);
	loop_signal(e->loop, SIGHUP, engine_signal, e);
	aside_join(&s->lim_new);
	cJSON_AddItemToObject(r->sandbox, "limits", engine_limits_json(e));
	/* A prestart's command goes to its helper later. */
	strv_append_all(&s->full, &s->sb.argv);
	if (!s->prestart) {
		struct strv	cmd = STRV_INIT;

		strv_append_all(&cmd, &o->argv);
		engine_cwd_wrap(e, &cmd);
		strv_append_all(&s->full, &cmd);
		strv_release(&cmd);
		/* The report's argv is what ran (the digests are of the
		   argv shown). */
		if (e->cwd_num >= 0) {
			strv_release(&r->bwrap_argv);
			strv_append_all(&r->bwrap_argv, &s->full);
		}
	}
	/* Through a descriptor: the process list shows no option. */
	if ((slot = runner_args_memfd(&s->full, s->sb.bwrap_at,
	    s->sb.opts_end, &s->cause)) < 0) {
		engine_fail(r, s->cause);
		return STEP_OUT;
	}
	runner_args_use(&s->full, s->sb.bwrap_at, s->sb.opts_end,
	    sandbox_add_fd(&s->sb, slot));
	if (engine_spawn(e, &s->full, &s->sb, &s->cause) != 0) {
		engine_fail(r, s->cause);
		return STEP_OUT;
	}
	/* Our copies of the sandbox's descriptors are no longer needed. */
	for (size_t i = 0; i < s->sb.nfds; i++) {
		if (s->sb.fds[i] > 2)
			close(s->sb.fds[i]);
		s->sb.fds[i] = -1;
	}
	LOG("spawned");
	/* The network is started while bwrap sets the sandbox up and we
	   take the snapshot. */
	e->status_fd = s->spipe[0];
	fcntl(e->status_fd, F_SETFL, O_NONBLOCK);
	if (engine_prepare(e, &s->pol, &s->cause) != 0 ||
	    engine_mark(e, &s->sb, &s->cause) != 0)
		return STEP_KILL;
	return STEP_ON;
}

/* The snapshot before (only without recorded calls), the monitor (only
   for a reader of live events), limits and network ready, then release
   bwrap; a run that writes goes on only where the observer decides. */
static int
run_release(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct engine		*e = &s->e;

	if (o->snapshot && s->writes && !s->record)
		run_snapshot_before(s);
	/* Live events only for a reader, and only where writes can happen. */
	if (o->monitor && s->writes && o->events_fd >= 0) {
		e->mon = monitor_start(s->pol.project, &o->exclude, &s->cause);
		if (e->mon == NULL) {
			strv_push_owned(&s->r->warnings, xasprintf("no live "
			    "events: %s", s->cause));
			free(s->cause);
		} else
			loop_add(e->loop, monitor_fd(e->mon), POLLIN,
			    engine_monitor, e);
	}
	LOG("snapshot taken, monitor started");
	if (engine_ready(e, &s->cause) != 0)
		return STEP_KILL;
	/* A kill that came while we prepared: never start the command. */
	loop_run_once(e->loop, 0);
	if (e->killing) {
		s->cause = xstrdup("killed before the command started");
		return STEP_KILL;
	}
	/* Without a helper nothing holds the command back any more. */
	e->cmd_may_run = e->obs == NULL;
	(void)!write(s->bpipe[1], "", 1);	/* go */
	close(s->bpipe[1]);
	s->bpipe[1] = -1;
	/* A run that can write the project starts only where the observer
	   decides: nothing else keeps it from creating a protected name. */
	if (s->writes && !observe_deciding(e->obs, ENGINE_HELLO_MS)) {
		s->cause = xasprintf("cannot protect the project here (%s): a "
		    "profile that writes the project needs seccomp user "
		    "notification with descriptor injection (Linux 5.14); "
		    "only read-only profiles run (bwgate doctor)",
		    e->obs != NULL ? observe_status(e->obs) : "no observer");
		return STEP_KILL;
	}
	return STEP_ON;
}

/* With recorded calls: the helper answers, then waits for us before the
   command runs; undo saves what each recorded call replaces. No listener:
   a snapshot before after all. */
static void
run_record(struct run *s)
{
	struct engine	*e = &s->e;

	if (observe_wait_ready(e->obs, ENGINE_HELLO_MS) &&
	    (s->rec = snapshot_paths_new(s->pol.project, &s->snap,
	    &s->cause)) != NULL) {
		if ((s->undo = undo_rec_new(s->pol.project,
		    s->o->command)) != NULL)
			snapshot_paths_hook(s->rec, undo_rec_save_hook,
			    s->undo);
		observe_record(e->obs, s->rec, s->pol.project);
		e->rec = s->rec;
	} else {
		if (s->rec == NULL && s->cause != NULL) {
			LOG("%s", s->cause);
			free(s->cause);
			s->cause = NULL;
		}
		LOG("no recorded calls (%s): snapshot",
		    observe_status(e->obs));
		run_snapshot_before(s);
	}
	LOG("helper answered");
}

/* A prestarted sandbox takes its request now: its options, argv and
   digests; git operations' refs before; the command to the helper. */
static int
run_take(struct run *s)
{
	struct engine	*e = &s->e;
	struct result	*r = s->r;
	const struct engine_opts *o;

	if (engine_prestart_take(e, &s->sb, &s->cause) != 0) {
		s->unused = true;
		return STEP_KILL;
	}
	e->opts = o = s->o = e->taken;
	s->snap.exclude = &o->exclude;
	strv_release(&r->argv);
	strv_append_all(&r->argv, &o->argv);
	free(r->command);
	r->command = o->command ? xstrdup(o->command) : NULL;
	engine_argv_digests(e, &s->sb, &o->argv);
	cJSON_AddBoolToObject(r->sandbox, "prestarted", true);
	/* A kill while it waited: the request does not start. */
	loop_run_once(e->loop, 0);
	if (e->killing) {
		s->cause = xstrdup("killed before the command started");
		return STEP_KILL;
	}
	if (s->pol.git_writable)
		s->git = gitops_take(s->pol.project);
	e->start_ms = loop_now_ms();
	{
		struct strv	cmd = STRV_INIT;

		strv_append_all(&cmd, &o->argv);
		engine_cwd_wrap(e, &cmd);
		e->cmd_may_run = true;
		(void)observe_go_argv(e->obs, &cmd);
		strv_release(&cmd);
	}
	return STEP_ON;
}

/* Let the command start and run the event loop until bwrap is gone and
   its pipes are closed; then its status, the observer's word. */
static void
run_loop(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct engine		*e = &s->e;
	struct result		*r = s->r;

	e->out_open = true;
	e->err_open = e->run.err_fd >= 0;	/* merged: one pipe */
	loop_add(e->loop, e->run.out_fd, POLLIN, engine_output, e);
	if (e->err_open)
		loop_add(e->loop, e->run.err_fd, POLLIN, engine_output, e);
	loop_add(e->loop, e->status_fd, POLLIN, engine_status, e);
	if (e->run.pidfd >= 0)
		loop_add(e->loop, e->run.pidfd, POLLIN, engine_bwrap_exited,
		    e);
	if (o->timeout_ms > 0)
		e->timeout_timer = loop_timer(e->loop, o->timeout_ms,
		    engine_timeout, e);
	e->may_keep = engine_service_possible(e, &s->sb);
	/* Whether its background processes may stay (engine-service.c). */
	if (r->sandbox != NULL && o->keep_services)
		cJSON_AddBoolToObject(r->sandbox, "services", e->may_keep);
	observe_record_exec(e->obs, &r->executed);
	observe_record_ports(e->obs, &r->project_ports, &r->project_services);
	if (limiter_backend(e->lim) != LIMITS_RLIMIT && o->limits.pids > 0)
		e->lim_timer = loop_timer(e->loop, 250, engine_limits_tick, e);
	observe_attach(e->obs, e->loop, &s->sb, &r->violations);
	engine_loop(e);
	/* Kept as a service: its calls are still judged (engine_serve). */
	if ((r->service = engine_service_keep(e)) == 0) {
		engine_service_leftovers(e);
		observe_finish(e->obs);
	}
	if (!e->bwrap_done) {
		/* A pipe stayed open after bwrap's pidfd vanished. */
		runner_wait(&e->run);
		e->bwrap_done = true;
	}
	r->duration_ms = loop_now_ms() - e->start_ms;
	engine_exit_status(e);
	/* Its mounts were not what bwgate opened: it never ran. */
	if (observe_raced(e->obs) != NULL) {
		engine_fail(r, xstrdup(observe_raced(e->obs)));
		r->started = false;
	}
	if (r->killed_by == NULL)
		r->killed_by = limiter_verdict(e->lim, r->signal);
	if (r->killed_by != NULL)
		r->killed = false;
}

/* What the observer saw: exact or inferred from the error output. */
static void
run_violations(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct observer	*obs = s->e.obs;
	struct result		*r = s->r;

	/* Without notifications, read refusals from the error output. */
	if (o->observe && r->started && !observe_exact(obs))
		observe_infer(r->err.data, r->err.len, &s->sb, s->pol.cwd,
		    s->pol.network, &r->violations);
	if (o->observe && r->sandbox != NULL)
		cJSON_AddStringToObject(r->sandbox, "violations",
		    observe_exact(obs) ? "exact" : "inferred");
	if (o->observe && r->sandbox != NULL)
		cJSON_AddNumberToObject(r->sandbox, "observed_calls",
		    (double)observe_count(obs));
	/* Every report says whether calls were decided (the fallback). */
	if (r->sandbox != NULL)
		cJSON_AddStringToObject(r->sandbox, "decide",
		    observe_deciding(obs, 0) ? "at the call" :
		    "fallback: read-only profiles only");
	if (o->observe && obs != NULL && !observe_exact(obs))
		strv_push_owned(&r->warnings, xasprintf("violations are "
		    "inferred from error output (no seccomp notification: "
		    "%s)", observe_status(obs)));
	LOG("command over");
}

/* The change report: the monitor's last events, then the recorded calls
   (and undo keeps what they replaced) or the snapshot after. */
static void
run_changes(struct run *s)
{
	const struct engine_opts *o = s->o;
	struct engine		*e = &s->e;
	struct result		*r = s->r;

	if (e->mon != NULL) {
		monitor_stop(e->mon, engine_event, e);
		engine_lossy_event(e);
		LOG("monitor stopped");
		r->events_lossy = monitor_lossy(e->mon);
		strv_append_all(&r->warnings, monitor_warnings(e->mon));
	}
	if (s->rec != NULL) {
		snapshot_paths_diff(s->rec, &r->changes);
		r->changes_known = true;
		LOG("changes found");
		undo_rec_commit(s->undo, s->rec, &s->snap, r);
		LOG("undo kept");
		r->changes_method = "syscalls";
		/* Exact, or widened to the whole project (and why). */
		r->changes_scope = snapshot_paths_widened(s->rec) ? "project" :
		    "exact";
		strv_append_all(&r->changes_widened,
		    snapshot_paths_why(s->rec));
		strv_append_all(&r->warnings, snapshot_paths_warnings(s->rec));
		attention_collect(r, s->pol.project, &o->attention,
		    snapshot_paths_before(s->rec));
		LOG("%zu paths recorded", snapshot_paths_count(s->rec));
	} else if (s->before != NULL) {
		s->after = snapshot_take(s->pol.project, &s->snap, &s->cause);
		if (s->after == NULL) {
			strv_push_owned(&r->warnings, xasprintf("no change "
			    "report: %s", s->cause));
			free(s->cause);
		} else {
			snapshot_diff(s->before, s->after, &r->changes);
			r->changes_known = true;
			r->changes_method = "snapshot";
			r->changes_scope = "project";
			attention_collect(r, s->pol.project, &o->attention,
			    s->before);
			strv_append_all(&r->warnings,
			    snapshot_warnings(s->after));
		}
	} else if (!s->writes && o->snapshot) {
		/* Read-only: nothing to look at, and nothing can change. */
		r->changes_known = true;
		r->changes_possible = false;
		r->changes_method = "none";
	}
}

/* Git operations (commits made, refs moved, the index changed: .git is
   not in the change report), then the cwd pipe's last directory. */
static void
run_git_cwd(struct run *s)
{
	struct result	*r = s->r;

	if (s->git != NULL && r->started && (r->git = gitops_report(s->git,
	    s->pol.project, &r->warnings)) != NULL) {
		char	*why = gitops_summary(r->git);

		attentions_add(&r->attention, ".git", "git", why != NULL ?
		    why : "the repository changed");
		free(why);
	}
	if (r->started && r->exit_code == 0)
		engine_cwd_read(&s->e, s->pol.project);
}

/* The command is over and its background processes are kept: the report
   goes out now, then they are served until gone (engine-service.c). */
static void
run_serve(struct run *s, const struct engine_opts *given)
{
	struct result	*r = s->r;

	/* The report says so (report-text.c: what changes later is in
	   neither this report nor its undo). */
	if (given->report_ready != NULL)
		given->report_ready(given->report_arg, r);
	engine_serve(&s->e, &s->pol);
	observe_finish(s->e.obs);
}

/* Never run without its limits or its own network. The sandbox's first
   process too: killed before bwrap has set its parent-death signal, it
   would wait for bwrap forever. */
static void
run_kill(struct run *s)
{
	if (s->e.child_pid > 0)
		kill(s->e.child_pid, SIGKILL);
	runner_kill_tree(&s->e.run, 0, SIGKILL);
	if (s->e.pod_pid)
		engine_signal_run(&s->e, SIGKILL);
	runner_wait(&s->e.run);
	engine_fail(s->r, s->cause);
	if (s->unused)
		s->rc = ENGINE_UNUSED;
}

/* Whatever the way out: the proxy's report, then everything released
   (the cgroups removed beside the rest). */
static void
run_release_all(struct run *s)
{
	struct engine	*e = &s->e;

	if (e->cwd_rd >= 0)
		close(e->cwd_rd);
	netstack_stop(e->net);
	if (e->proxy != NULL) {
		netproxy_stop(e->proxy);
		cJSON_Delete(s->r->network);
		s->r->network = netproxy_report(e->proxy);
		netproxy_free(e->proxy);
	}
	aside_join(&s->lim_new);
	aside_start(&s->lim_free, engine_limiter_free, e->lim);
	observe_free(e->obs);
	e->rec = NULL;
	snapshot_paths_free(s->rec);
	undo_rec_free(s->undo);
	gitops_free(s->git);
	if (e->mon != NULL)
		monitor_free(e->mon);
	snapshot_free(s->before);
	snapshot_free(s->after);
	if (e->loop != NULL) {
		runner_close(&e->run);
		loop_free(e->loop);
	}
	if (s->spipe[0] >= 0)
		close(s->spipe[0]);
	if (s->spipe[1] >= 0)
		close(s->spipe[1]);
	for (int i = 0; i < 2; i++)
		if (s->bpipe[i] >= 0)
			close(s->bpipe[i]);
	sandbox_release(&s->sb);	/* removes placeholders beside lim_free */
	aside_join(&s->lim_free);
	buf_release(&e->status);
	buf_release(&e->bwrap_err);
	strv_release(&s->full);
	strv_release(&s->skip);
	sandbox_policy_release(&s->pol);
	probe_release(&s->probe);
}

int
engine_run(const struct engine_opts *o, struct result *r)
{
	struct run	 s = { .e = { .opts = o, .r = r, .status_fd = -1,
			   .cwd_rd = -1, .cwd_num = -1 }, .o = o, .r = r,
			   .sb = SANDBOX_INIT, .full = STRV_INIT,
			   .skip = STRV_INIT,
			   .lim_new = ASIDE_INIT, .lim_free = ASIDE_INIT,
			   .spipe = { -1, -1 }, .bpipe = { -1, -1 },
			   .prestart = o->await != NULL, .rc = -1 };
	int		 step;

	s.snap = (struct snapshot_opts){ &o->exclude, &s.skip, 0 };
	if ((step = run_probe(&s)) == STEP_ON &&
	    (step = run_build(&s)) == STEP_ON &&
	    (step = run_spawn(&s)) == STEP_ON)
		step = run_release(&s);
	if (step == STEP_ON && s.record)
		run_record(&s);
	if (step == STEP_ON && s.prestart)
		step = run_take(&s);
	else if (step == STEP_ON) {
		/* The repository's refs and index, to tell what the
		   command did to them (only git-write can). */
		if (s.pol.git_writable)
			s.git = gitops_take(s.pol.project);
		s.e.cmd_may_run = true;
		observe_go(s.e.obs);
	}
	if (step == STEP_ON) {
		run_loop(&s);
		run_violations(&s);
		run_changes(&s);
		run_git_cwd(&s);
		s.rc = r->error != NULL ? -1 : 0;
		LOG("done");
		if (r->service > 0)
			run_serve(&s, o);
	} else if (step == STEP_KILL)
		run_kill(&s);
	run_release_all(&s);
	return s.rc;
}
