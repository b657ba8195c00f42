/*
 * cmd-trust: `bwgate trust [--project DIR] [--list | --revoke]`: show a
 * project's rule file (.bwgate.json) and trust its exact content, so that
 * its allow rules count. The sha256 of what was shown is kept in
 * $XDG_CONFIG_HOME/bwgate/trusted.json; any later change to the file makes
 * its allow rules inert again until it is trusted anew.
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "display.h"
#include "allowlist.h"
#include "buf.h"
#include "cleanup.h"
#include "cmd.h"
#include "config.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "xalloc.h"

static const struct option trust_options[] = {
	{ "project", required_argument, NULL, 'p' },
	{ "list", no_argument, NULL, 'l' },
	{ "revoke", no_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
trust_usage(FILE *f)
{
	fprintf(f, "usage: bwgate trust [--project DIR]\n"
	    "       bwgate trust --revoke [--project DIR]\n"
	    "       bwgate trust --list\n");
}

/* What counts in the summary: computed here, never read from the file. */
struct trust_counts {
	size_t	allow, ask, deny, profiles;
	size_t	writes;		/* allow rules that can write the project */
	size_t	network;	/* allow rules with the network */
	size_t	outside;	/* allow rules writing outside the project */
};

/* A rule's patterns or command names, as one line. */
static void
trust_rule_match(const struct rule *r, struct buf *b)
{
	char	*s;

	if (r->type == RULE_GRAMMAR) {
		s = strv_join(&r->names, ", ", false);
		buf_printf(b, "command %s", display_str(s));
		free(s);
		return;
	}
	for (size_t i = 0; i < r->npatterns; i++) {
		s = strv_join(&r->patterns[i], " ", false);
		buf_printf(b, "%s'%s'", i > 0 ? " or " : "", display_str(s));
		free(s);
	}
}

/* One "      key: value" line per path. */
static void
trust_paths(const char *what, const struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		printf("        %-9s %s\n", what, display_str(sv->v[i]));
}

/*
 * The whole sandbox an allow rule's commands run in, as the console would
 * build it: the configuration, then the rule's profile.
 */
static void
trust_sandbox(const struct allowlist *al, const struct config *cfg,
    const char *project, const struct rule *r, struct trust_counts *n)
{
	struct sandbox_policy	 pol;
	char			*cause = NULL;
	bool			 outside = false;

	sandbox_policy_init(&pol);
	if (sandbox_policy_set_dirs(&pol, project, project, &cause) != 0) {
		printf("      sandbox: %s\n", display_str(cause));
		goto out;
	}
	config_apply(cfg, &pol);
	if (allowlist_profile_apply(al, r->profile, &pol, &cause) != 0) {
		printf("      sandbox: cannot be built: %s\n",
		    display_str(cause));
		goto out;
	}
	printf("      sandbox: project %s, .git %s, agent configuration %s, "
	    "network %s%s%s\n",
	    pol.project_readonly ? "read-only" : "writable",
	    pol.git_writable ? "WRITABLE" : "read-only",
	    pol.agent_config_writable ? "WRITABLE" : "read-only",
	    pol.network ? "ON" : "off",
	    pol.allow_userns ? ", nested sandboxes ALLOWED" : "",
	    pol.allow_ptrace ? ", ptrace ALLOWED" : "");
	if (!pol.project_readonly) {
		printf("        %-9s %s\n", "writable", display_str(pol.project));
		/* Built into the sandbox (sandbox.c), whatever the rules. */
		printf("        %-9s .git (every one), .bwgate.json\n",
		    "protected");
		n->writes++;
	}
	trust_paths("writable", &pol.rw_paths);
	trust_paths("readable", &pol.ro_paths);
	trust_paths("hidden", &pol.hide_paths);
	trust_paths("protected", &pol.protected);
	for (size_t i = 0; i < pol.rw_paths.n; i++)
		if (!path_is_under(pol.rw_paths.v[i], pol.project))
			outside = true;
	if (cfg->timeout_s > 0)
		printf("        %-9s timeout %d s, ", "limits", cfg->timeout_s);
	else
		printf("        %-9s no timeout, ", "limits");
	printf("output %zu bytes per stream\n", cfg->output_limit);
	if (pol.network)
		n->network++;
	if (outside)
		n->outside++;
out:
	free(cause);
	sandbox_policy_release(&pol);
}

/* Print one rule: verdict, id, patterns, profile, reason; for an allow
   rule the whole sandbox it grants. */
static void
trust_print_rule(const struct allowlist *al, const struct config *cfg,
    const char *project, const struct rule *r, struct trust_counts *n)
{
	struct buf	b = BUF_INIT;

	trust_rule_match(r, &b);
	printf("  %-5s %-16s %s [profile %s]\n      reason: %s\n",
	    verdict_name(r->verdict), display_str(r->id),
	    b.data != NULL ? b.data : "", display_str(r->profile),
	    display_str(r->reason));
	buf_release(&b);
	switch (r->verdict) {
	case VERDICT_ALLOW:
		n->allow++;
		trust_sandbox(al, cfg, project, r, n);
		break;
	case VERDICT_ASK:
	case VERDICT_DANGER:	/* not a rule's verdict */
		n->ask++;
		break;
	case VERDICT_DENY:
		n->deny++;
		break;
	}
}

