/*
 * cmd-executor: `bwgate executor`, a console without a screen beside a
 * project on an agent's machine, decided from the operator's console on
 * another machine (doc/remote.md, src/console/remote.h).
 *
 * It is the console core (console.h), headless: the agent socket, the
 * verdicts, the bwrap argv and the runs are all here, where the files
 * are. Its front end is the link: each request's state, output and live
 * events go to the operator's console, whose approve, deny, kill and host
 * answers come back and are applied with the same console functions the
 * terminal and the control socket call.
 *
 * The link is the socket <name>.uplink.sock beside the agent socket,
 * which sshd makes when the operator runs `bwgate connect` (ssh -R). What
 * is checked before a decision is taken from it: the socket is ours (our
 * uid, mode 0600 or tighter, in our private runtime directory); its peer
 * (sshd's session process) runs as our uid; the console greets with its
 * id; and once one console was linked, another is refused while a request
 * it was shown has not ended. A dropped link loses nothing: requests
 * wait, runs go on, and everything is sent again in order when the link
 * is back. After --linger seconds without a console, what waits is
 * denied (fail closed), never run.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"
#include "cmd.h"
#include "console.h"
#include "display.h"
#include "jsonutil.h"
#include "log.h"
#include "remote.h"
#include "shquote.h"
#include "xalloc.h"

#define EXECUTOR_RETRY_MS	250	/* look for the link again */
#define EXECUTOR_LINGER_S	600	/* default --linger */

struct executor {
	struct console	*c;
	struct loop	*l;
	char		*uplink;
	char		 id[33];	/* this run, for the console */
	struct rchan	 ch;
	bool		 up;		/* a socket is open */
	bool		 linked;	/* the console greeted */
	char		*pin;		/* the console it is linked to */
	int64_t		 down_since;	/* ms; 0 while linked */
	int		 linger_s;
	int		 retry_timer;
	int		 linger_timer;
	struct strv	 shown;		/* ids the pinned console saw, as
					   "%u" (unended ones keep the pin) */
	cJSON		*outbox;	/* messages of this loop pass */
	uint32_t	 outbox_req;	/* its last is this request's state
					   (0: none) */
	int		 flush_timer;
};

enum { OPT_LINGER = 256, OPT_UPLINK_PATH, OPT_AUDIT, OPT_ASK_ALL };

static const struct option executor_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "socket", required_argument, NULL, 's' },
	{ "config", required_argument, NULL, 'c' },
	{ "log", required_argument, NULL, 'l' },
	{ "audit", required_argument, NULL, OPT_AUDIT },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "uplink-path", no_argument, NULL, OPT_UPLINK_PATH },
	{ "ask-all", no_argument, NULL, OPT_ASK_ALL },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void	executor_try(void *);
static void	executor_linger(void *);
static void	executor_post(struct executor *, cJSON *, uint32_t req);

static void
executor_usage(FILE *f)
{
	fprintf(f, "usage: bwgate executor [--project DIR] [--socket PATH] "
	    "[--linger SECONDS] [--ask-all]\n"
	    "                      [--config FILE] [--log FILE] "
	    "[--audit FILE] | --uplink-path\n");
}

/* The uplink socket beside an agent socket. */
static char *
executor_uplink_path(const char *agent)
{
	size_t	n = strlen(agent);

	if (n > 5 && strcmp(agent + n - 5, ".sock") == 0)
		return xasprintf("%.*s.uplink.sock", (int)(n - 5), agent);
	return xasprintf("%s.uplink", agent);
}

/* ---- what goes up ---- */

/* What undoing an ended request would do here, for the console's u:
   its lines and conflicts now (the undo itself checks again), or why it
   cannot be undone. */
