/*
 * cmd-check: `bwgate check [--json] [--project DIR] -- 'COMMAND STRING'`:
 * classify a command string the way the console would, and show the
 * verdict, the rule that decided it, the reason, the simple commands found,
 * the sandbox profile and the exact bwrap argv it would run under. Nothing
 * is run. Exit status: 0 allow, 1 ask, 77 deny, 125 error (bwgate-check
 * in bwgate(1)).
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.h"
#include "allowlist.h"
#include "cmd.h"
#include "config.h"
#include "domains.h"
#include "jsonutil.h"
#include "limiter.h"
#include "probe.h"
#include "sandbox.h"
#include "stake.h"
#include "xalloc.h"

/* How a command string is run inside the sandbox. */
static const char *const check_shell[] = { "/bin/bash", "-c", NULL };

enum {
	OPT_CONFIG = 256,
};

static const struct option check_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "project", required_argument, NULL, 'p' },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
check_usage(FILE *f)
{
	fprintf(f, "usage: bwgate check [--json] [--project DIR] "
	    "[--config FILE] -- 'COMMAND STRING'\n"
	    "       bwgate check [--json] [--project DIR] -- COMMAND "
	    "ARG...\n");
}

/* Exit status for a verdict. */
static int
check_status(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return 0;
	case VERDICT_DENY:
		return EXIT_DENIED;
	case VERDICT_ASK:
	case VERDICT_DANGER:
		break;
	}
	return EXIT_ASK;
}

/*
 * Build the argv the command would run with: policy for the project,
 * config, the chosen profile, the host probe, then a dry sandbox build.
 */
static int
check_argv(struct allowlist **alp, const char *project, const char *cfgfile,
    struct classification *c, const char *command, struct strv *argv,
    char **sandbox_error, char **network, char **cause)
{
	struct sandbox_policy	 pol;
	struct config		 cfg;
	struct probe		 probe;
	struct sandbox		 sb = SANDBOX_INIT;
	int			 rc = -1;

	sandbox_policy_init(&pol);
	config_init(&cfg);
	probe_init(&probe);
	if (config_load(&cfg, cfgfile, cause) != 0 ||
	    sandbox_policy_set_dirs(&pol, project, NULL, cause) != 0)
		goto out;
	config_apply(&cfg, &pol);
	if (*alp == NULL &&
	    (*alp = allowlist_load(pol.project, cause)) == NULL)
		goto out;
	if (c == NULL) {
		rc = 0;
		goto out;
	}
	/* As the console judges it: git only at the project's top, and a
	   delete measured against undo (sandboxed mode runs it at once);
	   every delete, danger or not, says what it puts at stake. */
	classification_at(c, pol.project, pol.cwd);
	if (c->stake != NULL)
		c->at_stake = stake_judge(pol.project, pol.cwd, c->stake,
		    &c->targets, c->measured, &c->undo_restores);
	if (allowlist_profile_apply(*alp, c->profile, &pol, cause) != 0)
		goto out;
	/* Named hosts: with those the operator allowed for the project. */
	if (sandbox_policy_proxied(&pol) && allowlist_hosts(*alp,
	    &pol.domains, cause) != 0)
		goto out;
	*network = domains_describe(pol.network, &pol.domains);
	probe_host(&probe, true);
	if (!probe.userns_ok) {
		*sandbox_error = xstrdup(probe.error != NULL ? probe.error :
		    "no sandbox can be built on this host");
		rc = 0;
		goto out;
	}
	if (sandbox_build(&pol, &probe, SANDBOX_DRY, &sb, sandbox_error) != 0) {
		rc = 0;
		goto out;
	}
	strv_append_all(argv, &sb.argv);
	strv_pushv(argv, check_shell);
	strv_push(argv, command);
	rc = 0;
out:
	sandbox_release(&sb);
	probe_release(&probe);
	config_release(&cfg);
	sandbox_policy_release(&pol);
	return rc;
}

