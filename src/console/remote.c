/* remote: links from executors on other machines and the mirrors of their
   requests in this console's queue (remote.h has the overview). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "console-int.h"
#include "jsonutil.h"
#include "log.h"
#include "proctree.h"
#include "remote.h"
#include "xalloc.h"

#define REMOTE_ANCESTORS	4	/* how far up to look for connect */

/* One executor's link. */
struct rlink {
	struct rchan		 ch;
	struct console		*c;
	pid_t			 pid;		/* the peer (ssh) */
	char			*host;		/* as the operator named it */
	char			*project;	/* the executor's, for people */
	char			*exec_id;	/* the executor's run */
	bool			 linked;	/* its "link" message came */
	int64_t			 since;		/* linked at (wall ms) */
	LIST_ENTRY(rlink)	 entry;
};
LIST_HEAD(rlink_list, rlink);

struct remote {
	char			*path;
	int			 fd;
	struct stat		 st;
	struct rlink_list	 links;
};

/* One mirror (r->remote). */
struct rmirror {
	struct rlink		*link;		/* NULL while it is down */
	int64_t			 down_since;	/* the link went (wall ms) */
	char			*exec_id;
	char			*project;
	uint32_t		 rid;		/* the executor's id */
	struct buf		 out;
	cJSON			*events;
	char			*profile;	/* sent with the approval */
	struct proto_mounts	 mounts;
	bool			 ended_audited;
	bool			 has_undo;	/* the executor's preview: */
	struct strv		 undo_lines;
	int			 undo_conflicts;
	char			*undo_error;	/* or why it cannot be */
};

char *
remote_link_path(const char *agent)
{
	size_t	n = strlen(agent);

	if (n > 5 && strcmp(agent + n - 5, ".sock") == 0)
		return xasprintf("%.*s.link.sock", (int)(n - 5), agent);
	return xasprintf("%s.link", agent);
}

bool
remote_is(const struct request *r)
{
	return r->remote != NULL;
}

/* ---- who linked ---- */

