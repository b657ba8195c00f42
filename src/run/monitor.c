/*
 * monitor: the parent side of the live monitor. It starts the watcher
 * (monitor-child.c) through spawn.h (its function mode: no exec), parses
 * its records and hands events to the caller.
 *
 * The child gets exactly two descriptors besides /dev/null on 0-2: the
 * write end of the record pipe (3) and its end of a control socket (4),
 * every other one closed. It dies
 * with the thread that forked it (PR_SET_PDEATHSIG) and also leaves when
 * the control socket reaches end of file. It runs in its own process group
 * so a terminal's ^C for the command does not cut the stream short.
 *
 * Stopping is a byte on the control socket: the child reads everything
 * inotify queued (every event that happened before monitor_stop() was
 * called is queued by then), writes it, writes MREC_DONE and exits.
 */
#include "autoconf.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "monitor-int.h"
#include "jsonutil.h"
#include "monitor.h"
#include "path.h"
#include "spawn.h"
#include "testhook.h"
#include "xalloc.h"

#define STOP_TIMEOUT_MS		10000
#define READ_CHUNK		(64 * 1024)
#define READ_ROUNDS		8
#define PIPE_SIZE		(1024 * 1024)

struct monitor {
	pid_t		 pid;
	int		 fd;		/* records from the child */
	int		 ctl;		/* control socket to the child */
	struct buf	 in;		/* bytes read, not yet parsed */
	bool		 eof;		/* the pipe reached end of file */
	bool		 done;		/* MREC_DONE seen */
	bool		 stopped;
	bool		 lossy;
	unsigned	 watches;
	struct strv	 warnings;
};

static const char *const fs_event_kind_names[] = {
	[FS_CREATED] = "created",
	[FS_MODIFIED] = "modified",
	[FS_DELETED] = "deleted",
	[FS_MOVED] = "moved",
};

static int	 monitor_child_run(void *);
static void	 monitor_warn(struct monitor *, const char *, bool);
static int	 monitor_parse(struct monitor *, monitor_cb, void *, bool);
static int	 monitor_fill(struct monitor *, bool);
static void	 monitor_reap(struct monitor *);
static int64_t	 monotonic_ms(void);

/* Monotonic milliseconds. */
static int64_t
monotonic_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * In the child (spawn.c put the output pipe on 3, the control socket on 4,
 * /dev/null on 0-2, closed the rest, set every signal to its default, and
 * asked for SIGKILL when the parent dies): EPIPE instead of SIGPIPE when
 * the parent has gone, then the watch loop.
 */
static int
monitor_child_run(void *arg)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	monitor_child_main(3, 4, arg);
}

/* Remember a warning once; a lossy one marks the stream. */
static void
monitor_warn(struct monitor *m, const char *text, bool lossy)
{
	if (lossy)
		m->lossy = true;
	if (!strv_contains(&m->warnings, text)) {
		LOG("%s", text);
		strv_push(&m->warnings, text);
	}
}

/*
 * Parse and dispatch the complete records in m->in. Stops after
 * MREC_READY when until_ready is set. Returns 1 when READY was seen, -1
 * on MREC_FATAL or a malformed record, else 0.
 */
static int
monitor_parse(struct monitor *m, monitor_cb cb, void *arg, bool until_ready)
{
	struct mrec	 r;
	struct fs_event	 ev;
	char		*p;
	size_t		 off = 0, total;
	int		 ret = 0;

	while (m->in.len - off >= sizeof r) {
		memcpy(&r, m->in.data + off, sizeof r);
		if (r.len == 0 || r.len + (size_t)r.len2 > MREC_MAX_PAYLOAD) {
			ret = -1;
			break;
		}
		total = sizeof r + r.len + r.len2;
		if (m->in.len - off < total)
			break;
		p = m->in.data + off + sizeof r;
		p[r.len - 1] = '\0';
		if (r.len2 != 0)
			p[r.len + r.len2 - 1] = '\0';
		off += total;

		switch (r.type) {
		case MREC_CREATED:
		case MREC_MODIFIED:
		case MREC_DELETED:
		case MREC_MOVED:
			if (cb == NULL)
				break;
			ev.kind = (enum fs_event_kind)r.type;
			ev.path = p;
			ev.to = r.type == MREC_MOVED && r.len2 != 0 ?
			    p + r.len : NULL;
			ev.count = r.count > 0 ? r.count : 1;
			ev.time_ms = r.time_ms;
			ev.is_dir = (r.flags & MREC_DIR) != 0;
			cb(&ev, arg);
			break;
		case MREC_WARNING:
			monitor_warn(m, p, (r.flags & MREC_LOSSY) != 0);
			break;
		case MREC_READY:
			m->watches = r.count;
			if (until_ready) {
				ret = 1;
				goto out;
			}
			break;
		case MREC_DONE:
			m->done = true;
			m->watches = r.count;
			break;
		case MREC_FATAL:
			monitor_warn(m, p, true);
			ret = -1;
			goto out;
		default:
			ret = -1;
			goto out;
		}
	}
out:
	buf_consume(&m->in, off);
	return (ret);
}

