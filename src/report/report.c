/*
 * report: the result of a sandboxed command as JSON and as a short summary.
 *
 * Field names are documented in doc/report.md and must stay stable.
 */
#include "autoconf.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "agentcfg.h"
#include "display.h"
#include "jsonutil.h"
#include "report.h"
#include "report-text.h"
#include "xalloc.h"

static const char *const violation_reason_names[] = {
	[VIOLATION_READ_ONLY] = "read-only",
	[VIOLATION_NOT_VISIBLE] = "not-visible",
	[VIOLATION_PROTECTED] = "protected",
	[VIOLATION_NETWORK] = "network",
	[VIOLATION_LOCAL] = "local-port",
	[VIOLATION_DISCARDED] = "discarded",
	[VIOLATION_SETID] = "setid",
	[VIOLATION_NESTED] = "nested",
};

/* What the agent can do about each kind of refusal. */
static const char *const violation_hints[] = {
	[VIOLATION_READ_ONLY] = "writes outside the project are blocked: write "
	    "under the project or ask the operator to add a writable path",
	[VIOLATION_NOT_VISIBLE] = "the sandbox does not show this place "
	    "(home and the host's /tmp are empty, private and discarded): "
	    "work inside the project or ask the operator to add the path",
	[VIOLATION_PROTECTED] = "this path is protected (git metadata and "
	    "bwgate policy stay read-only): leave it alone or ask the operator "
	    "for the git-write profile",
	[VIOLATION_NETWORK] = "the network is off in the sandbox: work offline "
	    "or ask the operator to allow network for this command",
	[VIOLATION_LOCAL] = "nothing listened on this port inside the sandbox "
	    "then (its loopback is its own; a server started by the command "
	    "is reachable once it listens, the host's local services are "
	    "not, even with the network on): wait for the server, or ask for "
	    "the host's port by name: bwgate run --domain "
	    "private:127.0.0.1:PORT -- CMD (also as a Bash call through the "
	    "hook), or the MCP run tool's domains "
	    "[\"private:127.0.0.1:PORT\"]",
	[VIOLATION_DISCARDED] = "written in the sandbox's private, empty home "
	    "and discarded when the command ended (nothing reached the host): "
	    "write under the project to keep it",
	[VIOLATION_SETID] = "no command may set a setuid or setgid bit, in "
	    "any profile: use an ordinary mode (0755, not 4755 or 2775)",
	[VIOLATION_NESTED] = "a nested sandbox cannot change the "
	    "project (a call from another mount namespace, such as unshare "
	    "or a nested bwrap, on the project's file system): make the "
	    "change from the command itself, outside the nested sandbox",
};

void
changes_release(struct changes *c)
{
	strv_release(&c->created);
	strv_release(&c->modified);
	strv_release(&c->deleted);
	for (size_t i = 0; i < c->nrenamed; i++) {
		free(c->renamed[i].from);
		free(c->renamed[i].to);
	}
	free(c->renamed);
	memset(c, 0, sizeof *c);
}

void
changes_add_rename(struct changes *c, const char *from, const char *to)
{
	c->renamed = xreallocarray(c->renamed, c->nrenamed + 1,
	    sizeof *c->renamed);
	c->renamed[c->nrenamed].from = xstrdup(from);
	c->renamed[c->nrenamed].to = xstrdup(to);
	c->nrenamed++;
}

size_t
changes_count(const struct changes *c)
{
	return c->created.n + c->modified.n + c->deleted.n + c->nrenamed;
}

/* Paths as JSON strings (see json_path for names that are not UTF-8). */
static cJSON *
paths_json(const struct strv *sv, bool *escaped)
{
	cJSON	*a = cJSON_CreateArray();

	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, json_path(sv->v[i], escaped));
	return a;
}

