/*
 * cmd-log: `bwgate log [--project DIR] [--state S] [--agent A] [--since T]
 * [--json]`: the project's requests from the audit log, oldest first,
 * without a console: id, time, state (as the queue shows it: "exit N",
 * "undone"), exit status, verdict, agent and command. The
 * filters keep a request whose final state, agent, and submission time
 * match (--since 90s, 15m, 2h, 3d, or an ISO 8601 time).
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "cmd.h"
#include "console.h"
#include "display.h"
#include "history.h"
#include "jsonutil.h"
#include "xalloc.h"

struct log_entry {
	char	*console;
	double	 id;
	double	 time_ms;
	char	*when;		/* ISO 8601 */
	char	*agent;
	char	*command;
	char	*verdict;
	char	*state;		/* pending, denied, finished, ... */
	double	 exit_status;	/* -1: none */
	double	 undo;		/* its run's undo store id, 0: none */
	char	*refused_by;	/* an adapter's own refusal: "mcp", "hook" */
	bool	 undone;
};

struct log_list {
	struct log_entry	*e;
	size_t			 n;
};

static const struct option log_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "audit", required_argument, NULL, 'a' },
	{ "state", required_argument, NULL, 'S' },
	{ "agent", required_argument, NULL, 'A' },
	{ "since", required_argument, NULL, 'T' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
log_usage(FILE *f)
{
	fprintf(f, "usage: bwgate log [--project DIR] [--audit FILE] "
	    "[--state STATE] [--agent NAME]\n"
	    "                  [--since 90s|15m|2h|3d|TIME] [--json]\n");
}

static const char *
log_str(const cJSON *o, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(o, name));
}

/* The newest entry of request id (ids are unique per project), or of
   undo store run undo when id is not a number (older records). */
static struct log_entry *
log_find_any(struct log_list *l, const cJSON *id, const cJSON *undo)
{
	for (size_t i = l->n; i > 0; i--)
		if (cJSON_IsNumber(id) ? l->e[i - 1].id == id->valuedouble :
		    cJSON_IsNumber(undo) && l->e[i - 1].undo ==
		    undo->valuedouble)
			return &l->e[i - 1];
	return NULL;
}

/* The entry of (console, id), made when its request record comes. */
static struct log_entry *
log_find(struct log_list *l, const char *console, double id, bool make)
{
	for (size_t i = l->n; i > 0 && id >= 0; i--)
		if (l->e[i - 1].id == id && strcmp(l->e[i - 1].console,
		    console) == 0)
			return &l->e[i - 1];
	if (!make)
		return NULL;
	l->e = xreallocarray(l->e, l->n + 1, sizeof *l->e);
	memset(&l->e[l->n], 0, sizeof *l->e);
	l->e[l->n].console = xstrdup(console);
	l->e[l->n].id = id;
	l->e[l->n].exit_status = -1;
	return &l->e[l->n++];
}

static void
log_set(char **field, const char *value)
{
	if (value == NULL)
		return;
	free(*field);
	*field = xstrdup(value);
}

