/*
 * path: small helpers for absolute, canonical paths.
 *
 * All returned strings are owned by the caller. Functions that can fail
 * return NULL and set *cause to a one-line message (caller frees).
 */
#ifndef BWGATE_PATH_H
#define BWGATE_PATH_H

#include <stdbool.h>

/* Join two path pieces with exactly one '/'. */
char	*path_join(const char *, const char *);
/* True when path equals dir or lies below it (both canonical). */
bool	 path_is_under(const char *path, const char *dir);
/* path relative to dir ("." for dir itself); path must be under dir. */
char	*path_relative(const char *path, const char *dir);
/*
 * Canonical paths (realpath(3), links followed) live here and only here:
 * for bwgate's own files, the system's (/proc/self/exe, /etc, PATH,
 * what bwrap binds) and for finding which directory is the project.
 * Inside the project every lookup goes through the door (beneath.h),
 * which never follows a link; the hook's Claude-compatible resolver
 * (cli/hook-path.c) and the observer's (pathwalk.h, in a traced
 * process's root) are the two others. tests/build/resolve.sh checks it.
 */
/* realpath() of an existing path; NULL with cause when it is missing. */
char	*path_canonical(const char *, char **cause);
/* The same without a message: NULL with errno. */
char	*path_real(const char *);
/* Canonical form of a path whose end may not exist (any number of
   components): the longest existing prefix resolved, the rest kept as
   written; path itself when not even "/" resolves. */
char	*path_canonical_prefix(const char *path);
/* Canonicalise a path that may not exist yet (its parent must). */
char	*path_canonical_maybe(const char *, char **cause);
/* The git top level containing dir, else NULL: dir itself when it has a
   .git, else the nearest ancestor whose .git is the caller's (owned by
   it, in a directory others cannot write, on dir's file system). Every
   command finds its project with it (path_project). */
char	*path_git_toplevel(const char *dir);
/* The project of directory dir: its git top level (looked for along dir
   as given), else dir itself; canonical. NULL with cause when it is
   missing. */
char	*path_project_of(const char *dir, char **cause);
/* True when some component of path is "..". */
bool	 path_has_dotdot(const char *);
/* Expand a leading "~/" with $HOME. */
char	*path_expand_home(const char *);
/* PATH for a sandbox: absolute entries outside skip1 and skip2 (NULL: no
   such directory); "" when none is left. */
char	*path_env_clean(const char *value, const char *skip1,
	    const char *skip2);
/* First executable regular file name in a PATH value; NULL if none. */
char	*path_search(const char *name, const char *value);

#endif
