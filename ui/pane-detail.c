/*
 * pane-detail: everything about the selected request: the full command,
 * the simple commands the parser found, verdict with rule and reason, the
 * sandbox profile, network, the operator's mount edits, the mount table
 * and the exact bwrap argv (wrapped, scrollable; `v` shows it as one
 * shell-quoted line for copying).
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domains.h"
#include "format.h"
#include "path.h"
#include "shparse.h"
#include "ui.h"
#include "xalloc.h"

/* The simple commands of a request, as the parser sees them. */
void
pane_detail_commands(const struct request *r, struct strv *out)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL;

	if (r->is_argv || r->command == NULL) {
		strv_push_owned(out, strv_join(&r->argv, " ", true));
		return;
	}
	if (sh_parse(r->command, &s, &cause) != 0) {
		strv_push_owned(out, xasprintf("(cannot parse: %s)", cause));
		free(cause);
		return;
	}
	for (size_t i = 0; i < s.ncmds; i++) {
		if (s.cmds[i].nwords == 0 && s.cmds[i].nassigns == 0)
			continue;
		strv_push_owned(out, sh_cmd_string(&s.cmds[i]));
	}
	sh_script_release(&s);
}

/* The operator's (or agent's) sandbox changes in words. */
static char *
detail_mounts_summary(const struct proto_mounts *m)
{
	struct buf	b = BUF_INIT;

	buf_puts(&b, "");
	if (m->network == 1)
		buf_puts(&b, "network any host; ");
	else if (m->network == 0)
		buf_puts(&b, "network off; ");
	for (size_t i = 0; i < m->rw.n; i++)
		buf_printf(&b, "rw %s; ", m->rw.v[i]);
	for (size_t i = 0; i < m->ro.n; i++)
		buf_printf(&b, "ro %s; ", m->ro.v[i]);
	for (size_t i = 0; i < m->hide.n; i++)
		buf_printf(&b, "hide %s; ", m->hide.v[i]);
	for (size_t i = 0; i < m->domains.n; i++)
		buf_printf(&b, "host %s; ", m->domains.v[i]);
	if (b.len >= 2)
		b.data[b.len -= 2] = '\0';
	return buf_detach(&b);
}

/* The colour of a verdict. */
static enum ui_color
detail_verdict_color(enum verdict v)
{
	return v == VERDICT_ALLOW ? UC_ALLOW : v == VERDICT_DENY ? UC_DENY :
	    v == VERDICT_DANGER ? UC_DANGER : UC_ASK;
}

/* Add an escaped key/value line. */
static void
detail_kv(struct ui_text *t, enum ui_color c, const char *label,
    const char *value, size_t cols)
{
	char	*e = fmt_escape(value != NULL ? value : "");

	ui_text_kv(t, c, label, e, cols);
	free(e);
}

/* A file write's diff (filereq.h), one line each, escaped. */
static void
detail_diff(const struct request *r, size_t w, struct ui_text *t)
{
	const char	*p, *e;
	char		*line, *esc;
	enum ui_color	 c;

	ui_text_add(t, UC_LABEL, "diff");
	for (p = r->write_diff != NULL ? r->write_diff : ""; *p != '\0';
	    p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		line = xstrndup(p, (size_t)(e - p));
		c = line[0] == '+' ? UC_CREATED : line[0] == '-' ?
		    UC_DELETED : UC_NORMAL;
		esc = fmt_escape(line);
		free(line);
		line = xasprintf("  %s", esc);
		ui_text_wrap(t, c, line, w, 4);
		free(line);
		free(esc);
	}
}

/* The request's state, what the operator may do, and its service. */
static void
detail_state(struct ui *ui, struct request *r, size_t w, struct ui_text *t)
{
	const struct service	*sv;
	char			*s, *st;

	st = fmt_state(r, ui_now());
	if (r->state == REQUEST_PENDING && r->verdict == VERDICT_DANGER)
		s = xasprintf("%s: a approve (type yes), d deny", st);
	else if (r->state == REQUEST_PENDING)
		s = xasprintf("%s: a approve, A approve + rule, d deny, "
		    "e mounts, n network", st);
	else if (r->by == BY_SANDBOX)
		s = xasprintf("%s: sandboxed, not reviewed (the project "
		    "profile: writes only in the project, no network)", st);
	else if (r->by != BY_NOBODY && r->who != NULL)
		s = xasprintf("%s by %s (%s)", st, request_by_name(r->by),
		    r->who);
	else if (r->by != BY_NOBODY)
		s = xasprintf("%s by %s", st, request_by_name(r->by));
	else
		s = xstrdup(st);
	detail_kv(t, r->state == REQUEST_PENDING ? UC_PENDING : UC_NORMAL,
	    "state", s, w);
	free(s);
	free(st);
	/* Its background processes, kept (console-service.c). */
	if ((sv = console_service(ui->c, r->id)) != NULL) {
		s = xasprintf("%d process%s left running%s (S stops it; "
		    "its output follows the request's)", sv->processes,
		    sv->processes == 1 ? "" : "es", sv->stopping ?
		    ", stopping" : "");
		detail_kv(t, UC_RUNNING, "service", s, w);
		free(s);
	}
}

