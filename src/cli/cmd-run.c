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
#include <unistd.h>

#include "buf.h"
#include "client.h"
#include "cmd.h"
#include "display.h"
#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

#define RUN_QUIET_MS	200	/* before saying we wait for approval */

static const struct option run_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "cwd", required_argument, NULL, 'C' },
	{ "timeout", required_argument, NULL, 't' },
	{ "json", no_argument, NULL, 'j' },
	{ "agent", required_argument, NULL, 'A' },
	{ "network", no_argument, NULL, 'n' },
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
	    "[--timeout SECONDS] [--json]\n"
	    "                  [--agent NAME] [--network] [--rw PATH]... "
	    "[--ro PATH]...\n"
	    "                  [--memory BYTES] [--pids N] [--cpu SECONDS] "
	    "-- COMMAND [ARG...]\n");
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

/* The change report summary on stderr. */
static void
run_summary(const cJSON *res)
{
	const cJSON	*rep = cJSON_GetObjectItem(res, "report");
	const cJSON	*state = cJSON_GetObjectItem(res, "state");
	const char	*s, *note;

	s = cJSON_GetStringValue(state);
	note = cJSON_GetStringValue(cJSON_GetObjectItem(res, "note"));
	if (s != NULL && strcmp(s, "finished") != 0)
		fprintf(stderr, "bwgate: request %s%s%s\n", s,
		    note != NULL ? ": " : "", note != NULL ?
		    display_str(note) : "");
	if ((s = cJSON_GetStringValue(cJSON_GetObjectItem(res, "error"))) !=
	    NULL)
		fprintf(stderr, "bwgate: %s\n", display_str(s));
	if (cJSON_IsObject(rep))
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
		sm.write_content = xstrdup(rq->write_content);
	} else if (rq->command != NULL)
		sm.command = xstrdup(rq->command);
	else
		strv_append_all(&sm.argv, &rq->argv);
	sm.cwd = xstrdup(cwd);
	if (rq->agent != NULL)
		sm.agent = xstrdup(rq->agent);
	sm.timeout_s = rq->timeout_s > 0 ? rq->timeout_s : 0;
	if (rq->network)
		sm.mounts.network = 1;
	sm.memory = rq->memory > 0 ? rq->memory : 0;
	sm.pids = rq->pids > 0 ? rq->pids : 0;
	sm.cpu_s = rq->cpu_s > 0 ? rq->cpu_s : 0;
	strv_append_all(&sm.mounts.rw, &rq->rw);
	strv_append_all(&sm.mounts.ro, &rq->ro);
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

/* Submit one command and follow it to its end; returns the exit status. */
int
run_submit(const struct run_request *rq)
{
	struct client	*cl;
	char		*cause = NULL;
	cJSON		*j;
	const char	*s;
	enum proto_reply rt;
	bool		 waiting = false;
	int		 status = EXIT_BWGATE_FAILED;
	double		 id = 0;

	if ((cl = run_start(rq, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return EXIT_BWGATE_FAILED;
	}

	while ((j = client_recv(cl, &cause)) != NULL) {
		rt = proto_reply_type(j);
		if (rt == PROTO_R_QUEUED) {
			id = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));
			s = cJSON_GetStringValue(cJSON_GetObjectItem(j,
			    "verdict"));
			/* Say we wait only if no decision follows at once
			   (headless consoles decide immediately). */
			if (!client_buffered(cl) && !run_readable(cl,
			    RUN_QUIET_MS)) {
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
				fprintf(stderr, "bwgate: denied by %s%s%s\n",
				    display_str(cJSON_GetStringValue(
				    cJSON_GetObjectItem(j, "by"))),
				    s != NULL ? ": " : "", s != NULL ?
				    display_str(s) : "");
				status = EXIT_DENIED;
				cJSON_Delete(j);
				break;
			}
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
				run_summary(j);
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
	if (j == NULL) {
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
	while ((c = getopt_long(argc, argv, "+s:C:t:jA:nw:r:M:P:U:h", run_options,
	    NULL)) != -1) {
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
		case 'A': rq.agent = optarg; break;
		case 'n': rq.network = true; break;
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
	status = run_submit(&rq);
	strv_release(&rq.argv);
	strv_release(&rq.rw);
	strv_release(&rq.ro);
	return status;
}
