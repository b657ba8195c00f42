/* console-lifecycle: creating, shutting down and freeing a console. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "allowlist.h"
#include "audit.h"
#include "cleanup.h"
#include "digestcache.h"
#include "client.h"
#include "gitid.h"
#include "config.h"
#include "console-int.h"
#include "console.h"
#include "guard.h"
#include "jsonutil.h"
#include "history.h"
#include "log.h"
#include "path.h"
#include "pod.h"
#include "probe.h"
#include "remote.h"
#include "proctree.h"
#include "xalloc.h"

/* ---- lifecycle ---- */

/* SIGHUP of a headless console: read configuration and rules again. */
static void
console_sighup(int signo, void *arg)
{
	struct console	*c = arg;
	char		*cause = NULL;

	(void)signo;
	if (console_reload(c, "SIGHUP", &cause) != 0)
		free(cause);
}

/* SIGINT, SIGTERM, SIGHUP: shut down in order (twice: hurry). */
static void
console_sigterm(int signo, void *arg)
{
	struct console	*c = arg;
	char		*why = xasprintf("signal %s", strsignal(signo));

	console_shutdown(c, why);
	free(why);
}

/* The shutdown took too long: kill what is left and stop. */
static void
console_shutdown_timeout(void *arg)
{
	struct console	*c = arg;
	struct request	*r;
	struct job	*jb;

	c->shutdown_timer = 0;
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		jb = r->owner;
		if (r->state == REQUEST_RUNNING && jb != NULL && !jb->exited)
			job_kill_now(jb);
	}
	service_stop_all(c, "the console");	/* again: SIGKILL */
	c->done = true;
}

/* Begin shutting down. */
void
console_shutdown(struct console *c, const char *why)
{
	struct request	*r, *next;
	struct job	*jb;
	struct console_event ev = { .type = CONSOLE_EV_QUIT };
	char		*note, *cause = NULL;

	if (c->shutting_down) {
		/* Asked again: do not wait for anyone. */
		console_shutdown_timeout(c);
		return;
	}
	c->shutting_down = true;
	warm_stop(c);
	console_undo_watch(c, false);
	note = xasprintf("the console is shutting down (%s)", why);
	ev.message = note;
	console_emit(c, &ev);
	LOG("%s", note);
	console_close_listeners(c);
	for (r = TAILQ_FIRST(&c->q.requests); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		jb = r->owner;
		/* A mirror waits on its own machine (remote.h). */
		if (remote_is(r))
			continue;
		if (r->state == REQUEST_PENDING) {
			if (queue_decide(&c->q, r, false, BY_CONSOLE, NULL,
			    note, &cause) == 0)
				request_decided(c, r);
		} else if (r->state == REQUEST_APPROVED) {
			if (queue_withdraw(&c->q, r, BY_CONSOLE, note,
			    &cause) == 0)
				request_decided(c, r);
		} else if (r->state == REQUEST_RUNNING && jb != NULL)
			job_kill(jb, BY_CONSOLE, note);
		free(cause);
		cause = NULL;
	}
	service_stop_all(c, "the console");
	free(note);
	c->shutdown_timer = loop_timer(c->loop, CONSOLE_SHUTDOWN_MS,
	    console_shutdown_timeout, c);
	console_check_done(c);
}

/* Has the shutdown finished? */
bool
console_done(const struct console *c)
{
	/* The last service gone (console-service.c) ends a shutdown too. */
	return c->done || (c->shutting_down && c->q.running == 0 &&
	    c->nservices == 0);
}

/* The project root this console serves (as bwgate exec finds it). */
char *
console_find_project(const char *opt, char **cause)
{
	_cleanup_free_ char	*cwd = NULL;

	if (opt != NULL)
		return path_canonical(opt, cause);
	if ((cwd = getcwd(NULL, 0)) == NULL) {
		*cause = xasprintf("cannot get the current directory: %s",
		    strerror(errno));
		return NULL;
	}
	return path_project_of(cwd, cause);
}

/* Set the console up. */
/*
 * Writers run side by side only where every exec child records its own
 * changes from its system calls: seccomp notification works, and nothing
 * in our environment (which the children inherit) forces the scan.
 */
