/*
 * format: pure text formatting for the terminal UI (see format.h).
 *
 * The UTF-8 decoder here is strict (no overlong forms, no surrogates,
 * nothing above U+10FFFF) so that what the escaper lets through is exactly
 * what the terminal will draw. Widths come from wcwidth() for the current
 * LC_CTYPE; a character it calls unprintable is escaped, so every
 * character left in an escaped string has a known width.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "format.h"
#include "xalloc.h"

static bool	fmt_ascii_only;

/* Use ASCII only (a terminal that is not UTF-8). */
void
fmt_set_ascii(bool on)
{
	fmt_ascii_only = on;
}

/* Is ASCII-only mode on? */
bool
fmt_ascii(void)
{
	return fmt_ascii_only;
}

/* Decode one UTF-8 character at s; its length (1-4), or 0 if invalid. */
static size_t
utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	size_t		n, i;
	uint32_t	c, min;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Characters that reorder or break text on a terminal (Trojan Source). */
static bool
fmt_is_invisible_control(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) ||		/* C1 controls */
	    c == 0x061c || c == 0x200e || c == 0x200f ||
	    (c >= 0x202a && c <= 0x202e) ||		/* bidi embeddings */
	    (c >= 0x2066 && c <= 0x2069) ||		/* bidi isolates */
	    c == 0x2028 || c == 0x2029;			/* line separators */
}

/* Columns of one decoded character (-1: not printable here). */
static int
fmt_cp_width(uint32_t c)
{
	if (c < 0x20 || c == 0x7f)
		return -1;
	if (c < 0x7f)
		return 1;
	if (fmt_ascii_only || fmt_is_invisible_control(c))
		return -1;
	return wcwidth((wchar_t)c);
}

