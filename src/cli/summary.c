/*
 * summary: a JSON change report as lines for people (what `bwgate run`
 * prints on stderr, `bwgate show` on stdout and `bwgate exec` on stderr),
 * through the one renderer (report-text.c) the console's report pane uses
 * too; this file is the escaping point for text a command or a file
 * controls.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "display.h"
#include "report-text.h"

/* Text a command or a file controls, control characters made visible
   (the one display function); caller frees. */
char *
summary_escape(const char *s)
{
	return display_escape(s != NULL ? s : "(null)");
}

/* Put such text on f. */
void
summary_text(FILE *f, const char *s)
{
	char	*e = summary_escape(s);

	fputs(e, f);
	free(e);
}

/* The report's lines, each after pfx; paths indented under the count. */
void
summary_print(FILE *f, const char *pfx, const cJSON *rep)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { summary_escape, false };

	report_text_build(rep, &o, &t);
	for (size_t i = 0; i < t.n; i++)
		fprintf(f, "%s%s%s\n", pfx,
		    report_line_is_path(t.v[i].kind) ||
		    t.v[i].kind == RL_HINT ? "  " : "", t.v[i].text);
	report_text_release(&t);
}
