/*
 * cmd-exec: `bwgate exec [options] -- COMMAND [ARG...]`: run one command in
 * the sandbox and report what it did. The console runs every approved
 * request through this, with --json-fd and --events-fd.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include "display.h"
#include "allowlist.h"
#include "cmd.h"
#include "config.h"
#include "engine.h"
#include "engine-spec.h"
#include "guard.h"
#include "gitid.h"
#include "jsonutil.h"
#include "netask.h"
#include "netgroups.h"
#include "path.h"
#include "xalloc.h"

enum {
	OPT_JSON_FD = 256, OPT_EVENTS_FD, OPT_NO_MONITOR, OPT_HIDE,
	OPT_OUTPUT_LIMIT, OPT_CONFIG, OPT_COMMAND, OPT_PROFILE, OPT_NO_OBSERVE,
	OPT_NO_NETWORK, OPT_CHANGES, OPT_POLICY_FD, OPT_PRESTART, OPT_MEMORY,
	OPT_PIDS,
	OPT_CPU,
	OPT_ENV, OPT_AGENT_ENV, OPT_DOMAIN, OPT_ASK_FD,
};

static const struct option exec_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "cwd", required_argument, NULL, 'C' },
	{ "network", no_argument, NULL, 'n' },
	{ "no-network", no_argument, NULL, OPT_NO_NETWORK },
	{ "domain", required_argument, NULL, OPT_DOMAIN },
	{ "ask-fd", required_argument, NULL, OPT_ASK_FD },
	{ "rw", required_argument, NULL, 'w' },
	{ "ro", required_argument, NULL, 'r' },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "timeout", required_argument, NULL, 't' },
	{ "json", no_argument, NULL, 'j' },
	{ "json-fd", required_argument, NULL, OPT_JSON_FD },
	{ "events-fd", required_argument, NULL, OPT_EVENTS_FD },
	{ "events", required_argument, NULL, OPT_EVENTS_FD },
	{ "quiet", no_argument, NULL, 'q' },
	{ "no-monitor", no_argument, NULL, OPT_NO_MONITOR },
	{ "no-observe", no_argument, NULL, OPT_NO_OBSERVE },
	{ "changes", required_argument, NULL, OPT_CHANGES },
	{ "output-limit", required_argument, NULL, OPT_OUTPUT_LIMIT },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "command", required_argument, NULL, OPT_COMMAND },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "policy-fd", required_argument, NULL, OPT_POLICY_FD },
	{ "prestart", no_argument, NULL, OPT_PRESTART },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "agent-env", no_argument, NULL, OPT_AGENT_ENV },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
exec_usage(FILE *f)
{
	fprintf(f, "usage: bwgate exec [--project DIR] [--cwd DIR] [--[no-]network] "
	    "[--domain [private:]HOST[:PORT]|@GROUP]...\n"
	    "                   [--rw PATH]... [--ro PATH]...\n"
	    "                   [--hide PATH]... [--profile NAME] "
	    "[--timeout SECONDS] [--json] [--quiet]\n"
	    "                   [--json-fd FD] [--events-fd FD] "
	    "[--output-limit BYTES] [--config FILE]\n"
	    "                   [--memory SIZE] [--pids N] [--cpu SECONDS] "
	    "[--no-monitor]\n"
	    "                   [--agent-env] [--env NAME=VALUE]...\n"
	    "                   [--changes auto|snapshot] -- COMMAND [ARG...]\n"
	    "       bwgate exec --policy-fd FD [--prestart] [--json] "
	    "[--quiet] [--json-fd FD] [--events-fd FD]\n"
	    "                   [--ask-fd FD]\n");
}

/* How the change report is made: "auto" (recorded calls where the kernel
   notifies them) or "snapshot" (always scan the project). */
static int
set_changes(struct engine_opts *o, const char *v, const char *what)
{
	if (strcmp(v, "auto") == 0 || strcmp(v, "syscalls") == 0)
		o->force_snapshot = false;
	else if (strcmp(v, "snapshot") == 0)
		o->force_snapshot = true;
	else {
		fprintf(stderr, "bwgate: bad %s '%s': want auto or snapshot\n",
		    what, v);
		return -1;
	}
	return 0;
}