/* The command line of pid as a strv. */
static int
proc_cmdline(pid_t pid, struct strv *av)
{
	char	 p[64];
	struct buf b = BUF_INIT;
	char	 chunk[4096];
	ssize_t	 n;
	int	 fd;

	snprintf(p, sizeof p, "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((n = read(fd, chunk, sizeof chunk)) > 0 && b.len < 65536)
		buf_add(&b, chunk, (size_t)n);
	close(fd);
	for (size_t i = 0; i < b.len; i += strlen(b.data + i) + 1) {
		if (memchr(b.data + i, '\0', b.len - i) == NULL)
			break;
		strv_push(av, b.data + i);
	}
	buf_release(&b);
	return 0;
}

/* Is pid this program (the same executable as ours)? */
static bool
proc_is_us(pid_t pid)
{
	char	 p[64];
	struct stat a, b;

	snprintf(p, sizeof p, "/proc/%ld/exe", (long)pid);
	return stat(p, &a) == 0 && stat("/proc/self/exe", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Was the peer started by `bwgate connect`? The host is the destination
 * its operator gave (connect's last argument, without ":PROJECT").
 */
static char *
remote_peer_host(pid_t pid)
{
	struct strv	 av = STRV_INIT;
	char		*host = NULL, *colon;

	for (int i = 0; i < REMOTE_ANCESTORS && pid > 1; i++) {
		if (proc_is_us(pid) && proc_cmdline(pid, &av) == 0 &&
		    av.n >= 3 && strcmp(av.v[1], "connect") == 0) {
			host = xstrdup(av.v[av.n - 1]);
			if ((colon = strchr(host, ':')) != NULL)
				*colon = '\0';
			break;
		}
		strv_release(&av);
		av = (struct strv)STRV_INIT;
		pid = proc_ppid(pid);
	}
	strv_release(&av);
	return host;
}

/* ---- mirrors ---- */

static struct request *
mirror_find(struct console *c, const char *exec_id, uint32_t rid)
{
	struct request	*r;
	struct rmirror	*m;

	TAILQ_FOREACH(r, &c->q.requests, entry) {
		if ((m = r->remote) != NULL && m->rid == rid &&
		    strcmp(m->exec_id, exec_id) == 0)
			return r;
	}
	return NULL;
}

static void
set_str(char **to, const cJSON *j, const char *name)
{
	const char	*s = cJSON_GetStringValue(cJSON_GetObjectItem(j, name));

	free(*to);
	*to = s != NULL ? xstrdup(s) : NULL;
}

static int64_t
get_ms(const cJSON *j, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItem(j, name);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

/* A state or verdict by its name; -1 when unknown. */
static int
state_by_name(const char *s)
{
	for (int i = REQUEST_PENDING; s != NULL && i <= REQUEST_WITHDRAWN; i++)
		if (strcmp(request_state_name(i), s) == 0)
			return i;
	return -1;
}

static int
verdict_by_name(const char *s)
{
	for (int i = VERDICT_ALLOW; s != NULL && i <= VERDICT_DANGER; i++)
		if (strcmp(verdict_name(i), s) == 0)
			return i;
	return -1;
}

static int
by_by_name(const char *s)
{
	for (int i = BY_NOBODY; s != NULL && i <= BY_SANDBOX; i++)
		if (strcmp(request_by_name(i), s) == 0)
			return i;
	return BY_NOBODY;
}

/* Fill a mirror from the executor's request_json (and its argv). */
static int
mirror_fill(struct request *r, struct rlink *lk, const cJSON *j)
{
	const cJSON	*v, *u;
	struct rmirror	*m;
	int		 st = state_by_name(cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "state")));
	int		 vd = verdict_by_name(cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "verdict")));
	const char	*agent = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "agent"));

	if (st < 0 || vd < 0)
		return -1;
	r->state = (enum request_state)st;
	r->verdict = (enum verdict)vd;
	r->by = (enum request_by)by_by_name(cJSON_GetStringValue(
	    cJSON_GetObjectItem(j, "by")));
	free(r->agent);
	/* The host first: it is what a narrow queue column keeps. */
	r->agent = xasprintf("%s:%s", lk->host, agent != NULL ? agent : "?");
	free(r->host);
	r->host = xstrdup(lk->host);
	set_str(&r->command, j, "command");
	set_str(&r->cwd, j, "cwd");
	set_str(&r->description, j, "description");
	set_str(&r->refused, j, "refused");
	set_str(&r->rule, j, "rule");
	set_str(&r->reason, j, "reason");
	if (r->reason == NULL)
		r->reason = xstrdup("");
	set_str(&r->at_stake, j, "at_stake");
	set_str(&r->profile, j, "profile");
	set_str(&r->who, j, "who");
	set_str(&r->note, j, "note");
	set_str(&r->error, j, "error");
	set_str(&r->wants, j, "wants");
	set_str(&r->wants_class, j, "wants_resolves_to");
	r->writes = cJSON_IsTrue(cJSON_GetObjectItem(j, "writes_project"));
	r->undone = cJSON_IsTrue(cJSON_GetObjectItem(j, "undone"));
	v = cJSON_GetObjectItem(j, "exit_status");
	r->exit_status = cJSON_IsNumber(v) ? v->valueint : -1;
	r->submitted = get_ms(j, "submitted_ms");
	r->started = get_ms(j, "started_ms");
	r->ended = get_ms(j, "ended_ms");
	strv_release(&r->bwrap_argv);
	r->bwrap_argv = (struct strv)STRV_INIT;
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(j, "bwrap_argv"))
		if (cJSON_IsString(v))
			strv_push(&r->bwrap_argv, v->valuestring);
	m = r->remote;
	m->has_undo = false;
	strv_release(&m->undo_lines);
	m->undo_lines = (struct strv)STRV_INIT;
	free(m->undo_error);
	m->undo_error = NULL;
	if (cJSON_IsObject(v = cJSON_GetObjectItem(j, "undo_preview"))) {
		m->has_undo = true;
		set_str(&m->undo_error, v, "error");
		m->undo_conflicts = (int)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(v, "conflicts"));
		cJSON_ArrayForEach(u, cJSON_GetObjectItem(v, "lines"))
			if (cJSON_IsString(u))
				strv_push(&m->undo_lines, u->valuestring);
	}
	v = cJSON_GetObjectItem(j, "report");
	if (cJSON_IsObject(v)) {
		/* Never an undo of ours: its undo record is over there. */
		cJSON_Delete(r->report);
		r->report = cJSON_Duplicate(v, true);
		cJSON_DeleteItemFromObject(r->report, "undo");
	}
	cJSON_Delete(r->mounts);
	v = cJSON_GetObjectItem(j, "mounts");
	r->mounts = cJSON_IsArray(v) || cJSON_IsObject(v) ?
	    cJSON_Duplicate(v, true) : NULL;
	return 0;
}