/* Fold one record into the list. */
static int
log_record(const cJSON *r, const char *project, void *arg)
{
	struct log_list		*l = arg;
	const char		*what = log_str(r, "record");
	const char		*console = log_str(r, "console");
	const cJSON		*id = cJSON_GetObjectItem(r, "id"), *req, *f;
	struct log_entry	*e;

	(void)project;
	/* An undo that worked, by the console (u) or by `bwgate undo`. */
	if (what != NULL && strcmp(what, "undo") == 0) {
		if (cJSON_GetObjectItem(r, "error") == NULL &&
		    (e = log_find_any(l, id, cJSON_GetObjectItem(r,
		    "undo"))) != NULL)
			e->undone = true;
		return 0;
	}
	/* A call an agent adapter refused itself, with no console to make
	   it a request (edge-refusal.h): a row without a number. */
	if (what != NULL && strcmp(what, "refused") == 0) {
		e = log_find(l, "", -1, true);
		e->time_ms = cJSON_GetNumberValue(cJSON_GetObjectItem(r,
		    "time_ms"));
		log_set(&e->when, log_str(r, "time"));
		log_set(&e->agent, log_str(r, "agent"));
		if (log_str(r, "command") != NULL)
			log_set(&e->command, log_str(r, "command"));
		else {
			char *c = xasprintf("%s %s", log_str(r, "tool") ?
			    log_str(r, "tool") : "?", log_str(r, "path") ?
			    log_str(r, "path") : "?");

			log_set(&e->command, c);
			free(c);
		}
		log_set(&e->verdict, "deny");
		log_set(&e->state, "refused");
		e->refused_by = log_str(r, "edge") != NULL ? xstrdup(
		    log_str(r, "edge")) : NULL;
		return 0;
	}
	if (what == NULL || console == NULL || !cJSON_IsNumber(id))
		return 0;
	/* Another machine's request, as its console mirrored it
	   (remote.h): its agent names the host. */
	if (strcmp(what, "remote-queued") == 0)
		what = "request";
	e = log_find(l, console, id->valuedouble,
	    strcmp(what, "request") == 0);
	if (e == NULL)
		return 0;
	if (strcmp(what, "request") == 0) {
		req = cJSON_GetObjectItem(r, "request");
		e->time_ms = cJSON_GetNumberValue(cJSON_GetObjectItem(r,
		    "time_ms"));
		log_set(&e->when, log_str(r, "time"));
		log_set(&e->agent, log_str(req, "agent"));
		log_set(&e->command, log_str(req, "command"));
		log_set(&e->verdict, log_str(req, "verdict"));
		log_set(&e->state, "pending");
	} else if (strcmp(what, "decision") == 0) {
		f = cJSON_GetObjectItem(r, "decision");
		if (cJSON_IsString(f) && strcmp(f->valuestring, "denied") == 0)
			log_set(&e->state, "denied");
		else
			log_set(&e->state, "approved");
	} else if (strcmp(what, "result") == 0) {
		log_set(&e->state, log_str(r, "state"));
		f = cJSON_GetObjectItem(r, "exit_status");
		if (cJSON_IsNumber(f))
			e->exit_status = f->valuedouble;
		f = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "report"),
		    "undo");
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "possible")) &&
		    cJSON_IsNumber(cJSON_GetObjectItem(f, "id")))
			e->undo = cJSON_GetNumberValue(cJSON_GetObjectItem(f,
			    "id"));
	} else if (strcmp(what, "withdrawn") == 0)
		log_set(&e->state, "withdrawn");
	else if (strcmp(what, "remote-ended") == 0) {
		req = cJSON_GetObjectItem(r, "request");
		log_set(&e->state, log_str(req, "state"));
		f = cJSON_GetObjectItem(req, "exit_status");
		if (cJSON_IsNumber(f))
			e->exit_status = f->valuedouble;
	}
	return 0;
}

/* --since: a duration back from now, or a time; -1 when invalid. */
static double
log_since(const char *s)
{
	char		*end;
	double		 v = strtod(s, &end);
	struct tm	 tm;
	struct timespec	 now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (end != s && v >= 0 && end[0] != '\0' && end[1] == '\0' &&
	    strchr("smhd", end[0]) != NULL) {
		v *= end[0] == 's' ? 1 : end[0] == 'm' ? 60 : end[0] == 'h' ?
		    3600 : 86400;
		return ((double)now.tv_sec - v) * 1000;
	}
	memset(&tm, 0, sizeof tm);
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end == NULL)
		end = strptime(s, "%Y-%m-%d", &tm);
	if (end == NULL || (*end != '\0' && *end != 'Z'))
		return -1;
	return (double)timegm(&tm) * 1000;
}

