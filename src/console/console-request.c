/* console-request: requests: classification, decisions, submission. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "digestcache.h"
#include "filereq.h"
#include "write-proto.h"
#include "engine-spec.h"
#include "jsonutil.h"
#include "limiter.h"
#include "log.h"
#include "netgroups.h"
#include "path.h"
#include "probe.h"
#include "remote.h"
#include "sha256.h"
#include "spawn.h"
#include "stake.h"
#include "xalloc.h"

/* ---- requests ---- */

/* The mounts a request runs with. */
const struct proto_mounts *
console_mounts(const struct request *r)
{
	return r->edited ? &r->edits : &r->asked;
}

/*
 * What exec will run for this request, fixed now, when the operator is
 * shown it: the policy just built, the command, the limits of the
 * configuration (engine-spec.h); and the digests of the rule and
 * configuration files it came from, to tell at start whether they changed.
 */
static void
request_spec(struct console *c, struct request *r,
    const struct sandbox_policy *pol)
{
	struct engine_opts	 o;
	struct strv		 files = STRV_INIT;
	char			 hex[SHA256_HEX_LEN + 1];
	size_t			 memory;

	engine_opts_init(&o);
	sandbox_policy_release(&o.policy);
	sandbox_policy_copy(&o.policy, pol);
	strv_append_all(&o.argv, &r->argv);
	o.command = r->is_argv ? NULL : xstrdup(r->command);
	o.stdin_fd = r->stdin_stream ? 0 : SPAWN_DEVNULL;
	o.merge_output = r->merge_output;
	o.track_cwd = r->track_cwd;
	o.keep_services = true;		/* the console lists and stops them */
	o.timeout_ms = (r->timeout_s > 0 ? r->timeout_s : c->cfg.timeout_s) *
	    1000;
	/* Nobody watches a headless console: never run forever. */
	if (o.timeout_ms == 0 && c->headless)
		o.timeout_ms = c->cfg.headless_timeout_s * 1000;
	/* The profile's limits; the agent may lower them, never raise. */
	config_limits(&c->cfg, r->profile, &memory, &o.limits.pids,
	    &o.limits.cpu_s);
	o.limits.memory = memory;
	if (r->memory >= 1 && (o.limits.memory == 0 ||
	    (uint64_t)r->memory < o.limits.memory))
		o.limits.memory = (uint64_t)r->memory;
	if (r->pids >= 1 && (o.limits.pids == 0 || r->pids < o.limits.pids))
		o.limits.pids = r->pids;
	if (r->cpu_s >= 1 && (o.limits.cpu_s == 0 || r->cpu_s < o.limits.cpu_s))
		o.limits.cpu_s = r->cpu_s;
	o.grace_ms = c->cfg.grace_ms;
	o.output_limit = c->cfg.output_limit;
	strv_append_all(&o.exclude, &c->cfg.exclude);
	strv_append_all(&o.attention, &c->cfg.attention);
	cJSON_Delete(r->spec);
	r->spec = engine_spec_json(&o);
	sha256_strv(&r->bwrap_argv, hex);
	cJSON_AddStringToObject(r->spec, "shown_argv_sha256", hex);
	engine_opts_release(&o);

	cJSON_Delete(r->sources);
	r->sources = cJSON_CreateObject();
	allowlist_files(c->al, &files);
	strv_append_all(&files, &c->cfg.files);
	for (size_t i = 0; i < files.n; i++) {
		if (cJSON_GetObjectItemCaseSensitive(r->sources,
		    files.v[i]) != NULL)
			continue;
		if (digestcache_file(c->digests, files.v[i], hex) != 0)
			strcpy(hex, "unreadable");
		cJSON_AddStringToObject(r->sources, files.v[i], hex);
	}
	strv_release(&files);
}

/* The files a request's spec came from that differ now (NULL: none). */
cJSON *
request_sources_changed(struct console *c, const struct request *r)
{
	const cJSON	*e;
	cJSON		*changed = NULL;
	char		 hex[SHA256_HEX_LEN + 1];

	cJSON_ArrayForEach(e, r->sources) {
		if (digestcache_file(c->digests, e->string, hex) != 0)
			strcpy(hex, "unreadable");
		if (!cJSON_IsString(e) || strcmp(hex, e->valuestring) == 0)
			continue;
		if (changed == NULL)
			changed = cJSON_CreateArray();
		cJSON_AddItemToArray(changed, cJSON_CreateString(e->string));
	}
	return changed;
}

