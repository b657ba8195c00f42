/*
 * cmd-show: `bwgate show ID [--output|--report|--json]`: one request's
 * record, so whatever a pane or a summary cut is one command away. The
 * request is the project's (the current directory's, or --project): from
 * its running console (control socket) when that still holds it, else
 * from the audit log, rotated files included, this project's records only
 * (history.h). The audit log keeps the report without the output.
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "buf.h"
#include "client.h"
#include "cmd.h"
#include "console.h"
#include "history.h"
#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

enum show_what { SHOW_SUMMARY, SHOW_OUTPUT, SHOW_REPORT, SHOW_JSON };

static const struct option show_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "audit", required_argument, NULL, 'a' },
	{ "project", required_argument, NULL, 'p' },
	{ "output", no_argument, NULL, 'o' },
	{ "report", no_argument, NULL, 'r' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
show_usage(FILE *f)
{
	fprintf(f, "usage: bwgate show [--project DIR] [--socket PATH] "
	    "[--audit FILE] [--output | --report | --json] ID\n");
}

/* Ask the running console; NULL if it cannot be reached, serves another
   project than *project (when set), or has no such request (then the
   audit log is asked). *project becomes the console's when unset. */
static cJSON *
show_from_console(const char *socket, char **project, uint32_t id)
{
	struct client	*cl;
	char		*path, *ctl, *cause = NULL;
	const char	*type, *p;
	cJSON		*j;

	if ((path = client_socket_path(socket, &cause)) == NULL) {
		free(cause);
		return NULL;
	}
	ctl = client_control_path(path);
	free(path);
	cl = client_connect(ctl, &cause);
	free(ctl);
	free(cause);
	cause = NULL;
	if (cl == NULL)
		return NULL;
	if (client_send(cl, proto_msg_json(&(struct proto_msg){
	    .type = PROTO_SHOW, .id = id }), &cause) != 0) {
		free(cause);
		client_free(cl);
		return NULL;
	}
	while ((j = client_recv(cl, &cause)) != NULL) {
		type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
		if (type != NULL && strcmp(type, "hello") != 0)
			break;
		p = cJSON_GetStringValue(cJSON_GetObjectItem(j, "project"));
		if (type != NULL && p != NULL && *project == NULL)
			*project = xstrdup(p);
		else if (type != NULL && (p == NULL ||
		    strcmp(p, *project) != 0)) {
			/* Another project's console (BWGATE_SOCKET). */
			cJSON_Delete(j);
			j = NULL;
			break;
		}
		cJSON_Delete(j);
	}
	free(cause);
	client_free(cl);
	if (j != NULL && strcmp(type, "show") != 0) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

/* Collects one request's records (a new "request" record for the id
   starts them afresh: in older logs ids restart with a console). */
struct show_scan {
	uint32_t	 id;
	cJSON		*recs;
};

static int
show_scan_record(const cJSON *r, const char *project, void *arg)
{
	struct show_scan	*ss = arg;
	const cJSON		*f = cJSON_GetObjectItem(r, "id");
	const char		*what = cJSON_GetStringValue(
				    cJSON_GetObjectItem(r, "record"));

	(void)project;
	if (!cJSON_IsNumber(f) || f->valuedouble != (double)ss->id ||
	    what == NULL)
		return 0;
	if (strcmp(what, "request") == 0) {
		cJSON_Delete(ss->recs);
		ss->recs = NULL;
	}
	if (ss->recs == NULL)
		ss->recs = cJSON_CreateArray();
	cJSON_AddItemToArray(ss->recs, cJSON_Duplicate(r, 1));
	return 0;
}

/* The request's records from the audit log, for this project only. */
static cJSON *
show_from_audit(const char *audit, const char *project, uint32_t id,
    char **cause)
{
	struct show_scan	 ss = { id, NULL };
	cJSON			*j, *r, *rep = NULL, *req = NULL;

	history_scan(audit, project, show_scan_record, &ss);
	if (ss.recs == NULL) {
		*cause = xasprintf("no request %u in project '%s' (its "
		    "console, or the audit log)", id, project);
		return NULL;
	}
	cJSON_ArrayForEach(r, ss.recs) {
		const char *what = cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "record"));

		if (strcmp(what, "request") == 0)
			req = cJSON_GetObjectItem(r, "request");
		else if (strcmp(what, "result") == 0)
			rep = cJSON_GetObjectItem(r, "report");
	}
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "show");
	cJSON_AddNumberToObject(j, "id", id);
	cJSON_AddStringToObject(j, "from", "audit");
	cJSON_AddStringToObject(j, "project", project);
	if ((r = cJSON_GetArrayItem(ss.recs, 0)) != NULL &&
	    cJSON_IsString(cJSON_GetObjectItem(r, "console")))
		cJSON_AddStringToObject(j, "console", cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "console")));
	if (req != NULL)
		cJSON_AddItemToObject(j, "request", cJSON_Duplicate(req, 1));
	if (rep != NULL)
		cJSON_AddItemToObject(j, "report", cJSON_Duplicate(rep, 1));
	cJSON_AddItemToObject(j, "records", ss.recs);
	return j;
}