/* An audit record about a mirror: its host and project with it. */
static void
mirror_audit(struct console *c, const char *what, struct request *r,
    const char *who)
{
	struct rmirror	*m = r->remote;
	cJSON		*rec = audit_record(what, r);

	cJSON_AddStringToObject(rec, "host", r->host);
	if (m->project != NULL)
		cJSON_AddStringToObject(rec, "project", m->project);
	cJSON_AddNumberToObject(rec, "remote_id", m->rid);
	if (who != NULL)
		cJSON_AddStringToObject(rec, "who", who);
	cJSON_AddItemToObject(rec, "request", request_json(r));
	console_audit(c, rec);
}

/* "request": a new mirror, or news of one. */
static void
link_request(struct rlink *lk, const cJSON *j)
{
	struct console	*c = lk->c;
	const cJSON	*id = cJSON_GetObjectItem(j, "id");
	struct request	*r;
	struct rmirror	*m;
	bool		 added = false;

	if (!cJSON_IsNumber(id) || id->valuedouble < 1 ||
	    id->valuedouble > PROTO_MAX_ID)
		return;
	if ((r = mirror_find(c, lk->exec_id, (uint32_t)id->valuedouble)) ==
	    NULL) {
		r = queue_add(&c->q);
		m = xcalloc(1, sizeof *m);
		m->exec_id = xstrdup(lk->exec_id);
		m->project = lk->project != NULL ? xstrdup(lk->project) : NULL;
		m->rid = (uint32_t)id->valuedouble;
		m->out = (struct buf)BUF_INIT;
		m->events = cJSON_CreateArray();
		m->mounts = (struct proto_mounts)PROTO_MOUNTS_INIT;
		r->remote = m;
		added = true;
	}
	m = r->remote;
	m->link = lk;
	if (mirror_fill(r, lk, j) != 0) {
		console_message(c, "%s: request %u: a state or verdict this "
		    "console does not know", lk->host, m->rid);
		if (!added)
			return;
		r->state = REQUEST_FAILED;
	}
	LOG("request %u (%s #%u): %s received", r->id, lk->host, m->rid,
	    request_state_name(r->state));
	if (added) {
		mirror_audit(c, "remote-queued", r, NULL);
		console_emit_request(c, CONSOLE_EV_ADDED, r);
	} else
		console_emit_request(c, CONSOLE_EV_CHANGED, r);
	if (request_ended(r) && !m->ended_audited) {
		m->ended_audited = true;
		mirror_audit(c, "remote-ended", r, NULL);
	}
}