/* The agent's variables inside that the console's own environment does
   not have or has with another value (detail pane, list): usually the
   few the agent set for this command. What bwgate itself sets inside (git
   excludes, identity, HOME) is the same without an agent and not shown. */
static void
request_env_changed(struct request *r, const struct sandbox_policy *pol,
    const struct sandbox *sb)
{
	struct sandbox_policy	 base;
	struct strv		 env = STRV_INIT, plain = STRV_INIT;

	strv_release(&r->env_changed);
	if (!r->has_env)
		return;
	sandbox_env_list(pol, sb, &env);
	sandbox_policy_copy(&base, pol);
	base.env_agent = false;
	sandbox_env_list(&base, sb, &plain);
	sandbox_policy_release(&base);
	for (size_t i = 0; i < env.n; i++) {
		char		*eq = strchr(env.v[i], '='), *mine;
		bool		 show;

		if (strv_contains(&plain, env.v[i]))
			continue;	/* bwgate's own, or the console's */
		*eq = '\0';
		mine = getenv(env.v[i]);
		show = strcmp(env.v[i], "HOME") != 0 &&
		    strcmp(env.v[i], "GIT_OPTIONAL_LOCKS") != 0 &&
		    (mine == NULL || strcmp(mine, eq + 1) != 0);
		*eq = '=';
		if (show)
			strv_push(&r->env_changed, env.v[i]);
	}
	strv_release(&env);
	strv_release(&plain);
}

/* A writable path the operator or agent asked for at or under a
   protected one would be covered by the protected mount and silently
   stay read-only: refuse it with what would work instead. */
static int
request_overlaps_protected(const struct proto_mounts *m,
    const struct sandbox *sb, char **cause)
{
	for (size_t i = 0; i < m->rw.n; i++) {
		for (size_t k = 0; k < sb->nmounts; k++) {
			const struct sandbox_mount *pm = &sb->mounts[k];

			if (pm->kind != MOUNT_PROTECTED ||
			    !path_is_under(m->rw.v[i], pm->path))
				continue;
			*cause = xasprintf("writable path '%s' is inside the "
			    "protected '%s', which stays read-only; approve "
			    "with the git-write profile to write git "
			    "metadata", m->rw.v[i], pm->path);
			return -1;
		}
	}
	return 0;
}

/* The profile a request runs with: the operator's, else the verdict's;
   sandboxed mode runs what it runs unasked with the project profile, so
   a read-only command is then in the project's world (its services, its
   /tmp), as any command of the project would be without a question
   (pod.h). */
static void
request_profile(struct console *c, struct request *r)
{
	const char	*p = r->op_profile;

	if (p == NULL && c->auto_sandboxed && r->profile != NULL &&
	    strcmp(r->profile, "readonly") == 0)
		p = "project";
	if (p == NULL)
		return;
	free(r->profile);
	r->profile = xstrdup(p);
}

