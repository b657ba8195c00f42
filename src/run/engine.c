/*
 * engine: one command in the sandbox, from policy to report.
 *
 * The order matters:
 *	probe -> build the sandbox -> spawn bwrap
 *	(born in the run's cgroup) ->
 *	snapshot before (only without recorded calls) -> start the monitor
 *	(only when someone reads live events) -> release bwrap -> with
 *	recorded calls: wait for the helper's answer (snapshot before after
 *	all if no listener came) -> a profile that writes the project goes
 *	on only where the observer decides (observe_deciding) -> let the
 *	command start -> event loop until bwrap is gone and its pipes are
 *	closed -> the change report -> report.
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
 * namespace take everything else down with it.
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

/* Start bwrap in the limiter's cgroups; once more in new ones when ours
   were removed before it joined (limiter_renew). -1 with cause. */
static int
engine_spawn(struct engine *e, const struct strv *argv,
    const struct sandbox *sb, char **cause)
{
	const struct engine_opts *o = e->opts;
	int			 join[2];
	size_t			 njoin = limiter_join_fds(e->lim, join);

	if (runner_spawn(argv, sb->fds, sb->nfds, o->stdin_fd,
	    o->merge_output, join, njoin, &e->run, cause) == 0)
		return 0;
	if (limiter_renew(e->lim) != 0)
		return -1;
	free(*cause);
	*cause = NULL;
	njoin = limiter_join_fds(e->lim, join);
	return runner_spawn(argv, sb->fds, sb->nfds, o->stdin_fd,
	    o->merge_output, join, njoin, &e->run, cause);
}

