/*
 * cmd-undo: `bwgate undo [--project DIR] [--dry-run] [--force] [--json]
 * N...` puts requests' runs back (undo.h), newest first; `bwgate undo
 * --list` shows what the store holds. N is the request's number, the one
 * the console, the report and `bwgate log` show: the store knows its
 * request (undo_run_of_request), and for runs recorded before it did, the
 * audit log does (history.h). --run takes the store's own run ids (a
 * `bwgate exec` without a console has no request). Each undo is audited
 * ("undo" record, with the request's "id"). A request that ran on another
 * machine (the console's remote-* records, remote.h) is never undone here:
 * its run and undo record are there; the refusal names the two ways.
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "cmd.h"
#include "console.h"
#include "display.h"
#include "history.h"
#include "shquote.h"
#include "undo.h"
#include "xalloc.h"

static const struct option undo_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'f' },
	{ "list", no_argument, NULL, 'l' },
	{ "request", no_argument, NULL, 'r' },
	{ "run", no_argument, NULL, 'R' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
undo_usage(FILE *f)
{
	fprintf(f, "usage: bwgate undo [--project DIR] [--dry-run] [--force] "
	    "[--json] N...\n"
	    "       bwgate undo [--project DIR] [--dry-run] [--force] "
	    "[--json] --run ID...\n"
	    "       bwgate undo [--project DIR] --list [--json]\n");
}

/* A run to undo: the store's id and its request's number (0: none). */
struct undo_target {
	unsigned long	 id;
	unsigned long	 req;
};

/* Newest first. */
static int
undo_id_cmp(const void *a, const void *b)
{
	unsigned long	x = ((const struct undo_target *)a)->id;
	unsigned long	y = ((const struct undo_target *)b)->id;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* A request's undo id, from the newest "result" record of the project's
   audit log for that request id (ids are unique per project; in older
   logs they restarted with each console: the newest wins). */
struct undo_req {
	unsigned long	 id;
	unsigned long	 undo;
	char		*why;
	bool		 seen;
	char		*host;		/* it ran on another machine (a
					   remote-* record is the newest) */
	char		*rproject;	/* its project there */
	unsigned long	 rid;		/* its executor's id */
};

/* A console's record of a mirror (remote.h): the request ran on another
   machine, whose executor keeps its undo. */
static bool
undo_req_remote(struct undo_req *q, const cJSON *r, const char *what)
{
	const char	*h = cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "host"));
	const char	*p = cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "project"));
	const cJSON	*rid = cJSON_GetObjectItem(r, "remote_id");

	if (strncmp(what, "remote-", 7) != 0 || h == NULL)
		return false;
	q->seen = true;
	q->undo = 0;
	free(q->host);
	free(q->rproject);
	q->host = xstrdup(h);
	q->rproject = p != NULL ? xstrdup(p) : NULL;
	q->rid = cJSON_IsNumber(rid) ? (unsigned long)rid->valuedouble : 0;
	return true;
}

static int
undo_req_record(const cJSON *r, const char *project, void *arg)
{
	struct undo_req	*q = arg;
	const cJSON	*f = cJSON_GetObjectItem(r, "id"), *u;
	const char	*what = cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "record")), *why;

	(void)project;
	if (!cJSON_IsNumber(f) || f->valuedouble != (double)q->id ||
	    what == NULL || undo_req_remote(q, r, what) ||
	    strcmp(what, "result") != 0)
		return 0;
	q->seen = true;
	q->undo = 0;
	free(q->why);
	q->why = NULL;
	free(q->host);
	q->host = NULL;
	u = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "report"), "undo");
	if (cJSON_IsTrue(cJSON_GetObjectItem(u, "possible")) &&
	    cJSON_IsNumber(cJSON_GetObjectItem(u, "id")))
		q->undo = (unsigned long)cJSON_GetNumberValue(
		    cJSON_GetObjectItem(u, "id"));
	else {
		why = cJSON_GetStringValue(cJSON_GetObjectItem(u, "why"));
		q->why = xstrdup(why != NULL ? why :
		    "its report does not say");
	}
	return 0;
}