/*
 * Read what the pipe holds into m->in (waiting for something when block
 * is set). Returns -1 at end of file or on error, else 0.
 */
static int
monitor_fill(struct monitor *m, bool block)
{
	struct pollfd	pfd;
	ssize_t		n;
	int		rounds;

	for (rounds = 0; rounds < READ_ROUNDS; rounds++) {
		buf_grow(&m->in, READ_CHUNK);
		n = read(m->fd, m->in.data + m->in.len, READ_CHUNK);
		if (n > 0) {
			m->in.len += (size_t)n;
			m->in.data[m->in.len] = '\0';
			if (n < READ_CHUNK)
				break;
			continue;
		}
		if (n == 0) {
			m->eof = true;
			return (-1);
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			m->eof = true;
			return (-1);
		}
		if (!block || rounds > 0)
			break;
		pfd.fd = m->fd;
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, -1);
	}
	return (0);
}

/* The uid's inotify watch budget: the lower of the two sysctls, or 0. */
static int
monitor_watch_budget(void)
{
	const char	*files[] = { "/proc/sys/fs/inotify/max_user_watches",
			    "/proc/sys/user/max_inotify_watches" };
	int		 v, best = 0;

	for (size_t i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "re");

		if (f == NULL)
			continue;
		if (fscanf(f, "%d", &v) == 1 && v > 0 &&
		    (best == 0 || v < best))
			best = v;
		fclose(f);
	}
	return (best);
}