cJSON *
changes_json(const struct changes *c)
{
	cJSON	*j = cJSON_CreateObject(), *r = cJSON_CreateArray();
	bool	 escaped = false;

	cJSON_AddItemToObject(j, "created", paths_json(&c->created, &escaped));
	cJSON_AddItemToObject(j, "modified", paths_json(&c->modified,
	    &escaped));
	cJSON_AddItemToObject(j, "deleted", paths_json(&c->deleted, &escaped));
	for (size_t i = 0; i < c->nrenamed; i++) {
		cJSON	*e = cJSON_CreateObject();

		cJSON_AddItemToObject(e, "from", json_path(c->renamed[i].from,
		    &escaped));
		cJSON_AddItemToObject(e, "to", json_path(c->renamed[i].to,
		    &escaped));
		cJSON_AddItemToArray(r, e);
	}
	cJSON_AddItemToObject(j, "renamed", r);
	if (escaped)
		cJSON_AddBoolToObject(j, "escaped", true);
	return j;
}

/* Add one attention entry; repeats of (path, kind) are dropped. */
void
attentions_add(struct attentions *as, const char *path, const char *kind,
    const char *why)
{
	for (size_t i = 0; i < as->n; i++)
		if (strcmp(as->v[i].path, path) == 0 &&
		    strcmp(as->v[i].kind, kind) == 0)
			return;
	if (as->n >= ATTENTION_MAX)
		return;
	as->v = xreallocarray(as->v, as->n + 1, sizeof *as->v);
	as->v[as->n].path = xstrdup(path);
	as->v[as->n].kind = kind;
	as->v[as->n].why = xstrdup(why);
	as->n++;
}

void
attentions_release(struct attentions *as)
{
	for (size_t i = 0; i < as->n; i++) {
		free(as->v[i].path);
		free(as->v[i].why);
	}
	free(as->v);
	memset(as, 0, sizeof *as);
}