/* The undo id of request id of project; 0 with cause. */
static unsigned long
undo_of_request(const char *project, unsigned long id, char **cause)
{
	struct undo_req	 q = { .id = id };
	unsigned long	 run;
	char		*pq;

	if ((run = undo_run_of_request(project, id)) != 0)
		return run;
	history_scan(NULL, project, undo_req_record, &q);
	if (!q.seen)
		*cause = xasprintf("no finished request #%lu of '%s' (in the "
		    "undo store or the audit log; bwgate undo --list shows "
		    "the runs kept, --run ID takes a run's own id)", id,
		    project);
	else if (q.host != NULL) {
		/* Never here: its run and its undo are on that machine. */
		pq = shell_quote(q.rproject != NULL ? q.rproject : "PROJECT");
		*cause = xasprintf("request #%lu ran on %s, not here: undo "
		    "it from the console (select it, u), or there: bwgate "
		    "undo --project %s %lu", id, q.host, pq, q.rid);
		free(pq);
	} else if (q.undo == 0)
		*cause = xasprintf("request #%lu cannot be undone: %s", id,
		    q.why);
	if (q.host != NULL)
		q.undo = 0;
	free(q.why);
	free(q.host);
	free(q.rproject);
	return q.undo;
}

/* Runs and their requests, from the audit log's "result" records (the
   runs recorded before the store knew its requests). */
struct undo_map {
	unsigned long	*run;
	unsigned long	*req;
	size_t		 n;
};

static int
undo_map_record(const cJSON *r, const char *project, void *arg)
{
	struct undo_map	*m = arg;
	const cJSON	*f = cJSON_GetObjectItem(r, "id"), *u, *id;
	const char	*what = cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "record"));

	(void)project;
	if (!cJSON_IsNumber(f) || what == NULL || strcmp(what, "result") != 0)
		return 0;
	u = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "report"), "undo");
	id = cJSON_GetObjectItem(u, "id");
	if (!cJSON_IsTrue(cJSON_GetObjectItem(u, "possible")) ||
	    !cJSON_IsNumber(id))
		return 0;
	m->run = xreallocarray(m->run, m->n + 1, sizeof *m->run);
	m->req = xreallocarray(m->req, m->n + 1, sizeof *m->req);
	m->run[m->n] = (unsigned long)id->valuedouble;
	m->req[m->n++] = (unsigned long)f->valuedouble;
	return 0;
}

/* The request of run id: the store's record, else the audit log's
   newest. 0 when neither knows. */
static unsigned long
undo_map_find(const char *project, const struct undo_map *m,
    unsigned long id)
{
	unsigned long	 req = undo_request_of(project, id);

	for (size_t i = m->n; req == 0 && i > 0; i--)
		if (m->run[i - 1] == id)
			req = m->req[i - 1];
	return req;
}

/* `--list`: the store's runs. */
static int
undo_list(const char *project, bool json)
{
	struct strv	 ids = STRV_INIT;
	struct undo_map	 map = { NULL, NULL, 0 };
	cJSON		*arr = cJSON_CreateArray(), *m, *o;
	char		*cause = NULL, reqs[24];

	undo_runs(project, &ids);
	if (ids.n > 0)
		history_scan(NULL, project, undo_map_record, &map);
	if (!json)
		printf("%-8s %-6s %-10s %-7s %s\n", "REQUEST", "RUN", "BYTES",
		    "STATE", "COMMAND");
	for (size_t i = 0; i < ids.n; i++) {
		unsigned long id = strtoul(ids.v[i], NULL, 10);
		unsigned long req = undo_map_find(project, &map, id);
		const char *cmd, *state;

		if ((m = undo_manifest_read(project, id, &cause)) == NULL) {
			free(cause);
			cause = NULL;
			continue;
		}
		cmd = cJSON_GetStringValue(cJSON_GetObjectItem(m, "command"));
		state = undo_is_undone(project, id) ?
		    "undone" : cJSON_GetArraySize(cJSON_GetObjectItem(m,
		    "unsaved")) > 0 ? "partial" : "ready";
		if (json) {
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "id", (double)id);
			if (req != 0)
				cJSON_AddNumberToObject(o, "request",
				    (double)req);
			else
				cJSON_AddNullToObject(o, "request");
			cJSON_AddStringToObject(o, "state", state);
			cJSON_AddNumberToObject(o, "bytes",
			    (double)undo_manifest_bytes(project, m));
			cJSON_AddStringToObject(o, "command", cmd ? cmd : "");
			cJSON_AddItemToArray(arr, o);
		} else {
			if (req != 0)
				snprintf(reqs, sizeof reqs, "#%lu", req);
			else
				snprintf(reqs, sizeof reqs, "-");
			printf("%-8s %-6lu %-10llu %-7s %s\n", reqs, id,
			    (unsigned long long)undo_manifest_bytes(project,
			    m), state, display_str(cmd ? cmd : ""));
		}
		cJSON_Delete(m);
	}
	if (json) {
		char *t = cJSON_PrintUnformatted(arr);

		printf("%s\n", t);
		free(t);
	}
	cJSON_Delete(arr);
	strv_release(&ids);
	free(map.run);
	free(map.req);
	return 0;
}

