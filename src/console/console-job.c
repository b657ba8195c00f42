/* console-job: running: the bwgate exec child of each request, its pipes, scheduling. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allowlist.h"
#include "audit.h"
#include "cleanup.h"
#include "client.h"
#include "config.h"
#include "console-int.h"
#include "console.h"
#include "jsonutil.h"
#include "log.h"
#include "path.h"
#include "probe.h"
#include "proctree.h"
#include "spawn.h"
#include "write-proto.h"
#include "xalloc.h"

static void	job_check_done(struct job *);
static void	job_close_input(struct job *);
static void	job_service(struct job *);
static void	job_mark_executed(struct console *, const struct request *,
		    cJSON *);

/* ---- running ---- */

/* Record and report the end of a run. */
static void
job_finish(struct job *jb)
{
	struct console	*c = jb->c;
	struct request	*r = jb->r;
	enum request_state state;
	cJSON		*report = NULL, *rec, *copy;
	const cJSON	*f;
	char		*cause = NULL;
	int		 code;

	if (jb->json.len > 0)
		report = cJSON_ParseWithLength(jb->json.data, jb->json.len);
	buf_release(&jb->json);
	job_mark_executed(c, r, report);
	if (WIFEXITED(jb->wstatus))
		code = WEXITSTATUS(jb->wstatus);
	else
		code = 128 + WTERMSIG(jb->wstatus);
	if (report == NULL) {
		state = jb->killing ? REQUEST_KILLED : REQUEST_FAILED;
		if (r->error == NULL)
			r->error = xasprintf("bwgate exec ended with status "
			    "%d and wrote no report", code);
	} else if (cJSON_IsTrue(cJSON_GetObjectItem(report, "timed_out")))
		state = REQUEST_TIMED_OUT;
	else if (cJSON_IsString(f = cJSON_GetObjectItem(report, "killed"))) {
		/* A resource limit ended it: "memory limit", ... */
		state = REQUEST_KILLED;
		free(r->note);
		r->note = xstrdup(f->valuestring);
	} else if (jb->killing ||
	    cJSON_IsTrue(cJSON_GetObjectItem(report, "killed")))
		state = REQUEST_KILLED;
	else if (!cJSON_IsTrue(cJSON_GetObjectItem(report, "started")) &&
	    cJSON_IsString(f = cJSON_GetObjectItem(report, "error"))) {
		state = REQUEST_FAILED;
		if (r->error == NULL)
			r->error = xstrdup(f->valuestring);
	} else
		state = REQUEST_FINISHED;
	if (queue_finish(&c->q, r, state, &cause) != 0) {
		console_message(c, "request %u: %s", r->id, cause);
		free(cause);
	}
	r->exit_status = code;
	cJSON_Delete(r->report);
	r->report = report;
	/* Its service is known by the request's id (console-service.c). */
	if (cJSON_IsObject(cJSON_GetObjectItem(report, "service")))
		cJSON_AddNumberToObject(cJSON_GetObjectItem(report, "service"),
		    "id", r->id);
	console_undo_tag(c, r);

	/* The audit copy leaves out the output itself. */
	rec = audit_record("result", r);
	cJSON_AddStringToObject(rec, "state", request_state_name(state));
	cJSON_AddNumberToObject(rec, "exit_status", code);
	if (jb->killing)
		cJSON_AddStringToObject(rec, "by", request_by_name(r->by));
	if (r->note != NULL && jb->killing)
		cJSON_AddStringToObject(rec, "note", r->note);
	if (r->error != NULL)
		cJSON_AddStringToObject(rec, "error", r->error);
	if (report != NULL) {
		copy = cJSON_Duplicate(report, 1);
		cJSON_DeleteItemFromObject(copy, "stdout");
		cJSON_DeleteItemFromObject(copy, "stderr");
		cJSON_AddItemToObject(rec, "report", copy);
	}
	console_audit(c, rec);

	console_undo_refresh(c);
	console_undo_notices(c, r, report);
	request_send(r, proto_out_json(&(struct proto_out){
	    .type = PROTO_R_RESULT, .id = r->id, .tag = r->tag,
	    .state = request_state_name(state), .exit_status = &code,
	    .note = jb->killing ? r->note : NULL, .error = r->error,
	    .report = report }));
	/* What stays in memory for the last requests: the argv and mount
	   table it started with are the request's own (started_argv_sha256
	   says they matched). */
	if (report != NULL) {
		cJSON_DeleteItemFromObject(report, "bwrap_argv");
		cJSON_DeleteItemFromObject(cJSON_GetObjectItem(report,
		    "sandbox"), "mounts");
	}
	/* Its output to disk: memory does not grow with the requests
	   served (spool.c). */
	spool_job(c, jb);
	LOG("request %u %s, status %d", r->id, request_state_name(state),
	    code);
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	request_ended_cleanup(c, r);
	console_schedule(c);
	warm_again(c, true);
	console_check_done(c);
}