/* Print the result for people. */
static void
check_print(const struct allowlist *al, const struct classification *c,
    const struct strv *argv, const char *sandbox_error, const char *network)
{
	struct strv	 files = STRV_INIT;
	const char	*project;
	char		*s;
	bool		 trusted = false;
	size_t		 i;

	printf("verdict:  %s\n", verdict_name(c->verdict));
	printf("rule:     %s\n", c->rule != NULL ? display_str(c->rule) :
	    "(none)");
	printf("reason:   %s\n", display_str(c->reason));
	if (c->at_stake != NULL)
		printf("at stake: %s\n", display_str(c->at_stake));
	for (i = 0; i < c->commands.n; i++)
		printf("command:  %s\n", display_str(c->commands.v[i]));
	printf("profile:  %s\n", display_str(c->profile));
	if (c->needs != NULL)
		printf("needs:    %s (%s)\n", display_str(c->needs),
		    display_str(c->needs_reason));
	if (network != NULL)
		printf("network:  %s\n", display_str(network));
	if (sandbox_error != NULL)
		printf("bwrap:    (no sandbox: %s)\n",
		    display_str(sandbox_error));
	else {
		s = strv_join(argv, " ", true);
		printf("bwrap:    %s\n", display_str(s));
		free(s);
	}
	allowlist_files(al, &files);
	project = allowlist_project(al, &trusted);
	for (i = 0; i < files.n; i++)
		printf("rules:    %s%s\n", display_str(files.v[i]),
		    project != NULL && strcmp(project, files.v[i]) == 0 &&
		    !trusted ? " (not trusted: its allow rules are ignored; "
		    "see bwgate trust)" : "");
	if (allowlist_project_error(al) != NULL)
		printf("rules:    %s\n", display_str(allowlist_project_error(al)));
	strv_release(&files);
}

/* Print the result as one JSON object. */
static void
check_print_json(const struct allowlist *al, const struct classification *c,
    const struct strv *argv, const char *sandbox_error, const char *network)
{
	cJSON		*j = classification_json(c);

	if (network != NULL)
		cJSON_AddStringToObject(j, "network", network);
	struct strv	 files = STRV_INIT;
	const char	*project;
	char		*s;
	bool		 trusted = false;
	size_t		 bad;

	if (sandbox_error != NULL) {
		cJSON_AddNullToObject(j, "bwrap_argv");
		cJSON_AddStringToObject(j, "sandbox_error", sandbox_error);
	} else
		cJSON_AddItemToObject(j, "bwrap_argv", json_strv(argv));
	allowlist_files(al, &files);
	cJSON_AddItemToObject(j, "rule_files", json_strv(&files));
	project = allowlist_project(al, &trusted);
	if (project != NULL)
		cJSON_AddBoolToObject(j, "project_trusted", trusted);
	if (allowlist_project_error(al) != NULL)
		cJSON_AddStringToObject(j, "project_error",
		    allowlist_project_error(al));
	s = json_mend_utf8(cJSON_PrintUnformatted(j), &bad);
	/* Said so: a string held bytes that are not UTF-8, printed as
	   U+FFFD (the text output shows them as \xNN). */
	if (bad > 0) {
		free(s);
		cJSON_AddBoolToObject(j, "invalid_utf8_replaced", true);
		s = json_line(j);
	}
	printf("%s\n", s);
	free(s);
	strv_release(&files);
	cJSON_Delete(j);
}

/* bwgate check: classify, print, exit by verdict. */
int
cmd_check(int argc, char **argv)
{
	struct classification	 c = CLASSIFICATION_INIT;
	struct allowlist	*al = NULL;
	struct strv		 words = STRV_INIT, bwrap = STRV_INIT;
	const char		*project = NULL, *cfgfile = NULL;
	char			*cause = NULL, *sandbox_error = NULL, *text;
	char			*network = NULL;
	bool			 json = false;
	int			 ch, status = EXIT_BWGATE_FAILED, i;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+jp:h", check_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'j': json = true; break;
		case 'p': project = optarg; break;
		case OPT_CONFIG: cfgfile = optarg; break;
		case 'h':
			check_usage(stdout);
			return 0;
		default:
			check_usage(stderr);
			return EXIT_BWGATE_FAILED;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "bwgate: check: no command given\n");
		check_usage(stderr);
		return EXIT_BWGATE_FAILED;
	}
	/* Load the rules first: a broken rule file is an error (125). */
	if (check_argv(&al, project, cfgfile, NULL, NULL, NULL, NULL, NULL,
	    &cause) != 0)
		goto out;
	if (argc - optind == 1)
		allowlist_classify(al, argv[optind], &c);
	else {
		for (i = optind; i < argc; i++)
			strv_push(&words, argv[i]);
		allowlist_classify_argv(al, &words, &c);
	}
	text = argc - optind == 1 ? xstrdup(argv[optind]) :
	    strv_join(&words, " ", true);
	if (check_argv(&al, project, cfgfile, &c, text, &bwrap,
	    &sandbox_error, &network, &cause) != 0) {
		free(text);
		goto out;
	}
	free(text);
	if (json)
		check_print_json(al, &c, &bwrap, sandbox_error, network);
	else
		check_print(al, &c, &bwrap, sandbox_error, network);
	status = check_status(c.verdict);
out:
	if (cause != NULL)
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
	free(cause);
	free(sandbox_error);
	free(network);
	classification_release(&c);
	allowlist_free(al);
	strv_release(&words);
	strv_release(&bwrap);
	return status;
}
