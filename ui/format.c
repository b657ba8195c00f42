/*
 * format: the lines the panes show, built from requests, reports and
 * events (see format.h); the text helpers they use are in text.c.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <wchar.h>

#include "format.h"
#include "report-text.h"
#include "xalloc.h"

static bool	fmt_clock;	/* times of day instead of ages */

/* A short age: now, 12s, 5m, 3h, 2d. */
char *
fmt_age(int64_t ms)
{
	int64_t	s = ms / 1000;

	if (s < 1)
		return xstrdup("now");
	if (s < 60)
		return xasprintf("%llds", (long long)s);
	if (s < 3600)
		return xasprintf("%lldm", (long long)(s / 60));
	if (s < 86400)
		return xasprintf("%lldh", (long long)(s / 3600));
	return xasprintf("%lldd", (long long)(s / 86400));
}

/* Show times of day (HH:MM:SS, local) instead of ages (the t key). */
void
fmt_set_clock(bool on)
{
	fmt_clock = on;
}

bool
fmt_get_clock(void)
{
	return fmt_clock;
}

/* When something happened: its age, or its local time of day. */
char *
fmt_when(int64_t at_ms, int64_t now_ms)
{
	struct tm	tm;
	time_t		t = (time_t)(at_ms / 1000);
	char		s[16];

	if (!fmt_clock)
		return fmt_age(now_ms - at_ms);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(s, sizeof s, "%H:%M:%S", &tm) == 0)
		return xstrdup("?");
	return xstrdup(s);
}

/* Elapsed time as m:ss or h:mm:ss. */
char *
fmt_elapsed(int64_t ms)
{
	int64_t	s = ms < 0 ? 0 : ms / 1000;

	if (s < 3600)
		return xasprintf("%lld:%02lld", (long long)(s / 60),
		    (long long)(s % 60));
	return xasprintf("%lld:%02lld:%02lld", (long long)(s / 3600),
	    (long long)(s / 60 % 60), (long long)(s % 60));
}

/* The widest verdict badge ("DANGER"). */
#define FMT_BADGE_W	6

/* The verdict badge text. */
const char *
fmt_badge(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return "allow";
	case VERDICT_DENY:
		return "deny";
	case VERDICT_DANGER:
		return "DANGER";
	default:
		return "ask";
	}
}

/* Does the request wait for a decision? */
bool
fmt_needs_operator(const struct request *r)
{
	return r->state == REQUEST_PENDING || r->wants != NULL;
}

/* The state column text. */
char *
fmt_state(const struct request *r, int64_t now_ms)
{
	char	*e, *s;

	if (r->undone)		/* its run was put back (bwgate undo, u) */
		return xstrdup("undone");
	switch (r->state) {
	case REQUEST_PENDING:
		return xstrdup("pending");
	case REQUEST_APPROVED:
		return xstrdup("approved");
	case REQUEST_RUNNING:
		/* A note while running: a kill is under way. */
		if (r->note != NULL)
			return xstrdup("stopping");
		/* Its proxy asks about a host (a, A or d answers). */
		if (r->wants != NULL && r->wants_also.n > 0)
			return xasprintf("wants %s +%zu", r->wants,
			    r->wants_also.n);
		if (r->wants != NULL)
			return xasprintf("wants %s", r->wants);
		e = fmt_elapsed(now_ms - r->started);
		s = xasprintf("running %s", e);
		free(e);
		return s;
	case REQUEST_FINISHED:
		return xasprintf("exit %d", r->exit_status);
	case REQUEST_FAILED:
		return xstrdup("failed");
	case REQUEST_KILLED:
		return xstrdup("killed");
	case REQUEST_TIMED_OUT:
		return xstrdup("timed out");
	case REQUEST_DENIED:
		return xstrdup("denied");
	case REQUEST_WITHDRAWN:
		return xstrdup("withdrawn");
	}
	return xstrdup("?");
}

/* Append a field trimmed and padded to w columns, then a space. */
static void
fmt_field(struct buf *b, const char *s, size_t w, bool right)
{
	char	*t = fmt_trim(s, w, !right);
	size_t	 tw = fmt_width(t);

	while (right && tw++ < w)
		buf_putc(b, ' ');
	buf_puts(b, t);
	buf_putc(b, ' ');
	free(t);
}

/* One queue line of exactly cols columns, with its coloured parts. */
void
fmt_queue_row(const struct request *r, int64_t now_ms, size_t cols,
    struct fmt_row *row)
{
	struct buf	 b = BUF_INIT;
	char		 id[16], *agent, *age, *cmd, *state, *all;
	size_t		 idw, agentw, agew, statew, fixed, cmdw;