/* Finish once the child is reaped and its pipes are drained. */
static void
job_check_done(struct job *jb)
{
	if (!jb->exited || jb->r->state != REQUEST_RUNNING)
		return;
	for (int i = 0; i < JOB_NFDS; i++)
		if (jb->fds[i] != -1)
			return;
	job_finish(jb);
}

/* Pipes still open long after the child exited: give up on them. */
static void
job_drain_timeout(void *arg)
{
	struct job	*jb = arg;

	jb->drain_timer = 0;
	for (int i = 0; i < JOB_NFDS; i++) {
		if (jb->fds[i] != -1) {
			loop_remove(jb->c->loop, jb->fds[i]);
			close(jb->fds[i]);
			jb->fds[i] = -1;
		}
	}
	job_check_done(jb);
}

/* Forward a chunk of stdout or stderr. */
static void
job_output(struct job *jb, int which, const char *data, size_t len,
    bool eof)
{
	struct console		*c = jb->c;
	struct console_event	 ev = { .type = CONSOLE_EV_OUTPUT, .r = jb->r };
	struct buf		 b = BUF_INIT;
	const char		*stream = which == JOB_OUT ? "stdout" :
				    "stderr";
	size_t			 keep;

	buf_add(&b, jb->hold[which], jb->holdlen[which]);
	buf_add(&b, data, len);
	jb->holdlen[which] = 0;
	keep = eof ? b.len : proto_utf8_complete(b.data, b.len);
	if (keep < b.len) {
		jb->holdlen[which] = b.len - keep;
		memcpy(jb->hold[which], b.data + keep, b.len - keep);
	}
	if (keep == 0) {
		buf_release(&b);
		return;
	}
	request_send(jb->r, proto_out_json(&(struct proto_out){
	    .type = PROTO_R_OUTPUT, .id = jb->r->id, .tag = jb->r->tag,
	    .stream = stream, .data = b.data, .data_len = keep }));

	buf_add(&jb->log, b.data, keep);
	jb->out_seen += keep;
	if (jb->log.len > CONSOLE_OUTPUT_KEEP)
		buf_consume(&jb->log, jb->log.len - CONSOLE_OUTPUT_KEEP / 2);
	ev.stream = stream;
	ev.data = b.data;
	ev.len = keep;
	console_emit(c, &ev);
	buf_release(&b);
}

/* Forward complete lines of live filesystem events. */
static void
job_events(struct job *jb)
{
	struct console_event	 ev = { .type = CONSOLE_EV_FSEVENT, .r = jb->r };
	char			*line;
	size_t			 len;
	enum proto_line		 rc;
	cJSON			*e;
	const cJSON		*cnt, *by;

	while ((rc = proto_reader_next(&jb->evrd, &line, &len)) !=
	    PROTO_LINE_NONE) {
		if (rc != PROTO_LINE_OK)
			continue;
		e = cJSON_ParseWithLength(line, len);
		if (e == NULL || !cJSON_IsObject(e)) {
			cJSON_Delete(e);
			continue;
		}
		by = cJSON_GetObjectItemCaseSensitive(e, "by");
		if (cJSON_IsString(by) &&
		    strcmp(by->valuestring, "outside") == 0) {
			/* Not this request's: another's, or the host's. */
			outside_event(jb->c, jb, e);
			continue;
		}
		if (cJSON_IsString(by) &&
		    strcmp(by->valuestring, "request") == 0)
			outside_claim(jb->c, e);
		else if (cJSON_IsString(by) &&
		    strcmp(by->valuestring, "uncertain") == 0) {
			jb->ev_uncertain = true;
			outside_maybe(jb->c, jb->r, e);
		}
		request_send(jb->r, proto_out_json(&(struct proto_out){
		    .type = PROTO_R_EVENT, .id = jb->r->id, .tag = jb->r->tag,
		    .event = e }));
		ev.json = e;
		console_emit(jb->c, &ev);
		jb->ev_lines++;
		cnt = cJSON_GetObjectItemCaseSensitive(e, "count");
		jb->ev_count += cJSON_IsNumber(cnt) && cnt->valuedouble >= 1 ?
		    (uint64_t)cnt->valuedouble : 1;
		cJSON_AddItemToArray(jb->events, e);
		if (cJSON_GetArraySize(jb->events) > CONSOLE_EVENTS_KEEP)
			cJSON_DeleteItemFromArray(jb->events, 0);
	}
}