/* Classify a request's command and build its dry-run sandbox argv. */
void
request_classify(struct console *c, struct request *r)
{
	struct classification	 cl = CLASSIFICATION_INIT;
	struct sandbox_policy	 pol;
	struct sandbox		 sb = SANDBOX_INIT;
	const struct proto_mounts *m = console_mounts(r);
	char			*cause = NULL;
	bool			 needs_net = false;

	sandbox_policy_init(&pol);
	free(r->error);
	r->error = NULL;
	(void)sandbox_policy_set_dirs(&pol, c->project, r->cwd, &cause);
	/* A file write is classified by its path, as a command writing it
	   would be (filereq_classify); its argv is bwgate's own. */
	if (r->file_write)
		filereq_classify(c->al, r->write_path, r->write_exec,
		    &c->cfg.protected, &c->cfg.attention, &cl);
	else if (r->is_argv)
		allowlist_classify_argv(c->al, &r->argv, &cl);
	else
		allowlist_classify(c->al, r->command, &cl);
	/* git's rule holds for the project's own repository only: below the
	   top directory there may be another one. */
	if (cause == NULL)
		classification_at(&cl, pol.project, pol.cwd);
	r->verdict = cl.verdict;
	free(r->rule);
	r->rule = cl.rule != NULL ? xstrdup(cl.rule) : NULL;
	free(r->reason);
	r->reason = xstrdup(cl.reason != NULL ? cl.reason : "");
	free(r->profile);
	r->profile = cl.profile != NULL ? xstrdup(cl.profile) : NULL;
	free(r->needs);
	r->needs = cl.needs_reason != NULL ?
	    xasprintf("%s: %s", cl.needs, cl.needs_reason) : NULL;
	r->needs_at_once = cl.needs_at_once;
	/* The network the needs table gives is any host; hosts the request
	   names are what it asked for instead (the proxy's). */
	needs_net = cl.needs_profile != NULL && r->verdict != VERDICT_ALLOW &&
	    strstr(cl.needs_profile, "network") != NULL;
	free(r->at_stake);
	r->undo_restores = false;
	/* Every delete, danger or not (deletes.json), says what it puts at
	   stake; undo_restores counts for danger only. */
	r->at_stake = cl.stake != NULL ? stake_judge(c->project, r->cwd,
	    cl.stake, &cl.targets, cl.measured, &r->undo_restores) : NULL;
	classification_release(&cl);
	request_profile(c, r);

	/* More than the profile gives always needs a person. */
	if (r->verdict == VERDICT_ALLOW && !proto_mounts_empty(&r->asked)) {
		char *s = xasprintf("%s; but the request asks for network "
		    "or extra paths, which needs an operator", r->reason);

		free(r->reason);
		r->reason = s;
		r->verdict = VERDICT_ASK;
	}
	/* So does an agent's variable that runs other code. */
	request_env_verdict(r);
	/* Refused at the edge (an adapter's own rule): denied here, on the
	   record like a deny rule's refusal, never run. */
	if (r->refused != NULL) {
		char *s = xasprintf("refused by %s: %s", r->tag != NULL ?
		    r->tag : "the agent's adapter", r->refused);

		free(r->reason);
		r->reason = s;
		free(r->rule);
		r->rule = NULL;
		r->verdict = VERDICT_DENY;
	}

	if (cause != NULL)
		goto fail;
	config_apply(&c->cfg, &pol);
	if (r->profile != NULL && allowlist_profile_apply(c->al, r->profile,
	    &pol, &cause) != 0)
		goto fail;
	/* Off means off, even when the profile has it: the argv shown is
	   the one that runs (exec takes this policy as it is). */
	if (m->network != -1)
		pol.network = m->network == 1;
	else if (needs_net && m->domains.n > 0 && r->op_profile == NULL)
		pol.network = false;
	for (size_t i = 0; i < m->rw.n; i++)
		strv_push(&pol.rw_paths, m->rw.v[i]);
	for (size_t i = 0; i < m->ro.n; i++)
		strv_push(&pol.ro_paths, m->ro.v[i]);
	for (size_t i = 0; i < m->hide.n; i++)
		strv_push(&pol.hide_paths, m->hide.v[i]);
	/* Named hosts, groups expanded: the policy exec gets is final. */
	if (m->network == 0)
		strv_release(&pol.domains);
	if (netgroups_expand(&m->domains, &pol.domains, &cause) != 0)
		goto fail;
	/* With named hosts, those the operator allowed for the project. */
	if (sandbox_policy_proxied(&pol) && allowlist_hosts(c->al,
	    &pol.domains, &cause) != 0)
		goto fail;
	pol.env_agent = r->has_env;
	strv_append_all(&pol.env_in, &r->env);
	/* The host's git identity, as exec adds it (the agent's wins). */
	for (size_t i = 0; i < c->git_identity.n; i++) {
		const char	*kv = c->git_identity.v[i];
		size_t		 n = strcspn(kv, "=") + 1;
		bool		 given = false;

		for (size_t k = 0; r->has_env && k < r->env.n; k++)
			given = given || strncmp(r->env.v[k], kv, n) == 0;
		if (!given)
			strv_push(&pol.env_set, kv);
	}
	if (sandbox_build(&pol, &c->probe, SANDBOX_DRY, &sb, &cause) != 0)
		goto fail;
	if (request_overlaps_protected(m, &sb, &cause) != 0)
		goto fail;
	request_env_changed(r, &pol, &sb);
	r->writes = !pol.project_readonly;
	r->network = sb.network;
	strv_release(&r->domains);
	if (sb.proxied)
		strv_append_all(&r->domains, &pol.domains);
	strv_release(&r->bwrap_argv);
	strv_append_all(&r->bwrap_argv, &sb.argv);
	for (size_t i = 0; i < r->argv.n; i++)
		strv_push(&r->bwrap_argv, r->argv.v[i]);
	cJSON_Delete(r->mounts);
	r->mounts = sandbox_mounts_json(&sb);
	request_spec(c, r, &pol);
	sandbox_release(&sb);
	sandbox_policy_release(&pol);
	return;
fail:
	cJSON_Delete(r->spec);
	r->spec = NULL;
	r->error = xasprintf("cannot build the sandbox: %s", cause);
	r->writes = true;
	free(cause);
	sandbox_release(&sb);
	sandbox_policy_release(&pol);
}