struct monitor *
monitor_start(const char *project, const struct strv *exclude, char **cause)
{
	struct monitor_child_opts	 o;
	struct monitor			*m;
	char				*root;
	const char			*s;
	int				 p[2], sv[2], r;
	int				 fds[5] = { SPAWN_DEVNULL,
					    SPAWN_DEVNULL, SPAWN_DEVNULL };
	char				*name[] = { "bwgate live monitor",
					    NULL };
	struct spawn			 sp = SPAWN_INIT;
	pid_t				 pid;

	if ((root = path_canonical(project, cause)) == NULL)
		return (NULL);
	memset(&o, 0, sizeof o);
	o.project = root;
	o.exclude = exclude;
	if ((s = testhook_get(TESTHOOK_MONITOR_MAX_WATCHES)) != NULL &&
	    *s != '\0')
		o.max_watches = atoi(s);
	else if ((o.budget = monitor_watch_budget()) > 0)
		/* One huge tree must not take the whole uid's watches
		   (editors, other runs): a quarter per run. */
		o.max_watches = o.budget / 4 > 1024 ? o.budget / 4 : 1024;
	if ((s = testhook_get(TESTHOOK_MONITOR_PAUSE)) != NULL && *s == '1')
		o.pause = true;

	if (pipe2(p, O_CLOEXEC) != 0) {
		*cause = xasprintf("cannot make a pipe: %s", strerror(errno));
		free(root);
		return (NULL);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		*cause = xasprintf("cannot make a socket pair: %s",
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		free(root);
		return (NULL);
	}
	/* Room for bursts while the caller's loop is busy elsewhere. */
	(void)fcntl(p[1], F_SETPIPE_SZ, PIPE_SIZE);

	fds[3] = p[1];
	fds[4] = sv[1];
	sp.argv = name;
	sp.fds = fds;
	sp.nfds = 5;
	sp.flags = SPAWN_PGROUP;
	sp.deathsig = SIGKILL;
	sp.fn = monitor_child_run;
	sp.fn_arg = &o;
	r = spawn_start(&sp, cause);
	close(p[1]);
	close(sv[1]);
	free(root);
	if (r != 0) {
		close(p[0]);
		close(sv[0]);
		return (NULL);
	}
	pid = sp.pid;
	spawn_release(&sp);	/* reaped by pid (monitor_stop) */

	m = xcalloc(1, sizeof *m);
	m->pid = pid;
	m->fd = p[0];
	m->ctl = sv[0];

	/* Wait until the initial watches are in place. */
	for (;;) {
		r = monitor_parse(m, NULL, NULL, true);
		if (r == 1)
			break;
		if (r < 0 || monitor_fill(m, true) < 0) {
			if (m->warnings.n > 0)
				*cause = xstrdup(m->warnings.v[m->warnings.n - 1]);
			else
				*cause = xstrdup("the live monitor exited "
				    "while starting");
			monitor_free(m);
			return (NULL);
		}
	}
	(void)fcntl(m->fd, F_SETFL, fcntl(m->fd, F_GETFL) | O_NONBLOCK);
	LOG("pid %ld watching '%s' with %u watches", (long)pid, project,
	    m->watches);
	return (m);
}

int
monitor_fd(const struct monitor *m)
{
	return (m->fd);
}

int
monitor_read(struct monitor *m, monitor_cb cb, void *arg)
{
	int	r;

	if (m->eof && m->in.len == 0)
		return (-1);
	r = monitor_fill(m, false);
	if (monitor_parse(m, cb, arg, false) < 0) {
		monitor_warn(m, "live events incomplete: the monitor sent a "
		    "malformed record", true);
		m->eof = true;
		return (-1);
	}
	if (r < 0) {
		if (!m->done && !m->stopped)
			monitor_warn(m, "live events incomplete: the monitor "
			    "stopped unexpectedly", true);
		return (-1);
	}
	return (0);
}

/* Reap the child (it has exited or been killed). */
static void
monitor_reap(struct monitor *m)
{
	int	status;

	if (m->pid <= 0)
		return;
	while (waitpid(m->pid, &status, 0) < 0 && errno == EINTR)
		;
	m->pid = -1;
}

void
monitor_stop(struct monitor *m, monitor_cb cb, void *arg)
{
	struct pollfd	 pfd;
	int64_t		 deadline, left;
	char		 c = MCTL_STOP;

	if (m->stopped)
		return;
	m->stopped = true;
	if (!m->eof &&
	    send(m->ctl, &c, 1, MSG_NOSIGNAL) == 1) {
		deadline = monotonic_ms() + STOP_TIMEOUT_MS;
		while (!m->eof) {
			left = deadline - monotonic_ms();
			pfd.fd = m->fd;
			pfd.events = POLLIN;
			if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
				kill(m->pid, SIGKILL);
				monitor_warn(m, "live events incomplete: the "
				    "monitor did not finish in time", true);
				break;
			}
			if (monitor_read(m, cb, arg) < 0)
				break;
		}
	}
	if (!m->done)
		monitor_warn(m, "live events incomplete: the monitor stopped "
		    "unexpectedly", true);
	/*
	 * A watcher that finished is left to exit on its own: closing an
	 * inotify instance waits for RCU grace periods (~10 ms), which the
	 * command's report need not wait for. monitor_free() reaps it.
	 */
	if (!m->done)
		monitor_reap(m);
}

bool
monitor_lossy(const struct monitor *m)
{
	return (m->lossy);
}

const struct strv *
monitor_warnings(const struct monitor *m)
{
	return (&m->warnings);
}

void
monitor_free(struct monitor *m)
{
	if (m == NULL)
		return;
	if (m->pid > 0) {
		if (m->done)
			waitpid(m->pid, NULL, WNOHANG);	/* see monitor_stop */
		else {
			kill(m->pid, SIGKILL);
			monitor_reap(m);
		}
	}
	close(m->fd);
	close(m->ctl);
	buf_release(&m->in);
	strv_release(&m->warnings);
	free(m);
}

const char *
fs_event_kind_name(enum fs_event_kind kind)
{
	if ((size_t)kind >= sizeof fs_event_kind_names /
	    sizeof fs_event_kind_names[0])
		return ("unknown");
	return (fs_event_kind_names[kind]);
}

cJSON *
fs_event_json(const struct fs_event *ev)
{
	cJSON	*o = cJSON_CreateObject();
	bool	 escaped = false;
	char	 num[32];

	cJSON_AddStringToObject(o, "event", fs_event_kind_name(ev->kind));
	cJSON_AddItemToObject(o, "path", json_path(ev->path, &escaped));
	if (ev->kind == FS_MOVED && ev->to != NULL)
		cJSON_AddItemToObject(o, "to", json_path(ev->to, &escaped));
	/* Raw: cJSON prints every number with printf("%g") and re-scans it. */
	snprintf(num, sizeof num, "%u", ev->count);
	cJSON_AddRawToObject(o, "count", num);
	snprintf(num, sizeof num, "%lld", (long long)ev->time_ms);
	cJSON_AddRawToObject(o, "time_ms", num);
	cJSON_AddBoolToObject(o, "dir", ev->is_dir);
	if (escaped)
		cJSON_AddBoolToObject(o, "escaped", true);
	return (o);
}