	memset(row, 0, sizeof *row);
	snprintf(id, sizeof id, "%u", r->id);
	idw = strlen(id) < 3 ? 3 : strlen(id);
	/* The command gives way first: the agent ("claude-code", "codex",
	   "pid 12345") stays readable down to 44 columns. */
	agentw = cols >= 66 ? 12 : cols >= 44 ? 7 : 0;
	agew = cols >= 44 ? (fmt_clock ? 8 : 4) : 0;
	statew = cols >= 60 ? 13 : 9;
	/* marker id␠ [agent␠] [age␠] cmd␠ badge␠ state */
	fixed = 1 + idw + 1 + (agentw ? agentw + 1 : 0) +
	    (agew ? agew + 1 : 0) + 1 + FMT_BADGE_W + 1 + statew;
	agent = fmt_escape(r->agent != NULL ? r->agent : "");
	age = fmt_when(r->submitted, now_ms);
	cmd = fmt_escape(r->command != NULL ? r->command : "");
	state = fmt_state(r, now_ms);
	if (statew < 13 && r->wants != NULL) {
		/* Narrow: "? host:port +1", the port in sight. */
		free(state);
		state = r->wants_also.n > 0 ? xasprintf("? %s +%zu", r->wants,
		    r->wants_also.n) : xasprintf("? %s", r->wants);
	} else if (statew < 13 && r->state == REQUEST_RUNNING &&
	    r->note == NULL) {
		/* Narrow: "run 1:05", the time in sight. */
		char	*e = fmt_elapsed(now_ms - r->started);

		free(state);
		state = xasprintf("run %s", e);
		free(e);
	}

	if (cols < fixed + 4) {
		/* Too narrow for columns: id, badge, state, command. */
		all = xasprintf("%c%s %s %s %s", fmt_needs_operator(r) ? '!' :
		    ' ', id, fmt_badge(r->verdict), state, cmd);
		row->text = fmt_trim(all, cols, true);
		free(all);
		row->badge_off = 2 + strlen(id);
		row->badge_len = strlen(fmt_badge(r->verdict));
		row->state_off = row->badge_off + row->badge_len + 1;
		row->state_len = strlen(state);
		if (row->badge_off + row->badge_len > strlen(row->text))
			row->badge_len = row->state_len = 0;
		else if (row->state_off + row->state_len > strlen(row->text))
			row->state_len = 0;
		goto out;
	}
	cmdw = cols - fixed;
	/* A host question's host and port stay whole: the command gives
	   way (down to 1 column). */
	if (r->wants != NULL && fmt_width(state) > statew) {
		size_t	more = fmt_width(state) - statew;

		if (more > cmdw - 1)
			more = cmdw - 1;
		statew += more;
		cmdw -= more;
	}
	buf_putc(&b, fmt_needs_operator(r) ? '!' : ' ');
	fmt_field(&b, id, idw, true);
	if (agentw)
		fmt_field(&b, agent, agentw, false);
	if (agew)
		fmt_field(&b, age, agew, true);
	fmt_field(&b, cmd, cmdw, false);
	row->badge_off = b.len;
	row->badge_len = strlen(fmt_badge(r->verdict));
	fmt_field(&b, fmt_badge(r->verdict), FMT_BADGE_W, false);
	row->state_off = b.len;
	all = fmt_trim(state, statew, true);
	row->state_len = fmt_fit(all, fmt_width(state) < statew ?
	    fmt_width(state) : statew, NULL);
	buf_puts(&b, all);
	free(all);
	row->text = buf_detach(&b);
out:
	free(agent);
	free(age);
	free(cmd);
	free(state);
}

/* Free a row. */
void
fmt_row_release(struct fmt_row *row)
{
	free(row->text);
	row->text = NULL;
}

/* Does the text hold what was typed, as it is or as the queue shows it
   (a typed \\n finds a newline shown as \\n)? */
static bool
fmt_text_match(const char *s, const char *filter)
{
	char	*e;
	bool	 hit;

	if (s == NULL)
		return false;
	if (strcasestr(s, filter) != NULL)
		return true;
	e = fmt_escape(s);
	hit = strcasestr(e, filter) != NULL;
	free(e);
	return hit;
}

/* Does the request match the filter text? */
bool
fmt_filter_match(const struct request *r, const char *filter)
{
	char	id[16], *state;
	bool	hit;

	if (filter == NULL || *filter == '\0')
		return true;
	snprintf(id, sizeof id, "#%u", r->id);
	if (strcasestr(id, filter) != NULL ||
	    fmt_text_match(r->agent, filter) ||
	    fmt_text_match(r->command, filter) ||
	    strcasecmp(fmt_badge(r->verdict), filter) == 0)
		return true;
	state = fmt_state(r, r->started);
	hit = strcasestr(state, filter) != NULL;
	free(state);
	return hit;
}