/* One of a job's pipes is readable (or closed). */
static void
job_read(int fd, short revents, void *arg)
{
	struct job	*jb = arg;
	char		 buf[65536];
	ssize_t		 n;
	int		 which;

	for (which = 0; which < JOB_NFDS; which++)
		if (jb->fds[which] == fd)
			break;
	if (which == JOB_NFDS)
		return;
	n = read(fd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		switch (which) {
		case JOB_OUT:
		case JOB_ERR:
			job_output(jb, which, buf, (size_t)n, false);
			break;
		case JOB_JSON:
			if (jb->json.len < CONSOLE_MAX_REPORT)
				buf_add(&jb->json, buf, (size_t)n);
			break;
		case JOB_EVENTS:
			proto_reader_feed(&jb->evrd, buf, (size_t)n);
			job_events(jb);
			break;
		}
		return;
	}
	/* End of file (or an error: treat alike). */
	if ((which == JOB_OUT || which == JOB_ERR) && jb->holdlen[which] > 0)
		job_output(jb, which, "", 0, true);
	loop_remove(jb->c->loop, fd);
	close(fd);
	jb->fds[which] = -1;
	if (which == JOB_JSON && !jb->exited)
		job_service(jb);
	job_check_done(jb);
}

/* A report's "SIGTERM" as a number (0: unknown). */
static int
job_signal_number(const char *name)
{
	for (int i = 1; i < 65; i++) {
		const char *a = sigabbrev_np(i);

		if (a != NULL && strncmp(name, "SIG", 3) == 0 &&
		    strcmp(name + 3, a) == 0)
			return i;
	}
	return 0;
}

/*
 * The report came while exec still runs: when it says the command's
 * background processes stay (a service, engine.h), the request finishes
 * now with the command's own status, and exec becomes a service
 * (console-service.c). What exec wrote of the command's output came
 * before its report: read to the end of what is there first.
 */
static void
job_service(struct job *jb)
{
	cJSON		*report;
	const cJSON	*sv, *code, *sig;
	char		 buf[65536];
	ssize_t		 n;
	int		 status, procs;

	if (jb->json.len == 0 || (report = cJSON_ParseWithLength(
	    jb->json.data, jb->json.len)) == NULL)
		return;
	sv = cJSON_GetObjectItem(report, "service");
	procs = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(sv,
	    "processes"));
	code = cJSON_GetObjectItem(report, "exit_code");
	sig = cJSON_GetObjectItem(report, "signal");
	status = cJSON_IsNumber(code) ? code->valueint & 0xff :
	    cJSON_IsString(sig) ? 128 + job_signal_number(sig->valuestring) :
	    CONSOLE_EXIT_FAILED;
	cJSON_Delete(report);
	if (!cJSON_IsObject(sv) || procs < 1)
		return;
	for (int i = JOB_OUT; i <= JOB_ERR; i++) {
		while (jb->fds[i] >= 0 &&
		    (n = read(jb->fds[i], buf, sizeof buf)) > 0)
			job_output(jb, i, buf, (size_t)n, false);
		if (jb->holdlen[i] > 0)
			job_output(jb, i, "", 0, true);
	}
	if (jb->in_fd != -1 || !jb->in_closed)
		job_close_input(jb);
	service_adopt(jb->c, jb, procs);
	jb->exited = true;
	jb->wstatus = (status & 0xff) << 8;
	if (jb->kill_timer != 0) {
		loop_cancel(jb->c->loop, jb->kill_timer);
		jb->kill_timer = 0;
	}
	jb->pid = 0;	/* the service's now */
}

/* Close the command's stdin and forget what it did not read. */
static void
job_close_input(struct job *jb)
{
	if (jb->in_fd != -1) {
		loop_remove(jb->c->loop, jb->in_fd);
		close(jb->in_fd);
		jb->in_fd = -1;
	}
	jb->in_closed = true;
	buf_release(&jb->in);
	conn_pause(jb->conn, false);
}

