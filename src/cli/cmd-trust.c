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

/* Print one rule, one line. */
static void
trust_print_rule(const struct rule *r)
{
	struct buf	b = BUF_INIT;
	size_t		i;
	char		*s;

	if (r->type == RULE_GRAMMAR) {
		s = strv_join(&r->names, ", ", false);
		buf_printf(&b, "command %s", s);
		free(s);
	} else {
		for (i = 0; i < r->npatterns; i++) {
			s = strv_join(&r->patterns[i], " ", false);
			buf_printf(&b, "%s'%s'", i > 0 ? " or " : "", s);
			free(s);
		}
	}
	printf("  %-5s %-16s %s [profile %s]\n      %s\n",
	    verdict_name(r->verdict), display_str(r->id), display_str(b.data),
	    display_str(r->profile), display_str(r->reason));
	buf_release(&b);
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
int
cmd_trust(int argc, char **argv)
{
	struct allowlist	*al = NULL;
	struct rulefile		 rf;
	const char		*project = ".";
	_cleanup_free_ char	*file = NULL;
	char			*cause = NULL;
	bool			 list = false, revoke = false;
	size_t			 i, nallow = 0;
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
	if ((file = allowlist_project_file(project, &cause)) == NULL)
		goto out;
	if (revoke) {
		if (allowlist_trust_record(file, NULL, &cause) != 0)
			goto out;
		printf("'%s' is no longer trusted\n", display_str(file));
		status = 0;
		goto out;
	}
	/* The whole set must load (examples, profiles) before trusting. */
	if ((al = allowlist_load(project, &cause)) == NULL ||
	    rulefile_load(file, &rf, &cause) != 0)
		goto out;
	printf("%s\nsha256 %s\n%zu rule%s, %zu profile%s:\n",
	    display_str(file), rf.sha256,
	    rf.nrules, rf.nrules == 1 ? "" : "s", rf.nprofiles,
	    rf.nprofiles == 1 ? "" : "s");
	for (i = 0; i < rf.nrules; i++) {
		trust_print_rule(&rf.rules[i]);
		if (rf.rules[i].verdict == VERDICT_ALLOW)
			nallow++;
	}
	for (i = 0; i < rf.nprofiles; i++)
		printf("  profile %s%s%s%s%s\n",
		    display_str(rf.profiles[i].name),
		    rf.profiles[i].project_readonly ? " project-readonly" : "",
		    rf.profiles[i].network ? " network" : "",
		    rf.profiles[i].git_writable ? " git-writable" : "",
		    rf.profiles[i].writable.n > 0 ? " extra-writable-paths" :
		    "");
	if (allowlist_trust_record(file, rf.sha256, &cause) != 0)
		goto out;
	printf("trusted: its %zu allow rule%s now count%s\n", nallow,
	    nallow == 1 ? "" : "s", nallow == 1 ? "s" : "");
	status = 0;
out:
	if (cause != NULL)
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
	free(cause);
	rulefile_release(&rf);
	allowlist_free(al);
	return status;
}