/* "output" and "event": what a running mirror does. */
static void
link_stream(struct rlink *lk, const cJSON *j, bool event)
{
	struct console	*c = lk->c;
	const cJSON	*id = cJSON_GetObjectItem(j, "id");
	struct request	*r;
	struct rmirror	*m;
	struct buf	 b = BUF_INIT;
	const char	*s;
	struct console_event ev = { .type = CONSOLE_EV_OUTPUT };

	if (!cJSON_IsNumber(id) || (r = mirror_find(c, lk->exec_id,
	    (uint32_t)id->valuedouble)) == NULL)
		return;
	m = r->remote;
	ev.r = r;
	if (event) {
		const cJSON *e = cJSON_GetObjectItem(j, "event");

		if (!cJSON_IsObject(e))
			return;
		cJSON_AddItemToArray(m->events, cJSON_Duplicate(e, true));
		while (cJSON_GetArraySize(m->events) > CONSOLE_EVENTS_KEEP)
			cJSON_DeleteItemFromArray(m->events, 0);
		ev.type = CONSOLE_EV_FSEVENT;
		ev.json = e;
		console_emit(c, &ev);
		return;
	}
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(j, "data"))) !=
	    NULL)
		buf_puts(&b, s);
	else if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "data_base64"))) == NULL || proto_base64_decode(s, &b) != 0) {
		buf_release(&b);
		return;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(j, "replace")))
		buf_consume(&m->out, m->out.len);
	buf_add(&m->out, b.data, b.len);
	if (m->out.len > CONSOLE_OUTPUT_KEEP)
		buf_consume(&m->out, m->out.len - CONSOLE_OUTPUT_KEEP);
	ev.stream = cJSON_GetStringValue(cJSON_GetObjectItem(j, "stream"));
	if (ev.stream == NULL)
		ev.stream = "stdout";
	ev.data = b.data;
	ev.len = b.len;
	console_emit(c, &ev);
	buf_release(&b);
}

/* The first message: who the executor is. */
static void
link_hello(struct rlink *lk, const cJSON *j)
{
	struct console	*c = lk->c;
	const char	*id = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "executor"));
	struct rlink	*o;
	cJSON		*rec, *out;

	if (id == NULL || *id == '\0' || strlen(id) > 128) {
		rchan_close(&lk->ch, "a link message without an executor id");
		return;
	}
	/* The same executor again (a new ssh after a drop): the newest
	   link is the one. */
	LIST_FOREACH(o, &c->remote->links, entry)
		if (o != lk && o->linked && !o->ch.dead &&
		    strcmp(o->exec_id, id) == 0)
			rchan_close(&o->ch, "the executor linked again");
	lk->exec_id = xstrdup(id);
	set_str(&lk->project, j, "project");
	lk->linked = true;
	lk->since = queue_wall_ms();
	rec = audit_record("remote-link", NULL);
	cJSON_AddStringToObject(rec, "host", lk->host);
	cJSON_AddStringToObject(rec, "executor", lk->exec_id);
	if (lk->project != NULL)
		cJSON_AddStringToObject(rec, "project", lk->project);
	cJSON_AddNumberToObject(rec, "pid", lk->pid);
	console_audit(c, rec);
	console_message(c, "%s: executor linked (project %s)", lk->host,
	    lk->project != NULL ? lk->project : "?");
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "type", "linked");
	cJSON_AddStringToObject(out, "console", c->console_id != NULL ?
	    c->console_id : "");
	cJSON_AddStringToObject(out, "host", lk->host);
	rchan_send(&lk->ch, out);
}

static void
link_msg(struct rchan *ch, const cJSON *j, void *arg)
{
	struct rlink	*lk = arg;
	const char	*t = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "type"));

	(void)ch;
	if (!lk->linked) {
		if (strcmp(t, "link") == 0)
			link_hello(lk, j);
		else
			rchan_close(&lk->ch, "the link did not start with "
			    "\"link\"");
		return;
	}
	if (strcmp(t, "request") == 0)
		link_request(lk, cJSON_GetObjectItem(j, "request"));
	else if (strcmp(t, "output") == 0)
		link_stream(lk, j, false);
	else if (strcmp(t, "event") == 0)
		link_stream(lk, j, true);
	else if (strcmp(t, "refused") == 0)
		console_message(lk->c, "%s: %s", lk->host,
		    cJSON_GetStringValue(cJSON_GetObjectItem(j, "message")) ?
		    cJSON_GetStringValue(cJSON_GetObjectItem(j, "message")) :
		    "a decision was refused");
}

