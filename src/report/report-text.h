/*
 * report-text: a JSON change report (result_json(), a console "result")
 * as lines for people, read like `git status`. The one renderer behind
 * `bwgate exec`, `bwgate run`, `bwgate show` and the console's report
 * pane, so the same report reads the same everywhere.
 *
 * Rules: attention entries first (the report's "attention" array, when
 * present); a count line; a directory created (or deleted) with
 * everything in it is one line ("+ build/ (4,213 files)"); at most
 * REPORT_TEXT_MAX lines per kind, then "... and N more"; refused
 * operations with their hints; what a git-write run did to the
 * repository (the report's "git": commits with their subjects, at most
 * REPORT_TEXT_MAX, refs created, deleted, moved or forced, the index);
 * truncation and lossy-stream notes;
 * warnings. With expand, every path is listed. The full list is always in
 * the JSON.
 *
 * Text from the report (paths, hints, attention messages) goes through
 * the escape function the caller passes (the display function), never
 * straight to the terminal.
 *
 *	struct report_text t = REPORT_TEXT_INIT;
 *	report_text_build(rep, &opts, &t);
 *	for (i = 0; i < t.n; i++) print(t.v[i].kind, t.v[i].text);
 *	report_text_release(&t);
 */
#ifndef BWGATE_REPORT_TEXT_H
#define BWGATE_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define REPORT_TEXT_MAX	20	/* lines per kind unless expanded */

enum report_line_kind {
	RL_ATTENTION,	/* "! ..." something to look at first */
	RL_COUNT,	/* "3 created, 1 modified, ..." or "no changes" */
	RL_CREATED,	/* "+ path" or "+ dir/ (N files)" */
	RL_MODIFIED,	/* "~ path" */
	RL_DELETED,	/* "- path" or "- dir/ (N files)" */
	RL_RENAMED,	/* "> from -> to" */
	RL_MORE,	/* "... and N more (the full list: --json)" */
	RL_REFUSED,	/* "refused OP 'path' (reason) xN" */
	RL_HINT,	/* "hint: ..." under a refused line */
	RL_NOTE,	/* truncation, lossy stream, warnings */
	RL_GIT,		/* "git: commit ID SUBJECT", "git: REF moved ..." */
};

struct report_line {
	enum report_line_kind	 kind;
	char			*text;
	bool			 summary;	/* a directory stands for more */
};

struct report_text {
	struct report_line	*v;
	size_t			 n, cap;
};
#define REPORT_TEXT_INIT { NULL, 0, 0 }

struct report_text_opts {
	/* The display function: a new string safe for a terminal. */
	char	*(*escape)(const char *);
	bool	 expand;	/* every path, no summaries, no limit */
};

/* The lines of report rep (an object; anything else gives none). */
void	report_text_build(const cJSON *rep, const struct report_text_opts *,
	    struct report_text *);
/* Did the command get past refusal v of report rep (it ended well; an
   offline check, a probe, git's index refresh)? Such are one line. */
bool	report_violation_recovered(const cJSON *rep, const cJSON *v);
/* Is a line one of a path list (printed indented under the count)? */
bool	report_line_is_path(enum report_line_kind);
void	report_text_release(struct report_text *);

#endif
