/*
 * pathglob: does a project-relative path fall under a table entry whose
 * components may be shell globs ("*.code-workspace", ".config/lefthook.*"),
 * at the root only or at any depth. Pure, no allocation: the observer asks
 * it at every call (sandbox/protect.c), the file tools and reports too
 * (policy/agentcfg.c).
 *
 * A component of the entry matches one component of the path with
 * fnmatch(3) and no flags ('*' matches a leading '.'; '/' never appears
 * in a component); a component without '*', '?' or '[' compares as bytes.
 */
#ifndef BWGATE_PATHGLOB_H
#define BWGATE_PATHGLOB_H

#include <stdbool.h>

enum pathglob_match {
	PATHGLOB_NONE,
	PATHGLOB_WITHIN,	/* the path is the entry or lies below it */
	PATHGLOB_ANCESTOR,	/* the path ends where a leading part of the
				   entry matched: a directory that would hold
				   the entry */
};

/* entry: components separated by single '/', none empty, no leading or
   trailing '/'. rel: normalised project-relative ("" the root). any: the
   entry counts at every depth, else at the root only. */
enum pathglob_match	pathglob_match(const char *entry, bool any,
			    const char *rel);

/* fnmatch(pattern, s, 0), in bytes (the C locale) when both are ASCII: the
   same answer without the conversion to wide characters a UTF-8 locale
   makes on every call (the console matches every environment variable
   against every pattern of a table per request). */
bool			pathglob_fnmatch(const char *pattern, const char *s);

#endif