/* ---- the machines, for bwgate hosts and the queue title ---- */

/* Does a mirror wait or run on its machine (as last told)? */
static bool
mirror_open(const struct request *r)
{
	return r->state == REQUEST_PENDING || r->state == REQUEST_APPROVED ||
	    r->state == REQUEST_RUNNING;
}

/* A live link of this executor, or NULL. */
static struct rlink *
link_of(struct console *c, const char *exec_id)
{
	struct rlink	*lk;

	LIST_FOREACH(lk, &c->remote->links, entry)
		if (lk->linked && !lk->ch.dead &&
		    strcmp(lk->exec_id, exec_id) == 0)
			return lk;
	return NULL;
}

/* The entry of executor exec_id in a, or a new one. */
static cJSON *
host_entry(cJSON *a, const char *exec_id, const char *host,
    const char *project, bool linked, int64_t since)
{
	cJSON	*h;

	cJSON_ArrayForEach(h, a)
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(h,
		    "executor")), exec_id) == 0) {
			/* Down: since the first of its mirrors lost it. */
			if (!linked && since < (int64_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(h, "since_ms")))
				cJSON_SetNumberValue(cJSON_GetObjectItem(h,
				    "since_ms"), (double)since);
			return h;
		}
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "host", host != NULL ? host : "?");
	if (project != NULL)
		cJSON_AddStringToObject(h, "project", project);
	cJSON_AddStringToObject(h, "executor", exec_id);
	cJSON_AddStringToObject(h, "state", linked ? "linked" : "down");
	cJSON_AddNumberToObject(h, "since_ms", (double)since);
	cJSON_AddNumberToObject(h, "pending", 0);
	cJSON_AddNumberToObject(h, "running", 0);
	cJSON_AddItemToArray(a, h);
	return h;
}

static void
count_up(cJSON *h, const char *name)
{
	cJSON	*v = cJSON_GetObjectItem(h, name);

	cJSON_SetNumberValue(v, v->valuedouble + 1);
}

/*
 * The linked machines: each live link, then each executor whose link is
 * down while a request of it still waits or runs there (as last told);
 * with nothing left there it is gone. Pending and running count its
 * mirrors in the queue.
 */
cJSON *
remote_hosts(struct console *c)
{
	cJSON		*a = cJSON_CreateArray(), *t = cJSON_CreateArray(), *h;
	struct rlink	*lk;
	struct request	*r;
	struct rmirror	*m;

	if (c->remote == NULL) {
		cJSON_Delete(t);
		return a;
	}
	/* Oldest link first (they are inserted at the head). */
	LIST_FOREACH(lk, &c->remote->links, entry)
		if (lk->linked && !lk->ch.dead)
			host_entry(t, lk->exec_id, lk->host, lk->project, true,
			    lk->since);
	while (cJSON_GetArraySize(t) > 0)
		cJSON_AddItemToArray(a, cJSON_DetachItemFromArray(t,
		    cJSON_GetArraySize(t) - 1));
	cJSON_Delete(t);
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		if ((m = r->remote) == NULL || !mirror_open(r))
			continue;
		lk = link_of(c, m->exec_id);
		h = host_entry(a, m->exec_id, r->host, m->project, lk != NULL,
		    lk != NULL ? lk->since : m->down_since);
		count_up(h, r->state == REQUEST_PENDING ? "pending" :
		    "running");
	}
	return a;
}

