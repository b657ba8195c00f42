/*
 * cmd-run: `bwgate run [options] -- COMMAND [ARG...]`: an agent's client.
 * Submits the command to the console, waits for the decision, streams the
 * command's output live, prints the change report on stderr and exits
 * with the command's status (EXIT_DENIED when denied, 125 when the
 * console cannot be reached). run_submit() is shared with `bwgate sh`.
 */
#include "autoconf.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "cmd.h"
#include "display.h"
#include "config.h"
#include "jsonutil.h"
#include "protocol.h"
#include "report.h"
#include "sandbox.h"
#include "xalloc.h"

extern char **environ;

#define RUN_INPUT_CHUNK	(48 * 1024)	/* stdin bytes per input message */
#define RUN_QUIET_MS	200	/* before saying we wait for approval */

static const struct option run_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "cwd", required_argument, NULL, 'C' },
	{ "timeout", required_argument, NULL, 't' },
	{ "json", no_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "agent", required_argument, NULL, 'A' },
	{ "description", required_argument, NULL, 'W' },
	{ "network", no_argument, NULL, 'n' },
	{ "domain", required_argument, NULL, 'D' },
	{ "rw", required_argument, NULL, 'w' },
	{ "ro", required_argument, NULL, 'r' },
	{ "memory", required_argument, NULL, 'M' },
	{ "pids", required_argument, NULL, 'P' },
	{ "cpu", required_argument, NULL, 'U' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
run_usage(FILE *f)
{
	fprintf(f, "usage: bwgate run [--socket PATH] [--cwd DIR] "
	    "[--timeout SECONDS] [--json] [--quiet]\n"
	    "                  [--agent NAME] [--description WHY] [--network] "
	    "[--rw PATH]... "
	    "[--ro PATH]...\n"
	    "                  [--domain [private:]HOST[:PORT]|@GROUP]...\n"
	    "                  [--memory BYTES] [--pids N] [--cpu SECONDS] "
	    "-- COMMAND [ARG...]\n");
}


int
run_approval_env(void)
{
	const char	*v = getenv("BWGATE_APPROVAL_MS");
	char		*end;
	long		 n;

	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || n <= 0 || n > 86400000)
		return 0;
	return (int)n;
}

/* Withdraw request id: it was not decided in time. */
static void
run_withdraw(struct client *cl, double id, int ms)
{
	cJSON	*msg = cJSON_CreateObject();

	cJSON_AddNumberToObject(msg, "v", PROTO_VERSION);
	cJSON_AddStringToObject(msg, "type", "cancel");
	cJSON_AddNumberToObject(msg, "id", id);
	(void)client_send(cl, msg, NULL);
	fprintf(stderr, "bwgate: request %.0f withdrawn: the operator did "
	    "not decide within %d s (the time this call allows); ask the "
	    "operator to look at the console, or run it again with a "
	    "longer timeout\n", id, (ms + 999) / 1000);
}

/* Our environment for the sandbox (NAME=VALUE into env): secret-looking
   names only when the configuration names them (the console filters
   again). */
static void
run_env(struct strv *env)
{
	struct config	 cfg;
	char		*cause = NULL;

	config_init(&cfg);
	if (config_load(&cfg, NULL, &cause) != 0)
		free(cause);	/* the console reports a broken file */
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char	*eq = strchr(*e, '=');
		char		*name;
		bool		 seen = false;

		if (eq == NULL || eq == *e)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		/* This call's own settings, for bwgate, not the command. */
		if (strcmp(name, "BWGATE_AGENT") == 0 ||
		    strcmp(name, "BWGATE_DESCRIPTION") == 0 ||
		    strcmp(name, "BWGATE_APPROVAL_MS") == 0) {
			free(name);
			continue;
		}
		for (size_t i = 0; i < env->n && !seen; i++)
			seen = strncmp(env->v[i], *e, (size_t)(eq - *e) + 1)
			    == 0;
		if (!seen && proto_utf8_valid(eq + 1, strlen(eq + 1), NULL) &&
		    (!sandbox_env_is_secret(name) ||
		    strv_contains(&cfg.env_pass, name)))
			strv_push(env, *e);
		free(name);
	}
	config_release(&cfg);
}

/* Our environment as run_env() passes it, with each NAME=VALUE of over
   replacing or adding its name (the console filters secrets again). */