/* [{"path","kind","why"}], with "escaped" where a path is not UTF-8. */
cJSON *
attentions_json(const struct attentions *as)
{
	cJSON	*a = cJSON_CreateArray();

	for (size_t i = 0; i < as->n; i++) {
		cJSON	*e = cJSON_CreateObject();
		bool	 escaped = false;

		cJSON_AddItemToObject(e, "path", json_path(as->v[i].path,
		    &escaped));
		cJSON_AddStringToObject(e, "kind", as->v[i].kind);
		cJSON_AddStringToObject(e, "why", as->v[i].why);
		if (escaped)
			cJSON_AddBoolToObject(e, "escaped", true);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* Two argvs the same? */
static bool
executions_same(const struct strv *a, const struct strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

/* FNV-1a over path and argv, each string with its NUL. */
static uint32_t
executions_hash(const char *path, const struct strv *argv)
{
	uint32_t	h = 2166136261u;

	for (size_t i = 0; i <= argv->n; i++) {
		const char *s = i == 0 ? path : argv->v[i - 1];

		do
			h = (h ^ (unsigned char)*s) * 16777619u;
		while (*s++ != '\0');
	}
	return h;
}

/* Record one exec: the first EXECUTIONS_MAX distinct ones, counted. */
void
executions_add(struct executions *es, const char *path,
    const struct strv *argv)
{
	uint32_t	h = executions_hash(path, argv);

	es->total++;
	for (size_t i = es->n; i > 0; i--) {
		struct execution *e = &es->v[i - 1];

		if (e->hash == h && strcmp(e->path, path) == 0 &&
		    executions_same(&e->argv, argv)) {
			e->count++;
			return;
		}
	}
	if (es->n >= EXECUTIONS_MAX) {
		es->truncated = true;
		return;
	}
	es->v = xreallocarray(es->v, es->n + 1, sizeof *es->v);
	memset(&es->v[es->n], 0, sizeof es->v[es->n]);
	es->v[es->n].path = xstrdup(path);
	strv_append_all(&es->v[es->n].argv, argv);
	es->v[es->n].count = 1;
	es->v[es->n].hash = h;
	es->n++;
}

void
executions_release(struct executions *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->v[i].path);
		strv_release(&es->v[i].argv);
	}
	free(es->v);
	memset(es, 0, sizeof *es);
}

/* [{"path","argv","count"}], in the order first seen. */
cJSON *
executions_json(const struct executions *es)
{
	cJSON	*a = cJSON_CreateArray();

	for (size_t i = 0; i < es->n; i++) {
		cJSON	*e = cJSON_CreateObject(), *av;
		bool	 escaped = false;

		cJSON_AddItemToObject(e, "path", json_path(es->v[i].path,
		    &escaped));
		av = cJSON_CreateArray();
		for (size_t k = 0; k < es->v[i].argv.n; k++)
			cJSON_AddItemToArray(av, json_path(es->v[i].argv.v[k],
			    &escaped));
		cJSON_AddItemToObject(e, "argv", av);
		cJSON_AddNumberToObject(e, "count", es->v[i].count);
		if (escaped)
			cJSON_AddBoolToObject(e, "escaped", true);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

const char *
violation_reason_name(enum violation_reason r)
{
	return violation_reason_names[r];
}

const char *
violation_hint(enum violation_reason r)
{
	return violation_hints[r];
}

/* The hint for one refusal: a read-only path inside the project is
   read-only because of the profile, never "outside the project". */
/* The hint for a protected path inside the project: only the profile that
   unlocks it is named (git-write does not unlock .envrc). */
const char *
violation_protected_hint(const char *rel)
{
	const struct agentcfg	*t;
	char			*cause = NULL;
	bool			 agent;

	if (strcmp(rel, ".git") == 0 || strncmp(rel, ".git/", 5) == 0 ||
	    strstr(rel, "/.git/") != NULL ||
	    (strlen(rel) >= 5 && strcmp(rel + strlen(rel) - 5, "/.git") == 0))
		return "this path is protected (git metadata): leave it alone "
		    "or ask the operator for the git-write profile";
	t = agentcfg_get(&cause);
	free(cause);
	agent = t != NULL && agentcfg_match(t, rel) != NULL;
	if (agent)
		return "this path is protected (an agent's or editor's "
		    "configuration, which runs programs on the host): leave it "
		    "alone or ask the operator for the agent-config profile";
	return "this path is protected (bwgate policy or the configuration's "
	    "protected list): leave it alone";
}

const char *
violation_hint_in(const struct violation *v, const char *project)
{
	size_t	n = project != NULL ? strlen(project) : 0;

	if (v->reason == VIOLATION_PROTECTED && n > 0 &&
	    strncmp(v->path, project, n) == 0 && v->path[n] == '/')
		return violation_protected_hint(v->path + n + 1);
	if (v->reason != VIOLATION_READ_ONLY || n == 0 ||
	    strncmp(v->path, project, n) != 0 ||
	    (v->path[n] != '/' && v->path[n] != '\0'))
		return violation_hints[v->reason];
	if (strncmp(v->path + n, "/.git", 5) == 0 &&
	    (v->path[n + 5] == '/' || v->path[n + 5] == '\0'))
		return "read-only in this profile: git metadata is writable "
		    "only with the 'git-write' profile; ask the operator to "
		    "approve the command with it";
	return "read-only in this profile: the project is writable with the "
	    "'project' profile; ask the operator to approve the command "
	    "with it";
}

void
violations_add(struct violations *vs, const char *path, const char *op,
    enum violation_reason reason, bool exact)
{
	for (size_t i = 0; i < vs->n; i++) {
		struct violation *v = &vs->v[i];

		if (v->reason == reason && strcmp(v->path, path) == 0 &&
		    strcmp(v->operation, op) == 0) {
			v->count++;
			v->exact = v->exact || exact;
			return;
		}
	}
	vs->v = xreallocarray(vs->v, vs->n + 1, sizeof *vs->v);
	vs->v[vs->n++] = (struct violation){ xstrdup(path), xstrdup(op),
	    reason, 1, exact };
}

void
violations_release(struct violations *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].path);
		free(vs->v[i].operation);
	}
	free(vs->v);
	vs->v = NULL;
	vs->n = 0;
}