/* Append bytes as printable UTF-8, escaping what a terminal would act on. */
void
fmt_escape_buf(struct buf *b, const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, n;
	uint32_t		 c;

	buf_grow(b, len);
	while (i < len) {
		n = utf8_decode(p + i, len - i, &c);
		if (n == 0) {
			buf_printf(b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (fmt_cp_width(c) >= 0)
			buf_add(b, s + i, n);
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\r')
			buf_puts(b, "\\r");
		else if (c == 0x1b)
			buf_puts(b, "\\e");
		else if (c < 0x80)
			buf_printf(b, "\\x%02x", (unsigned)c);
		else
			buf_printf(b, "\\u%04x", (unsigned)c);
		i += n;
	}
}

/* One output line as a terminal would leave it, made safe to print. */
void
fmt_output_line(struct buf *b, const char *s, size_t len)
{
	struct buf	 t = BUF_INIT;
	const char	*cr;
	size_t		 i, col;

	/* A progress bar redraws with \r: keep what was drawn last. */
	while (len > 0 && s[len - 1] == '\r')
		len--;
	if ((cr = memrchr(s, '\r', len)) != NULL) {
		len -= (size_t)(cr + 1 - s);
		s = cr + 1;
	}
	for (i = 0; i < len; i++) {
		if (s[i] == 0x1b && i + 1 < len && s[i + 1] == '[') {
			/* CSI: parameters and intermediates, one final byte. */
			for (i += 2; i < len && ((unsigned char)s[i] < 0x40 ||
			    (unsigned char)s[i] > 0x7e); i++)
				;
			continue;
		}
		if (s[i] == '\t') {
			col = fmt_width_n(t.data != NULL ? t.data : "", t.len);
			do
				buf_putc(&t, ' ');
			while (++col % 8 != 0);
			continue;
		}
		buf_putc(&t, s[i]);
	}
	fmt_escape_buf(b, t.data != NULL ? t.data : "", t.len);
	buf_release(&t);
}

/* fmt_escape_buf() of a string, as a new string. */
char *
fmt_escape(const char *s)
{
	struct buf	b = BUF_INIT;

	if (s == NULL)
		s = "";
	fmt_escape_buf(&b, s, strlen(s));
	if (b.data == NULL)
		return xstrdup("");
	return buf_detach(&b);
}

/* Columns of the character at s (an escaped string: always >= 0). */
static size_t
fmt_char(const char *s, size_t len, size_t *cols)
{
	uint32_t	c;
	size_t		n = utf8_decode((const unsigned char *)s, len, &c);
	int		w;

	if (n == 0) {
		*cols = 1;
		return 1;
	}
	w = fmt_cp_width(c);
	*cols = w < 0 ? 1 : (size_t)w;
	return n;
}

/* Display columns of an escaped string. */
size_t
fmt_width(const char *s)
{
	return fmt_width_n(s, strlen(s));
}

/* Display columns of the first len bytes. */
size_t
fmt_width_n(const char *s, size_t len)
{
	size_t	i = 0, w = 0, cw;

	while (i < len) {
		i += fmt_char(s + i, len - i, &cw);
		w += cw;
	}
	return w;
}

/* How many bytes fit in cols columns, never half a character. */
size_t
fmt_fit(const char *s, size_t cols, size_t *used)
{
	size_t	len = strlen(s), i = 0, w = 0, cw, n;

	while (i < len) {
		n = fmt_char(s + i, len - i, &cw);
		if (w + cw > cols)
			break;
		/* Zero-width characters stay with what they follow. */
		w += cw;
		i += n;
	}
	if (used != NULL)
		*used = w;
	return i;
}

/* The ellipsis and its width. */
static const char *
fmt_ellipsis(size_t *w)
{
	*w = 1;
	return fmt_ascii_only ? "~" : "\xe2\x80\xa6";
}

/* Cut to cols columns with an ellipsis; pad when asked. */
char *
fmt_trim(const char *s, size_t cols, bool pad)
{
	struct buf	 b = BUF_INIT;
	const char	*ell;
	size_t		 w = fmt_width(s), ew, used, n;

	buf_puts(&b, "");
	if (w <= cols) {
		buf_puts(&b, s);
		used = w;
	} else if (cols > 0) {
		ell = fmt_ellipsis(&ew);
		n = fmt_fit(s, cols - ew, &used);
		buf_add(&b, s, n);
		buf_puts(&b, ell);
		used += ew;
	} else
		used = 0;
	while (pad && used < cols) {
		buf_putc(&b, ' ');
		used++;
	}
	return buf_detach(&b);
}

/* Wrap into lines of cols columns, at spaces where possible. */
void
fmt_wrap(const char *s, size_t cols, size_t indent, struct strv *lines)
{
	struct buf	 b = BUF_INIT;
	size_t		 len = strlen(s), i = 0, start, w, cw, n, brk, brkw;
	size_t		 avail, lead = 0;

	if (cols == 0)
		cols = 1;
	if (indent >= cols / 2)
		indent = 0;
	do {
		start = i;
		avail = cols - lead;
		w = 0;
		brk = 0;
		brkw = 0;
		while (i < len && s[i] != '\n') {
			n = fmt_char(s + i, len - i, &cw);
			if (w + cw > avail && i > start)
				break;
			i += n;
			w += cw;
			if (s[i - 1] == ' ') {
				brk = i;
				brkw = w;
			}
		}
		/* Cut after the last space when the line is full. */
		if (i < len && s[i] != '\n' && brk > start && brkw > avail / 3)
			i = brk;
		buf_reset(&b);
		for (size_t k = 0; k < lead; k++)
			buf_putc(&b, ' ');
		buf_add(&b, s + start, i - start);
		while (b.len > lead && b.data[b.len - 1] == ' ' && i < len)
			b.data[--b.len] = '\0';
		strv_push(lines, b.data != NULL ? b.data : "");
		if (i < len && s[i] == '\n') {
			i++;
			lead = 0;
			if (i == len)
				strv_push(lines, "");
		} else
			lead = indent;
	} while (i < len);
	buf_release(&b);
}

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

/* The verdict badge text. */
const char *
fmt_badge(enum verdict v)
{
	switch (v) {
	case VERDICT_ALLOW:
		return "allow";
	case VERDICT_DENY:
		return "deny";
	default:
		return "ask";
	}
}

/* Does the request wait for a decision? */
bool
fmt_needs_operator(const struct request *r)
{
	return r->state == REQUEST_PENDING;
}

/* The state column text. */
char *
fmt_state(const struct request *r, int64_t now_ms)
{
	char	*e, *s;

	switch (r->state) {
	case REQUEST_PENDING:
		return xstrdup("pending");
	case REQUEST_APPROVED:
		return xstrdup("approved");
	case REQUEST_RUNNING:
		/* A note while running: a kill is under way. */
		if (r->note != NULL)
			return xstrdup("stopping");
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
	agentw = cols >= 90 ? 12 : cols >= 64 ? 8 : 0;
	agew = cols >= 44 ? 4 : 0;
	statew = cols >= 60 ? 13 : 9;
	/* marker id␠ [agent␠] [age␠] cmd␠ badge␠ state */
	fixed = 1 + idw + 1 + (agentw ? agentw + 1 : 0) +
	    (agew ? agew + 1 : 0) + 1 + 5 + 1 + statew;
	agent = fmt_escape(r->agent != NULL ? r->agent : "");
	age = fmt_age(now_ms - r->submitted);
	cmd = fmt_escape(r->command != NULL ? r->command : "");
	state = fmt_state(r, now_ms);

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
	buf_putc(&b, fmt_needs_operator(r) ? '!' : ' ');
	fmt_field(&b, id, idw, true);
	if (agentw)
		fmt_field(&b, agent, agentw, false);
	if (agew)
		fmt_field(&b, age, agew, true);
	fmt_field(&b, cmd, cmdw, false);
	row->badge_off = b.len;
	row->badge_len = strlen(fmt_badge(r->verdict));
	fmt_field(&b, fmt_badge(r->verdict), 5, false);
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
	    (r->agent != NULL && strcasestr(r->agent, filter) != NULL) ||
	    (r->command != NULL && strcasestr(r->command, filter) != NULL) ||
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
		    fmt_ascii_only ? "x" : "\xc3\x97", cnt->valuedouble);
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
	return s;
}

/* Does the bwrap argv share the network? */
bool
fmt_argv_network(const struct strv *argv)
{
	for (size_t i = 0; i < argv->n; i++) {
		if (strcmp(argv->v[i], "--") == 0)
			break;
		if (strcmp(argv->v[i], "--share-net") == 0)
			return true;
	}
	return false;
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

/* Append "<prefix> <escaped string>" lines for each entry of a list. */
static void
fmt_report_list(const cJSON *list, const char *prefix, struct strv *lines)
{
	const cJSON	*e;
	char		*p;

	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsString(e))
			continue;
		p = fmt_escape(e->valuestring);
		strv_pushf(lines, "%s %s", prefix, p);
		free(p);
	}
}

/* The lines of a report: how it ended, changes, violations. */
void
fmt_report(const cJSON *rep, struct strv *lines)
{
	const cJSON	*ch, *v, *e, *n;
	const char	*sig, *err, *op, *why, *k;
	char		*a, *b, *hint;
	int		 nc, nm, nd, nr, c;

	if (!cJSON_IsObject(rep)) {
		strv_push(lines, "  no report");
		return;
	}
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
	ch = cJSON_GetObjectItemCaseSensitive(rep, "changes");
	if (!cJSON_IsObject(ch))
		strv_push(lines, "  no change report (no snapshot was taken)");
	else {
		nc = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "created"));
		nm = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "modified"));
		nd = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "deleted"));
		nr = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "renamed"));
		if (nc + nm + nd + nr == 0)
			strv_push(lines, "  no changes in the project");
		else
			strv_pushf(lines, "  %d created, %d modified, %d "
			    "deleted, %d renamed", nc, nm, nd, nr);
		fmt_report_list(cJSON_GetObjectItem(ch, "created"), "+",
		    lines);
		fmt_report_list(cJSON_GetObjectItem(ch, "modified"), "~",
		    lines);
		fmt_report_list(cJSON_GetObjectItem(ch, "deleted"), "-",
		    lines);
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(ch, "renamed")) {
			a = fmt_escape(json_str(e, "from"));
			b = fmt_escape(json_str(e, "to"));
			strv_pushf(lines, "> %s -> %s", a, b);
			free(a);
			free(b);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(rep, "violations");
	if (cJSON_GetArraySize(v) > 0)
		strv_pushf(lines, "  %d violation%s:", cJSON_GetArraySize(v),
		    cJSON_GetArraySize(v) == 1 ? "" : "s");
	cJSON_ArrayForEach(e, v) {
		n = cJSON_GetObjectItemCaseSensitive(e, "count");
		a = fmt_escape(json_str(e, "path"));
		hint = fmt_escape(json_str(e, "hint"));
		c = cJSON_IsNumber(n) ? n->valueint : 1;
		op = json_str(e, "operation");
		why = json_str(e, "reason");
		if (c > 1)
			strv_pushf(lines, "! %s %s: %s (%d times)", op ? op :
			    "?", a, why ? why : "refused", c);
		else
			strv_pushf(lines, "! %s %s: %s", op ? op : "?", a,
			    why ? why : "refused");
		if (*hint != '\0')
			strv_pushf(lines, "    hint: %s", hint);
		free(a);
		free(hint);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep,
	    "events_lossy")))
		strv_push(lines, "! live events were incomplete (the change "
		    "report above is still exact)");
	fmt_report_list(cJSON_GetObjectItemCaseSensitive(rep, "warnings"),
	    "! warning:", lines);
}