/* A descriptor number from the command line that is open for writing. */
static int
parse_fd(const char *s, const char *opt)
{
	char	*end;
	long	 v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v > INT_MAX ||
	    fcntl((int)v, F_GETFD) < 0) {
		fprintf(stderr, "bwgate: %s: '%s' is not an open descriptor\n",
		    opt, s);
		return -1;
	}
	fcntl((int)v, F_SETFD, FD_CLOEXEC);
	return (int)v;
}

static int
parse_number(const char *s, const char *opt, double max, double *out)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < 0 || v > max) {
		fprintf(stderr, "bwgate: %s: invalid value '%s'\n", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * --policy-fd: everything about the run comes from the spec the console
 * wrote (engine-spec.h); options that would change the sandbox, and a
 * command after "--", are refused rather than merged.
 */
static int
exec_from_spec(int fd, bool other, int argc, int optind_, struct engine_opts *o,
    char **shown)
{
	char	*cause = NULL;

	if (other || optind_ < argc) {
		fprintf(stderr, "bwgate: exec: --policy-fd takes the whole "
		    "policy and command; no other policy option or command "
		    "may be given\n");
		return -1;
	}
	if (engine_spec_read_fd(fd, o, shown, &cause) != 0) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return -1;
	}
	close(fd);
	return 0;
}

/* Say in the report whether the argv built is the one that was shown. */
static void
exec_note_shown(struct result *r, const char *shown)
{
	const cJSON	*a;

	if (shown == NULL || r->sandbox == NULL)
		return;
	a = cJSON_GetObjectItem(r->sandbox, "argv_sha256");
	cJSON_AddStringToObject(r->sandbox, "shown_argv_sha256", shown);
	cJSON_AddBoolToObject(r->sandbox, "as_shown", cJSON_IsString(a) &&
	    strcmp(a->valuestring, shown) == 0);
}

/* A size in bytes with an optional K, M or G (binary) suffix; 0: none. */
static int
parse_size(const char *s, const char *opt, double *out)
{
	char	*end;
	double	 v, unit = 1;

	errno = 0;
	v = strtod(s, &end);
	if (*end == 'K' || *end == 'k')
		unit = 1024;
	else if (*end == 'M' || *end == 'm')
		unit = 1024 * 1024;
	else if (*end == 'G' || *end == 'g')
		unit = 1024 * 1024 * 1024;
	if (unit != 1)
		end++;
	if (*s == '\0' || *end != '\0' || errno != 0 || v < 0 ||
	    v * unit > 1e15) {
		fprintf(stderr, "bwgate: %s: invalid size '%s'\n", opt, s);
		return -1;
	}
	*out = v * unit;
	return 0;
}

/* Write the report to fd (stdout for --json). */
static void
emit_json(int fd, const struct result *r)
{
	cJSON	*j = result_json(r);
	char	*s = json_line(j);
	size_t	 n = strlen(s);

	s = xrealloc(s, n + 2);
	s[n++] = '\n';
	(void)write_full(fd, s, n);
	free(s);
	cJSON_Delete(j);
}

/* Can a command under this policy write the project's .git (commit)? */
static bool
exec_git_writes(const struct sandbox_policy *pol)
{
	char	*git;
	bool	 yes = pol->git_writable;

	if (pol->project == NULL)
		return yes;
	git = path_join(pol->project, ".git");
	for (size_t i = 0; !yes && i < pol->rw_paths.n; i++)
		yes = path_is_under(pol->rw_paths.v[i], git) ||
		    (path_is_under(git, pol->rw_paths.v[i]) &&
		    strcmp(pol->rw_paths.v[i], pol->project) != 0);
	free(git);
	return yes;
}

/* Once: why the project's rule file is ignored (bwgate(1): it never
   keeps bwgate from running). */
static void
exec_rules_warning(const struct allowlist *al, bool *warned)
{
	if (*warned || allowlist_project_error(al) == NULL)
		return;
	fprintf(stderr, "bwgate: warning: %s\n",
	    display_str(allowlist_project_error(al)));
	*warned = true;
}

/* What the command line said, before it becomes a policy. */
struct exec_args {
	struct strv	 rw, ro, hide, domains, env;
	const char	*project, *cwd, *cfgfile, *profile;
	bool		 other;		/* something of a policy or command */
	bool		 prestart, json, quiet, agent_env;
	int		 policy_fd, json_fd, ask_fd;
	bool		 reported;	/* the report is out (a service) */
	char		**shown;	/* the argv's digest shown, for it */
	int		 network;	/* -1: as configured */
	double		 timeout, limit, memory, pids, cpu;
};

#define EXEC_ARGS_INIT { .rw = STRV_INIT, .ro = STRV_INIT, \
	.hide = STRV_INIT, .domains = STRV_INIT, .env = STRV_INIT, \
	.policy_fd = -1, .json_fd = -1, .ask_fd = -1, .network = -1, \
	.timeout = -1, .limit = -1, .memory = -1, .pids = -1, .cpu = -1 }