/* Audit one undo (best effort: the log is the console's). */
static void
undo_audit(const char *project, const struct undo_target *t, bool force,
    const struct strv *lines, const char *error)
{
	struct audit	*a;
	char		*cause = NULL;
	cJSON		*rec;

	if ((a = audit_open(NULL, &cause)) == NULL) {
		fprintf(stderr, "bwgate: undo: not audited: %s\n",
		    display_str(cause));
		free(cause);
		return;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "record", "undo");
	cJSON_AddStringToObject(rec, "project", project);
	if (t->req != 0)	/* the request's number, as the console's */
		cJSON_AddNumberToObject(rec, "id", (double)t->req);
	cJSON_AddNumberToObject(rec, "undo", (double)t->id);
	cJSON_AddBoolToObject(rec, "force", force);
	cJSON_AddItemToObject(rec, "actions", cJSON_CreateStringArray(
	    (const char *const *)lines->v, (int)lines->n));
	if (error != NULL)
		cJSON_AddStringToObject(rec, "error", error);
	if (audit_write(a, rec, &cause) != 0) {
		fprintf(stderr, "bwgate: undo: not audited: %s\n",
		    display_str(cause));
		free(cause);
	}
	audit_close(a);
}

/* Undo one run; 0 done (or nothing to do), 1 conflicts, -1 failure. */
static int
undo_one(const char *project, const struct undo_target *t, bool dry,
    bool force, cJSON *out)
{
	struct undo_plan	*p;
	const struct strv	*lines;
	const cJSON		*e;
	unsigned long		 id = t->id;
	char			*cause = NULL, name[40];
	cJSON			*m, *o;
	int			 rc = 0;

	if (t->req != 0)
		snprintf(name, sizeof name, "request #%lu", t->req);
	else
		snprintf(name, sizeof name, "run %lu", id);
	o = cJSON_CreateObject();
	if (t->req != 0)
		cJSON_AddNumberToObject(o, "request", (double)t->req);
	cJSON_AddNumberToObject(o, "id", (double)id);
	cJSON_AddItemToArray(out, o);
	if ((m = undo_manifest_read(project, id, &cause)) == NULL) {
		fprintf(stderr, "bwgate: undo: %s\n", display_str(cause));
		cJSON_AddStringToObject(o, "error", cause);
		free(cause);
		return -1;
	}
	if (undo_is_undone(project, id)) {
		cJSON_Delete(m);
		printf("%s was undone already: nothing to do\n", name);
		cJSON_AddStringToObject(o, "state", "undone already");
		return 0;
	}
	if ((p = undo_plan_new(project, m, &cause)) == NULL) {
		fprintf(stderr, "bwgate: undo: %s\n", display_str(cause));
		cJSON_AddStringToObject(o, "error", cause);
		free(cause);
		cJSON_Delete(m);
		return -1;
	}
	lines = undo_plan_lines(p);
	cJSON_AddItemToObject(o, "actions", cJSON_CreateStringArray(
	    (const char *const *)lines->v, (int)lines->n));
	if (lines->n == 0)
		printf("%s: nothing to undo (the project is as it was "
		    "before)\n", name);
	else
		printf("%s%s:\n", name, dry ? " (dry run)" : "");
	for (size_t i = 0; i < lines->n; i++)
		printf("  %s\n", display_str(lines->v[i]));
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(m, "unsaved")) {
		const char *path = cJSON_GetStringValue(
		    cJSON_GetObjectItem(e, "path"));
		const char *why = cJSON_GetStringValue(
		    cJSON_GetObjectItem(e, "why"));

		printf("  undo will not restore %s (%s)\n",
		    display_str(path ? path : "?"), display_str(why ? why :
		    "?"));
	}
	if (undo_plan_conflicts(p) > 0 && !force) {
		fprintf(stderr, "bwgate: undo: %s: %zu conflict%s: the "
		    "project changed since the run (--force undoes it "
		    "anyway)\n", name, undo_plan_conflicts(p),
		    undo_plan_conflicts(p) == 1 ? "" : "s");
		cJSON_AddStringToObject(o, "state", "conflict");
		rc = 1;
	} else if (dry) {
		cJSON_AddStringToObject(o, "state", "dry-run");
	} else if (undo_plan_apply(p, force, &cause) != 0) {
		fprintf(stderr, "bwgate: undo: %s: %s\n", name,
		    display_str(cause));
		cJSON_AddStringToObject(o, "error", cause);
		undo_audit(project, t, force, lines, cause);
		free(cause);
		rc = -1;
	} else {
		if (undo_mark_undone(project, id, &cause) != 0) {
			fprintf(stderr, "bwgate: undo: %s\n",
			    display_str(cause));
			free(cause);
		}
		undo_audit(project, t, force, lines, NULL);
		cJSON_AddStringToObject(o, "state", "undone");
		printf("%s undone\n", name);
	}
	undo_plan_free(p);
	cJSON_Delete(m);
	return rc;
}

