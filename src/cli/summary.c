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

#include "buf.h"
#include "cmd.h"
#include "report-text.h"
#include "xalloc.h"

/* Text a command or a file controls, control characters made visible
   (display: the one display function replaces this at the merge). */
char *
summary_escape(const char *s)
{
	struct buf	b = BUF_INIT;

	if (s == NULL)
		return xstrdup("(null)");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\x%02x", c);
		else
			buf_putc(&b, (char)c);
	}
	return b.data != NULL ? buf_detach(&b) : xstrdup("");
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