static void
run_env_over(struct strv *env, const struct strv *over)
{
	run_env(env);
	for (size_t i = 0; i < over->n; i++) {
		size_t	n = (size_t)(strchr(over->v[i], '=') - over->v[i]) + 1;

		for (size_t k = 0; k < env->n; k++) {
			if (strncmp(env->v[k], over->v[i], n) == 0) {
				free(env->v[k]);
				env->v[k] = xstrdup(over->v[i]);
				n = 0;
				break;
			}
		}
		if (n != 0)
			strv_push(env, over->v[i]);
	}
}

/* Is our stdin worth streaming (not a terminal, not /dev/null)? */
static bool
run_stdin_streams(void)
{
	struct stat	st, nst;

	if (fstat(0, &st) != 0 || isatty(0))
		return false;
	if (S_ISCHR(st.st_mode) && stat("/dev/null", &nst) == 0 &&
	    st.st_rdev == nst.st_rdev)
		return false;
	return true;
}

/* Are our stdout and stderr the same file (2>&1, a terminal)? */
static bool
run_same_output(void)
{
	struct stat	s1, s2;

	return fstat(1, &s1) == 0 && fstat(2, &s2) == 0 &&
	    s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
}

/* Send what stdin has (one chunk), or its end; false once it ended. */
static bool
run_send_input(struct client *cl, double id)
{
	struct proto_msg im = PROTO_MSG_INIT;
	char		 chunk[RUN_INPUT_CHUNK];
	ssize_t		 n;
	cJSON		*msg;

	do
		n = read(0, chunk, sizeof chunk);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return true;
	im.type = n > 0 ? PROTO_INPUT : PROTO_INPUT_END;
	im.id = (uint32_t)id;
	if (n > 0)
		buf_add(&im.data, chunk, (size_t)n);
	msg = proto_msg_json(&im);
	proto_msg_release(&im);
	(void)client_send(cl, msg, NULL);
	return n > 0;
}

/* Wait for the console, feeding it our stdin meanwhile (only while the
   socket can take more, so a slow command slows us, not the console). */
static void
run_pump_input(struct client *cl, bool *in_open, double id)
{
	struct pollfd	pfd[2];

	while (*in_open && !client_buffered(cl)) {
		pfd[0] = (struct pollfd){ client_fd(cl), POLLIN | POLLOUT, 0 };
		pfd[1] = (struct pollfd){ 0, POLLIN, 0 };
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))
			return;
		if ((pfd[0].revents & POLLOUT) &&
		    (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			*in_open = run_send_input(cl, id);
		else if (pfd[0].revents & POLLOUT)
			(void)poll(pfd + 1, 1, -1);	/* wait for stdin */
	}
}

/* Does the console say something within ms milliseconds? */
static bool
run_readable(struct client *cl, int ms)
{
	struct pollfd	pfd = { client_fd(cl), POLLIN, 0 };

	return poll(&pfd, 1, ms) > 0;
}

/* One "output" message to our stdout or stderr. */
static void
run_output(const cJSON *j)
{
	const cJSON	*stream = cJSON_GetObjectItem(j, "stream");
	const cJSON	*data = cJSON_GetObjectItem(j, "data");
	const cJSON	*b64 = cJSON_GetObjectItem(j, "data_base64");
	int		 fd;
	struct buf	 b = BUF_INIT;

	fd = cJSON_IsString(stream) &&
	    strcmp(stream->valuestring, "stderr") == 0 ? 2 : 1;
	if (cJSON_IsString(data))
		(void)write_full(fd, data->valuestring, strlen(data->valuestring));
	else if (cJSON_IsString(b64) &&
	    proto_base64_decode(b64->valuestring, &b) == 0)
		(void)write_full(fd, b.data, b.len);
	buf_release(&b);
}

/* BWGATE_QUIET set (and not "0" or empty)? */
bool
run_quiet_env(void)
{
	const char	*q = getenv("BWGATE_QUIET");

	return q != NULL && q[0] != '\0' && strcmp(q, "0") != 0;
}

/* "denied by the operator: NOTE", or "... (no note)": the one wording
   of a denial, for `bwgate run`, the MCP server and the hook alike. Raw
   text: the caller escapes it for a terminal. */