/* The options into a and o; -1 to stop with *status (0 after --help). */
static int
exec_parse(int argc, char **argv, struct exec_args *a,
    struct engine_opts *o, int *status)
{
	int	c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:C:nw:r:t:jqh", exec_options,
	    NULL)) != -1) {
		switch (c) {
		case 'p': a->project = optarg; a->other = true; break;
		case 'C': a->cwd = optarg; a->other = true; break;
		case 'n': a->network = 1; a->other = true; break;
		case OPT_NO_NETWORK: a->network = 0; a->other = true; break;
		case OPT_DOMAIN: strv_push(&a->domains, optarg);
			a->other = true;
			break;
		case 'w': strv_push(&a->rw, optarg); a->other = true; break;
		case 'r': strv_push(&a->ro, optarg); a->other = true; break;
		case OPT_HIDE: strv_push(&a->hide, optarg); a->other = true;
			break;
		case OPT_POLICY_FD:
			if ((a->policy_fd = parse_fd(optarg, "--policy-fd")) < 0)
				return -1;
			break;
		case 't':
			a->other = true;
			if (parse_number(optarg, "--timeout", 1e7, &a->timeout))
				return -1;
			break;
		case 'j': a->json = true; break;
		case 'q': a->quiet = true; break;
		case OPT_JSON_FD:
			if ((a->json_fd = parse_fd(optarg, "--json-fd")) < 0)
				return -1;
			break;
		case OPT_EVENTS_FD:
			if ((o->events_fd = parse_fd(optarg, "--events-fd")) < 0)
				return -1;
			break;
		case OPT_ASK_FD:
			if ((a->ask_fd = parse_fd(optarg, "--ask-fd")) < 0)
				return -1;
			break;
		case OPT_NO_MONITOR: o->monitor = false; break;
		case OPT_PRESTART: a->prestart = true; break;
		case OPT_NO_OBSERVE: o->observe = false; break;
		case OPT_CHANGES:
			if (set_changes(o, optarg, "--changes") != 0)
				return -1;
			break;
		case OPT_OUTPUT_LIMIT:
			a->other = true;
			if (parse_number(optarg, "--output-limit", 1e12,
			    &a->limit))
				return -1;
			break;
		case OPT_CONFIG: a->cfgfile = optarg; a->other = true; break;
		case OPT_COMMAND:
			a->other = true;
			free(o->command);
			o->command = xstrdup(optarg);
			break;
		case OPT_PROFILE: a->profile = optarg; a->other = true; break;
		case OPT_MEMORY:
			a->other = true;
			if (parse_size(optarg, "--memory", &a->memory))
				return -1;
			break;
		case OPT_PIDS:
			a->other = true;
			if (parse_number(optarg, "--pids", 1e7, &a->pids))
				return -1;
			break;
		case OPT_CPU:
			a->other = true;
			if (parse_number(optarg, "--cpu", 1e7, &a->cpu))
				return -1;
			break;
		case OPT_ENV:
			a->other = true;
			if (strchr(optarg, '=') == NULL || *optarg == '=') {
				fprintf(stderr, "bwgate: --env: '%s' is not "
				    "NAME=VALUE\n", optarg);
				return -1;
			}
			strv_push(&a->env, optarg);
			break;
		case OPT_AGENT_ENV: a->agent_env = true; a->other = true;
			break;
		case 'h':
			exec_usage(stdout);
			*status = 0;
			return -1;
		default:
			exec_usage(stderr);
			return -1;
		}
	}
	return 0;
}

