/*
 * filereq: a file write an agent asks for ("submit" with "write", doc/
 * protocol.md), turned into a request like any command.
 *
 * The console reads the file as it is now (beneath the project, no link
 * followed) and computes the diff the operator sees. The request runs a
 * fixed program in the sandbox, never shell text made of the path or the
 * content:
 *
 *	argv	/run/bwgate/helper --write
 *	stdin	the write as data (sandbox/write-proto.h): the path, the
 *		SHA-256 the diff was made from (or "new"), the content with
 *		its length
 *
 * The helper opens the path beneath the project root (openat2
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), refuses when the file is no
 * longer what the diff was made from, and writes a temporary file that it
 * renames into place. The request is shown as "write N bytes to PATH"
 * with the diff, classified (filereq_classify), decided, audited, run
 * under the project's sandbox (protected paths stay read-only whatever
 * is approved), observed and reported with the same change report as a
 * command.
 */
#ifndef BWGATE_FILEREQ_H
#define BWGATE_FILEREQ_H

#include <stdbool.h>
#include <stddef.h>

#include "allowlist.h"
#include "strv.h"
#include "write-proto.h"

/* The largest content a file write carries. */
#define FILEREQ_MAX		WRITE_PROTO_MAX

struct filereq {
	char		*rel;		/* the path, relative to the project */
	char		*title;		/* "write N bytes to PATH" */
	char		*diff;		/* what the operator sees */
	bool		 created;	/* the file does not exist yet */
	bool		 executable;	/* it exists with an execute bit */
	size_t		 len;		/* bytes of content */
	char		*message;	/* the helper's stdin (write-proto.h) */
	size_t		 message_len;
};
#define FILEREQ_INIT { NULL, NULL, NULL, false, false, 0, NULL, 0 }

/* Build the request for writing len bytes of content to path (as the
   agent gave it) in project; -1 with cause (refused before it is
   queued: outside the project, a control character in the path, too
   large, not a regular file). */
int	 filereq_build(const char *project, const char *path,
	    const char *content, size_t len, struct filereq *, char **cause);
void	 filereq_release(struct filereq *);
/* The helper's message (write-proto.h) for len bytes of content to rel,
   whose SHA-256 (hex) must still be was (NULL: the file must not exist),
   appended to b. */
struct buf;
void	 filereq_encode(const char *rel, const char *was, const char *content,
	    size_t len, struct buf *b);
/* The verdict of a write to rel (project-relative), the way commands get
   theirs (allowlist_classify_write: protected -> deny, the danger
   table's "writes" -> danger, attention -> ask, else allow with rule
   "file-write"), then: a path the configured attention list names
   (attention, e.g. the agents' configuration a "!path" lifted) or a file
   with an execute bit -> ask. */
void	 filereq_classify(const struct allowlist *, const char *rel,
	    bool executable, const struct strv *protected,
	    const struct strv *attention, struct classification *);
/* The diff of two texts, line by line, one hunk: the common first and
   last lines are left out (caller frees). */
char	*filereq_diff(const char *old, const char *new, size_t max_lines);

#endif