static bool
console_writers_alone(enum console_writers w, const struct probe *p)
{
	const char	*off = getenv("BWGATE_NO_NOTIFY");
	const char	*how = getenv("BWGATE_CHANGES");

	if (w != CONSOLE_WRITERS_AUTO)
		return w == CONSOLE_WRITERS_ALONE;
	if (!p->seccomp_notify)
		return true;
	if (off != NULL && *off != '\0' && strcmp(off, "0") != 0)
		return true;
	return how != NULL && strcmp(how, "snapshot") == 0;
}

/* The defaults and the options: nothing opened yet. */
static void
console_init_fields(struct console *c, const struct console_opts *o,
    struct loop *l)
{
	c->outside = cJSON_CreateArray();
	c->outside_held = cJSON_CreateArray();
	c->digests = digestcache_new();
	c->loop = l;
	c->lock_fd = c->agent_fd = c->control_fd = c->fifo_fd = -1;
	c->spool_lock = -1;
	c->commit = console_commit;
	warm_init(c);
	c->uid = getuid();
	{
		struct timespec	ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		c->console_id = xasprintf("%lld-%ld", (long long)ts.tv_sec *
		    1000 + ts.tv_nsec / 1000000, (long)getpid());
	}
	c->headless = o->headless;
	c->auto_allowlisted = o->auto_allowlisted;
	c->auto_sandboxed = o->auto_sandboxed;
	c->unlisted_wait = o->unlisted_wait;
	c->approval_timeout_s = o->approval_timeout_s;
	queue_init(&c->q);
	c->q.max_running = o->max_running != 0 ? o->max_running :
	    CONSOLE_MAX_RUNNING;
	LIST_INIT(&c->conns);
	TAILQ_INIT(&c->services);
	config_init(&c->cfg);
	probe_init(&c->probe);
}

/* The project, its history's last id, the binary, the configuration, the
   rules, the host's abilities and the audit log; -1 with cause. */
static int
console_load(struct console *c, const struct console_opts *o, char **cause)
{
	struct stat	 st;
	char		 exe[PATH_MAX];
	ssize_t		 n;
	unsigned long	 last_id = 0;
	char		*why = NULL;

	if ((c->project = console_find_project(o->project, cause)) == NULL)
		return -1;
	if (stat(c->project, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("project '%s' is not a directory",
		    c->project);
		return -1;
	}
	if (guard_project(c->project, cause) != 0)
		return -1;
	spool_init(c);	/* ended requests' output on disk */
	console_undo_watch(c, true);	/* `bwgate undo` meanwhile */
	/* Ids go on from the project's last console: one history. */
	if (history_last_id(c->project, &last_id, cause) != 0) {
		LOG("request ids start again at 1: %s", *cause);
		free(*cause);
		*cause = NULL;
	} else if (last_id > 0 && last_id < PROTO_MAX_ID) {
		c->q.next_id = (uint32_t)last_id + 1;
		c->ids_saved = (uint32_t)last_id;
	}
	if (o->exec_path != NULL)
		c->exec_path = xstrdup(o->exec_path);
	else {
		n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0) {
			*cause = xasprintf("cannot find the bwgate binary "
			    "(/proc/self/exe): %s", strerror(errno));
			return -1;
		}
		exe[n] = '\0';
		c->exec_path = xstrdup(exe);
	}
	if (o->config_file != NULL)
		c->config_file = xstrdup(o->config_file);
	if (config_load(&c->cfg, o->config_file, cause) != 0)
		return -1;
	if ((c->al = allowlist_load(c->project, cause)) == NULL)
		return -1;
	/* Shown in each request's argv; exec asks git again when it runs. */
	gitid_env(c->project, NULL, &c->git_identity);
	probe_host(&c->probe, true);
	if (!c->probe.userns_ok) {
		/* Every request would be refused: say why now, in doctor's
		   words, instead of starting a console that cannot run. */
		*cause = xasprintf("no sandbox can be built here: %s%s%s "
		    "(bwgate doctor says more)", c->probe.error != NULL ?
		    c->probe.error : "bwrap does not work",
		    c->probe.fix != NULL ? "; fix: " : "",
		    c->probe.fix != NULL ? c->probe.fix : "");
		return -1;
	}
	/* The project's world lives as long as the console (pod.h). */
	if (pod_enabled() && pod_own(&st, &c->pod, &why) != 0) {
		LOG("no pod held: %s", why);
		free(why);
	}
	c->q.writers_alone = console_writers_alone(o->writers, &c->probe);
	LOG("writers %s", c->q.writers_alone ? "alone" : "side by side");
	if ((c->audit = audit_open(o->audit_file, cause)) == NULL)
		return -1;
	audit_set_rotation(c->audit, c->cfg.audit_max_bytes,
	    c->cfg.audit_keep);
	return 0;
}