/* Profile and hosts from the rule files; -1 with a message. */
static int
exec_profile_hosts(struct exec_args *a, struct engine_opts *o, char **cause)
{
	bool	warned = false;

	if (a->profile != NULL) {
		struct allowlist *al = allowlist_load_profiles(
		    o->policy.project, cause);

		if (al == NULL || allowlist_profile_apply(al, a->profile,
		    &o->policy, cause) != 0) {
			fprintf(stderr, "bwgate: %s\n", display_str(*cause));
			allowlist_free(al);
			return -1;
		}
		exec_rules_warning(al, &warned);
		allowlist_free(al);
	}
	if (a->network >= 0)
		o->policy.network = a->network == 1;
	/* --no-network: no host at all, the profile's named ones neither. */
	if (a->network == 0)
		strv_release(&o->policy.domains);
	if (netgroups_expand(&a->domains, &o->policy.domains, cause) != 0) {
		fprintf(stderr, "bwgate: --domain: %s\n", display_str(*cause));
		return -1;
	}
	/* With named hosts, those the operator allowed for the project
	   (their own rule files' "domains"). */
	if (sandbox_policy_proxied(&o->policy)) {
		struct allowlist *al = allowlist_load_profiles(
		    o->policy.project, cause);

		if (al == NULL || allowlist_hosts(al, &o->policy.domains,
		    cause) != 0) {
			fprintf(stderr, "bwgate: %s\n", display_str(*cause));
			allowlist_free(al);
			return -1;
		}
		exec_rules_warning(al, &warned);
		allowlist_free(al);
	}
	return 0;
}

/* The command line and the configuration into o's policy, limits and
   argv; -1 with a message. */
static int
exec_policy(struct exec_args *a, struct config *cfg, struct engine_opts *o,
    int argc, char **argv)
{
	char	*cause = NULL;
	size_t	 cfg_memory;
	int	 cfg_pids, cfg_cpu;

	if (config_load(cfg, a->cfgfile, &cause) != 0 ||
	    sandbox_policy_set_dirs(&o->policy, a->project, a->cwd,
	    &cause) != 0 || guard_project(o->policy.project, &cause) != 0) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return -1;
	}
	config_apply(cfg, &o->policy);
	if (exec_profile_hosts(a, o, &cause) != 0) {
		free(cause);
		return -1;
	}
	strv_append_all(&o->policy.rw_paths, &a->rw);
	strv_append_all(&o->policy.ro_paths, &a->ro);
	strv_append_all(&o->policy.hide_paths, &a->hide);
	strv_append_all(&o->exclude, &cfg->exclude);
	strv_append_all(&o->attention, &cfg->attention);
	/* --agent-env: the variables given replace our own environment
	   (still filtered: secret-looking names, PATH entries). */
	o->policy.env_agent = a->agent_env;
	if (a->agent_env)
		strv_append_all(&o->policy.env_in, &a->env);
	else
		for (size_t i = 0; i < a->env.n; i++)
			strv_push(&o->policy.env_set, a->env.v[i]);
	/* The host's git identity (not the rest of $HOME), unless the
	   environment gives GIT_AUTHOR_* / GIT_COMMITTER_* itself; only
	   where git can commit (asking git costs two processes a run). */
	if (exec_git_writes(&o->policy)) {
		struct strv	id = STRV_INIT;

		gitid_env(o->policy.project, a->agent_env ? &a->env : NULL,
		    &id);
		for (size_t i = 0; i < id.n; i++)
			if (!strv_contains(&o->policy.env_set, id.v[i]))
				strv_push(&o->policy.env_set, id.v[i]);
		strv_release(&id);
	}
	o->timeout_ms = a->timeout >= 0 ? (int)(a->timeout * 1000) :
	    cfg->timeout_s * 1000;
	config_limits(cfg, a->profile, &cfg_memory, &cfg_pids, &cfg_cpu);
	o->limits.memory = a->memory >= 0 ? (uint64_t)a->memory : cfg_memory;
	o->limits.pids = a->pids >= 0 ? (int)a->pids : cfg_pids;
	o->limits.cpu_s = a->cpu >= 0 ? (int)a->cpu : cfg_cpu;
	o->grace_ms = cfg->grace_ms;
	o->output_limit = a->limit >= 0 ? (size_t)a->limit :
	    cfg->output_limit;
	o->passthrough = !a->json;
	for (int i = optind; i < argc; i++)
		strv_push(&o->argv, argv[i]);
	return 0;
}