/* The "queued" message. */
static cJSON *
request_queued_json(const struct request *r)
{
	return proto_out_json(&(struct proto_out){
	    .type = PROTO_R_QUEUED, .id = r->id, .tag = r->tag,
	    .command = r->command, .cwd = r->cwd,
	    .verdict = verdict_name(r->verdict), .rule = r->rule,
	    .reason = r->reason, .profile = r->profile,
	    .writes_project = &r->writes, .bwrap_argv = &r->bwrap_argv,
	    .mounts = r->mounts, .error = r->error });
}

/* Audit, tell the agent and the front end about a new request. */
int
request_announce(struct console *c, struct request *r)
{
	cJSON	*rec = audit_record("request", r);

	cJSON_AddItemToObject(rec, "request", request_json(r));
	cJSON_AddItemToObject(rec, "bwrap_argv", json_strv(&r->bwrap_argv));
	if (console_audit(c, rec) != 0)
		return -1;
	request_send(r, request_queued_json(r));
	LOG("request %u queued (%s)", r->id, verdict_name(r->verdict));
	console_emit_request(c, CONSOLE_EV_ADDED, r);
	return 0;
}

/* Deny a pending request without a person (rule, headless, console). */
void
request_auto_deny(struct console *c, struct request *r, enum request_by by,
    const char *note)
{
	char	*cause = NULL;

	if (queue_decide(&c->q, r, false, by, NULL, note, &cause) != 0) {
		free(cause);
		return;
	}
	request_decided(c, r);
}

/* Deny a pending request after its approval timeout. */
static void
request_approval_timeout(void *arg)
{
	struct request	*r = arg;
	struct job	*jb = r->owner;
	char		*note;

	jb->approval_timer = 0;
	if (r->state != REQUEST_PENDING)
		return;
	note = xasprintf("no decision within %d seconds",
	    jb->c->approval_timeout_s);
	request_auto_deny(jb->c, r, BY_TIMEOUT, note);
	free(note);
}

/*
 * Sandboxed mode: may the request run at once, unreviewed? Only when all
 * it gets is the project profile or less (the project writable, protected
 * paths read-only, no network, no extra paths) and no rule or danger
 * pattern speaks against it. Anything more asks the operator.
 */
static bool
request_fits_project(const struct request *r)
{
	const char	*p = r->profile != NULL ? r->profile : "project";

	/* A delete inside the project that undo puts back whole (or that
	   deletes nothing) is no danger here; what a rule named is. */
	if (r->verdict == VERDICT_DANGER && r->undo_restores &&
	    r->rule == NULL)
		return r->error == NULL && !r->network &&
		    r->op_profile == NULL && r->needs == NULL &&
		    proto_mounts_empty(&r->asked) && strcmp(p, "project") == 0;
	if (r->verdict != VERDICT_ASK && r->verdict != VERDICT_ALLOW)
		return false;
	if (r->error != NULL || r->network || r->op_profile != NULL ||
	    (r->needs != NULL && !r->needs_at_once) ||
	    !proto_mounts_empty(&r->asked))
		return false;
	/* git add, commit, stash, switch: git metadata that git-write's
	   protections keep to data and undo covers; curl localhost:PORT:
	   the project's services, reached with their access, the project
	   profile this mode gives anyway (needs.json at_once; never with a
	   rule of verdict ask). */
	if (r->needs_at_once)
		return strcmp(p, "git-write") == 0 ||
		    strcmp(p, "project") == 0;
	/* A rule that did not cover the command names a reason to look:
	   only asks that no rule made are the sandbox's to take. */
	if (r->verdict == VERDICT_ASK && r->rule != NULL)
		return false;
	return strcmp(p, "project") == 0 || strcmp(p, "readonly") == 0;
}

