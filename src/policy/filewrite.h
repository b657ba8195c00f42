/*
 * filewrite: the rule table for file writes that agents ask for directly
 * (the MCP file tools, the Claude Code hook): which project paths are
 * protected (the sandbox keeps them read-only: .git at any depth, the
 * project's .bwgate.json, the configured list) and which need the
 * operator's attention (files other tools run on their own when a person
 * opens the project). Everything else inside the project is a plain write.
 *
 * allowlist_classify_write (allowlist.h) turns a plain write into allow,
 * a protected path into deny and an attention path into ask; the MCP
 * server and the hook refuse protected paths before asking.
 */
#ifndef BWGATE_FILEWRITE_H
#define BWGATE_FILEWRITE_H

#include "strv.h"

enum filewrite_kind {
	FILEWRITE_PLAIN,	/* an ordinary file of the project */
	FILEWRITE_PROTECTED,	/* read-only in every sandbox */
	FILEWRITE_ATTENTION,	/* run by other tools: ask */
};

struct filewrite_match {
	enum filewrite_kind	 kind;
	const char		*entry;	/* the table's (or config's) path */
	const char		*why;	/* what makes it matter */
};

/* Classify rel (relative to the project, normalised, no ".."); extra is
   the configuration's protected list (project-relative). */
void		 filewrite_classify(const char *rel, const struct strv *extra,
		    struct filewrite_match *);
const char	*filewrite_kind_name(enum filewrite_kind);

#endif