/* A string member or NULL. */
static const char *
json_str(const cJSON *j, const char *name)
{
	const cJSON	*m = cJSON_GetObjectItemCaseSensitive(j, name);

	return cJSON_IsString(m) ? m->valuestring : NULL;
}

/* Whose an event is, when it is not plainly the request's (takes s). */
static char *
fmt_fsevent_whose(const cJSON *ev, char *s)
{
	const cJSON	*maybe = cJSON_GetObjectItemCaseSensitive(ev, "maybe");
	const cJSON	*id;
	const char	*by = json_str(ev, "by");
	struct buf	 b = BUF_INIT;

	buf_puts(&b, s);
	free(s);
	/* Not known to be this request's: its calls were not all seen. */
	if (by != NULL && strcmp(by, "uncertain") == 0)
		buf_puts(&b, " (uncertain)");
	/* Outside: a running request that cannot tell may have made it. */
	if (cJSON_IsArray(maybe) && cJSON_GetArraySize(maybe) > 0) {
		buf_puts(&b, " (maybe");
		cJSON_ArrayForEach(id, maybe)
			if (cJSON_IsNumber(id))
				buf_printf(&b, " #%.0f", id->valuedouble);
		buf_puts(&b, ")");
	}
	return buf_detach(&b);
}

/* One live filesystem event as a line, and its kind. */
char *
fmt_fsevent(const cJSON *ev, char *kind)
{
	const char	*type = json_str(ev, "event"), *path, *to, *w;
	const cJSON	*cnt = cJSON_GetObjectItemCaseSensitive(ev, "count");
	const char	*slash;
	char		*p, *t, *s, count[32] = "";

	if ((w = json_str(ev, "warning")) != NULL || (type != NULL &&
	    strcmp(type, "lossy") == 0)) {
		*kind = 'w';
		p = fmt_escape(w != NULL ? w : "live events incomplete");
		s = xasprintf("! %s", p);
		free(p);
		return s;
	}
	path = json_str(ev, "path");
	if (type == NULL || path == NULL) {
		*kind = 'w';
		p = cJSON_PrintUnformatted(ev);
		t = fmt_escape(p != NULL ? p : "");
		s = xasprintf("? %s", t);
		cJSON_free(p);
		free(t);
		return s;
	}
	slash = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "dir")) ?
	    "/" : "";
	if (cJSON_IsNumber(cnt) && cnt->valuedouble > 1)
		snprintf(count, sizeof count, " (%s%.0f)",
		    fmt_ascii() ? "x" : "\xc3\x97", cnt->valuedouble);
	p = fmt_escape(path);
	if (strcmp(type, "created") == 0) {
		*kind = 'c';
		s = xasprintf("+ %s%s%s", p, slash, count);
	} else if (strcmp(type, "modified") == 0) {
		*kind = 'm';
		s = xasprintf("~ %s%s%s", p, slash, count);
	} else if (strcmp(type, "deleted") == 0) {
		*kind = 'd';
		s = xasprintf("- %s%s%s", p, slash, count);
	} else if (strcmp(type, "moved") == 0) {
		*kind = 'r';
		to = json_str(ev, "to");
		t = fmt_escape(to != NULL ? to : "?");
		s = xasprintf("> %s%s -> %s%s", p, slash, t, slash);
		free(t);
	} else {
		*kind = 'w';
		t = fmt_escape(type);
		s = xasprintf("? %s %s", t, p);
		free(t);
	}
	free(p);
	return fmt_fsevent_whose(ev, s);
}

/* Append one argv word, shell-quoted and escaped. */
static void
fmt_argv_word(struct buf *b, const char *w)
{
	char	*q = shell_quote(w);

	if (b->len > 0)
		buf_putc(b, ' ');
	fmt_escape_buf(b, q, strlen(q));
	free(q);
}

/* The argv shell-quoted, one option and its arguments per line. */
void
fmt_argv_lines(const struct strv *argv, size_t cols, struct strv *lines)
{
	struct buf	b = BUF_INIT;
	size_t		i;
	bool		rest = false;

	for (i = 0; i < argv->n; i++) {
		const char *w = argv->v[i];

		/* Each option starts a line; "--" and the command share one. */
		if (!rest && i > 0 && strncmp(w, "--", 2) == 0 && b.len > 0) {
			fmt_wrap(b.data, cols, 4, lines);
			buf_reset(&b);
		}
		if (!rest && strcmp(w, "--") == 0)
			rest = true;
		fmt_argv_word(&b, w);
		if (i == 0) {
			fmt_wrap(b.data, cols, 4, lines);
			buf_reset(&b);
		}
	}
	if (b.len > 0)
		fmt_wrap(b.data, cols, 4, lines);
	buf_release(&b);
}