static void
executor_undo_preview(struct executor *e, const struct request *r,
    cJSON *rq)
{
	struct strv	 lines = STRV_INIT;
	char		*cause = NULL;
	int		 n;
	cJSON		*u;

	if (r->undone || r->report == NULL || !cJSON_IsTrue(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(r->report, "undo"),
	    "possible")))
		return;
	u = cJSON_AddObjectToObject(rq, "undo_preview");
	if ((n = console_undo_preview(e->c, r->id, &lines, &cause)) < 0) {
		cJSON_AddStringToObject(u, "error", cause);
		free(cause);
	} else {
		cJSON_AddItemToObject(u, "lines", json_strv(&lines));
		cJSON_AddNumberToObject(u, "conflicts", n);
	}
	strv_release(&lines);
}

/*
 * What goes up is sent once per loop pass, in order: a request whose state
 * changes twice in one pass (queued, then waiting) goes once, as it is
 * last (it carries the argv, kilobytes), and the pass's messages leave
 * together, after the pass.
 */
static void
executor_flush(void *arg)
{
	struct executor	*e = arg;
	cJSON		*j;

	e->flush_timer = 0;
	e->outbox_req = 0;
	while ((j = cJSON_DetachItemFromArray(e->outbox, 0)) != NULL)
		rchan_send(&e->ch, j);
}

/* Send what is queued now (before the link is closed). */
static void
executor_flush_now(struct executor *e)
{
	if (e->flush_timer != 0)
		loop_cancel(e->l, e->flush_timer);
	executor_flush(e);
}

/* Queue a message for this pass's send; req: it is that request's
   state, which replaces its state queued just before. */
static void
executor_post(struct executor *e, cJSON *j, uint32_t req)
{
	int	n = cJSON_GetArraySize(e->outbox);

	if (req != 0 && req == e->outbox_req && n > 0)
		cJSON_DeleteItemFromArray(e->outbox, n - 1);
	cJSON_AddItemToArray(e->outbox, j);
	e->outbox_req = req;
	if (e->flush_timer == 0)
		e->flush_timer = loop_timer(e->l, 0, executor_flush, e);
}

/* A request's state, with the argv it would run with. */
static void
executor_send_request(struct executor *e, const struct request *r)
{
	cJSON	*j = cJSON_CreateObject(), *rq = request_json(r);
	char	 n[16];

	cJSON_AddItemToObject(rq, "bwrap_argv", json_strv(&r->bwrap_argv));
	if (r->mounts != NULL)
		cJSON_AddItemToObject(rq, "mounts", cJSON_Duplicate(r->mounts,
		    true));
	/* The change report, for the console's report pane: its output
	   went as output messages, and its undo is this machine's. */
	if (request_ended(r) && r->report != NULL) {
		cJSON	*rep = cJSON_Duplicate(r->report, true);

		cJSON_ReplaceItemInObject(rep, "stdout", cJSON_CreateString(""));
		cJSON_ReplaceItemInObject(rep, "stderr", cJSON_CreateString(""));
		cJSON_DeleteItemFromObject(rep, "undo");
		cJSON_AddItemToObject(rq, "report", rep);
		executor_undo_preview(e, r, rq);
	}
	cJSON_AddStringToObject(j, "type", "request");
	cJSON_AddItemToObject(j, "request", rq);
	executor_post(e, j, r->id);
	LOG("request %u: %s sent", r->id, request_state_name(r->state));
	snprintf(n, sizeof n, "%u", r->id);
	if (!strv_contains(&e->shown, n))
		strv_push(&e->shown, n);
}

/* A chunk of output: text as "data", anything else as "data_base64". */
static void
executor_send_output(struct executor *e, uint32_t id, const char *stream,
    const char *data, size_t len, bool replace)
{
	cJSON	*j = cJSON_CreateObject();
	char	*t;

	cJSON_AddStringToObject(j, "type", "output");
	cJSON_AddNumberToObject(j, "id", id);
	cJSON_AddStringToObject(j, "stream", stream);
	if (replace)
		cJSON_AddBoolToObject(j, "replace", true);
	t = xstrndup(data != NULL ? data : "", len);
	if (strlen(t) == len && proto_utf8_valid(t, len, NULL))
		cJSON_AddStringToObject(j, "data", t);
	else {
		free(t);
		t = proto_base64_encode(data, len);
		cJSON_AddStringToObject(j, "data_base64", t);
	}
	free(t);
	executor_post(e, j, 0);
}

