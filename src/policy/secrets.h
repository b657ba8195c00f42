/*
 * secrets: files kept in the project that hold keys (.env, *.pem, id_*,
 * .npmrc, *.tfvars, ...: share/bwgate/secrets.json, and the operator's
 * secrets.json beside their allowlist.json, which can only add). A command
 * the rules allow must not read one without a person's yes (allowlist.c
 * turns such an allow into ask and names the file).
 *
 * A name is judged by the table alone; what a pattern or a recursive
 * reader reaches is judged by what exists in the project now, found
 * through the project door (beneath.h), without following links, bounded.
 *
 *	struct secrets *s = secrets_load(&cause);
 *	if (secrets_name(s, ".env")) ...
 *	char *rel = secrets_find(s, project, "*.pem", &cause);
 *	secrets_free(s);
 */
#ifndef BWGATE_SECRETS_H
#define BWGATE_SECRETS_H

#include <stdbool.h>

struct secrets;

/* The shipped table and the operator's additions; NULL with cause. */
struct secrets	*secrets_load(char **cause);
/* One table file alone (tests); NULL with cause. */
struct secrets	*secrets_load_file(const char *path, char **cause);
void		 secrets_free(struct secrets *);
/* Is a file of this name (its last component) a secret? */
bool		 secrets_name(const struct secrets *, const char *name);
/* The first secret in the project (project-relative path, caller frees)
   whose name matches the glob(7) pattern (NULL: any name), or NULL when
   there is none. A tree too large to walk fully (or unreadable) answers
   as if it held one: *cause says so and NULL is returned, so the caller
   asks either way. .git and node_modules are not entered. */
char		*secrets_find(const struct secrets *, const char *project,
		    const char *pattern, char **cause);

#endif