/* The sockets (agent and control), the lock, the link, the FIFO and the
   signals; -1 with cause. */
static int
console_open_sockets(struct console *c, const struct console_opts *o, char **cause)
{
	char	*dir = NULL;

	/* Sockets: the default directory is made private; explicit paths
	   are the user's choice. */
	if (o->socket == NULL && getenv("BWGATE_SOCKET") == NULL &&
	    (dir = rundir_get(true, cause)) == NULL)
		return -1;
	free(dir);
	/* One console per project: without --socket or $BWGATE_SOCKET,
	   the project's own socket in the runtime directory. */
	if (o->socket == NULL && getenv("BWGATE_SOCKET") == NULL)
		c->socket_path = client_project_socket(c->project, cause);
	else
		c->socket_path = client_socket_path(o->socket, cause);
	if (c->socket_path == NULL)
		return -1;
	c->control_path = client_control_path(c->socket_path);
	/* Session rules live beside the sockets and die with the console
	   (a crashed console's file is its pid's: the next one of that pid
	   starts without it). */
	{
		char *d = xstrdup(c->control_path);

		*strrchr(d, '/') = '\0';
		c->session_rules = xasprintf("%s/session-%ld.json", d,
		    (long)getpid());
		free(d);
		(void)unlink(c->session_rules);
		allowlist_set_session_file(c->session_rules);
	}
	/* A sandbox that sees the control socket could approve itself. */
	if (guard_socket(c->socket_path, c->project, &c->cfg.rw_paths,
	    cause) != 0 || guard_socket(c->socket_path, c->project,
	    &c->cfg.ro_paths, cause) != 0 || guard_socket(c->control_path,
	    c->project, NULL, cause) != 0)
		return -1;
	if ((c->lock_fd = console_lock(c->socket_path, cause)) < 0)
		return -1;
	c->agent_fd = console_listen(c->socket_path, &c->agent_st, cause);
	if (c->agent_fd < 0)
		return -1;
	c->control_fd = console_listen(c->control_path, &c->control_st,
	    cause);
	if (c->control_fd < 0)
		return -1;
	if (o->link && remote_listen(c, cause) != 0)
		return -1;
	/* Found from the user id and the project alone, too. */
	if (o->socket == NULL && getenv("BWGATE_SOCKET") == NULL)
		console_link_default(c);
	loop_add(c->loop, c->agent_fd, POLLIN, console_accept, c);
	loop_add(c->loop, c->control_fd, POLLIN, console_accept, c);
	if (o->fifo != NULL) {
		c->fifo_path = xstrdup(o->fifo);
		if (console_open_fifo(c, cause) != 0)
			return -1;
	}
	loop_signal(c->loop, SIGCHLD, console_sigchld, c);
	loop_signal(c->loop, SIGINT, console_sigterm, c);
	loop_signal(c->loop, SIGTERM, console_sigterm, c);
	/* A daemon reloads on SIGHUP; on a terminal it means the terminal
	   went away. */
	loop_signal(c->loop, SIGHUP, c->headless ? console_sighup :
	    console_sigterm, c);
	return 0;
}

