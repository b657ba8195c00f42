/* allowlist-secrets: an allowed command that would read a secret kept in
   the project (secrets.h) asks instead, naming it. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "allowlist-int.h"
#include "secrets.h"
#include "xalloc.h"

/* Commands that see names, never contents. */
static const char *const secrets_names_only[] = { "ls", "stat", "test", "[",
    "realpath", "readlink", "dirname", "basename", "du", "tree", "pwd",
    "echo", "printf", "which", "type", "true", "false", "cd", "pushd",
    "popd", "mkdir", "touch", "sleep", NULL };

static const char *const secrets_git_names[] = { "check-ignore",
    "ls-files", "status", "ls-tree", NULL };

/* Readers that read every file below a directory they are given (or,
   with none, the working directory), or names they read from input. */
static const char *const secrets_recursive[] = { "rg", "ag", "ack", "find",
    "xargs", "tar", "zip", "cpio", "rsync", NULL };

static bool
secrets_in(const char *const *list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

/* grep -r, -R, --recursive, -d recurse, --directories=recurse. */
static bool
secrets_grep_recursive(const struct cmdview *cv)
{
	if (strcmp(cv->name, "grep") != 0 && strcmp(cv->name, "egrep") != 0 &&
	    strcmp(cv->name, "fgrep") != 0 && strcmp(cv->name, "zgrep") != 0)
		return false;
	for (size_t i = 1; i < cv->argc; i++) {
		const char *a = cv->argv[i];

		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--", 2) == 0) {
			if (strcmp(a, "--recursive") == 0 ||
			    strcmp(a, "--dereference-recursive") == 0 ||
			    strcmp(a, "--directories=recurse") == 0)
				return true;
		} else if (a[0] == '-' && (strchr(a, 'r') != NULL ||
		    strchr(a, 'R') != NULL))
			return true;
		else if (strcmp(a, "-d") == 0 && i + 1 < cv->argc &&
		    strcmp(cv->argv[i + 1], "recurse") == 0)
			return true;
	}
	return false;
}

/* Searchers whose first operand is the pattern, not a file, and the
   short options each takes without a value (-e and -f name patterns;
   anything else, a long option included, and no operand is skipped). */
static const struct secrets_searcher {
	const char	*name;
	const char	*flags;
} secrets_searchers[] = {
	{ "grep", "iIvncHhoqslLwxEFGPrRaUzTZy" },
	{ "egrep", "iIvncHhoqslLwxrRaUzTZy" },
	{ "fgrep", "iIvncHhoqslLwxrRaUzTZy" },
	{ "rg", "iIvncHhoqslLwxFPSuUzN." },
	{ NULL, NULL }
};

/*
 * The index of a searcher's pattern operand (grep PATTERN FILE...), which
 * it does not read as a file, or 0. Only when every word before it is a
 * cluster of options without a value (or "--"), and it is plain text: a
 * word the shell expands ($x, a glob) may be no word or several.
 */
static size_t
secrets_pattern_arg(const struct cmdview *cv)
{
	const struct secrets_searcher	*s;
	const char			*a;

	for (s = secrets_searchers; s->name != NULL; s++)
		if (strcmp(s->name, cv->name) == 0)
			break;
	if (s->name == NULL)
		return 0;
	for (size_t i = 1; i < cv->argc; i++) {
		a = cv->argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			a = i < cv->argc ? cv->argv[i] : NULL;
		} else if (a[0] == '-' && a[1] != '\0') {
			if (a[1] == '-' || a[1 + strspn(a + 1, s->flags)] != '\0')
				return 0;
			continue;
		}
		if (a == NULL || cv->globs[i] || strpbrk(a, "$`*?[{~") != NULL)
			return 0;
		return i;
	}
	return 0;
}

/* The last component of a word, after a path, "REV:" or "--opt=". */
static const char *
secrets_last(const char *w)
{
	const char	*p = w;

	for (const char *s = w; *s != '\0'; s++)
		if (*s == '/' || *s == ':' || *s == '=')
			p = s + 1;
	return p;
}

/*
 * Why the allowed command cv would read a secret kept in the project, or
 * NULL: a word names one; a pattern matches one that exists; a recursive
 * reader finds one below the project (its operands may be anywhere in
 * it: the whole project is searched, which holds them all).
 */
char *
allowlist_secret_read(const struct allowlist *al, const struct cmdview *cv)
{
	char		*found = NULL, *cause = NULL, *r;
	const char	*last;
	size_t		 pattern;

	if (al->secrets == NULL || cv->argc == 0 ||
	    secrets_in(secrets_names_only, cv->name))
		return NULL;
	/* git subcommands that print names or states, never contents. */
	if (strcmp(cv->name, "git") == 0 && cv->argc > 1 &&
	    secrets_in(secrets_git_names, cv->argv[1]))
		return NULL;
	pattern = secrets_pattern_arg(cv);
	for (size_t i = 1; i < cv->argc; i++) {
		if (i == pattern)
			continue;	/* grep PATTERN: not a file */
		last = secrets_last(cv->argv[i]);
		if (!cv->globs[i] && secrets_name(al->secrets, last))
			return xasprintf("%s: reads the secret '%s' (a secret "
			    "kept in the project, secrets.json): it goes to "
			    "the agent only with a yes", cv->name,
			    cv->argv[i]);
		if (cv->globs[i] && *last != '\0' && (found = secrets_find(
		    al->secrets, al->project, last, &cause)) != NULL)
			break;
		if (cause != NULL)
			break;
	}
	if (found == NULL && cause == NULL &&
	    (secrets_in(secrets_recursive, cv->name) ||
	    secrets_grep_recursive(cv)))
		found = secrets_find(al->secrets, al->project, NULL, &cause);
	if (found != NULL) {
		r = xasprintf("%s: would read the secret '%s' (a secret kept "
		    "in the project, secrets.json): it goes to the agent only "
		    "with a yes", cv->name, found);
		free(found);
		return r;
	}
	if (cause != NULL) {
		r = xasprintf("%s: may read a secret kept in the project: %s",
		    cv->name, cause);
		free(cause);
		return r;
	}
	return NULL;
}