/* The command's stdin can take more (never blocks: O_NONBLOCK). */
static void
job_write(int fd, short revents, void *arg)
{
	struct job	*jb = arg;
	ssize_t		 n;

	if (revents & (POLLERR | POLLHUP | POLLNVAL)) {
		job_close_input(jb);	/* the command closed its stdin */
		return;
	}
	while (jb->in.len > 0) {
		n = write(fd, jb->in.data, jb->in.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			job_close_input(jb);
			return;
		}
		buf_consume(&jb->in, (size_t)n);
	}
	if (jb->in.len == 0 && jb->in_end) {
		job_close_input(jb);
		return;
	}
	loop_set_events(jb->c->loop, fd, jb->in.len > 0 ? POLLOUT : 0);
	if (jb->in.len < CONSOLE_MAX_INPUT / 2)
		conn_pause(jb->conn, false);
}

/* Bytes (or the end) of a request's stdin from its agent: buffered, and
   the agent is not read while more than CONSOLE_MAX_INPUT waits. */
void
job_input(struct job *jb, const void *data, size_t len, bool end)
{
	if (jb->in_closed || jb->in_end)
		return;
	buf_add(&jb->in, data, len);
	jb->in_end = end;
	if (jb->in.len > CONSOLE_MAX_INPUT)
		conn_pause(jb->conn, true);
	if (jb->in_fd != -1)
		job_write(jb->in_fd, 0, jb);
}

/*
 * SIGKILL for exec and everything under it. bwrap runs in a group of its
 * own, and the sandbox's first process has no parent-death signal until
 * the command is released: killed alone, exec would close the pipe that
 * holds the command back and leave the sandbox running unwatched.
 */
void
job_kill_now(struct job *jb)
{
	proctree_kill(jb->pid, SIGKILL);
	kill(-jb->pid, SIGKILL);	/* exec's group: what proctree missed */
}

/* Escalate: the exec child did not stop after SIGTERM. */
static void
job_kill_timeout(void *arg)
{
	struct job	*jb = arg;

	jb->kill_timer = 0;
	if (jb->pid > 0 && !jb->exited) {
		LOG("request %u: exec pid %ld ignored SIGTERM, killing",
		    jb->r->id, (long)jb->pid);
		job_kill_now(jb);
	}
}

/* Stop a running request (the exec child kills its sandbox). */
void
job_kill(struct job *jb, enum request_by by, const char *why)
{
	struct request	*r = jb->r;

	if (r->state != REQUEST_RUNNING || jb->exited)
		return;
	if (jb->killing) {
		/* The operator asking again means now; an agent leaving
		   after its cancel changes nothing. */
		if (by == BY_OPERATOR)
			job_kill_now(jb);
		return;
	}
	jb->killing = true;
	r->by = by;
	free(r->note);
	r->note = xstrdup(why);
	kill(jb->pid, SIGTERM);
	jb->kill_timer = loop_timer(jb->c->loop, CONSOLE_KILL_WAIT_MS,
	    job_kill_timeout, jb);
	console_emit_request(jb->c, CONSOLE_EV_CHANGED, r);
}

/*
 * Mark each program the command ran ("executed") with whether the
 * allowlist would allow it on its own: what a build or a script started
 * beyond what the operator approved stands out. Recording only. A file
 * write's own program (bwgate's helper, filereq.h) is what was approved.
 */
static void
job_mark_executed(struct console *c, const struct request *r, cJSON *report)
{
	struct classification	 cl = CLASSIFICATION_INIT;
	struct strv		 argv = STRV_INIT;
	cJSON			*e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(report, "executed")) {
		strv_release(&argv);
		if (json_get_strv(cJSON_GetObjectItem(e, "argv"), &argv) != 0 ||
		    argv.n == 0)
			continue;
		if (r->file_write && argv.n == 2 && strcmp(argv.v[0],
		    SANDBOX_HELPER_PATH) == 0 && strcmp(argv.v[1],
		    WRITE_PROTO_ARG) == 0) {
			cJSON_AddBoolToObject(e, "allowlisted", true);
			continue;
		}
		allowlist_classify_argv(c->al, &argv, &cl);
		cJSON_AddBoolToObject(e, "allowlisted",
		    cl.verdict == VERDICT_ALLOW);
		classification_release(&cl);
		cl = (struct classification)CLASSIFICATION_INIT;
	}
	strv_release(&argv);
}

/*
 * The request's spec (engine-spec.h) in a sealed memory file, read from
 * its start by exec: the policy the operator was shown, fixed when the
 * request was classified (job_spawn checked there is one). -1 with errno
 * set.
 */