/* Everything again, oldest first (a new link). */
static void
executor_resend(struct executor *e)
{
	struct request		*r;
	const struct buf	*out;

	TAILQ_FOREACH(r, &console_queue(e->c)->requests, entry) {
		executor_send_request(e, r);
		out = console_output(e->c, r);
		if (out != NULL && out->len > 0)
			executor_send_output(e, r->id, "stdout", out->data,
			    out->len, true);
	}
}

/* What the console core says happens. */
static void
executor_event(struct console *c, const struct console_event *ev, void *arg)
{
	struct executor	*e = arg;
	cJSON		*j;

	(void)c;
	switch (ev->type) {
	case CONSOLE_EV_ADDED:
	case CONSOLE_EV_CHANGED:
		if (ev->r->state == REQUEST_PENDING && !e->linked &&
		    e->linger_timer == 0)
			e->linger_timer = loop_timer(e->l, 0, executor_linger,
			    e);
		fprintf(stderr, "bwgate: [%u] %s: %s%s\n", ev->r->id,
		    request_state_name(ev->r->state),
		    display_str(ev->r->command), ev->r->state ==
		    REQUEST_PENDING && !e->linked ? " (no console linked: it "
		    "waits)" : "");
		if (e->linked)
			executor_send_request(e, ev->r);
		break;
	case CONSOLE_EV_OUTPUT:
		if (e->linked)
			executor_send_output(e, ev->r->id, ev->stream,
			    ev->data, ev->len, false);
		break;
	case CONSOLE_EV_FSEVENT:
		if (!e->linked || ev->json == NULL)
			break;
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "event");
		cJSON_AddNumberToObject(j, "id", ev->r->id);
		cJSON_AddItemToObject(j, "event", cJSON_Duplicate(ev->json,
		    true));
		executor_post(e, j, 0);
		break;
	case CONSOLE_EV_MESSAGE:
	case CONSOLE_EV_QUIT:
		fprintf(stderr, "bwgate: %s\n", display_str(ev->message));
		break;
	default:
		break;
	}
	fflush(stderr);
}

/* ---- what comes down ---- */

static void
executor_refuse(struct executor *e, uint32_t id, const char *why)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "type", "refused");
	cJSON_AddNumberToObject(j, "id", id);
	cJSON_AddStringToObject(j, "message", why);
	executor_post(e, j, 0);
	executor_flush_now(e);	/* a refusal may close the link next */
}

/* May a console other than the pinned one take over? Only once nothing
   the pinned one was shown still waits or runs. */
static bool
executor_pin_free(struct executor *e)
{
	struct request	*r;
	char		 n[16];

	TAILQ_FOREACH(r, &console_queue(e->c)->requests, entry) {
		snprintf(n, sizeof n, "%u", r->id);
		if (!request_ended(r) && strv_contains(&e->shown, n))
			return false;
	}
	return true;
}

/* The console's greeting. */
static void
executor_linked(struct executor *e, const cJSON *j)
{
	const char	*id = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "console"));
	const char	*host = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "host"));

	if (id == NULL || *id == '\0') {
		rchan_close(&e->ch, "the console did not say who it is");
		return;
	}
	if (e->pin != NULL && strcmp(e->pin, id) != 0) {
		if (!executor_pin_free(e)) {
			fprintf(stderr, "bwgate: refused console %s: linked "
			    "to console %s, whose requests are not done\n",
			    display_str(id), display_str(e->pin));
			executor_refuse(e, 0, "this executor is linked to "
			    "another console while the requests it was shown "
			    "wait or run");
			rchan_close(&e->ch, "another console");
			return;
		}
		strv_release(&e->shown);
		e->shown = (struct strv)STRV_INIT;
	}
	free(e->pin);
	e->pin = xstrdup(id);
	e->linked = true;
	e->down_since = 0;
	fprintf(stderr, "bwgate: linked to console %s (as %s)\n",
	    display_str(id), display_str(host));
	fflush(stderr);
	executor_resend(e);
}

/* A decision from the console: the same functions as the control
   socket's, by the same names. */