/* The report: JSON and/or summary, once. Before the run ends when its
   background processes stay as a service (engine.h): then the console
   has it at the end of --json-fd while the service runs on. */
static void
exec_report(void *arg, struct result *r)
{
	struct exec_args	*a = arg;

	if (a->reported)
		return;
	a->reported = true;
	exec_note_shown(r, *a->shown);
	if (a->json)
		emit_json(1, r);
	if (a->json_fd >= 0) {
		emit_json(a->json_fd, r);
		close(a->json_fd);
		a->json_fd = -1;
	}
	if (!a->json && (!a->quiet || r->error != NULL))
		result_print_summary(stderr, r, summary_escape);
	else if (a->json && r->error != NULL)
		fprintf(stderr, "bwgate: %s\n", display_str(r->error));
}

/* Run (or wait as a prestart), then the report: JSON and/or summary. */
static int
exec_run(struct exec_args *a, struct engine_opts *o, char **shown)
{
	struct result		 r = RESULT_INIT;
	struct netask		*na = NULL;
	struct netproxy_ask	 ask = { NULL, NULL };
	struct stat		 st1, st2;
	int			 status;

	/* One file for both (2>&1, a terminal, the console's one pipe):
	   one pipe, order kept. */
	o->merge_output = o->merge_output || (fstat(1, &st1) == 0 &&
	    fstat(2, &st2) == 0 && st1.st_dev == st2.st_dev &&
	    st1.st_ino == st2.st_ino);
	/* New hosts are questions for the console that started us. */
	if (a->ask_fd >= 0) {
		na = netask_new(a->ask_fd);
		ask.fn = netask_ask;
		ask.arg = na;
		o->net_ask = &ask;
		a->ask_fd = -1;
	}
	a->shown = shown;
	o->report_ready = exec_report;
	o->report_arg = a;
	if (a->prestart) {
		if (exec_prestart(a->policy_fd, o, &r, shown) == -1 &&
		    r.error == NULL)
			r.error = xstrdup("the prestarted run failed");
	} else
		engine_run(o, &r);
	status = result_exit_status(&r);
	exec_report(a, &r);
	netask_free(na);
	result_release(&r);
	o->net_ask = NULL;
	return status;
}

int
cmd_exec(int argc, char **argv)
{
	struct engine_opts	 o;
	struct config		 cfg;
	struct exec_args	 a = EXEC_ARGS_INIT;
	const char		*changes;
	char			*shown = NULL;
	int			 status = EXIT_BWGATE_FAILED;

	engine_opts_init(&o);
	config_init(&cfg);
	changes = getenv("BWGATE_CHANGES");
	if (changes != NULL && *changes != '\0' &&
	    set_changes(&o, changes, "BWGATE_CHANGES") != 0)
		goto out;
	if (exec_parse(argc, argv, &a, &o, &status) != 0)
		goto out;
	a.quiet = a.quiet || run_quiet_env();
	if (a.prestart && (a.policy_fd < 0 || a.other || optind < argc)) {
		fprintf(stderr, "bwgate: exec: --prestart takes --policy-fd "
		    "and nothing of a policy or command\n");
		goto out;
	}
	if (a.prestart || a.policy_fd >= 0) {
		if (!a.prestart && exec_from_spec(a.policy_fd, a.other, argc,
		    optind, &o, &shown) != 0)
			goto out;
		if (a.json_fd >= 0)
			prctl(PR_SET_PDEATHSIG, SIGTERM);
		o.passthrough = !a.json;
	} else {
		if (optind >= argc) {
			fprintf(stderr, "bwgate: exec: no command given\n");
			exec_usage(stderr);
			goto out;
		}
		/* The console runs us: die with it (and take the sandbox
		   along). */
		if (a.json_fd >= 0)
			prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (exec_policy(&a, &cfg, &o, argc, argv) != 0)
			goto out;
	}
	status = exec_run(&a, &o, &shown);
out:
	free(shown);
	strv_release(&a.rw);
	strv_release(&a.domains);
	if (a.ask_fd >= 0)
		close(a.ask_fd);
	strv_release(&a.ro);
	strv_release(&a.hide);
	strv_release(&a.env);
	config_release(&cfg);
	engine_opts_release(&o);
	return status;
}