/* Build the pane's text for r. */
static void
detail_text(struct ui *ui, struct request *r, size_t w, struct ui_text *t)
{
	const struct proto_mounts *m = console_mounts(r);
	struct strv	 cmds = STRV_INIT, lines = STRV_INIT;
	char		*s, *e, *age, *rel;
	size_t		 i;

	age = fmt_when(r->submitted, ui_now());
	rel = path_relative(r->cwd, console_project(ui->c));
	s = xasprintf("#%u from %s, %s%s, in %s%s", r->id,
	    r->agent != NULL ? r->agent : "?", age, strcmp(age, "now") == 0 ||
	    fmt_get_clock() ? "" : " ago",
	    rel != NULL ? rel : r->cwd, r->rerun_of != 0 ? " (a re-run)" : "");
	detail_kv(t, UC_NORMAL, "request", s, w);
	free(s);
	free(rel);
	free(age);

	detail_kv(t, UC_NORMAL, "command", r->command, w);
	if (r->file_write)
		detail_diff(r, w, t);
	else
		pane_detail_commands(r, &cmds);
	if (!r->file_write &&
	    (cmds.n != 1 || strcmp(cmds.v[0], r->command) != 0)) {
		ui_text_add(t, UC_LABEL, cmds.n == 1 ? "simple command" :
		    "simple commands");
		for (i = 0; i < cmds.n; i++) {
			e = fmt_escape(cmds.v[i]);
			s = xasprintf("  %s", e);
			ui_text_wrap(t, UC_NORMAL, s, w, 4);
			free(s);
			free(e);
		}
	}
	strv_release(&cmds);

	s = xasprintf("%s  (%s)", fmt_badge(r->verdict), r->rule != NULL ?
	    r->rule : "no rule");
	detail_kv(t, detail_verdict_color(r->verdict), "verdict", s, w);
	free(s);
	detail_kv(t, UC_NORMAL, "reason", r->reason, w);
	if (r->description != NULL)
		detail_kv(t, UC_NORMAL, "why", r->description, w);
	if (r->at_stake != NULL)
		detail_kv(t, r->verdict == VERDICT_DANGER ? UC_DANGER :
		    UC_NORMAL, "at stake", r->at_stake, w);
	if (r->needs != NULL)
		detail_kv(t, UC_NORMAL, "needs", r->needs, w);
	e = domains_describe(r->network, &r->domains);
	s = xasprintf("%s, network %s, %s", r->profile != NULL ? r->profile :
	    "?", e, r->writes ? "writes the project" : "project read-only");
	free(e);
	detail_kv(t, UC_NORMAL, "sandbox", s, w);
	free(s);
	if (r->shell_options.n > 0 || r->args.n > 0) {
		e = strv_join(&r->shell_options, " ", true);
		rel = strv_join(&r->args, " ", true);
		s = xasprintf("options %s; $0 and arguments %s",
		    r->shell_options.n > 0 ? e : "none",
		    r->args.n > 0 ? rel : "none");
		detail_kv(t, UC_NORMAL, "shell", s, w);
		free(s);
		free(e);
		free(rel);
	}
	if (!r->file_write && (r->stdin_stream || r->merge_output)) {
		s = xasprintf("%s%s%s", r->stdin_stream ? "stdin streamed "
		    "from the agent" : "", r->stdin_stream &&
		    r->merge_output ? "; " : "", r->merge_output ?
		    "stderr merged into stdout (one pipe)" : "");
		detail_kv(t, UC_NORMAL, "streams", s, w);
		free(s);
	}

	detail_state(ui, r, w, t);
	if (r->note != NULL)
		detail_kv(t, UC_NORMAL, "note", r->note, w);
	if (r->error != NULL)
		detail_kv(t, UC_WARN, "error", r->error, w);
	if (!proto_mounts_empty(m)) {
		s = detail_mounts_summary(m);
		detail_kv(t, UC_NORMAL, r->edited ? "edits" : "asked", s, w);
		free(s);
	}
	/* After what the operator decides on: the state line must stay in
	   sight on a small terminal (the block can be long). */
	if (r->env_changed.n > 0) {
		ui_text_add(t, UC_LABEL, "environment (differs from the "
		    "console's)");
		for (i = 0; i < r->env_changed.n; i++) {
			e = fmt_escape(r->env_changed.v[i]);
			s = xasprintf("  %s", e);
			ui_text_wrap(t, UC_NORMAL, s, w, 4);
			free(s);
			free(e);
		}
	}

	if (r->report != NULL && cJSON_GetArraySize(cJSON_GetObjectItem(
	    r->report, "executed")) > 0) {
		ui_text_add(t, UC_LABEL, "executed  (! not allowlisted on its "
		    "own)");
		fmt_executed(r->report, &lines);
		for (i = 0; i < lines.n; i++)
			ui_text_wrap(t, lines.v[i][0] == '!' ? UC_WARN :
			    UC_NORMAL, lines.v[i], w, 8);
		strv_release(&lines);
	}
	ui_text_add(t, UC_LABEL, r->mounts != NULL ? "mounts" :
	    "mounts (none: the sandbox could not be built)");
	if (r->mounts != NULL) {
		fmt_mounts(r->mounts, w, &lines);
		for (i = 0; i < lines.n; i++)
			ui_text_add(t, UC_NORMAL, lines.v[i]);
		strv_release(&lines);
	}
	ui_text_add(t, UC_LABEL, "bwrap argv  (v: as one line to copy)");
	fmt_argv_lines(&r->bwrap_argv, w, &lines);
	for (i = 0; i < lines.n; i++)
		ui_text_add(t, UC_NORMAL, lines.v[i]);
	strv_release(&lines);
}

/* Draw the detail pane. */
void
pane_detail_draw(struct ui *ui, struct pane *p)
{
	struct ui_text	 t = UI_TEXT_INIT;
	struct request	*r = ui_selected(ui);
	char		*extra = NULL;

	if (r != NULL) {
		detail_text(ui, r, (size_t)p->w, &t);
		extra = xasprintf("#%u", r->id);
	} else
		ui_text_add(&t, UC_DIM, " nothing selected");
	ui_draw_text(ui, p, &t);
	ui_draw_title(ui, p, extra);
	free(extra);
	ui_text_release(&t);
}