char *
denied_text(const char *by, const char *note)
{
	return xasprintf("denied by %s%s%s%s",
	    by != NULL && strcmp(by, "operator") == 0 ? "the " : "",
	    by != NULL ? by : "the console",
	    note != NULL ? ": " : " (no note)", note != NULL ? note : "");
}

/* A denial on stderr. */
static void
run_print_denied(const cJSON *j)
{
	char	*t = denied_text(cJSON_GetStringValue(cJSON_GetObjectItem(j,
		    "by")), cJSON_GetStringValue(cJSON_GetObjectItem(j,
		    "note")));

	fprintf(stderr, "bwgate: %s\n", display_str(t));
	free(t);
}

/* Where the command ended (inside the project, checked by the engine),
   on the descriptor asked for; nothing when it failed or left no word,
   and why on stderr when the engine refused the directory. */
static void
run_cwd_after(const struct run_request *rq, const cJSON *res)
{
	const cJSON	*rep = cJSON_GetObjectItem(res, "report");
	const char	*d = cJSON_GetStringValue(cJSON_GetObjectItem(rep,
			    "cwd_after"));
	const char	*why = cJSON_GetStringValue(cJSON_GetObjectItem(rep,
			    "cwd_refused"));

	if (rq->cwd_fd <= 0)
		return;
	if (d != NULL && d[0] == '/')
		(void)write_full(rq->cwd_fd, d, strlen(d));
	else if (why != NULL)
		fprintf(stderr, "bwgate: the final directory is not carried "
		    "over: %s\n", display_str(why));
}

/* The change report summary on stderr (quiet: only why it failed). */
static void
run_summary(const cJSON *res, bool quiet)
{
	const cJSON	*rep = cJSON_GetObjectItem(res, "report");
	const cJSON	*state = cJSON_GetObjectItem(res, "state");
	const char	*s, *note;

	s = cJSON_GetStringValue(state);
	note = cJSON_GetStringValue(cJSON_GetObjectItem(res, "note"));
	if (s != NULL && strcmp(s, "timed-out") == 0)
		fprintf(stderr, "bwgate: the command timed out after %.1f s "
		    "and was killed (exit status %d)\n",
		    cJSON_GetNumberValue(cJSON_GetObjectItem(rep,
		    "duration_ms")) / 1000, RESULT_TIMED_OUT);
	else if (s != NULL && strcmp(s, "finished") != 0)
		fprintf(stderr, "bwgate: request %s%s%s\n", s,
		    note != NULL ? ": " : "", note != NULL ?
		    display_str(note) : "");
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(res, "error"))) !=
	    NULL)
		fprintf(stderr, "bwgate: %s\n", display_str(s));
	if (cJSON_IsObject(rep) && !quiet)
		summary_print(stderr, "bwgate: ", rep);
}

/* The submit message for a request (cwd: the directory to send). */
static cJSON *
run_message(const struct run_request *rq, const char *cwd)
{
	struct proto_msg sm = PROTO_MSG_INIT;
	cJSON		*msg;

	sm.type = PROTO_SUBMIT;
	sm.tag = xstrdup(rq->tag != NULL ? rq->tag : "run");
	if (rq->write_path != NULL) {
		sm.write_path = xstrdup(rq->write_path);
		sm.write_content = xmalloc(rq->write_len + 1);
		memcpy(sm.write_content, rq->write_content, rq->write_len);
		sm.write_content[rq->write_len] = '\0';
		sm.write_len = rq->write_len;
	} else if (rq->command != NULL) {
		sm.command = xstrdup(rq->command);
		strv_append_all(&sm.shell_options, &rq->shell_options);
		strv_append_all(&sm.args, &rq->args);
	} else
		strv_append_all(&sm.argv, &rq->argv);
	sm.cwd = xstrdup(cwd);
	/* The agent's name: --agent, else $BWGATE_AGENT (bwgate sh, which
	   takes only a shell's options, is named so). */
	if (rq->agent != NULL)
		sm.agent = xstrdup(rq->agent);
	else if (getenv("BWGATE_AGENT") != NULL &&
	    *getenv("BWGATE_AGENT") != '\0')
		sm.agent = xstrdup(getenv("BWGATE_AGENT"));
	/* Why: --description (the MCP run tool's), else
	   $BWGATE_DESCRIPTION (the hook puts the Bash call's there). */
	if (rq->description != NULL && *rq->description != '\0')
		sm.description = xstrdup(rq->description);
	else if (getenv("BWGATE_DESCRIPTION") != NULL &&
	    *getenv("BWGATE_DESCRIPTION") != '\0')
		sm.description = xstrdup(getenv("BWGATE_DESCRIPTION"));
	if (rq->refused != NULL)
		sm.refused = xstrdup(rq->refused);
	sm.timeout_s = rq->timeout_s > 0 ? rq->timeout_s : 0;
	if (rq->network)
		sm.mounts.network = 1;
	sm.memory = rq->memory > 0 ? rq->memory : 0;
	sm.pids = rq->pids > 0 ? rq->pids : 0;
	sm.cpu_s = rq->cpu_s > 0 ? rq->cpu_s : 0;
	strv_append_all(&sm.mounts.rw, &rq->rw);
	strv_append_all(&sm.mounts.ro, &rq->ro);
	strv_append_all(&sm.mounts.domains, &rq->domains);
	if (rq->forward) {
		sm.has_env = true;
		run_env(&sm.env);
		sm.stdin_stream = run_stdin_streams();
		sm.merge_output = !rq->json && run_same_output();
	} else if (rq->env.n > 0) {
		/* Our environment with the variables asked for on top. */
		sm.has_env = true;
		run_env_over(&sm.env, &rq->env);
	}
	sm.track_cwd = rq->cwd_fd > 0 && rq->command != NULL;
	msg = proto_msg_json(&sm);
	proto_msg_release(&sm);
	return msg;
}