/* One labelled value an agent or a file controls. */
static void
show_text(const char *label, const cJSON *o, const char *key)
{
	const char	*s = cJSON_GetStringValue(cJSON_GetObjectItem(o, key));

	if (s == NULL)
		return;
	printf("%-9s ", label);
	summary_text(stdout, s);
	putchar('\n');
}

/* A file write's diff (the request's write.diff), one escaped line each. */
static void
show_diff(const cJSON *req)
{
	const char	*d = cJSON_GetStringValue(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(req, "write"), "diff"));
	const char	*p, *e;
	char		*line;

	if (d == NULL)
		return;
	for (p = d; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		line = xstrndup(p, (size_t)(e - p));
		printf("%-9s ", p == d ? "diff" : "");
		summary_text(stdout, line);
		putchar('\n');
		free(line);
	}
}

/* The human summary: who, what, how it ended, what it changed. */
static void
show_summary(const cJSON *j)
{
	const cJSON	*req = cJSON_GetObjectItem(j, "request");
	const cJSON	*rep = cJSON_GetObjectItem(j, "report");
	const cJSON	*recs = cJSON_GetObjectItem(j, "records"), *r, *f;

	printf("request   %.0f\n", cJSON_GetNumberValue(
	    cJSON_GetObjectItem(j, "id")));
	show_text("project", j, "project");
	show_text("console", j, "console");
	show_text("command", req, "command");
	show_diff(req);
	show_text("agent", req, "agent");
	show_text("cwd", req, "cwd");
	show_text("verdict", req, "verdict");
	show_text("rule", req, "rule");
	show_text("reason", req, "reason");
	show_text("profile", req, "profile");
	/* From the audit log, the request record holds the state it had
	   when it came (pending): the state and decision are later records. */
	if (recs == NULL) {
		show_text("state", req, "state");
		show_text("by", req, "by");
		show_text("note", req, "note");
	} else if (cJSON_GetArraySize(recs) == 1)
		printf("state     pending (when its console stopped)\n");
	cJSON_ArrayForEach(r, recs) {
		const char *what = cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "record"));

		if (strcmp(what, "decision") == 0 ||
		    strcmp(what, "withdrawn") == 0) {
			show_text("decision", r, "decision");
			show_text("by", r, "by");
			show_text("note", r, "note");
		} else if (strcmp(what, "result") == 0)
			show_text("state", r, "state");
		else if (strcmp(what, "undo") == 0 &&
		    cJSON_GetObjectItem(r, "error") == NULL)
			printf("state     undone (its changes were put back)\n");
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(req, "undone")))
		printf("state     undone (its changes were put back)\n");
	f = cJSON_GetObjectItem(req, "exit_status");
	if (!cJSON_IsNumber(f) && recs != NULL) {
		cJSON_ArrayForEach(r, recs)
			if (cJSON_IsNumber(cJSON_GetObjectItem(r,
			    "exit_status")))
				f = cJSON_GetObjectItem(r, "exit_status");
	}
	if (cJSON_IsNumber(f))
		printf("exit      %.0f\n", f->valuedouble);
	/* The service it left running (bwgate stop ID). */
	if (cJSON_IsObject(f = cJSON_GetObjectItem(req, "service")))
		printf("service   %.0f process%s left running (bwgate stop "
		    "%.0f)\n", cJSON_GetNumberValue(
		    cJSON_GetObjectItem(f, "processes")), cJSON_GetNumberValue(
		    cJSON_GetObjectItem(f, "processes")) == 1 ? "" : "es",
		    cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id")));
	if (cJSON_IsObject(rep))
		summary_print(stdout, "", rep);
	if (recs != NULL)
		printf("(from the audit log: the output is kept only by the "
		    "console that ran it)\n");
}