int
cmd_undo(int argc, char **argv)
{
	const char	*popt = NULL;
	bool		 dry = false, force = false, list = false, json = false;
	bool		 run = false;
	char		*project, *cause = NULL, *end;
	struct undo_target *ids;
	size_t		 n = 0;
	cJSON		*out;
	int		 c, rc = 0, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:nflrRjh", undo_options,
	    NULL)) != -1) {
		switch (c) {
		case 'p': popt = optarg; break;
		case 'n': dry = true; break;
		case 'f': force = true; break;
		case 'l': list = true; break;
		case 'r': break;	/* numbers are requests' anyway */
		case 'R': run = true; break;
		case 'j': json = true; break;
		case 'h': undo_usage(stdout); return 0;
		default: undo_usage(stderr); return EXIT_BWGATE_FAILED;
		}
	}
	if ((list && optind != argc) || (!list && optind == argc)) {
		undo_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	if ((project = console_find_project(popt, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return EXIT_BWGATE_FAILED;
	}
	if (list) {
		rc = undo_list(project, json);
		free(project);
		return rc;
	}
	ids = xcalloc((size_t)(argc - optind), sizeof *ids);
	for (int i = optind; i < argc; i++) {
		unsigned long v = strtoul(argv[i], &end, 10);

		if (*argv[i] == '#' && !run)	/* as the console shows it */
			v = strtoul(argv[i] + 1, &end, 10);
		if (*argv[i] == '\0' || *end != '\0' || v == 0 ||
		    end == argv[i] + (*argv[i] == '#')) {
			fprintf(stderr, "bwgate: undo: '%s' is not %s (see "
			    "bwgate undo --list)\n", display_str(argv[i]),
			    run ? "a run's id" : "a request's number");
			free(ids);
			free(project);
			return EXIT_BWGATE_FAILED;
		}
		n++;
		if (run) {
			ids[n - 1].id = v;
			ids[n - 1].req = undo_request_of(project, v);
		} else if ((ids[n - 1].req = v,
		    ids[n - 1].id = undo_of_request(project, v, &cause)) == 0) {
			fprintf(stderr, "bwgate: undo: %s\n",
			    display_str(cause));
			free(cause);
			free(ids);
			free(project);
			return EXIT_BWGATE_FAILED;
		}
	}
	if (n > 1)
		qsort(ids, n, sizeof *ids, undo_id_cmp);
	out = cJSON_CreateArray();
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i > 0 && ids[i].id == ids[i - 1].id)
			continue;
		if ((r = undo_one(project, &ids[i], dry, force, out)) != 0)
			rc = r < 0 ? EXIT_BWGATE_FAILED : 1;
	}
	if (json) {
		char *t = cJSON_PrintUnformatted(out);

		printf("%s\n", t);
		free(t);
	}
	cJSON_Delete(out);
	free(ids);
	free(project);
	return rc;
}
