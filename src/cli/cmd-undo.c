/*
 * cmd-undo: `bwgate undo [--project DIR] [--dry-run] [--force] [--json]
 * ID...` puts runs back (undo.h), newest first; `bwgate undo --list` shows
 * what the store holds. Each undo is audited ("undo" record). With
 * --request, the ids are the console's request ids, found in the audit
 * log (history.h): a run stays undoable after its console is gone.
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
#include "undo.h"
#include "xalloc.h"

static const struct option undo_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "force", no_argument, NULL, 'f' },
	{ "list", no_argument, NULL, 'l' },
	{ "request", no_argument, NULL, 'r' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
undo_usage(FILE *f)
{
	fprintf(f, "usage: bwgate undo [--project DIR] [--dry-run] [--force] "
	    "[--json] [--request] ID...\n"
	    "       bwgate undo [--project DIR] --list [--json]\n");
}

/* Newest first. */
static int
undo_id_cmp(const void *a, const void *b)
{
	unsigned long	x = *(const unsigned long *)a;
	unsigned long	y = *(const unsigned long *)b;

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
};

static int
undo_req_record(const cJSON *r, const char *project, void *arg)
{
	struct undo_req	*q = arg;
	const cJSON	*f = cJSON_GetObjectItem(r, "id"), *u;
	const char	*what = cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "record")), *why;

	(void)project;
	if (!cJSON_IsNumber(f) || f->valuedouble != (double)q->id ||
	    what == NULL || strcmp(what, "result") != 0)
		return 0;
	q->seen = true;
	q->undo = 0;
	free(q->why);
	q->why = NULL;
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

	history_scan(NULL, project, undo_req_record, &q);
	if (!q.seen)
		*cause = xasprintf("no finished request #%lu of '%s' in the "
		    "audit log", id, project);
	else if (q.undo == 0)
		*cause = xasprintf("request #%lu cannot be undone: %s", id,
		    q.why);
	free(q.why);
	return q.undo;
}

/* `--list`: the store's runs. */
static int
undo_list(const char *project, bool json)
{
	struct strv	 ids = STRV_INIT;
	cJSON		*arr = cJSON_CreateArray(), *m, *o;
	char		*cause = NULL;

	undo_runs(project, &ids);
	if (!json)
		printf("%-6s %-10s %-7s %s\n", "UNDO", "BYTES", "STATE",
		    "COMMAND");
	for (size_t i = 0; i < ids.n; i++) {
		unsigned long id = strtoul(ids.v[i], NULL, 10);
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
			cJSON_AddStringToObject(o, "state", state);
			cJSON_AddNumberToObject(o, "bytes",
			    (double)undo_manifest_bytes(project, m));
			cJSON_AddStringToObject(o, "command", cmd ? cmd : "");
			cJSON_AddItemToArray(arr, o);
		} else
			printf("%-6lu %-10llu %-7s %s\n", id,
			    (unsigned long long)undo_manifest_bytes(project,
			    m), state, display_str(cmd ? cmd : ""));
		cJSON_Delete(m);
	}
	if (json) {
		char *t = cJSON_PrintUnformatted(arr);

		printf("%s\n", t);
		free(t);
	}
	cJSON_Delete(arr);
	strv_release(&ids);
	return 0;
}

/* Audit one undo (best effort: the log is the console's). */
static void
undo_audit(const char *project, unsigned long id, bool force,
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
	cJSON_AddNumberToObject(rec, "undo", (double)id);
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
undo_one(const char *project, unsigned long id, bool dry, bool force,
    cJSON *out)
{
	struct undo_plan	*p;
	const struct strv	*lines;
	const cJSON		*e;
	char			*cause = NULL;
	cJSON			*m, *o;
	int			 rc = 0;

	o = cJSON_CreateObject();
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
		printf("run %lu was undone already: nothing to do\n", id);
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
		printf("run %lu: nothing to undo (the project is as it was "
		    "before)\n", id);
	else
		printf("run %lu%s:\n", id, dry ? " (dry run)" : "");
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
		fprintf(stderr, "bwgate: undo: run %lu: %zu conflict%s: the "
		    "project changed since the run (--force undoes it "
		    "anyway)\n", id, undo_plan_conflicts(p),
		    undo_plan_conflicts(p) == 1 ? "" : "s");
		cJSON_AddStringToObject(o, "state", "conflict");
		rc = 1;
	} else if (dry) {
		cJSON_AddStringToObject(o, "state", "dry-run");
	} else if (undo_plan_apply(p, force, &cause) != 0) {
		fprintf(stderr, "bwgate: undo: run %lu: %s\n", id,
		    display_str(cause));
		cJSON_AddStringToObject(o, "error", cause);
		undo_audit(project, id, force, lines, cause);
		free(cause);
		rc = -1;
	} else {
		if (undo_mark_undone(project, id, &cause) != 0) {
			fprintf(stderr, "bwgate: undo: %s\n",
			    display_str(cause));
			free(cause);
		}
		undo_audit(project, id, force, lines, NULL);
		cJSON_AddStringToObject(o, "state", "undone");
		printf("run %lu undone\n", id);
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
	bool		 req = false;
	char		*project, *cause = NULL, *end;
	unsigned long	*ids;
	size_t		 n = 0;
	cJSON		*out;
	int		 c, rc = 0, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:nflrjh", undo_options,
	    NULL)) != -1) {
		switch (c) {
		case 'p': popt = optarg; break;
		case 'n': dry = true; break;
		case 'f': force = true; break;
		case 'l': list = true; break;
		case 'r': req = true; break;
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
		ids[n++] = strtoul(argv[i], &end, 10);
		if (*argv[i] == '\0' || *end != '\0' || ids[n - 1] == 0) {
			fprintf(stderr, "bwgate: undo: '%s' is not a run's "
			    "undo id (see bwgate undo --list)\n",
			    display_str(argv[i]));
			free(ids);
			free(project);
			return EXIT_BWGATE_FAILED;
		}
		if (req && (ids[n - 1] = undo_of_request(project, ids[n - 1],
		    &cause)) == 0) {
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
		if (i > 0 && ids[i] == ids[i - 1])
			continue;
		if ((r = undo_one(project, ids[i], dry, force, out)) != 0)
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