/* The first decision: by rule, by the headless rule, or wait. */
void
request_first_decision(struct console *c, struct request *r,
    const char *operator)
{
	struct job	*jb = r->owner;
	char		*cause = NULL;

	if (c->shutting_down) {
		request_auto_deny(c, r, BY_CONSOLE,
		    "the console is shutting down");
		return;
	}
	if (r->error != NULL) {
		request_auto_deny(c, r, BY_CONSOLE, r->error);
		return;
	}
	if (r->verdict == VERDICT_DENY) {
		request_auto_deny(c, r, BY_ALLOWLIST, r->reason);
		return;
	}
	if (operator != NULL) {
		if (queue_decide(&c->q, r, true, BY_OPERATOR, operator,
		    NULL, &cause) == 0)
			request_decided(c, r);
		free(cause);
		return;
	}
	if (r->verdict == VERDICT_ALLOW && c->auto_allowlisted) {
		if (queue_decide(&c->q, r, true, BY_ALLOWLIST, r->rule, NULL,
		    &cause) == 0)
			request_decided(c, r);
		free(cause);
		return;
	}
	if (c->auto_sandboxed && request_fits_project(r)) {
		if (queue_decide(&c->q, r, true, BY_SANDBOX, "not reviewed",
		    NULL, &cause) == 0)
			request_decided(c, r);
		free(cause);
		return;
	}
	if (c->headless && c->auto_sandboxed && !c->unlisted_wait) {
		char *note = xasprintf("the command needs more than the "
		    "project sandbox (%s) and this console runs headless "
		    "with --auto-sandboxed", r->needs != NULL ? r->needs :
		    r->verdict == VERDICT_DANGER ? "danger: a deliberate "
		    "confirmation" : r->rule != NULL ? "a rule asks for a "
		    "person" : "network, extra paths or another profile");

		request_auto_deny(c, r, BY_HEADLESS, note);
		free(note);
		return;
	}
	/* --unlisted wait: the rest waits for the operator on the control
	   socket, like any headless console's. */
	if (c->headless && c->auto_allowlisted && !c->unlisted_wait) {
		request_auto_deny(c, r, BY_HEADLESS, "the command needs an "
		    "operator's approval and this console runs headless "
		    "with --auto-allowlisted (only allowlisted commands run)");
		return;
	}
	if (c->approval_timeout_s > 0)
		jb->approval_timer = loop_timer(c->loop,
		    (int64_t)c->approval_timeout_s * 1000,
		    request_approval_timeout, r);
	/* It waits for the operator. */
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
}

/* A new job record for a request. */
struct job *
job_new(struct console *c, struct request *r, struct conn *cn)
{
	struct job	*jb = xcalloc(1, sizeof *jb);

	jb->c = c;
	jb->r = r;
	jb->conn = cn;
	jb->pid = -1;
	jb->in_fd = -1;
	jb->ask_fd = -1;
	for (int i = 0; i < JOB_NFDS; i++)
		jb->fds[i] = -1;
	jb->evrd = (struct proto_reader)PROTO_READER_INIT;
	jb->events = cJSON_CreateArray();
	r->owner = jb;
	return jb;
}

/* Close a job's pipes and cancel its timers (the record stays). */
static void
job_stop_io(struct job *jb)
{
	struct loop	*l = jb->c->loop;

	hostask_close(jb);
	for (int i = 0; i < JOB_NFDS; i++) {
		if (jb->fds[i] != -1) {
			loop_remove(l, jb->fds[i]);
			close(jb->fds[i]);
			jb->fds[i] = -1;
		}
	}
	if (jb->in_fd != -1) {
		loop_remove(l, jb->in_fd);
		close(jb->in_fd);
		jb->in_fd = -1;
	}
	jb->in_closed = true;
	buf_release(&jb->in);
	conn_pause(jb->conn, false);
	if (jb->kill_timer != 0)
		loop_cancel(l, jb->kill_timer);
	if (jb->drain_timer != 0)
		loop_cancel(l, jb->drain_timer);
	if (jb->approval_timer != 0)
		loop_cancel(l, jb->approval_timer);
	jb->kill_timer = jb->drain_timer = jb->approval_timer = 0;
	buf_release(&jb->json);
	proto_reader_release(&jb->evrd);
}

