/*
 * summary: a JSON change report as a few lines for people (the summary
 * `bwgate run` prints on stderr and `bwgate show` on stdout).
 */
#include "autoconf.h"

#include <stdio.h>

#include "cmd.h"
#include "display.h"

#define SUMMARY_LIST_MAX	20	/* paths listed per kind */

/* Put text a command or a file controls, control characters made
   visible (the one display function). */
void
summary_text(FILE *f, const char *s)
{
	fputs(display_str(s), f);
}

/* A list of paths from the change report. */
static void
summary_list(FILE *f, const char *pfx, const cJSON *ch, const char *name,
    const char *mark)
{
	const cJSON	*a = cJSON_GetObjectItem(ch, name), *e;
	int		 i = 0, n = cJSON_GetArraySize(a);

	cJSON_ArrayForEach(e, a) {
		if (i++ == SUMMARY_LIST_MAX) {
			fprintf(f, "%s  ... and %d more\n", pfx,
			    n - SUMMARY_LIST_MAX);
			break;
		}
		fprintf(f, "%s  %s ", pfx, mark);
		if (cJSON_IsString(e))
			summary_text(f, e->valuestring);
		else if (cJSON_IsObject(e)) {
			summary_text(f, cJSON_GetStringValue(
			    cJSON_GetObjectItem(e, "from")));
			fputs(" -> ", f);
			summary_text(f, cJSON_GetStringValue(
			    cJSON_GetObjectItem(e, "to")));
		}
		putc('\n', f);
	}
}

/* Changes, refused operations and truncation, each line after pfx. */
void
summary_print(FILE *f, const char *pfx, const cJSON *rep)
{
	const cJSON	*ch = cJSON_GetObjectItem(rep, "changes"), *v, *e;

	/* What needs a look comes first, marked. */
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(rep, "attention")) {
		fprintf(f, "%s! attention: ", pfx);
		summary_text(f, cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "path")));
		fputs(": ", f);
		summary_text(f, cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "why")));
		putc('\n', f);
	}
	if (cJSON_IsObject(ch)) {
		int c = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "created"));
		int m = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "modified"));
		int d = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "deleted"));
		int r = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "renamed"));

		if (cJSON_IsFalse(cJSON_GetObjectItem(rep,
		    "changes_possible")))
			fprintf(f, "%sno changes possible (the project was "
			    "read-only)\n", pfx);
		else if (c + m + d + r == 0)
			fprintf(f, "%sno changes in the project\n", pfx);
		else
			fprintf(f, "%s%d created, %d modified, %d deleted, "
			    "%d renamed\n", pfx, c, m, d, r);
		summary_list(f, pfx, ch, "created", "+");
		summary_list(f, pfx, ch, "modified", "~");
		summary_list(f, pfx, ch, "deleted", "-");
		summary_list(f, pfx, ch, "renamed", ">");
	}
	v = cJSON_GetObjectItem(rep, "violations");
	cJSON_ArrayForEach(e, v) {
		fprintf(f, "%srefused %s '", pfx, cJSON_GetStringValue(
		    cJSON_GetObjectItem(e, "operation")));
		summary_text(f, cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "path")));
		fprintf(f, "' (%s): %s\n",
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason")),
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "hint")));
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(rep, "stdout_truncated")) ||
	    cJSON_IsTrue(cJSON_GetObjectItem(rep, "stderr_truncated")))
		fprintf(f, "%soutput was truncated in the report\n", pfx);
}