static void
executor_decision(struct executor *e, const cJSON *j)
{
	struct proto_msg	 m = PROTO_MSG_INIT;
	cJSON			*d = cJSON_Duplicate(j, true);
	const char		*w = cJSON_GetStringValue(cJSON_GetObjectItem(j,
				    "who"));
	char			*line, *cause = NULL, *who;
	int			 rc = 0;

	who = xasprintf("console %s: %s", e->pin, w != NULL ? w : "?");
	cJSON_DeleteItemFromObject(d, "who");
	line = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	if (proto_decode(line, strlen(line), &m, &cause) != 0) {
		executor_refuse(e, 0, cause);
		goto out;
	}
	switch (m.type) {
	case PROTO_APPROVE:
		if (m.profile != NULL)
			rc = console_set_profile(e->c, m.id, m.profile, &cause);
		if (rc == 0 && !proto_mounts_empty(&m.mounts))
			rc = console_set_mounts(e->c, m.id, &m.mounts, &cause);
		if (rc == 0)
			rc = (m.danger ? console_approve_danger :
			    console_approve)(e->c, m.id, who, m.note, &cause);
		break;
	case PROTO_DENY:
		rc = console_deny(e->c, m.id, who, m.note, &cause);
		break;
	case PROTO_KILL:
		rc = console_kill(e->c, m.id, who, &cause);
		break;
	case PROTO_HOST:
		rc = console_host_answer(e->c, m.id, m.answer, who, m.note,
		    &cause);
		break;
	default:
		cause = xasprintf("'%s' is not taken from a console link",
		    proto_type_name(m.type));
		rc = -1;
		break;
	}
	if (rc != 0)
		executor_refuse(e, m.id, cause);
out:
	free(cause);
	free(line);
	free(who);
	proto_msg_release(&m);
}

/* The operator's u on a request that ran here: undone here, as the
   terminal's u would (audited, its agent told with its next result). */
static void
executor_undo(struct executor *e, const cJSON *j)
{
	const cJSON	*id = cJSON_GetObjectItem(j, "id");
	const char	*w = cJSON_GetStringValue(cJSON_GetObjectItem(j, "who"));
	char		*who, *cause = NULL;
	struct request	*r;

	if (!cJSON_IsNumber(id) || id->valuedouble < 1 ||
	    id->valuedouble > PROTO_MAX_ID) {
		executor_refuse(e, 0, "an undo without a request id");
		return;
	}
	who = xasprintf("console %s: %s", e->pin, w != NULL ? w : "?");
	if (console_undo(e->c, (uint32_t)id->valuedouble, who, cJSON_IsTrue(
	    cJSON_GetObjectItem(j, "force")), &cause) != 0) {
		executor_refuse(e, (uint32_t)id->valuedouble, cause);
		free(cause);
	} else if ((r = queue_find(console_queue(e->c),
	    (uint32_t)id->valuedouble)) != NULL)
		executor_send_request(e, r);
	free(who);
}

static void
executor_msg(struct rchan *ch, const cJSON *j, void *arg)
{
	struct executor	*e = arg;
	const char	*t = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "type"));

	(void)ch;
	if (strcmp(t, "linked") == 0 && !e->linked)
		executor_linked(e, j);
	else if (!e->linked)
		rchan_close(&e->ch, "a message before the console's greeting");
	else if (strcmp(t, "refused") == 0)
		fprintf(stderr, "bwgate: the console refused: %s\n",
		    display_str(cJSON_GetStringValue(cJSON_GetObjectItem(j,
		    "message"))));
	else if (strcmp(t, "undo") == 0)
		executor_undo(e, j);
	else
		executor_decision(e, j);
}