/* The mount table as aligned, wrapped lines. */
void
fmt_mounts(const cJSON *mounts, size_t cols, struct strv *lines)
{
	const cJSON	*m;
	size_t		 pw = 4, w;
	char		*path, *why, *cell, *line;

	cJSON_ArrayForEach(m, mounts) {
		path = fmt_escape(json_str(m, "path"));
		if ((w = fmt_width(path)) > pw)
			pw = w;
		free(path);
	}
	if (pw > cols / 2)
		pw = cols / 2 > 4 ? cols / 2 : 4;
	cJSON_ArrayForEach(m, mounts) {
		path = fmt_escape(json_str(m, "path"));
		why = fmt_escape(json_str(m, "why"));
		cell = fmt_width(path) < pw ? fmt_trim(path, pw, true) :
		    xstrdup(path);
		line = xasprintf("%-9s %s  %s", json_str(m, "mode") != NULL ?
		    json_str(m, "mode") : "?", cell, why);
		fmt_wrap(line, cols, 10, lines);
		free(line);
		free(cell);
		free(path);
		free(why);
	}
}

/* The programs a request ran, marked where the allowlist says no. */
void
fmt_executed(const cJSON *rep, struct strv *lines)
{
	const cJSON	*e, *n, *a;
	struct buf	 b = BUF_INIT;
	char		*s;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rep,
	    "executed")) {
		n = cJSON_GetObjectItemCaseSensitive(e, "count");
		buf_reset(&b);
		buf_printf(&b, "%c %3dx ",
		    cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e,
		    "allowlisted")) ? '!' : ' ', cJSON_IsNumber(n) ?
		    n->valueint : 1);
		s = fmt_escape(json_str(e, "path"));
		buf_puts(&b, s);
		free(s);
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e,
		    "argv")) {
			s = fmt_escape(cJSON_GetStringValue(a));
			buf_printf(&b, " %s", s);
			free(s);
		}
		strv_push(lines, b.data);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep,
	    "executed_truncated")))
		strv_push(lines, "  ... more programs ran (not listed)");
	buf_release(&b);
}

/* The lines of a report: attention entries, how it ended, then the
   shared renderer's lines (report-text.c, as bwgate exec, run and show
   print them); the first character picks the colour. */
void
fmt_report_lines(const cJSON *rep, bool expand, struct strv *lines)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { fmt_escape, expand };
	const cJSON		*n, *e;
	const char		*sig, *err, *k;
	char			*a;

	if (!cJSON_IsObject(rep)) {
		strv_push(lines, "  no report");
		return;
	}
	report_text_build(rep, &o, &t);
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].kind == RL_ATTENTION)
			strv_push(lines, t.v[i].text);
	n = cJSON_GetObjectItemCaseSensitive(rep, "exit_code");
	sig = json_str(rep, "signal");
	e = cJSON_GetObjectItemCaseSensitive(rep, "duration_ms");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "timed_out")))
		strv_push(lines, "  timed out");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "killed")))
		strv_push(lines, "  killed on request");
	else if ((k = json_str(rep, "killed")) != NULL)
		strv_pushf(lines, "  killed: %s", k);	/* a limit's name */
	if (cJSON_IsNumber(n))
		strv_pushf(lines, "  exit %d in %.0f ms", n->valueint,
		    cJSON_IsNumber(e) ? e->valuedouble : 0.0);
	else if (sig != NULL)
		strv_pushf(lines, "  killed by %s after %.0f ms", sig,
		    cJSON_IsNumber(e) ? e->valuedouble : 0.0);
	if ((err = json_str(rep, "error")) != NULL) {
		a = fmt_escape(err);
		strv_pushf(lines, "! error: %s", a);
		free(a);
	}
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rep, "changes")))
		strv_push(lines, "  no change report (no snapshot was taken)");
	for (size_t i = 0; i < t.n; i++) {
		switch (t.v[i].kind) {
		case RL_ATTENTION:
			break;
		case RL_CREATED:
		case RL_MODIFIED:
		case RL_DELETED:
		case RL_RENAMED:
			strv_push(lines, t.v[i].text);
			break;
		case RL_REFUSED:
		case RL_NOTE:
			strv_pushf(lines, "! %s", t.v[i].text);
			break;
		case RL_HINT:
			strv_pushf(lines, "    %s", t.v[i].text);
			break;
		default:
			strv_pushf(lines, "  %s", t.v[i].text);
			break;
		}
	}
	report_text_release(&t);
}

/* The lines of a report, directories summarised. */
void
fmt_report(const cJSON *rep, struct strv *lines)
{
	fmt_report_lines(rep, false, lines);
}
