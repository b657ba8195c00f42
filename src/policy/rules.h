/*
 * rules: loading and validating allowlist rule files (bwgate-allowlist(5)).
 *
 * A rule file is JSON: { "version": 1, "profiles": {...}, "rules": [...] }.
 * rulefile_load() reads one file, refuses it when it is group- or
 * world-writable, parses it and validates every key; any problem is one
 * error naming the file, the line (found in the text) and the key. The
 * match/no_match examples are checked by allowlist.c, which knows how to
 * classify.
 *
 *	struct rulefile rf; rulefile_init(&rf);
 *	if (rulefile_load(path, &rf, &cause) != 0) ...
 *	rulefile_release(&rf);
 */
#ifndef BWGATE_RULES_H
#define BWGATE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "allowlist.h"
#include "optparse.h"
#include "strv.h"

/* A sandbox profile as defined in a rule file. */
struct profile {
	char		*name;
	char		*description;
	bool		 project_readonly;
	bool		 network;
	bool		 git_writable;
	bool		 agent_config_writable; /* agentcfg.h paths writable */
	struct strv	 writable;	/* host paths ("~/" allowed) */
	struct strv	 domains;	/* hosts through the proxy (domains.h;
					   "@group" expanded when applied) */
};

enum rule_type {
	RULE_GRAMMAR,			/* "command": per-command grammar */
	RULE_PATTERN,			/* "pattern": argv patterns */
};

struct rule {
	char		*id;
	char		*reason;
	enum verdict	 verdict;
	char		*profile;
	enum rule_type	 type;
	struct strv	 names;		/* command names (grammar rules) */
	struct opt_grammar grammar;
	struct strv	*patterns;	/* each pattern split into words */
	size_t		 npatterns;
	bool		 redirect_writes; /* output redirections allowed */
	bool		 project_root;	/* only in the project's top
					   directory (no cd before it) */
	struct strv	 runs;		/* programs it may run (glob(7)) */
	struct strv	 match;		/* examples this rule must match */
	struct strv	 no_match;	/* examples it must not match */
};

struct rulefile {
	char		*path;
	char		*text;		/* the content, for line numbers */
	char		 sha256[65];	/* of the content */
	struct rule	*rules;
	size_t		 nrules;
	struct profile	*profiles;
	size_t		 nprofiles;
	struct strv	 domains;	/* hosts every command of the project
					   with named hosts may reach (the
					   operator's files only) */
};

void	 rulefile_init(struct rulefile *);
void	 rulefile_release(struct rulefile *);
/* Read, check permissions, parse and validate; -1 with cause. */
int	 rulefile_load(const char *path, struct rulefile *, char **cause);
/* The project's rule file (project: its canonical directory), opened
   through the door (beneath.h): no link followed, non-blocking, a
   regular file of at most 4 MiB. 1 loaded, 0 absent or empty, -1 with
   cause (*refused: others could have written it). */
#define RULEFILE_PROJECT	".bwgate.json"
int	 rulefile_load_project(const char *project, struct rulefile *,
	    bool *refused, char **cause);
/* "world-writable" or "group-writable" when others could change the
   file (a group-writable file in the owner's private group is fine). */
const char *rulefile_mode_problem(const struct stat *);
/* Parse and validate text read from path (no permission check). */
int	 rulefile_parse(const char *path, const char *text, struct rulefile *,
	    char **cause);
/* Line (1-based) of the JSON value at a path such as "rules", 3, "id";
   keys are strings, indexes are written as "#3". 0 when not found. */
int	 rulefile_line(const char *text, const char *const *path, size_t n);
/* Is this command name never allowed by name alone (shells, eval ...)? */
const char *rule_launcher(const char *name);
const struct profile *rulefile_profile(const struct rulefile *,
	    const char *name);
/* Error text for a rule (file, line, key), as rulefile_load reports it. */
char	*rulefile_error(const struct rulefile *, size_t rule, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