static void
executor_closed(struct rchan *ch, const char *why, void *arg)
{
	struct executor	*e = arg;

	(void)ch;
	if (e->linked)
		fprintf(stderr, "bwgate: link down (%s): requests wait, runs "
		    "go on; pending ones are denied after %d s without a "
		    "console\n", why, e->linger_s);
	fflush(stderr);
	e->up = e->linked = false;
	e->down_since = loop_now_ms();
	/* What was not sent goes again with the next link. */
	cJSON_Delete(e->outbox);
	e->outbox = cJSON_CreateArray();
	e->outbox_req = 0;
	if (e->retry_timer == 0)
		e->retry_timer = loop_timer(e->l, EXECUTOR_RETRY_MS,
		    executor_try, e);
	if (e->linger_timer == 0)
		e->linger_timer = loop_timer(e->l, (int64_t)e->linger_s * 1000,
		    executor_linger, e);
}

/* ---- the link ---- */

/* Is the uplink socket one sshd made for us? -1 with cause if not. */
static int
executor_check_socket(const char *path, int fd, char **cause)
{
	struct stat	st;
	struct ucred	cred;
	socklen_t	len = sizeof cred;

	if (lstat(path, &st) != 0)
		return -1;	/* not linked (no cause: said elsewhere) */
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		*cause = xasprintf("'%s' is not a private socket of uid %u",
		    path, (unsigned)geteuid());
		return -1;
	}
	if (fd >= 0 && (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred,
	    &len) != 0 || cred.uid != geteuid())) {
		*cause = xasprintf("the peer of '%s' is not uid %u", path,
		    (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/* Look for the link (from a timer while there is none). */
static void
executor_try(void *arg)
{
	struct executor		*e = arg;
	struct sockaddr_un	 sun;
	struct stat		 before, after;
	char			*cause = NULL;
	int			 fd;
	cJSON			*j;

	e->retry_timer = 0;
	if (e->up)
		return;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", e->uplink);
	fd = -1;
	if (executor_check_socket(e->uplink, -1, &cause) != 0)
		goto again;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto again;
	if (lstat(e->uplink, &before) != 0)
		goto again;
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		/* A dead ssh's socket: nobody listens. Remove it (ours, in
		   our directory; the same one we tried), so the next ssh can
		   bind it where sshd lacks StreamLocalBindUnlink. */
		if (errno == ECONNREFUSED && lstat(e->uplink, &after) == 0 &&
		    after.st_ino == before.st_ino &&
		    after.st_dev == before.st_dev)
			(void)unlink(e->uplink);
		goto again;
	}
	if (executor_check_socket(e->uplink, fd, &cause) != 0)
		goto again;
	e->up = true;
	rchan_open(&e->ch, e->l, fd, executor_msg, executor_closed, e);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "link");
	cJSON_AddStringToObject(j, "executor", e->id);
	cJSON_AddStringToObject(j, "project", console_project(e->c));
	cJSON_AddStringToObject(j, "version", "bwgate " PACKAGE_VERSION);
	rchan_send(&e->ch, j);
	return;
again:
	if (cause != NULL) {
		LOG("%s", cause);
		free(cause);
	}
	if (fd >= 0)
		close(fd);
	e->retry_timer = loop_timer(e->l, EXECUTOR_RETRY_MS, executor_try, e);
}

/* No console for too long: deny what waits (fail closed). */
static void
executor_linger(void *arg)
{
	struct executor	*e = arg;
	struct request	*r, *next;
	int64_t		 left;
	char		*note, *cause = NULL;

	e->linger_timer = 0;
	if (e->linked)
		return;
	left = e->down_since + (int64_t)e->linger_s * 1000 - loop_now_ms();
	if (left > 0) {
		e->linger_timer = loop_timer(e->l, left, executor_linger, e);
		return;
	}
	note = xasprintf("no console linked for %d seconds (bwgate executor "
	    "--linger %d): denied, never run", e->linger_s, e->linger_s);
	for (r = TAILQ_FIRST(&console_queue(e->c)->requests); r != NULL;
	    r = next) {
		next = TAILQ_NEXT(r, entry);
		if (r->state != REQUEST_PENDING)
			continue;
		if (console_deny(e->c, r->id, "executor", note, &cause) != 0) {
			free(cause);
			cause = NULL;
		}
	}
	free(note);
}

/* ---- the command ---- */

static int
executor_print_uplink(const struct console_opts *o)
{
	char	*project, *sock, *cause = NULL, *up;

	if ((project = console_find_project(o->project, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	sock = o->socket == NULL && getenv("BWGATE_SOCKET") == NULL ?
	    client_project_socket(project, &cause) :
	    client_socket_path(o->socket, &cause);
	free(project);
	if (sock == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	up = executor_uplink_path(sock);
	printf("%s\n", up);
	free(up);
	free(sock);
	return 0;
}

int
cmd_executor(int argc, char **argv)
{
	struct console_opts	 o = CONSOLE_OPTS_INIT;
	struct executor		 e;
	unsigned char		 rnd[16];
	const char		*logfile = NULL;
	char			*cause = NULL, *q, *end;
	bool			 where = false;
	long			 v;
	int			 ch;

	memset(&e, 0, sizeof e);
	e.linger_s = EXECUTOR_LINGER_S;
	e.shown = (struct strv)STRV_INIT;
	o.headless = true;
	o.auto_allowlisted = true;
	o.unlisted_wait = true;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "p:s:c:l:h", executor_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'p': o.project = optarg; break;
		case 's': o.socket = optarg; break;
		case 'c': o.config_file = optarg; break;
		case 'l': logfile = optarg; break;
		case OPT_AUDIT: o.audit_file = optarg; break;
		case OPT_ASK_ALL: o.auto_allowlisted = false; break;
		case OPT_UPLINK_PATH: where = true; break;
		case OPT_LINGER:
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 ||
			    v > 7 * 24 * 3600) {
				fprintf(stderr, "bwgate: --linger: invalid "
				    "value '%s' (seconds, 1 to 604800)\n",
				    optarg);
				return EXIT_BWGATE_FAILED;
			}
			e.linger_s = (int)v;
			break;
		case 'h':
			executor_usage(stdout);
			return 0;
		default:
			executor_usage(stderr);
			return EXIT_BWGATE_FAILED;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bwgate: unexpected argument '%s'\n",
		    argv[optind]);
		executor_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if (where)
		return executor_print_uplink(&o);
	if (logfile != NULL && log_open(logfile) != 0) {
		fprintf(stderr, "bwgate: cannot open '%s'\n", logfile);
		return EXIT_BWGATE_FAILED;
	}
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		fprintf(stderr, "bwgate: getrandom: %s\n", strerror(errno));
		return EXIT_BWGATE_FAILED;
	}
	for (size_t i = 0; i < sizeof rnd; i++)
		snprintf(e.id + 2 * i, 3, "%02x", rnd[i]);
	e.l = loop_new();
	if ((e.c = console_new(&o, e.l, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		loop_free(e.l);
		return EXIT_BWGATE_FAILED;
	}
	e.uplink = executor_uplink_path(console_socket_path(e.c));
	e.outbox = cJSON_CreateArray();
	e.down_since = loop_now_ms();
	console_subscribe(e.c, executor_event, &e);
	q = shell_quote(console_socket_path(e.c));
	printf("export BWGATE_SOCKET=%s\n", q);
	fflush(stdout);
	free(q);
	fprintf(stderr, "bwgate: executor for '%s'; waiting for a console "
	    "link at '%s' (bwgate connect on the operator's machine); "
	    "pending requests are denied after %d s without one\n",
	    display_str(console_project(e.c)), display_str(e.uplink),
	    e.linger_s);
	fflush(stderr);
	executor_try(&e);
	while (!console_done(e.c))
		loop_run_once(e.l, -1);
	if (e.up) {
		executor_flush_now(&e);
		e.ch.on_close = NULL;
		rchan_close(&e.ch, "the executor ends");
	}
	if (e.retry_timer != 0)
		loop_cancel(e.l, e.retry_timer);
	if (e.linger_timer != 0)
		loop_cancel(e.l, e.linger_timer);
	if (e.flush_timer != 0)
		loop_cancel(e.l, e.flush_timer);
	cJSON_Delete(e.outbox);
	console_free(e.c);
	loop_free(e.l);
	free(e.uplink);
	free(e.pin);
	strv_release(&e.shown);
	log_close();
	return 0;
}