size_t
console_machines(struct console *c, size_t *down)
{
	cJSON		*a = remote_hosts(c), *h;
	size_t		 n = 0;

	*down = 0;
	cJSON_ArrayForEach(h, a) {
		n++;
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(h,
		    "state")), "down") == 0)
			(*down)++;
	}
	cJSON_Delete(a);
	return n;
}

/* Free closed links (from a timer: their reader may still run). */
static void
remote_reap(void *arg)
{
	struct console	*c = arg;
	struct rlink	*lk, *next;

	for (lk = LIST_FIRST(&c->remote->links); lk != NULL; lk = next) {
		next = LIST_NEXT(lk, entry);
		if (!lk->ch.dead)
			continue;
		LIST_REMOVE(lk, entry);
		free(lk->host);
		free(lk->project);
		free(lk->exec_id);
		free(lk);
	}
}

static void
link_closed(struct rchan *ch, const char *why, void *arg)
{
	struct rlink	*lk = arg;
	struct console	*c = lk->c;
	struct request	*r;
	struct rmirror	*m;

	(void)ch;
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		if ((m = r->remote) == NULL || m->link != lk)
			continue;
		m->link = NULL;
		m->down_since = queue_wall_ms();
		console_emit_request(c, CONSOLE_EV_CHANGED, r);
	}
	if (lk->linked)
		console_message(c, "%s: link down (%s); its requests wait "
		    "there", lk->host, why);
	loop_timer(c->loop, 0, remote_reap, c);
}

/* Accept links. */
static void
remote_accept(int lfd, short revents, void *arg)
{
	struct console	*c = arg;
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	struct rlink	*lk;
	char		*host, *why;
	cJSON		*rec;
	int		 fd;

	(void)revents;
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		close(fd);
		return;
	}
	host = cred.uid == c->uid ? remote_peer_host(cred.pid) : NULL;
	if (host == NULL) {
		why = cred.uid != c->uid ? xasprintf("uid %u is not this "
		    "console's", (unsigned)cred.uid) : xstrdup("not an ssh "
		    "started by 'bwgate connect'");
		console_message(c, "refused a link from pid %ld: %s",
		    (long)cred.pid, why);
		rec = audit_record("refused", NULL);
		cJSON_AddStringToObject(rec, "socket", "link");
		cJSON_AddNumberToObject(rec, "uid", cred.uid);
		cJSON_AddNumberToObject(rec, "pid", cred.pid);
		cJSON_AddStringToObject(rec, "why", why);
		console_audit(c, rec);
		free(why);
		close(fd);
		return;
	}
	lk = xcalloc(1, sizeof *lk);
	lk->c = c;
	lk->pid = cred.pid;
	lk->host = host;
	LIST_INSERT_HEAD(&c->remote->links, lk, entry);
	rchan_open(&lk->ch, c->loop, fd, link_msg, link_closed, lk);
}

int
remote_listen(struct console *c, char **cause)
{
	struct remote	*rm = xcalloc(1, sizeof *rm);

	LIST_INIT(&rm->links);
	rm->path = remote_link_path(c->socket_path);
	rm->fd = console_listen(rm->path, &rm->st, cause);
	if (rm->fd < 0) {
		free(rm->path);
		free(rm);
		return -1;
	}
	c->remote = rm;
	loop_add(c->loop, rm->fd, POLLIN, remote_accept, c);
	return 0;
}

void
remote_free(struct console *c)
{
	struct remote	*rm = c->remote;
	struct rlink	*lk;
	struct request	*r;
	struct stat	 st;

	if (rm == NULL)
		return;
	TAILQ_FOREACH(r, &c->q.requests, entry)
		remote_forget(r);
	LIST_FOREACH(lk, &rm->links, entry) {
		lk->ch.on_close = NULL;
		rchan_close(&lk->ch, "the console ends");
	}
	remote_reap(c);
	loop_remove(c->loop, rm->fd);
	close(rm->fd);
	/* Only our own socket (another console may have taken the name). */
	if (stat(rm->path, &st) == 0 && st.st_ino == rm->st.st_ino &&
	    st.st_dev == rm->st.st_dev)
		unlink(rm->path);
	free(rm->path);
	free(rm);
	c->remote = NULL;
}

