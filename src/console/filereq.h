/*
 * filereq: a file write an agent asks for ("submit" with "write", doc/
 * protocol.md), turned into a request like any command.
 *
 * The console reads the file as it is now (beneath the project, no link
 * followed), classifies the path with the file-write rules (filewrite.h:
 * plain -> allow, protected or attention -> ask), computes the diff the
 * operator sees, and builds the script that runs in the sandbox:
 *
 *	# bwgate: write_file 'src/a.c' (modified: -1 +2 lines)
 *	# @@ -3,1 +3,2 @@
 *	# -old
 *	# +new
 *	# +lines
 *	f='src/a.c'
 *	[ "$(sha256sum < "$f")" = '<sha256 the diff was made from>  -' ] ||
 *	    { echo "bwgate: '$f' changed since ..." >&2; exit 1; }
 *	printf '%s' '<the whole new content>' > "$f"
 *
 * So the write is shown with its diff, approved or denied, audited, run
 * under the project's sandbox (protected paths stay read-only whatever is
 * approved), observed, and reported with the same change report as a
 * command. The check makes the write fail, changing nothing, if the file
 * is no longer what the operator saw.
 */
#ifndef BWGATE_FILEREQ_H
#define BWGATE_FILEREQ_H

#include <stdbool.h>

#include "allowlist.h"
#include "strv.h"

/* The script travels as one argument of bash -c, and the kernel takes at
   most 128 KiB in one argument: the quoted content may fill FILEREQ_MAX,
   the diff in the comments is cut to what is left of FILEREQ_SCRIPT_MAX. */
#define FILEREQ_MAX		(96 * 1024)
#define FILEREQ_SCRIPT_MAX	(124 * 1024)

struct filereq {
	char		*rel;		/* the path, relative to the project */
	char		*command;	/* the script, the diff first */
	char		*diff;		/* what the operator sees */
	bool		 created;	/* the file does not exist yet */
	enum verdict	 verdict;
	char		*reason;
};
#define FILEREQ_INIT { NULL, NULL, NULL, false, VERDICT_ASK, NULL }

/* Build the request for writing content to path (as the agent gave it)
   in project; -1 with cause (refused before it is queued). */
int	 filereq_build(const char *project, const char *path,
	    const char *content, const struct strv *protected,
	    struct filereq *, char **cause);
void	 filereq_release(struct filereq *);
/* The diff of two texts, line by line, one hunk: the common first and
   last lines are left out (caller frees). */
char	*filereq_diff(const char *old, const char *new, size_t max_lines);

#endif