/* The profiles the file defines and what each grants. */
static void
trust_print_profile(const struct profile *p)
{
	printf("  profile %s: project %s, .git %s, agent configuration %s, "
	    "network %s\n", display_str(p->name), p->project_readonly ?
	    "read-only" : "writable", p->git_writable ? "WRITABLE" :
	    "read-only", p->agent_config_writable ? "WRITABLE" : "read-only",
	    p->network ? "ON" : "off");
	trust_paths("writable", &p->writable);
}

/* List the trusted files and whether they still match. */
static int
trust_list(void)
{
	char			*cause = NULL, hex[SHA256_HEX_LEN + 1];
	const cJSON		*e;
	cJSON			*j;
	struct rulefile		 rf;
	const char		*state;

	if ((j = allowlist_trusted(&cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		free(cause);
		return 1;
	}
	if (cJSON_GetArraySize(j) == 0)
		printf("no project rule file is trusted\n");
	cJSON_ArrayForEach(e, j) {
		rulefile_init(&rf);
		if (rulefile_load(e->string, &rf, &cause) != 0) {
			state = "unreadable or invalid now";
			free(cause);
			cause = NULL;
		} else {
			memcpy(hex, rf.sha256, sizeof hex);
			state = strcmp(hex, e->valuestring) == 0 ?
			    "trusted" : "changed since: not trusted";
		}
		printf("%s  %s  %s\n", display_str(e->valuestring),
		    display_str(e->string), state);
		rulefile_release(&rf);
	}
	cJSON_Delete(j);
	return 0;
}

/* bwgate trust: show, trust, list or revoke a project rule file. */
/* Read the project's rule file (file: its canonical path) through the
   door, as bwgate will (rules.h). */
static int
trust_read(const char *file, struct rulefile *rf, char **cause)
{
	_cleanup_free_ char	*dir = xstrndup(file, (size_t)(strrchr(file,
	    '/') - file));
	bool			 refused;

	switch (rulefile_load_project(*dir != '\0' ? dir : "/", rf, &refused,
	    cause)) {
	case 1:
		return 0;
	case 0:
		*cause = xasprintf("'%s' is absent or empty: nothing to trust",
		    file);
		return -1;
	default:
		return -1;
	}
}

int
cmd_trust(int argc, char **argv)
{
	struct allowlist	*al = NULL;
	struct rulefile		 rf;
	const char		*project = ".";
	_cleanup_free_ char	*file = NULL;
	char			*cause = NULL;
	bool			 list = false, revoke = false;
	struct config		 cfg;
	struct trust_counts	 n = { 0 };
	bool			 trusted = false;
	size_t			 i;
	int			 ch, status = 1;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+p:lrh", trust_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'p': project = optarg; break;
		case 'l': list = true; break;
		case 'r': revoke = true; break;
		case 'h':
			trust_usage(stdout);
			return 0;
		default:
			trust_usage(stderr);
			return 1;
		}
	}
	if (optind != argc || (list && revoke)) {
		trust_usage(stderr);
		return 1;
	}
	if (list)
		return trust_list();
	rulefile_init(&rf);
	config_init(&cfg);
	if ((file = allowlist_project_file(project, &cause)) == NULL)
		goto out;
	if (revoke) {
		if (allowlist_trust_record(file, NULL, &cause) != 0)
			goto out;
		printf("'%s' is no longer trusted\n", display_str(file));
		status = 0;
		goto out;
	}
	/* The whole set must load (examples, profiles) before trusting,
	   and the file may only narrow the sandbox (narrow.h). */
	if ((al = allowlist_load(project, &cause)) == NULL ||
	    trust_read(file, &rf, &cause) != 0)
		goto out;
	if (allowlist_project_error(al) != NULL) {
		cause = xasprintf("not trusted: %s",
		    allowlist_project_error(al));
		goto out;
	}
	if (config_load(&cfg, NULL, &cause) != 0)
		goto out;
	if (allowlist_trust_record(file, rf.sha256, &cause) != 0)
		goto out;
	/* Loaded again, trusted: its profiles resolve as they will run. */
	allowlist_free(al);
	if ((al = allowlist_load(project, &cause)) == NULL)
		goto out;
	(void)allowlist_project(al, &trusted);
	if (!trusted) {
		cause = xasprintf("'%s' changed while it was being trusted; "
		    "run bwgate trust again", file);
		goto out;
	}
	printf("%s\nsha256 %s\n", display_str(file), rf.sha256);
	for (i = 0; i < rf.nrules; i++)
		trust_print_rule(al, &cfg, project, &rf.rules[i], &n);
	for (i = 0; i < rf.nprofiles; i++)
		trust_print_profile(&rf.profiles[i]);
	n.profiles = rf.nprofiles;
	/* Computed, after everything the file said. */
	printf("--\n%zu rule%s: %zu allow, %zu ask, %zu deny; %zu "
	    "profile%s\n", rf.nrules, rf.nrules == 1 ? "" : "s", n.allow,
	    n.ask, n.deny, n.profiles, n.profiles == 1 ? "" : "s");
	printf("allow rules that write the project: %zu; with the network: "
	    "%zu; writing outside the project: %zu\n", n.writes, n.network,
	    n.outside);
	printf("trusted: its %zu allow rule%s now count%s\n", n.allow,
	    n.allow == 1 ? "" : "s", n.allow == 1 ? "s" : "");
	status = 0;
out:
	if (cause != NULL)
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
	free(cause);
	rulefile_release(&rf);
	config_release(&cfg);
	allowlist_free(al);
	return status;
}