/* Free a job entirely. */
void
job_free(struct job *jb)
{
	if (jb == NULL)
		return;
	job_stop_io(jb);
	buf_release(&jb->log);
	cJSON_Delete(jb->events);
	jb->r->owner = NULL;
	free(jb);
}

/* Forget the oldest ended requests. */
static void
console_prune(struct console *c)
{
	struct request	*r, *next;
	size_t		 ended = 0;

	TAILQ_FOREACH(r, &c->q.requests, entry)
		if (request_ended(r))
			ended++;
	for (r = TAILQ_FIRST(&c->q.requests);
	    r != NULL && ended > CONSOLE_HISTORY_KEEP; r = next) {
		next = TAILQ_NEXT(r, entry);
		/* One whose service runs stays: S reaches it there. */
		if (!request_ended(r) || console_service(c, r->id) != NULL)
			continue;
		console_emit_request(c, CONSOLE_EV_REMOVED, r);
		spool_drop(c, r->id);
		job_free(r->owner);
		remote_forget(r);
		queue_remove(&c->q, r);
		ended--;
	}
}

/* After a request ended: release what it held. */
void
request_ended_cleanup(struct console *c, struct request *r)
{
	struct job	*jb = r->owner;

	if (jb != NULL) {
		job_stop_io(jb);
		jb->conn = NULL;
	}
	console_prune(c);
}

/* A decision (or withdrawal) was made: audit, tell, go on. */
void
request_decided(struct console *c, struct request *r)
{
	struct job	*jb = r->owner;
	cJSON		*rec;
	bool		 withdrawn = r->state == REQUEST_WITHDRAWN;

	if (jb != NULL && jb->approval_timer != 0) {
		loop_cancel(c->loop, jb->approval_timer);
		jb->approval_timer = 0;
	}
	rec = audit_record(withdrawn ? "withdrawn" : "decision", r);
	cJSON_AddStringToObject(rec, "decision",
	    request_state_name(r->state));
	cJSON_AddStringToObject(rec, "by", request_by_name(r->by));
	if (r->who != NULL)
		cJSON_AddStringToObject(rec, "who", r->who);
	if (r->note != NULL)
		cJSON_AddStringToObject(rec, "note", r->note);
	if (r->edited) {
		cJSON_AddItemToObject(rec, "edits",
		    proto_mounts_json(&r->edits));
		cJSON_AddItemToObject(rec, "bwrap_argv",
		    json_strv(&r->bwrap_argv));
	}
	/* The argv the decision was made on (the start record and the
	   report name the one that ran). */
	if (r->bwrap_argv.n > 0) {
		char	hex[SHA256_HEX_LEN + 1];

		sha256_strv(&r->bwrap_argv, hex);
		cJSON_AddStringToObject(rec, "argv_sha256", hex);
	}
	console_audit(c, rec);

	request_send(r, proto_out_json(&(struct proto_out){
	    .type = withdrawn ? PROTO_R_WITHDRAWN : PROTO_R_DECIDED,
	    .id = r->id, .tag = r->tag,
	    .decision = request_state_name(r->state),
	    .by = request_by_name(r->by), .who = r->who, .note = r->note,
	    /* The argv the operator's mount edits made. */
	    .edits = r->edited ? &r->edits : NULL,
	    .bwrap_argv = r->edited ? &r->bwrap_argv : NULL }));
	console_emit_request(c, CONSOLE_EV_CHANGED, r);
	if (request_ended(r))
		request_ended_cleanup(c, r);
	else
		console_schedule(c);
}