static int
job_spec_fd(const struct request *r)
{
	char	*s;
	int	 fd, e;

	fd = memfd_create("bwgate-spec", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	s = json_line(r->spec);
	if (write_full(fd, s, strlen(s)) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) != 0 ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		e = errno;
		free(s);
		close(fd);
		errno = e;
		return -1;
	}
	free(s);
	return fd;
}

/* Start `bwgate exec` for an approved request, in its own process group
   (a terminal ^C goes to the console only; the group is killed as one). */
static int
job_spawn(struct job *jb, char **cause)
{
	struct console	*c = jb->c;
	struct strv	 av = STRV_INIT;
	struct spawn	 sp = SPAWN_INIT;
	int		 p[JOB_NFDS][2], map[3 + JOB_NFDS], specfd = -1, i;
	int		 ip[2] = { -1, -1 }, ask[2] = { -1, -1 };
	cJSON		*rec, *changed;
	const cJSON	*sh;
	char		*spec;
	bool		 warm;

	for (i = 0; i < JOB_NFDS; i++)
		p[i][0] = p[i][1] = -1;
	if (jb->r->spec == NULL) {
		errno = EINVAL;
		goto syserr;
	}
	console_exec_argv(c, &av);
	/* As many services as the configuration lets the project keep: past
	   that, what this command leaves behind is killed (its report says
	   so). Decided now, not when it was classified. */
	if ((int)c->nservices >= c->cfg.max_services)
		cJSON_DeleteItemFromObjectCaseSensitive(jb->r->spec,
		    "services");
	/* The exec started ahead of need, when there is one. */
	spec = json_line(jb->r->spec);
	/* Not with named hosts: a warm exec has no question channel. */
	warm = jb->r->domains.n == 0 && warm_take(c, jb, spec, &ip[1]);
	warm_predict(c, jb->r, spec);	/* after the take: see warm_predict */
	free(spec);
	if (warm) {
		LOG("request %u: warm exec pid %ld", jb->r->id, (long)jb->pid);
		goto started;
	}
	map[0] = SPAWN_DEVNULL;
	if (jb->r->stdin_stream && !jb->in_closed) {
		if (pipe2(ip, O_CLOEXEC) != 0)
			goto syserr;
		map[0] = ip[0];
	}
	for (i = 0; i < JOB_NFDS; i++) {
		if (pipe2(p[i], O_CLOEXEC) != 0)
			goto syserr;
		map[1 + i] = p[i][1];	/* out 1, err 2, json 3, events 4 */
	}
	/* stdout and stderr of the agent are one file: one pipe. */
	if (jb->r->merge_output) {
		map[1 + JOB_ERR] = p[JOB_OUT][1];
		close(p[JOB_ERR][0]);
		close(p[JOB_ERR][1]);
		p[JOB_ERR][0] = p[JOB_ERR][1] = -1;
	}
	/* The policy shown, on descriptor 5 (exec --policy-fd 5). */
	if ((specfd = job_spec_fd(jb->r)) < 0)
		goto syserr;
	map[1 + JOB_NFDS] = specfd;
	sp.nfds = 2 + JOB_NFDS;
	/* Named hosts: the proxy asks about new ones on descriptor 6. */
	if (jb->r->domains.n > 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
		    ask) != 0)
			goto syserr;
		map[2 + JOB_NFDS] = ask[1];
		sp.nfds = 3 + JOB_NFDS;
		strv_push(&av, "--ask-fd");
		strv_pushf(&av, "%d", 2 + JOB_NFDS);
	}
	sp.argv = av.v;
	sp.fds = map;
	sp.flags = SPAWN_SETSID;	/* reap_session finds what it leaves */
	sp.deathsig = SIGTERM;	/* a console that dies stops its sandboxes */
	if (spawn_start(&sp, cause) != 0)
		goto fail;
	spawn_release(&sp);	/* reaped by pid in console_sigchld */
	jb->pid = sp.pid;
	LOG("request %u: exec pid %ld started", jb->r->id, (long)jb->pid);
	close(specfd);
	if (ip[0] >= 0)
		close(ip[0]);
	for (i = 0; i < JOB_NFDS; i++) {
		if (p[i][1] >= 0)
			close(p[i][1]);
		jb->fds[i] = p[i][0];
	}
	if (ask[0] >= 0) {
		close(ask[1]);
		hostask_open(jb, ask[0]);
	}