/* The warm exec, then "console-start" in the audit log; -1 with cause. */
static int
console_announce(struct console *c, char **cause)
{
	cJSON	*rec;

	if (c->cfg.warm_exec)
		warm_again(c, true);
	rec = audit_record("console-start", NULL);
	cJSON_AddStringToObject(rec, "project", c->project);
	cJSON_AddStringToObject(rec, "socket", c->socket_path);
	cJSON_AddStringToObject(rec, "control", c->control_path);
	if (c->fifo_path != NULL)
		cJSON_AddStringToObject(rec, "fifo", c->fifo_path);
	cJSON_AddNumberToObject(rec, "pid", getpid());
	cJSON_AddNumberToObject(rec, "uid", c->uid);
	cJSON_AddBoolToObject(rec, "headless", c->headless);
	cJSON_AddBoolToObject(rec, "auto_allowlisted", c->auto_allowlisted);
	cJSON_AddBoolToObject(rec, "auto_sandboxed", c->auto_sandboxed);
	if (c->unlisted_wait)
		cJSON_AddStringToObject(rec, "unlisted", "wait");
	cJSON_AddStringToObject(rec, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(rec, "console", c->console_id);
	return audit_write(c->audit, rec, cause);
}

struct console *
console_new(const struct console_opts *o, struct loop *l, char **cause)
{
	struct console	*c = xcalloc(1, sizeof *c);

	console_init_fields(c, o, l);
	if (console_load(c, o, cause) != 0 ||
	    console_open_sockets(c, o, cause) != 0 ||
	    console_announce(c, cause) != 0) {
		console_free(c);
		return NULL;
	}
	return c;
}

/* Try for a short while to deliver what clients have not read yet. */
static void
console_flush_all(struct console *c)
{
	int64_t		 deadline = loop_now_ms() + 1000;
	struct conn	*cn;
	bool		 left = true;
	char		*cause = NULL;

	if (c->audit != NULL && audit_sync(c->audit, &cause) != 0)
		free(cause);
	c->audit_dirty = false;

	while (left && loop_now_ms() < deadline) {
		left = false;
		LIST_FOREACH(cn, &c->conns, entry) {
			if (cn->dead || cn->out.len == 0)
				continue;
			conn_flush(cn);
			if (!cn->dead && cn->out.len > 0)
				left = true;
		}
		if (left)
			poll(NULL, 0, 10);
	}
}

/* Tear everything down. */
void
console_free(struct console *c)
{
	struct request	*r;
	struct conn	*cn;
	struct job	*jb;
	cJSON		*rec;

	if (c == NULL)
		return;
	spool_release(c);
	console_undo_watch(c, false);
	if (c->session_rules != NULL) {
		(void)unlink(c->session_rules);
		allowlist_set_session_file(NULL);
		free(c->session_rules);
	}
	warm_stop(c);
	/* Whatever still runs dies now (exec kills its sandbox). */
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		jb = r->owner;
		if (jb != NULL && jb->pid > 0 && !jb->exited) {
			kill(jb->pid, SIGTERM);
			reap_session(jb->pid, NULL, true);
			jb->exited = true;
		}
	}
	service_free_all(c);
	console_flush_all(c);
	while ((cn = LIST_FIRST(&c->conns)) != NULL) {
		cn->dead = true;
		/* No request may point at a freed connection. */
		TAILQ_FOREACH(r, &c->q.requests, entry)
			if (r->owner != NULL &&
			    ((struct job *)r->owner)->conn == cn)
				((struct job *)r->owner)->conn = NULL;
		loop_remove(c->loop, cn->fd);
		close(cn->fd);
		LIST_REMOVE(cn, entry);
		proto_reader_release(&cn->rd);
		buf_release(&cn->out);
		free(cn);
	}
	console_close_listeners(c);
	if (c->shutdown_timer != 0)
		loop_cancel(c->loop, c->shutdown_timer);
	if (c->audit != NULL) {
		rec = audit_record("console-stop", NULL);
		cJSON_AddNumberToObject(rec, "requests", c->q.next_id - 1);
		console_audit(c, rec);
		audit_close(c->audit);
	}
	remote_free(c);
	while ((r = TAILQ_FIRST(&c->q.requests)) != NULL) {
		job_free(r->owner);
		queue_remove(&c->q, r);
	}
	queue_release(&c->q);
	allowlist_free(c->al);
	digestcache_free(c->digests);
	config_release(&c->cfg);
	probe_release(&c->probe);
	if (c->outside_timer != 0)
		loop_cancel(c->loop, c->outside_timer);
	cJSON_Delete(c->outside);
	cJSON_Delete(c->outside_held);
	pod_leave(&c->pod);
	free(c->project);
	free(c->socket_path);
	free(c->console_id);
	strv_release(&c->git_identity);
	free(c->control_path);
	free(c->fifo_path);
	free(c->exec_path);
	free(c->config_file);
	free(c->audit_failing);
	free(c->subs);
	free(c);
}