/* Make a request from a decoded submit (conn NULL: FIFO or front end). */
uint32_t
console_submit_msg(struct console *c, struct conn *cn, struct proto_msg *m,
    const char *agent, char **cause)
{
	_cleanup_free_ char	*cwd = NULL;

	LOG("submit received");
	struct filereq		 fr = FILEREQ_INIT;
	struct request		*r;
	struct stat		 st;
	const char		*shell;

	if (c->shutting_down) {
		*cause = xstrdup("the console is shutting down");
		return 0;
	}
	/* Nothing new is taken on while nothing could start. */
	if (c->audit_failing != NULL) {
		*cause = xasprintf("the audit log cannot be written (%s): no "
		    "command starts until it can", c->audit_failing);
		return 0;
	}
	/* A file write runs the helper at the project root. */
	if (m->write_path != NULL && filereq_build(c->project, m->write_path,
	    m->write_content, m->write_len, &fr, cause) != 0) {
		filereq_release(&fr);
		return 0;
	}
	cwd = path_canonical(m->cwd != NULL && m->write_path == NULL ?
	    m->cwd : c->project, cause);
	if (cwd == NULL)
		return 0;
	if (stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("cwd '%s' is not a directory", m->cwd);
		return 0;
	}
	if (!path_is_under(cwd, c->project)) {
		*cause = xasprintf("cwd '%s' is outside the project '%s'",
		    m->cwd, c->project);
		return 0;
	}

	r = queue_add(&c->q);
	job_new(c, r, cn);
	r->agent = xstrdup(m->agent != NULL ? m->agent : agent);
	r->description = m->description != NULL ?
	    xstrdup(m->description) : NULL;
	r->refused = m->refused != NULL ? xstrdup(m->refused) : NULL;
	r->tag = m->tag != NULL ? xstrdup(m->tag) : NULL;
	r->cwd = steal_pointer(&cwd);
	r->timeout_s = m->timeout_s;
	r->memory = m->memory;
	r->pids = m->pids;
	r->cpu_s = m->cpu_s;
	proto_mounts_copy(&r->asked, &m->mounts);
	r->has_env = m->has_env;
	/* Secret-looking names stay out unless the configuration names
	   them (the sandbox filters again; this keeps them out of the
	   queue, the audit log and the exec command line). */
	for (size_t i = 0; i < m->env.n; i++) {
		const char	*kv = m->env.v[i];
		char		*name = xstrndup(kv, strcspn(kv, "="));

		if (!sandbox_env_is_secret(name) ||
		    strv_contains(&c->cfg.env_pass, name))
			strv_push(&r->env, kv);
		free(name);
	}
	r->stdin_stream = m->stdin_stream && cn != NULL;
	r->merge_output = m->merge_output;
	/* Only a shell string has a directory it ends in. */
	r->track_cwd = m->track_cwd && m->command != NULL &&
	    m->write_path == NULL;
	strv_append_all(&r->shell_options, &m->shell_options);
	strv_append_all(&r->args, &m->args);
	shell = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
	if (m->write_path != NULL) {
		/* Data on the helper's stdin, never shell text (filereq.h). */
		r->file_write = true;
		r->command = steal_pointer(&fr.title);
		r->write_path = steal_pointer(&fr.rel);
		r->write_diff = steal_pointer(&fr.diff);
		r->write_bytes = fr.len;
		r->write_exec = fr.executable;
		r->is_argv = true;
		strv_push(&r->argv, SANDBOX_HELPER_PATH);
		strv_push(&r->argv, WRITE_PROTO_ARG);
		r->stdin_stream = true;
		job_input(r->owner, fr.message, fr.message_len, true);
		filereq_release(&fr);
	} else if (m->command != NULL) {
		r->command = xstrdup(m->command);
		strv_push(&r->argv, shell);
		for (size_t i = 0; i < m->shell_options.n; i++)
			strv_push(&r->argv, m->shell_options.v[i]);
		strv_push(&r->argv, "-c");
		strv_push(&r->argv, m->command);
		for (size_t i = 0; i < m->args.n; i++)
			strv_push(&r->argv, m->args.v[i]);
	} else {
		r->is_argv = true;
		strv_append_all(&r->argv, &m->argv);
		r->command = strv_join(&m->argv, " ", true);
	}
	request_classify(c, r);
	if (request_announce(c, r) != 0) {
		/* Never run what the audit log does not show. */
		request_auto_deny(c, r, BY_CONSOLE,
		    "cannot write the audit log");
		return r->id;
	}
	request_first_decision(c, r, NULL);
	return r->id;
}

/* Submit a command string from a front end (like a FIFO line). */
uint32_t
console_submit(struct console *c, const char *command, const char *agent,
    char **cause)
{
	struct proto_msg	m = PROTO_MSG_INIT;
	uint32_t		id;

	m.command = xstrdup(command);
	id = console_submit_msg(c, NULL, &m, agent != NULL ? agent :
	    "console", cause);
	proto_msg_release(&m);
	return id;
}