started:
	for (i = 0; i < JOB_NFDS; i++) {
		if (jb->fds[i] < 0)
			continue;
		fcntl(jb->fds[i], F_SETFL, O_NONBLOCK);
		loop_add(c->loop, jb->fds[i], POLLIN, job_read, jb);
	}
	if (ip[1] >= 0) {
		jb->in_fd = ip[1];
		fcntl(jb->in_fd, F_SETFL, O_NONBLOCK);
		loop_add(c->loop, jb->in_fd, 0, job_write, jb);
		if (jb->in.len > 0 || jb->in_end)
			job_write(jb->in_fd, 0, jb);
	}
	rec = audit_record("start", jb->r);
	cJSON_AddNumberToObject(rec, "pid", jb->pid);
	cJSON_AddItemToObject(rec, "exec_argv", json_strv(&av));
	/* What runs is what was shown; say so if the files it came from
	   changed since (it still runs as approved). */
	sh = cJSON_GetObjectItem(jb->r->spec, "shown_argv_sha256");
	if (cJSON_IsString(sh))
		cJSON_AddStringToObject(rec, "argv_sha256", sh->valuestring);
	cJSON_AddItemToObject(rec, "policy", cJSON_Duplicate(
	    cJSON_GetObjectItem(jb->r->spec, "policy"), 1));
	if ((changed = request_sources_changed(jb->c, jb->r)) != NULL) {
		cJSON_AddItemToObject(rec, "files_changed", changed);
		console_message(c, "request %u runs as approved although "
		    "rule or configuration files changed since", jb->r->id);
	}
	console_audit(c, rec);
	strv_release(&av);
	/* exec has its copy; a rerun is classified afresh. */
	cJSON_Delete(jb->r->spec);
	jb->r->spec = NULL;
	warm_again(c, false);
	return 0;

syserr:
	*cause = xasprintf("cannot start bwgate exec: %s", strerror(errno));
fail:
	if (specfd >= 0)
		close(specfd);
	for (i = 0; i < JOB_NFDS; i++) {
		if (p[i][0] >= 0)
			close(p[i][0]);
		if (p[i][1] >= 0)
			close(p[i][1]);
	}
	if (ip[0] >= 0)
		close(ip[0]);
	if (ip[1] >= 0)
		close(ip[1]);
	for (i = 0; i < 2; i++)
		if (ask[i] >= 0)
			close(ask[i]);
	strv_release(&av);
	return -1;
}

/* Start whatever may start now. */
void
console_schedule(struct console *c)
{
	struct request	*r;
	struct job	*jb;
	char		*cause = NULL;

	if (c->shutting_down)
		return;
	/* Approvals are on disk before what they approve starts. */
	if (c->audit_dirty) {
		console_arm_commit(c);
		return;
	}
	while ((r = queue_next(&c->q)) != NULL) {
		jb = r->owner;
		if (queue_start(&c->q, r, &cause) != 0) {
			console_message(c, "%s", cause);
			free(cause);
			return;
		}
		if (job_spawn(jb, &cause) != 0) {
			r->error = cause;
			cause = NULL;
			jb->exited = true;
			jb->wstatus = CONSOLE_EXIT_FAILED << 8;
			job_finish(jb);
			continue;
		}
		int pid = (int)jb->pid;

		request_send(r, proto_out_json(&(struct proto_out){
		    .type = PROTO_R_STARTED, .id = r->id, .tag = r->tag,
		    .pid = &pid }));
		console_emit_request(c, CONSOLE_EV_CHANGED, r);
	}
}

/* Reap exec children: each job's own pid, never waitpid(-1), so a child
   that is not a job (a probe, a client's helper) is left to its owner. */
void
console_sigchld(int signo, void *arg)
{
	struct console	*c = arg;
	struct request	*r;
	struct job	*jb;
	int		 status;

	(void)signo;
	warm_reap(c);
	service_reap(c);
	TAILQ_FOREACH(r, &c->q.requests, entry) {
		jb = r->owner;
		if (jb == NULL || jb->pid <= 0 || jb->exited ||
		    r->state != REQUEST_RUNNING)
			continue;
		if (reap_session(jb->pid, &status, false) != jb->pid)
			continue;
		jb->exited = true;
		jb->wstatus = status;
		if (jb->kill_timer != 0) {
			loop_cancel(c->loop, jb->kill_timer);
			jb->kill_timer = 0;
		}
		jb->drain_timer = loop_timer(c->loop, CONSOLE_DRAIN_MS,
		    job_drain_timeout, jb);
		job_check_done(jb);
	}
}