/* The output shown is the part the console kept: say so on stderr, last,
   where a reader of the file it went to still sees it. */
static void
show_truncated(const cJSON *rep, long id)
{
	bool	out = cJSON_IsTrue(cJSON_GetObjectItem(rep,
		    "stdout_truncated"));
	bool	err = cJSON_IsTrue(cJSON_GetObjectItem(rep,
		    "stderr_truncated"));

	if (out || err)
		fprintf(stderr, "bwgate: request %ld: %s%s%s cut at the "
		    "output limit (output_limit): the rest was not kept\n",
		    id, out ? "stdout" : "", out && err ? " and " : "",
		    err ? "stderr" : "");
}

int
cmd_show(int argc, char **argv)
{
	const char	*socket = NULL, *audit = NULL, *project_opt = NULL;
	char		*project = NULL;
	enum show_what	 what = SHOW_SUMMARY;
	char		*cause = NULL, *end, *s;
	const cJSON	*rep, *f;
	cJSON		*j;
	long		 id;
	int		 c, status = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:a:p:orjh", show_options,
	    NULL)) != -1) {
		switch (c) {
		case 's': socket = optarg; break;
		case 'p': project_opt = optarg; break;
		case 'a': audit = optarg; break;
		case 'o': what = SHOW_OUTPUT; break;
		case 'r': what = SHOW_REPORT; break;
		case 'j': what = SHOW_JSON; break;
		case 'h': show_usage(stdout); return 0;
		default: show_usage(stderr); return EXIT_BWGATE_FAILED;
		}
	}
	if (optind + 1 != argc) {
		show_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	id = strtol(argv[optind], &end, 10);
	if (*argv[optind] == '\0' || *end != '\0' || id < 1 ||
	    id > (long)PROTO_MAX_ID) {
		fprintf(stderr, "bwgate: show: '%s' is not a request id\n",
		    argv[optind]);
		return EXIT_BWGATE_FAILED;
	}
	/* This project's request: the one named, the console's that
	   --socket or $BWGATE_SOCKET names, or the current directory's (a
	   console of another project is not asked then). */
	if (socket == NULL && getenv("BWGATE_SOCKET") != NULL &&
	    *getenv("BWGATE_SOCKET") != '\0')
		socket = getenv("BWGATE_SOCKET");
	if ((socket == NULL || project_opt != NULL) && (project =
	    console_find_project(project_opt, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", cause);
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	j = show_from_console(socket, &project, (uint32_t)id);
	/* A named console that is gone: the current directory's project. */
	if (j == NULL && project == NULL &&
	    (project = console_find_project(project_opt, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", cause);
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	if (j == NULL && (j = show_from_audit(audit, project, (uint32_t)id,
	    &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", cause);
		free(cause);
		free(project);
		return 1;
	}
	if (project != NULL && cJSON_GetObjectItem(j, "project") == NULL)
		cJSON_AddStringToObject(j, "project", project);
	free(project);
	rep = cJSON_GetObjectItem(j, "report");
	switch (what) {
	case SHOW_SUMMARY:
		show_summary(j);
		status = 0;
		break;
	case SHOW_JSON:
		s = json_text(j);
		printf("%s\n", s);
		free(s);
		status = 0;
		break;
	case SHOW_REPORT:
		if (!cJSON_IsObject(rep)) {
			fprintf(stderr, "bwgate: request %ld has no report "
			    "(it did not run)\n", id);
			break;
		}
		s = json_text(rep);
		printf("%s\n", s);
		free(s);
		status = 0;
		break;
	case SHOW_OUTPUT:
		f = cJSON_GetObjectItem(rep, "stdout");
		if (cJSON_GetObjectItem(j, "records") != NULL ||
		    !cJSON_IsString(f)) {
			fprintf(stderr, "bwgate: request %ld: no output kept "
			    "(the audit log holds the report without it)\n",
			    id);
			break;
		}
		(void)write_full(1, f->valuestring, strlen(f->valuestring));
		f = cJSON_GetObjectItem(rep, "stderr");
		if (cJSON_IsString(f))
			(void)write_full(2, f->valuestring,
			    strlen(f->valuestring));
		show_truncated(rep, id);
		status = 0;
		break;
	}
	cJSON_Delete(j);
	return status;
}