/* Connect to the console and submit; NULL with cause (the console's own
   refusal when it gave one, else how to start a console). */
struct client *
run_start(const struct run_request *rq, char **cause)
{
	struct client	*cl;
	char		*path, *cwd = NULL, *why;
	cJSON		*msg;

	if ((path = client_socket_path(rq->socket, cause)) == NULL) {
		why = xasprintf("%s; %s", *cause, client_start_hint());
		free(*cause);
		*cause = why;
		return NULL;
	}
	cl = client_connect(path, cause);
	free(path);
	if (cl == NULL)
		return NULL;
	if (rq->cwd == NULL && (cwd = getcwd(NULL, 0)) == NULL) {
		*cause = xasprintf("cannot get the current directory: %s",
		    strerror(errno));
		client_free(cl);
		return NULL;
	}
	msg = run_message(rq, rq->cwd != NULL ? rq->cwd : cwd);
	free(cwd);
	if (client_send(cl, msg, cause) != 0) {
		if ((why = client_refusal(cl)) != NULL) {
			free(*cause);
			*cause = why;
		}
		client_free(cl);
		return NULL;
	}
	return cl;
}

/* Submit one command and follow it to its end, with our environment, stdin
   and output order; returns the exit status. */
int
run_submit(const struct run_request *rq0)
{
	struct run_request r = *rq0, *rq = &r;
	struct client	*cl;
	char		*cause = NULL;
	cJSON		*j = NULL;
	const char	*s;
	enum proto_reply rt;
	bool		 waiting = false, in_open = false, decided = false;
	bool		 withdrew = false;
	bool		 streams = run_stdin_streams();
	int		 status = EXIT_BWGATE_FAILED;
	double		 id = 0;
	struct timespec	 t0, now;
	long		 left;

	r.forward = true;
	if ((cl = run_start(rq, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return EXIT_BWGATE_FAILED;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		run_pump_input(cl, &in_open, id);
		/* A deadline for the decision (the caller's own timeout). */
		if (rq->approval_ms > 0 && !decided && id != 0 &&
		    !client_buffered(cl)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = rq->approval_ms - ((now.tv_sec - t0.tv_sec) *
			    1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
			if (left <= 0 || !run_readable(cl, (int)left)) {
				run_withdraw(cl, id, rq->approval_ms);
				status = EXIT_DENIED;
				withdrew = true;
				break;
			}
		}
		if ((j = client_recv(cl, &cause)) == NULL)
			break;
		rt = proto_reply_type(j);
		if (rt == PROTO_R_QUEUED) {
			id = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));
			/* With a deadline, stdin flows once approved. */
			in_open = streams && rq->approval_ms == 0;
			s = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "verdict"));
			/* Say we wait only if no decision follows at once
			   (headless consoles decide immediately). */
			if (!rq->quiet && !client_buffered(cl) &&
			    !run_readable(cl, RUN_QUIET_MS)) {
				waiting = true;
				fprintf(stderr, "bwgate: request %.0f is "
				    "waiting for approval (%s: %s)\n", id,
				    display_str(s), display_str(
				    cJSON_GetStringValue(cJSON_GetObjectItem(j,
				    "reason"))));
			}
		} else if (rt == PROTO_R_DECIDED) {
			s = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "decision"));
			if (s != NULL && strcmp(s, "denied") == 0) {
				s = cJSON_GetStringValue(cJSON_GetObjectItem(j,
				    "note"));
				run_print_denied(j);
				status = EXIT_DENIED;
				in_open = false;
				cJSON_Delete(j);
				break;
			}
			decided = true;
			if (rq->approval_ms > 0)
				in_open = streams;
			if (waiting)
				fprintf(stderr, "bwgate: request %.0f "
				    "approved\n", id);
		} else if (rt == PROTO_R_OUTPUT) {
			if (!rq->json)
				run_output(j);
		} else if (rt == PROTO_R_RESULT) {
			if (rq->json) {
				char *t = json_line(cJSON_GetObjectItem(j,
				    "report"));

				printf("%s\n", t);
				fflush(stdout);
				free(t);
			} else
				run_summary(j, rq->quiet);
			run_cwd_after(rq, j);
			status = (int)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(j, "exit_status"));
			if (status < 0 || status > 255)
				status = EXIT_BWGATE_FAILED;
			cJSON_Delete(j);
			break;
		} else if (rt == PROTO_R_WITHDRAWN) {
			fprintf(stderr, "bwgate: request withdrawn: %s\n",
			    display_str(cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "note"))));
			cJSON_Delete(j);
			break;
		} else if (rt == PROTO_R_ERROR) {
			fprintf(stderr, "bwgate: %s\n",
			    display_str(cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "message"))));
			cJSON_Delete(j);
			break;
		}
		cJSON_Delete(j);
	}
	if (j == NULL && !withdrew) {
		fprintf(stderr, "bwgate: %s\n", cause != NULL ?
		    display_str(cause) :
		    "the console closed the connection before the command "
		    "finished");
		free(cause);
	}
	client_free(cl);
	return status;
}