cJSON *
violations_json(const struct violations *vs)
{
	cJSON	*a = cJSON_CreateArray();

	for (size_t i = 0; i < vs->n; i++) {
		const struct violation	*v = &vs->v[i];
		cJSON			*e = cJSON_CreateObject();

		bool			 escaped = false;

		cJSON_AddItemToObject(e, "path", json_path(v->path, &escaped));
		if (escaped)
			cJSON_AddBoolToObject(e, "escaped", true);
		cJSON_AddStringToObject(e, "operation", v->operation);
		cJSON_AddStringToObject(e, "reason",
		    violation_reason_name(v->reason));
		cJSON_AddNumberToObject(e, "count", v->count);
		cJSON_AddStringToObject(e, "hint", violation_hint(v->reason));
		cJSON_AddBoolToObject(e, "exact", v->exact);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

void
result_release(struct result *r)
{
	strv_release(&r->argv);
	free(r->command);
	free(r->cwd);
	free(r->project);
	free(r->profile);
	strv_release(&r->bwrap_argv);
	buf_release(&r->out);
	buf_release(&r->err);
	changes_release(&r->changes);
	violations_release(&r->violations);
	attentions_release(&r->attention);
	executions_release(&r->executed);
	strv_release(&r->project_ports);
	strv_release(&r->project_services);
	cJSON_Delete(r->sandbox);
	cJSON_Delete(r->undo);
	r->undo = NULL;
	cJSON_Delete(r->git);
	r->git = NULL;
	cJSON_Delete(r->network);
	strv_release(&r->warnings);
	strv_release(&r->changes_widened);
	free(r->error);
	free(r->cwd_after);
	free(r->cwd_refused);
	memset(r, 0, sizeof *r);
	r->exit_code = -1;
}

/* Whether the run can be undone (undo.h), and how much is kept for it. */
static cJSON *
result_undo_json(const struct result *r)
{
	cJSON	*u;

	if (r->undo != NULL)
		return cJSON_Duplicate(r->undo, 1);
	u = cJSON_CreateObject();
	cJSON_AddBoolToObject(u, "possible", false);
	if (!r->changes_possible)
		cJSON_AddStringToObject(u, "why", "read-only: nothing to undo");
	else if (!r->started)
		cJSON_AddStringToObject(u, "why", "it did not run");
	else
		cJSON_AddStringToObject(u, "why", "the changes were not "
		    "recorded as they happened (no seccomp notification, "
		    "a scan was asked for, or undo is off)");
	return u;
}

cJSON *
result_json(const struct result *r)
{
	cJSON	*j = cJSON_CreateObject(), *ports;

	cJSON_AddItemToObject(j, "argv", json_strv(&r->argv));
	if (r->command != NULL)
		cJSON_AddStringToObject(j, "command", r->command);
	cJSON_AddStringToObject(j, "cwd", r->cwd ? r->cwd : "");
	cJSON_AddStringToObject(j, "project", r->project ? r->project : "");
	cJSON_AddStringToObject(j, "profile", r->profile ? r->profile : "");
	cJSON_AddItemToObject(j, "bwrap_argv", json_strv(&r->bwrap_argv));
	cJSON_AddBoolToObject(j, "started", r->started);
	if (r->exit_code >= 0)
		cJSON_AddNumberToObject(j, "exit_code", r->exit_code);
	else
		cJSON_AddNullToObject(j, "exit_code");
	if (r->signal > 0) {
		const char	*abbrev = sigabbrev_np(r->signal);
		char		 name[32];

		snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
		cJSON_AddStringToObject(j, "signal", name);
	} else
		cJSON_AddNullToObject(j, "signal");
	cJSON_AddBoolToObject(j, "timed_out", r->timed_out);
	/* true on request; the limit's name when a limit ended it. */
	if (r->killed_by != NULL)
		cJSON_AddStringToObject(j, "killed", r->killed_by);
	else
		cJSON_AddBoolToObject(j, "killed", r->killed);
	cJSON_AddNumberToObject(j, "duration_ms", (double)r->duration_ms);
	cJSON_AddItemToObject(j, "stdout", json_bytes(r->out.data, r->out.len));
	cJSON_AddItemToObject(j, "stderr", json_bytes(r->err.data, r->err.len));
	cJSON_AddBoolToObject(j, "stdout_truncated", r->out_truncated);
	cJSON_AddBoolToObject(j, "stderr_truncated", r->err_truncated);
	if (r->changes_known)
		cJSON_AddItemToObject(j, "changes", changes_json(&r->changes));
	else
		cJSON_AddNullToObject(j, "changes");
	cJSON_AddBoolToObject(j, "changes_possible", r->changes_possible);
	if (r->changes_method != NULL)
		cJSON_AddStringToObject(j, "changes_method", r->changes_method);
	else
		cJSON_AddNullToObject(j, "changes_method");
	if (r->changes_scope != NULL)
		cJSON_AddStringToObject(j, "changes_scope", r->changes_scope);
	else
		cJSON_AddNullToObject(j, "changes_scope");
	/* The reasons may hold file names: never invalid UTF-8 out. */
	cJSON_AddItemToObject(j, "changes_widened", cJSON_CreateArray());
	for (size_t i = 0; i < r->changes_widened.n; i++)
		cJSON_AddItemToArray(cJSON_GetObjectItem(j,
		    "changes_widened"), json_bytes(r->changes_widened.v[i],
		    strlen(r->changes_widened.v[i])));
	cJSON_AddItemToObject(j, "undo", result_undo_json(r));
	if (r->git != NULL)
		cJSON_AddItemToObject(j, "git", cJSON_Duplicate(r->git, 1));
	else
		cJSON_AddNullToObject(j, "git");
	cJSON_AddItemToObject(j, "violations",
	    violations_json(&r->violations));
	cJSON_AddItemToObject(j, "attention",
	    attentions_json(&r->attention));
	cJSON_AddItemToObject(j, "executed", executions_json(&r->executed));
	cJSON_AddBoolToObject(j, "executed_truncated", r->executed.truncated);
	cJSON_AddNumberToObject(j, "executed_total",
	    (double)r->executed.total);
	ports = cJSON_AddArrayToObject(j, "project_ports");
	for (size_t i = 0; i < r->project_ports.n; i++)
		cJSON_AddItemToArray(ports, cJSON_CreateNumber(
		    strtod(r->project_ports.v[i], NULL)));
	/* The services reached, named by what listened (a project
	   service, when that was not found). */
	ports = cJSON_AddArrayToObject(j, "project_services");
	for (size_t i = 0; i < r->project_ports.n; i++) {
		cJSON	*o = cJSON_CreateObject();
		const char *who = i < r->project_services.n ?
		    r->project_services.v[i] : "";

		cJSON_AddNumberToObject(o, "port",
		    strtod(r->project_ports.v[i], NULL));
		cJSON_AddStringToObject(o, "command", *who != '\0' ? who :
		    "a project service");
		cJSON_AddItemToArray(ports, o);
	}
	for (size_t i = 0; i < r->violations.n; i++)
		cJSON_ReplaceItemInObject(cJSON_GetArrayItem(
		    cJSON_GetObjectItem(j, "violations"), (int)i), "hint",
		    cJSON_CreateString(r->network != NULL &&
		    r->violations.v[i].reason == VIOLATION_NETWORK ?
		    REPORT_PROXY_HINT : r->loopback_apart &&
		    r->violations.v[i].reason == VIOLATION_LOCAL ?
		    REPORT_APART_HINT : violation_hint_in(&r->violations.v[i],
		    r->project)));
	/* Its background processes: kept as a service, or killed. */
	if (r->service > 0) {
		cJSON	*sv = cJSON_AddObjectToObject(j, "service");

		cJSON_AddNumberToObject(sv, "processes", r->service);
	}
	if (r->background_killed > 0)
		cJSON_AddNumberToObject(j, "background_killed",
		    r->background_killed);
	cJSON_AddBoolToObject(j, "events_lossy", r->events_lossy);
	cJSON_AddItemToObject(j, "sandbox", r->sandbox != NULL ?
	    cJSON_Duplicate(r->sandbox, 1) : cJSON_CreateObject());
	if (r->network != NULL)
		cJSON_AddItemToObject(j, "network",
		    cJSON_Duplicate(r->network, 1));
	cJSON_AddItemToObject(j, "warnings", json_strv(&r->warnings));
	if (r->error != NULL)
		cJSON_AddStringToObject(j, "error", r->error);
	else
		cJSON_AddNullToObject(j, "error");
	if (r->cwd_after != NULL)
		cJSON_AddStringToObject(j, "cwd_after", r->cwd_after);
	if (r->cwd_refused != NULL)
		cJSON_AddStringToObject(j, "cwd_refused", r->cwd_refused);
	return j;
}

int
result_exit_status(const struct result *r)
{
	if (!r->started || r->error != NULL)
		return 125;
	if (r->timed_out)
		return RESULT_TIMED_OUT;	/* as timeout(1): not a kill */
	if (r->signal > 0)
		return 128 + r->signal;
	return r->exit_code < 0 ? 125 : r->exit_code;
}

/* One line: did it fail on its own, or did the sandbox stop it? */
static void
print_verdict(FILE *f, const struct result *r, const cJSON *j)
{
	const char	*how = r->violations.n > 0 && r->violations.v[0].exact ?
			    "" : " (inferred from its error output)";
	const cJSON	*v = cJSON_GetObjectItem(j, "violations");
	size_t		 refused = 0;

	/* What was discarded was not refused, and what the command got
	   past (report_violation_recovered()) did not stop it: listed in a
	   line, not counted. */
	for (size_t i = 0; i < r->violations.n; i++)
		if (r->violations.v[i].reason != VIOLATION_DISCARDED &&
		    !report_violation_recovered(j, cJSON_GetArrayItem(v,
		    (int)i)))
			refused++;

	if (r->killed_by != NULL)
		fprintf(f, "bwgate: killed: %s\n", r->killed_by);
	else if (r->timed_out)
		fprintf(f, "bwgate: timed out after %.1f s and was killed "
		    "(exit status %d)\n", (double)r->duration_ms / 1000,
		    RESULT_TIMED_OUT);
	else if (r->killed)
		fprintf(f, "bwgate: killed on request\n");
	else if (refused > 0 && result_exit_status(r) != 0)
		/* Whether the refusal made it fail, only the command knows
		   (a script may exit 3 on its own after one). */
		fprintf(f, "bwgate: exit %d, and the sandbox refused %zu "
		    "operation(s)%s\n", result_exit_status(r), refused, how);
	else if (refused > 0)
		fprintf(f, "bwgate: exit 0, but the sandbox refused %zu "
		    "operation(s)%s\n", refused, how);
	else if (result_exit_status(r) != 0)
		fprintf(f, "bwgate: exit %d: the command failed on its own "
		    "(the sandbox refused nothing)\n", result_exit_status(r));
}

/* The summary: how it ended, then the report's lines (report-text.c,
   the renderer run, show and the console use too). */
void
result_print_summary(FILE *f, const struct result *r,
    char *(*escape)(const char *))
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { escape, false };
	cJSON			*j;
	char			*e;

	if (r->error != NULL) {
		e = escape(r->error);
		fprintf(f, "bwgate: %s\n", e);
		free(e);
		return;
	}
	j = result_json(r);
	print_verdict(f, r, j);
	report_text_build(j, &o, &t);
	for (size_t i = 0; i < t.n; i++)
		fprintf(f, "bwgate: %s%s\n", report_line_is_path(t.v[i].kind) ||
		    t.v[i].kind == RL_HINT ? "  " : "", t.v[i].text);
	report_text_release(&t);
	cJSON_Delete(j);
}