int
engine_run(const struct engine_opts *o, struct result *r)
{
	struct engine		 e = { .opts = o, .r = r, .status_fd = -1,
				   .cwd_rd = -1, .cwd_num = -1 };
	struct sandbox_policy	 pol;
	struct sandbox		 sb = SANDBOX_INIT;
	struct probe		 probe;
	struct strv		 full = STRV_INIT;
	struct snapshot		*before = NULL, *after = NULL;
	struct snapshot_paths	*rec = NULL;
	struct undo_rec		*undo = NULL;
	struct gitops		*git = NULL;	/* refs before: git-write */
	bool			 record, writes, prestart = o->await != NULL;
	bool			 unused = false;
	struct strv		 skip = STRV_INIT;
	struct snapshot_opts	 snap = { &o->exclude, &skip, 0 };
	struct aside		 lim_new = ASIDE_INIT, lim_free = ASIDE_INIT;
	char			*cause = NULL;
	int			 spipe[2] = { -1, -1 }, bpipe[2] = { -1, -1 };
	int			 slot, rc = -1;

	strv_append_all(&r->argv, &o->argv);
	r->command = o->command ? xstrdup(o->command) : NULL;
	r->cwd = xstrdup(o->policy.cwd);
	r->project = xstrdup(o->policy.project);
	r->profile = xstrdup(o->policy.profile ? o->policy.profile : "");
	sandbox_policy_copy(&pol, &o->policy);
	probe_init(&probe);
	LOG("start");
	probe_host(&probe, true);
	LOG("probed");
	if (!probe.userns_ok) {
		engine_fail(r, probe.fix != NULL ? xasprintf("%s (fix: %s)",
		    probe.error, probe.fix) : xstrdup(probe.error));
		goto out;
	}
	if (o->argv.n == 0 && !prestart) {
		engine_fail(r, xstrdup("no command to run"));
		goto out;
	}
	aside_start(&lim_new, engine_limiter_new, &e);
	/*
	 * Record the file-changing calls for the change report when the
	 * kernel can notify them; not with nested namespaces inside (their
	 * calls are not ours to resolve) nor when a scan is asked for.
	 */
	writes = engine_policy_writes(&pol);
	record = o->observe && o->snapshot && writes && !o->force_snapshot &&
	    !pol.allow_userns && probe.seccomp_notify;
	/* The violation observer: bwrap runs its helper first. */
	if (o->observe && (e.obs = observe_prepare(&pol,
	    (record ? OBSERVE_RECORD : 0) | (prestart ? OBSERVE_ARGV : 0),
	    &cause)) == NULL) {
		strv_push_owned(&r->warnings, xasprintf("violations are "
		    "inferred from error output: %s", cause));
		free(cause);
		cause = NULL;
	}
	if (!observe_armed(e.obs))
		record = false;
	if (sandbox_build(&pol, &probe, 0, &sb, &cause) != 0) {
		engine_fail(r, cause);
		goto out;
	}
	LOG("sandbox built");
	if (!engine_sandbox_writes(&sb, pol.project))
		writes = false;
	else if (!writes) {
		writes = true;	/* the mounts have the last word */
		record = false;
	}
	if (prestart && !engine_prestart_possible(o, writes, e.obs)) {
		rc = ENGINE_UNUSED;
		goto out;
	}
	r->sandbox = engine_sandbox_json(&probe, &sb, &pol);
	/* With a bound /proc the command can see our /proc entry: keep our
	   descriptors and memory out of its reach. */
	if (!probe.proc_fresh)
		prctl(PR_SET_DUMPABLE, 0);
	strv_append_all(&r->warnings, &sb.warnings);
	if (pipe2(spipe, O_CLOEXEC) != 0 || pipe2(bpipe, O_CLOEXEC) != 0) {
		engine_fail(r, xasprintf("cannot create a pipe: %s",
		    strerror(errno)));
		goto out;
	}
	slot = sandbox_status_slot(&sb);
	sb.fds[slot] = spipe[1];	/* now owned by sb */
	spipe[1] = -1;
	slot = sandbox_fd_slot(&sb, "--block-fd");
	sb.fds[slot] = bpipe[0];
	bpipe[0] = -1;
	if (engine_cwd_open(&e, &sb, &cause) != 0) {
		engine_fail(r, cause);
		goto out;
	}
	if (!prestart)
		engine_argv_digests(&e, &sb, &o->argv);

	/*
	 * bwrap builds the namespaces and mounts while we take the snapshot
	 * and start the monitor; it waits on --block-fd before running the
	 * command, so nothing the command does is missed.
	 */
	e.loop = loop_new();
	e.start_ms = loop_now_ms();
	/* Before bwrap exists: a signal from now on stops the sandbox
	   instead of killing us and leaving it behind (nor closing
	   --block-fd, which would release the command). */
	loop_signal(e.loop, SIGINT, engine_signal, &e);
	loop_signal(e.loop, SIGTERM, engine_signal, &e);
	loop_signal(e.loop, SIGHUP, engine_signal, &e);
	aside_join(&lim_new);
	cJSON_AddItemToObject(r->sandbox, "limits", engine_limits_json(&e));
	/* A prestart's command goes to its helper later. */
	strv_append_all(&full, &sb.argv);
	if (!prestart) {
		struct strv	cmd = STRV_INIT;

		strv_append_all(&cmd, &o->argv);
		engine_cwd_wrap(&e, &cmd);
		strv_append_all(&full, &cmd);
		strv_release(&cmd);
		/* The report's argv is what ran (the digests are of the
		   argv shown). */
		if (e.cwd_num >= 0) {
			strv_release(&r->bwrap_argv);
			strv_append_all(&r->bwrap_argv, &full);
		}
	}
	/* Through a descriptor: the process list shows no option. */
	if ((slot = runner_args_memfd(&full, sb.bwrap_at, sb.opts_end,
	    &cause)) < 0) {
		engine_fail(r, cause);
		goto out;
	}
	runner_args_use(&full, sb.bwrap_at, sb.opts_end,
	    sandbox_add_fd(&sb, slot));
	if (engine_spawn(&e, &full, &sb, &cause) != 0) {
		engine_fail(r, cause);
		goto out;
	}
	/* Our copies of the sandbox's descriptors are no longer needed. */
	for (size_t i = 0; i < sb.nfds; i++) {
		if (sb.fds[i] > 2)
			close(sb.fds[i]);
		sb.fds[i] = -1;
	}
	LOG("spawned");
	/* The network is started while bwrap sets the sandbox up and we
	   take the snapshot. */
	e.status_fd = spipe[0];
	fcntl(e.status_fd, F_SETFL, O_NONBLOCK);
	if (engine_prepare(&e, &pol, &cause) != 0)
		goto kill;
	if (o->snapshot && writes && !record) {
		before = snapshot_take(pol.project, &snap, &cause);
		if (before == NULL) {
			strv_push_owned(&r->warnings, xasprintf("no change "
			    "report: %s", cause));
			free(cause);
		}
	}
	/* Live events only for a reader, and only where writes can happen. */
	if (o->monitor && writes && o->events_fd >= 0) {
		e.mon = monitor_start(pol.project, &o->exclude, &cause);
		if (e.mon == NULL) {
			strv_push_owned(&r->warnings, xasprintf("no live "
			    "events: %s", cause));
			free(cause);
		} else
			loop_add(e.loop, monitor_fd(e.mon), POLLIN,
			    engine_monitor, &e);
	}
	LOG("snapshot taken, monitor started");
	if (engine_ready(&e, &cause) != 0)
		goto kill;
	/* A kill that came while we prepared: never start the command. */
	loop_run_once(e.loop, 0);
	if (e.killing) {
		cause = xstrdup("killed before the command started");
		goto kill;
	}
	/* Without a helper nothing holds the command back any more. */
	e.cmd_may_run = e.obs == NULL;
	(void)!write(bpipe[1], "", 1);	/* go */
	close(bpipe[1]);
	bpipe[1] = -1;
	/* A run that can write the project starts only where the observer
	   decides: nothing else keeps it from creating a protected name. */
	if (writes && !observe_deciding(e.obs, ENGINE_HELLO_MS)) {
		cause = xasprintf("cannot protect the project here (%s): a "
		    "profile that writes the project needs seccomp user "
		    "notification with descriptor injection (Linux 5.14); "
		    "only read-only profiles run (bwgate doctor)",
		    e.obs != NULL ? observe_status(e.obs) : "no observer");
		goto kill;
	}
	/* The helper answers, then waits for us before the command runs. */
	if (record) {
		if (observe_wait_ready(e.obs, ENGINE_HELLO_MS) &&
		    (rec = snapshot_paths_new(pol.project, &snap,
		    &cause)) != NULL) {
			if ((undo = undo_rec_new(pol.project,
			    o->command)) != NULL)
				snapshot_paths_hook(rec, undo_rec_save_hook,
				    undo);
			observe_record(e.obs, rec, pol.project);
			e.rec = rec;
		} else {
			if (rec == NULL && cause != NULL) {
				LOG("%s", cause);
				free(cause);
				cause = NULL;
			}
			LOG("no recorded calls (%s): snapshot",
			    observe_status(e.obs));
			before = snapshot_take(pol.project, &snap, &cause);
			if (before == NULL) {
				strv_push_owned(&r->warnings, xasprintf("no "
				    "change report: %s", cause));
				free(cause);
			}
		}
		LOG("helper answered");
	}
	if (prestart) {
		if (engine_prestart_take(&e, &sb, &cause) != 0) {
			unused = true;
			goto kill;
		}
		e.opts = o = e.taken;
		snap.exclude = &o->exclude;
		strv_release(&r->argv);
		strv_append_all(&r->argv, &o->argv);
		free(r->command);
		r->command = o->command ? xstrdup(o->command) : NULL;
		engine_argv_digests(&e, &sb, &o->argv);
		cJSON_AddBoolToObject(r->sandbox, "prestarted", true);
		/* A kill while it waited: the request does not start. */
		loop_run_once(e.loop, 0);
		if (e.killing) {
			cause = xstrdup("killed before the command started");
			goto kill;
		}
		if (pol.git_writable)
			git = gitops_take(pol.project);
		e.start_ms = loop_now_ms();
		{
			struct strv	cmd = STRV_INIT;

			strv_append_all(&cmd, &o->argv);
			engine_cwd_wrap(&e, &cmd);
			e.cmd_may_run = true;
			(void)observe_go_argv(e.obs, &cmd);
			strv_release(&cmd);
		}
	} else {
		/* The repository's refs and index, to tell what the
		   command did to them (only git-write can). */
		if (pol.git_writable)
			git = gitops_take(pol.project);
		e.cmd_may_run = true;
		observe_go(e.obs);
	}
	e.out_open = true;
	e.err_open = e.run.err_fd >= 0;	/* merged: one pipe */
	loop_add(e.loop, e.run.out_fd, POLLIN, engine_output, &e);
	if (e.err_open)
		loop_add(e.loop, e.run.err_fd, POLLIN, engine_output, &e);
	loop_add(e.loop, e.status_fd, POLLIN, engine_status, &e);
	if (e.run.pidfd >= 0)
		loop_add(e.loop, e.run.pidfd, POLLIN, engine_bwrap_exited, &e);
	if (o->timeout_ms > 0)
		loop_timer(e.loop, o->timeout_ms, engine_timeout, &e);
	observe_record_exec(e.obs, &r->executed);
	if (limiter_backend(e.lim) != LIMITS_RLIMIT && o->limits.pids > 0)
		e.lim_timer = loop_timer(e.loop, 250, engine_limits_tick, &e);
	observe_attach(e.obs, e.loop, &sb, &r->violations);
	engine_loop(&e);
	observe_finish(e.obs);
	if (!e.bwrap_done) {
		/* A pipe stayed open after bwrap's pidfd vanished. */
		runner_wait(&e.run);
		e.bwrap_done = true;
	}
	r->duration_ms = loop_now_ms() - e.start_ms;
	engine_exit_status(&e);
	/* Its mounts were not what bwgate opened: it never ran. */
	if (observe_raced(e.obs) != NULL) {
		engine_fail(r, xstrdup(observe_raced(e.obs)));
		r->started = false;
	}
	if (r->killed_by == NULL)
		r->killed_by = limiter_verdict(e.lim, r->signal);
	if (r->killed_by != NULL)
		r->killed = false;
	/* Without notifications, read refusals from the error output. */
	if (o->observe && r->started && !observe_exact(e.obs))
		observe_infer(r->err.data, r->err.len, &sb, pol.cwd,
		    pol.network, &r->violations);
	if (o->observe && r->sandbox != NULL)
		cJSON_AddStringToObject(r->sandbox, "violations",
		    observe_exact(e.obs) ? "exact" : "inferred");
	if (o->observe && r->sandbox != NULL)
		cJSON_AddNumberToObject(r->sandbox, "observed_calls",
		    (double)observe_count(e.obs));
	/* Every report says whether calls were decided (the fallback). */
	if (r->sandbox != NULL)
		cJSON_AddStringToObject(r->sandbox, "decide",
		    observe_deciding(e.obs, 0) ? "at the call" :
		    "fallback: read-only profiles only");
	if (o->observe && e.obs != NULL && !observe_exact(e.obs))
		strv_push_owned(&r->warnings, xasprintf("violations are "
		    "inferred from error output (no seccomp notification: "
		    "%s)", observe_status(e.obs)));
	LOG("command over");
	if (e.mon != NULL) {
		monitor_stop(e.mon, engine_event, &e);
		engine_lossy_event(&e);
		LOG("monitor stopped");
		r->events_lossy = monitor_lossy(e.mon);
		strv_append_all(&r->warnings, monitor_warnings(e.mon));
	}
	if (rec != NULL) {
		snapshot_paths_diff(rec, &r->changes);
		r->changes_known = true;
		LOG("changes found");
		undo_rec_commit(undo, snapshot_paths_before(rec),
		    snapshot_paths_after(rec), &snap, r);
		LOG("undo kept");
		r->changes_method = "syscalls";
		/* Exact, or widened to the whole project (and why). */
		r->changes_scope = snapshot_paths_widened(rec) ? "project" :
		    "exact";
		strv_append_all(&r->changes_widened, snapshot_paths_why(rec));
		strv_append_all(&r->warnings, snapshot_paths_warnings(rec));
		attention_collect(r, pol.project, &o->attention,
		    snapshot_paths_before(rec));
		LOG("%zu paths recorded", snapshot_paths_count(rec));
	} else if (before != NULL) {
		after = snapshot_take(pol.project, &snap, &cause);
		if (after == NULL) {
			strv_push_owned(&r->warnings, xasprintf("no change "
			    "report: %s", cause));
			free(cause);
		} else {
			snapshot_diff(before, after, &r->changes);
			r->changes_known = true;
			r->changes_method = "snapshot";
			r->changes_scope = "project";
			attention_collect(r, pol.project, &o->attention,
			    before);
			strv_append_all(&r->warnings, snapshot_warnings(after));
		}
	} else if (!writes && o->snapshot) {
		/* Read-only: nothing to look at, and nothing can change. */
		r->changes_known = true;
		r->changes_possible = false;
		r->changes_method = "none";
	}
	/* Commits made, refs moved, the index changed: .git is not in the
	   change report. */
	if (git != NULL && r->started &&
	    (r->git = gitops_report(git, pol.project, &r->warnings)) != NULL) {
		char	*why = gitops_summary(r->git);

		attentions_add(&r->attention, ".git", "git", why != NULL ?
		    why : "the repository changed");
		free(why);
	}
	if (r->started && r->exit_code == 0)
		engine_cwd_read(&e, pol.project);
	rc = r->error != NULL ? -1 : 0;
	LOG("done");
	goto out;
kill:
	/* Never run without its limits or its own network. The sandbox's
	   first process too: killed before bwrap has set its parent-death
	   signal, it would wait for bwrap forever. */
	if (e.child_pid > 0)
		kill(e.child_pid, SIGKILL);
	runner_kill_tree(&e.run, 0, SIGKILL);
	runner_wait(&e.run);
	engine_fail(r, cause);
	if (unused)
		rc = ENGINE_UNUSED;
out:
	if (e.cwd_rd >= 0)
		close(e.cwd_rd);
	netstack_stop(e.net);
	if (e.proxy != NULL) {
		netproxy_stop(e.proxy);
		cJSON_Delete(r->network);
		r->network = netproxy_report(e.proxy);
		netproxy_free(e.proxy);
	}
	aside_join(&lim_new);
	aside_start(&lim_free, engine_limiter_free, e.lim);
	observe_free(e.obs);
	e.rec = NULL;
	snapshot_paths_free(rec);
	undo_rec_free(undo);
	gitops_free(git);
	if (e.mon != NULL)
		monitor_free(e.mon);
	snapshot_free(before);
	snapshot_free(after);
	if (e.loop != NULL) {
		runner_close(&e.run);
		loop_free(e.loop);
	}
	if (spipe[0] >= 0)
		close(spipe[0]);
	if (spipe[1] >= 0)
		close(spipe[1]);
	for (int i = 0; i < 2; i++)
		if (bpipe[i] >= 0)
			close(bpipe[i]);
	sandbox_release(&sb);	/* removes placeholders beside lim_free */
	aside_join(&lim_free);
	buf_release(&e.status);
	buf_release(&e.bwrap_err);
	strv_release(&full);
	strv_release(&skip);
	sandbox_policy_release(&pol);
	probe_release(&probe);
	return rc;
}