int
cmd_log(int argc, char **argv)
{
	const char		*popt = NULL, *audit = NULL, *state = NULL;
	const char		*agent = NULL;
	char			*project, *cause = NULL, *cmd;
	double			 since = 0;
	bool			 json = false;
	struct log_list		 l = { NULL, 0 };
	cJSON			*arr = NULL, *o;
	int			 c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:a:S:A:T:jh", log_options,
	    NULL)) != -1) {
		switch (c) {
		case 'p': popt = optarg; break;
		case 'a': audit = optarg; break;
		case 'S': state = optarg; break;
		case 'A': agent = optarg; break;
		case 'T':
			if ((since = log_since(optarg)) < 0) {
				fprintf(stderr, "bwgate: log: --since '%s': "
				    "not 90s, 15m, 2h, 3d or a time "
				    "(2026-11-27T10:00:00)\n",
				    display_str(optarg));
				return EXIT_BWGATE_FAILED;
			}
			break;
		case 'j': json = true; break;
		case 'h': log_usage(stdout); return 0;
		default: log_usage(stderr); return EXIT_BWGATE_FAILED;
		}
	}
	if (optind != argc) {
		log_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if ((project = console_find_project(popt, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	history_scan(audit, project, log_record, &l);
	if (json)
		arr = cJSON_CreateArray();
	else
		printf("%-6s %-20s %-10s %-5s %-7s %-14s %s\n", "ID", "TIME",
		    "STATE", "EXIT", "VERDICT", "AGENT", "COMMAND");
	for (size_t i = 0; i < l.n; i++) {
		struct log_entry *e = &l.e[i];
		char exit[16], shown[32], num[24];

		/* Put back since: what it did is no more (the exit status
		   stays in its own column). */
		if (e->undone)
			log_set(&e->state, "undone");
		if (e->exit_status >= 0)
			snprintf(exit, sizeof exit, "%.0f", e->exit_status);
		else
			snprintf(exit, sizeof exit, "-");

		if ((state != NULL && (e->state == NULL ||
		    strcmp(e->state, state) != 0)) || (agent != NULL &&
		    (e->agent == NULL || strcmp(e->agent, agent) != 0)) ||
		    e->time_ms < since)
			continue;
		if (json) {
			o = cJSON_CreateObject();
			if (e->id >= 0)
				cJSON_AddNumberToObject(o, "id", e->id);
			else
				cJSON_AddNullToObject(o, "id");
			if (e->refused_by != NULL)
				cJSON_AddStringToObject(o, "refused_by",
				    e->refused_by);
			cJSON_AddStringToObject(o, "console", e->console);
			cJSON_AddStringToObject(o, "time", e->when ? e->when :
			    "");
			cJSON_AddStringToObject(o, "state", e->state);
			cJSON_AddStringToObject(o, "verdict", e->verdict ?
			    e->verdict : "");
			cJSON_AddStringToObject(o, "agent", e->agent ?
			    e->agent : "");
			cJSON_AddStringToObject(o, "command", e->command ?
			    e->command : "");
			if (e->exit_status >= 0)
				cJSON_AddNumberToObject(o, "exit_status",
				    e->exit_status);
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		/* As the queue says it: a failed command never reads
		   "finished". */
		if (e->state != NULL && strcmp(e->state, "finished") == 0 &&
		    e->exit_status >= 0)
			snprintf(shown, sizeof shown, "exit %.0f",
			    e->exit_status);
		else
			snprintf(shown, sizeof shown, "%s", e->state ?
			    e->state : "?");
		cmd = display_escape(e->command ? e->command : "");
		if (e->id >= 0)
			snprintf(num, sizeof num, "%.0f", e->id);
		else	/* an adapter's own refusal: no request number */
			snprintf(num, sizeof num, "-");
		printf("%-6s %-20.19s %-10s %-5s %-7s %-14.14s %s\n", num,
		    e->when ? e->when : "", shown, exit,
		    e->verdict ? e->verdict : "?",
		    e->agent ? display_str(e->agent) : "-", cmd);
		free(cmd);
	}
	if (json) {
		cmd = json_line(arr);
		printf("%s\n", cmd);
		free(cmd);
		cJSON_Delete(arr);
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.e[i].console);
		free(l.e[i].when);
		free(l.e[i].agent);
		free(l.e[i].command);
		free(l.e[i].verdict);
		free(l.e[i].state);
		free(l.e[i].refused_by);
	}
	free(l.e);
	free(project);
	return 0;
}