int
cmd_run(int argc, char **argv)
{
	struct run_request	rq = RUN_REQUEST_INIT;
	char			*end;
	long			 v;
	int			 c, status;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+s:C:t:jqA:W:nD:w:r:M:P:U:h",
	    run_options, NULL)) != -1) {
		switch (c) {
		case 's': rq.socket = optarg; break;
		case 'C': rq.cwd = optarg; break;
		case 't':
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 ||
			    v > 7 * 24 * 3600) {
				fprintf(stderr, "bwgate: --timeout: invalid "
				    "value '%s'\n", optarg);
				return EXIT_BWGATE_FAILED;
			}
			rq.timeout_s = (int)v;
			break;
		case 'M':
		case 'P':
		case 'U':
			/* Limits the request lowers (never raises). */
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 ||
			    v > (c == 'M' ? LONG_MAX : 10000000)) {
				fprintf(stderr, "bwgate: --%s: invalid value "
				    "'%s'\n", c == 'M' ? "memory" : c == 'P' ?
				    "pids" : "cpu", optarg);
				return EXIT_BWGATE_FAILED;
			}
			if (c == 'M')
				rq.memory = (double)v;
			else if (c == 'P')
				rq.pids = (int)v;
			else
				rq.cpu_s = (int)v;
			break;
		case 'j': rq.json = true; break;
		case 'q': rq.quiet = true; break;
		case 'A': rq.agent = optarg; break;
		case 'W': rq.description = optarg; break;
		case 'n': rq.network = true; break;
		case 'D': strv_push(&rq.domains, optarg); break;
		case 'w': strv_push(&rq.rw, optarg); break;
		case 'r': strv_push(&rq.ro, optarg); break;
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			run_usage(stderr);
			return EXIT_BWGATE_FAILED;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "bwgate: run: no command given\n");
		run_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	for (int i = optind; i < argc; i++)
		strv_push(&rq.argv, argv[i]);
	rq.quiet = rq.quiet || run_quiet_env();
	rq.approval_ms = run_approval_env();
	status = run_submit(&rq);
	strv_release(&rq.argv);
	strv_release(&rq.rw);
	strv_release(&rq.ro);
	strv_release(&rq.domains);
	return status;
}