void
remote_forget(struct request *r)
{
	struct rmirror	*m = r->remote;

	if (m == NULL)
		return;
	buf_release(&m->out);
	cJSON_Delete(m->events);
	free(m->exec_id);
	free(m->project);
	free(m->profile);
	proto_mounts_release(&m->mounts);
	strv_release(&m->undo_lines);
	free(m->undo_error);
	free(m);
	r->remote = NULL;
}

/* ---- the operator's decisions ---- */

int
remote_set_profile(struct request *r, const char *profile)
{
	struct rmirror	*m = r->remote;

	free(m->profile);
	m->profile = xstrdup(profile);
	return 0;
}

int
remote_set_mounts(struct request *r, const struct proto_mounts *mo)
{
	struct rmirror	*m = r->remote;

	proto_mounts_release(&m->mounts);
	proto_mounts_copy(&m->mounts, mo);
	return 0;
}

int
remote_decide(struct console *c, struct request *r, struct proto_msg *pm,
    const char *who, char **cause)
{
	struct rmirror	*m = r->remote;
	cJSON		*j;

	if (m->link == NULL || m->link->ch.dead) {
		*cause = xasprintf("request %u runs on %s, which is not "
		    "linked now: it waits there (link it again with bwgate "
		    "connect)", r->id, r->host);
		return -1;
	}
	pm->id = m->rid;
	if (pm->type == PROTO_APPROVE) {
		if (m->profile != NULL && pm->profile == NULL)
			pm->profile = xstrdup(m->profile);
		if (proto_mounts_empty(&pm->mounts))
			proto_mounts_copy(&pm->mounts, &m->mounts);
	}
	j = proto_msg_json(pm);
	cJSON_AddStringToObject(j, "who", who);
	rchan_send(&m->link->ch, j);
	mirror_audit(c, "remote-decision", r, who);
	LOG("request %u (%s #%u): %s sent", r->id, r->host, m->rid,
	    proto_type_name(pm->type));
	return 0;
}

int
remote_undo_preview(struct request *r, struct strv *lines, char **cause)
{
	struct rmirror	*m = r->remote;

	if (!m->has_undo) {
		*cause = xasprintf("#%u cannot be undone (%s did not offer "
		    "it)", r->id, r->host);
		return -1;
	}
	if (m->undo_error != NULL) {
		*cause = xasprintf("#%u on %s: %s", r->id, r->host,
		    m->undo_error);
		return -1;
	}
	strv_append_all(lines, &m->undo_lines);
	return m->undo_conflicts;
}

int
remote_undo(struct console *c, struct request *r, const char *who,
    bool force, char **cause)
{
	struct rmirror	*m = r->remote;
	cJSON		*j;

	if (m->link == NULL || m->link->ch.dead) {
		*cause = xasprintf("request %u ran on %s, which is not linked "
		    "now: link it again to undo it", r->id, r->host);
		return -1;
	}
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "undo");
	cJSON_AddNumberToObject(j, "id", m->rid);
	if (force)
		cJSON_AddBoolToObject(j, "force", true);
	cJSON_AddStringToObject(j, "who", who != NULL ? who : "terminal");
	rchan_send(&m->link->ch, j);
	mirror_audit(c, "remote-undo", r, who);
	return 0;
}

uint32_t
remote_id(const struct request *r)
{
	const struct rmirror	*m = r->remote;

	return m != NULL ? m->rid : 0;
}

const struct buf *
remote_output(const struct request *r)
{
	const struct rmirror	*m = r->remote;

	return m != NULL ? &m->out : NULL;
}

const cJSON *
remote_events(const struct request *r)
{
	const struct rmirror	*m = r->remote;

	return m != NULL ? m->events : NULL;
}
