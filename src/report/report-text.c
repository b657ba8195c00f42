/*
 * report-text: a JSON change report as lines for people (see
 * report-text.h for the rules).
 *
 * Summaries: the paths of a kind are put in path order (a '/' sorts
 * before every other byte), so everything below a directory follows it
 * at once; a created or deleted path with entries below it is a
 * directory created or deleted with all of them, and is one line.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-text.h"
#include "units.h"
#include "xalloc.h"

static void	rt_service(const cJSON *, struct report_text *);

/* Add a line (takes text). */
static void
rt_add(struct report_text *t, enum report_line_kind kind, char *text,
    bool summary)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
	}
	t->v[t->n].kind = kind;
	t->v[t->n].text = text;
	t->v[t->n].summary = summary;
	t->n++;
}

/* Path order: '/' before every other byte. */
static int
rt_path_cmp(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;

	for (; *x != '\0' && *x == *y; x++, y++)
		;
	if (*x == *y)
		return 0;
	if (*x == '/')
		return *y == '\0' ? 1 : -1;
	if (*y == '/')
		return *x == '\0' ? -1 : 1;
	return *x < *y ? -1 : 1;
}

/* Is p below dir? */
static bool
rt_below(const char *p, const char *dir)
{
	size_t	n = strlen(dir);

	return strncmp(p, dir, n) == 0 && p[n] == '/';
}

/* 4213 as "4,213". */
static void
rt_thousands(char *s, size_t size, size_t n)
{
	char	tmp[32];
	size_t	len, o = 0;

	snprintf(tmp, sizeof tmp, "%zu", n);
	len = strlen(tmp);
	for (size_t i = 0; i < len && o + 2 < size; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			s[o++] = ',';
		s[o++] = tmp[i];
	}
	s[o] = '\0';
}

/* The string paths of a list, in path order. */
static const char **
rt_sorted(const cJSON *list, size_t *np)
{
	const cJSON	 *e;
	const char	**v;
	size_t		  n = 0;

	v = xreallocarray(NULL, (size_t)cJSON_GetArraySize(list) + 1,
	    sizeof *v);
	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e))
			v[n++] = e->valuestring;
	qsort(v, n, sizeof *v, rt_path_cmp);
	*np = n;
	return v;
}

/* One kind of paths: summarised (dir) lines, then at most the limit. */
static void
rt_paths(const cJSON *list, const char *mark, enum report_line_kind kind,
    bool summarise, const struct report_text_opts *o,
    struct report_text *t)
{
	const char	**v;
	size_t		  n, i, j, files, shown = 0, rest = 0;
	char		 *e, num[32];

	v = rt_sorted(list, &n);
	for (i = 0; i < n; i = j) {
		files = 0;
		for (j = i + 1; j < n && rt_below(v[j], v[i]); j++)
			if (j + 1 >= n || !rt_below(v[j + 1], v[j]))
				files++;
		if (!summarise || o->expand || j == i + 1)
			j = i + 1;
		if (!o->expand && shown == REPORT_TEXT_MAX) {
			rest += j - i;
			continue;
		}
		e = o->escape(v[i]);
		shown++;
		if (j > i + 1) {
			rt_thousands(num, sizeof num, files);
			rt_add(t, kind, xasprintf("%s %s/ (%s file%s)", mark,
			    e, num, files == 1 ? "" : "s"), true);
		} else
			rt_add(t, kind, xasprintf("%s %s", mark, e), false);
		free(e);
	}
	if (rest > 0)
		rt_add(t, RL_MORE, xasprintf("... and %zu more (the full "
		    "list: --json)", rest), false);
	free(v);
}

/* Renames, at most the limit. */
static void
rt_renamed(const cJSON *list, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*e;
	size_t		 shown = 0, rest = 0;
	char		*a, *b;

	cJSON_ArrayForEach(e, list) {
		if (!o->expand && shown == REPORT_TEXT_MAX) {
			rest++;
			continue;
		}
		a = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "from")) ?: "?");
		b = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "to")) ?: "?");
		rt_add(t, RL_RENAMED, xasprintf("> %s -> %s", a, b), false);
		free(a);
		free(b);
		shown++;
	}
	if (rest > 0)
		rt_add(t, RL_MORE, xasprintf("... and %zu more (the full "
		    "list: --json)", rest), false);
}

/* The report's attention entries: objects with a path and why (or a
   message), or plain strings. */
static void
rt_attention(const cJSON *rep, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*e;
	const char	*msg, *path;
	char		*m, *p;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(rep, "attention")) {
		msg = cJSON_IsString(e) ? e->valuestring :
		    cJSON_GetStringValue(cJSON_GetObjectItem(e, "message"));
		if (msg == NULL)
			msg = cJSON_GetStringValue(cJSON_GetObjectItem(e,
			    "why"));
		if (msg == NULL)
			msg = cJSON_GetStringValue(cJSON_GetObjectItem(e,
			    "text"));
		path = cJSON_GetStringValue(cJSON_GetObjectItem(e, "path"));
		if (msg == NULL && path == NULL)
			continue;
		m = o->escape(msg != NULL ? msg : "look at this");
		if (path != NULL) {
			p = o->escape(path);
			rt_add(t, RL_ATTENTION, xasprintf("! attention: %s: %s",
			    p, m), false);
			free(p);
		} else
			rt_add(t, RL_ATTENTION, xasprintf("! attention: %s", m),
			    false);
		free(m);
	}
}

/* Did the command end well (exit 0, no signal)? */
static bool
rt_clean_exit(const cJSON *rep)
{
	const cJSON	*code = cJSON_GetObjectItem(rep, "exit_code");

	return cJSON_IsNumber(code) && code->valueint == 0 &&
	    !cJSON_IsString(cJSON_GetObjectItem(rep, "signal"));
}

/* How many times a violation happened (its "count", else 1). */
static size_t
rt_times(const cJSON *v)
{
	const cJSON	*c = cJSON_GetObjectItem(v, "count");

	return cJSON_IsNumber(c) && c->valuedouble > 1 ?
	    (size_t)c->valuedouble : 1;
}

/*
 * A refusal the command got past: it ended well, and the refusal was a
 * connection the network being off kept from leaving (an update check, a
 * probe) or git's index refresh (git status takes .git/index.lock when
 * it can and goes on without). Such refusals are not the agent's
 * business: they are counted in one line, without advice to ask for
 * network or git-write. The JSON keeps every one.
 */
bool
report_violation_recovered(const cJSON *rep, const cJSON *v)
{
	const char	*why = cJSON_GetStringValue(cJSON_GetObjectItem(v,
			    "reason"));
	const char	*op = cJSON_GetStringValue(cJSON_GetObjectItem(v,
			    "operation"));
	const char	*path = cJSON_GetStringValue(cJSON_GetObjectItem(v,
			    "path"));
	size_t		 n;

	if (why == NULL || !rt_clean_exit(rep))
		return false;
	if (strcmp(why, "network") == 0 || strcmp(why, "local-port") == 0)
		return true;
	if (strcmp(why, "protected") != 0 || op == NULL || path == NULL ||
	    strcmp(op, "create") != 0)
		return false;
	n = strlen(path);
	return strcmp(path, ".git/index.lock") == 0 || (n > 16 &&
	    strcmp(path + n - 16, "/.git/index.lock") == 0);
}

/* Refused operations and their hints (a hint said once when refusals in
   a row share it). Writes discarded with the sandbox's private home are
   one line; refusals the command got past are one line. */
static void
rt_refused(const cJSON *rep, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*e;
	const char	*op, *why, *hint, *last_hint = NULL, *path;
	const char	*disc_path = NULL, *net_path = NULL;
	size_t		 disc = 0, net = 0, git = 0;
	char		*p, *h, times[32];

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(rep, "violations")) {
		op = cJSON_GetStringValue(cJSON_GetObjectItem(e, "operation"));
		why = cJSON_GetStringValue(cJSON_GetObjectItem(e, "reason"));
		hint = cJSON_GetStringValue(cJSON_GetObjectItem(e, "hint"));
		path = cJSON_GetStringValue(cJSON_GetObjectItem(e, "path"));
		if (why != NULL && strcmp(why, "discarded") == 0) {
			if (disc++ == 0)
				disc_path = path;
			continue;
		}
		if (report_violation_recovered(rep, e)) {
			if (strcmp(why, "protected") == 0)
				git++;
			else if (net++ == 0)
				net_path = path;
			continue;
		}
		times[0] = '\0';
		if (rt_times(e) > 1)
			snprintf(times, sizeof times, " x%zu", rt_times(e));
		p = o->escape(path ?: "?");
		rt_add(t, RL_REFUSED, xasprintf("refused %s '%s' (%s)%s",
		    op != NULL ? op : "?", p, why != NULL ? why : "refused",
		    times), false);
		free(p);
		if (hint != NULL && *hint != '\0' && (last_hint == NULL ||
		    strcmp(hint, last_hint) != 0)) {
			h = o->escape(hint);
			rt_add(t, RL_HINT, xasprintf("hint: %s", h), false);
			free(h);
			last_hint = hint;
		}
	}
	if (disc > 0) {
		p = o->escape(disc_path ?: "?");
		rt_add(t, RL_NOTE, disc == 1 ? xasprintf("discarded a write "
		    "outside the project ('%s'): the sandbox's home is private "
		    "and goes with the run (write under the project to keep "
		    "it)", p) : xasprintf("discarded %zu writes outside the "
		    "project ('%s' and %zu more): the sandbox's home is "
		    "private and goes with the run (write under the project to "
		    "keep them)", disc, p, disc - 1), false);
		free(p);
	}
	if (net > 0) {
		p = o->escape(net_path ?: "?");
		rt_add(t, RL_NOTE, net == 1 ? xasprintf("went on without the "
		    "network (off): one connection refused ('%s')", p) :
		    xasprintf("went on without the network (off): %zu "
		    "connections refused ('%s' and %zu more)", net, p,
		    net - 1), false);
		free(p);
	}
	if (git > 0)
		rt_add(t, RL_NOTE, xstrdup("went on without taking "
		    ".git/index.lock (git refreshes its index only when it "
		    "may)"), false);
}

/* Bytes for people: 512 B, 1.5 KiB, 3.0 MiB (units.h). */
static void
rt_bytes(double n, char *buf, size_t size)
{
	char	s[SIZE_TEXT_MAX];

	snprintf(buf, size, "%s", size_text(n > 0 ? (uint64_t)n : 0, s));
}

/* Whether the run can be undone, what the store keeps for it, and what
   undo would not restore. */
static void
rt_undo(const cJSON *rep, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*u = cJSON_GetObjectItem(rep, "undo"), *e;
	const char	*why;
	char		 size[32], *p, *w;

	if (!cJSON_IsObject(u))
		return;
	if (!cJSON_IsTrue(cJSON_GetObjectItem(u, "possible"))) {
		why = cJSON_GetStringValue(cJSON_GetObjectItem(u, "why"));
		w = o->escape(why != NULL ? why : "unknown");
		rt_add(t, RL_NOTE, xasprintf("cannot be undone: %s", w),
		    false);
		free(w);
		return;
	}
	rt_bytes(cJSON_GetNumberValue(cJSON_GetObjectItem(u, "bytes")), size,
	    sizeof size);
	/* The request's number when a console ran it (one number for the
	   operator and the agent); a console-less run's own store id. */
	rt_add(t, RL_NOTE, xasprintf("undo: bwgate undo %s%.0f (%s kept%s)",
	    cJSON_IsNumber(cJSON_GetObjectItem(u, "request")) ? "" : "--run ",
	    cJSON_GetNumberValue(cJSON_GetObjectItem(u, cJSON_IsNumber(
	    cJSON_GetObjectItem(u, "request")) ? "request" : "id")), size,
	    cJSON_IsFalse(cJSON_GetObjectItem(u, "complete")) ? ", in part" :
	    ""), false);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(u, "unsaved")) {
		p = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "path")) ?: "?");
		w = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "why")) ?: "?");
		rt_add(t, RL_NOTE, xasprintf("undo will not restore %s (%s)",
		    p, w), false);
		free(p);
		free(w);
	}
}


/* The network story of a run with named hosts: each host reached with
   its connections and bytes, each refusal with the host and why. */
static void
rt_network(const cJSON *rep, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*net = cJSON_GetObjectItem(rep, "network"), *e;
	int		 nh, nr;
	char		*h, *w, out[32], in[32];

	if (!cJSON_IsObject(net))
		return;
	nh = cJSON_GetArraySize(cJSON_GetObjectItem(net, "hosts"));
	nr = cJSON_GetArraySize(cJSON_GetObjectItem(net, "refused"));
	rt_add(t, RL_COUNT, xasprintf("network: %d host%s reached through "
	    "the proxy, %d refused", nh, nh == 1 ? "" : "s", nr), false);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(net, "hosts")) {
		double conns = cJSON_GetNumberValue(cJSON_GetObjectItem(e,
		    "connections"));

		h = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "host")) ?: "?");
		rt_bytes(cJSON_GetNumberValue(cJSON_GetObjectItem(e,
		    "bytes_out")), out, sizeof out);
		rt_bytes(cJSON_GetNumberValue(cJSON_GetObjectItem(e,
		    "bytes_in")), in, sizeof in);
		rt_add(t, RL_NOTE, xasprintf("  %s:%.0f  %.0f connection%s, "
		    "%s out, %s in", h, cJSON_GetNumberValue(
		    cJSON_GetObjectItem(e, "port")), conns, conns == 1 ? "" :
		    "s", out, in), false);
		free(h);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(net, "refused")) {
		h = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "host")) ?: "?");
		w = o->escape(cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "why")) ?: "refused");
		rt_add(t, RL_REFUSED, xasprintf("refused host '%s:%.0f'", h,
		    cJSON_GetNumberValue(cJSON_GetObjectItem(e, "port"))),
		    false);
		rt_add(t, RL_HINT, xasprintf("why: %s", w), false);
		free(h);
		free(w);
	}
}

/* Is v an object id (40 or 64 hex digits)? */
static bool
rt_is_id(const char *v)
{
	size_t	n = strspn(v, "0123456789abcdef");

	return v[n] == '\0' && (n == 40 || n == 64);
}

/* An object id as shown: its first 12 digits (a ref name escaped). */
static char *
rt_id(const char *v, const struct report_text_opts *o)
{
	return rt_is_id(v) ? xasprintf("%.12s", v) : o->escape(v);
}

/* What a git-write run did to the repository (gitops.h). */
static void
rt_git(const cJSON *rep, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*git = cJSON_GetObjectItem(rep, "git"), *e, *total;
	const char	*id, *subject, *name, *change, *old, *new;
	int		 n = 0, all;
	char		*a, *b, *c;

	if (!cJSON_IsObject(git))
		return;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(git, "commits")) {
		id = cJSON_GetStringValue(cJSON_GetObjectItem(e, "id"));
		subject = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "subject"));
		if (id == NULL)
			continue;
		if (!o->expand && n >= REPORT_TEXT_MAX)
			break;
		n++;
		a = rt_id(id, o);
		b = o->escape(subject != NULL ? subject : "");
		rt_add(t, RL_GIT, xasprintf("git: commit %s %s", a, b), false);
		free(a);
		free(b);
	}
	total = cJSON_GetObjectItem(git, "commits_total");
	all = cJSON_IsNumber(total) ? total->valueint : n;
	if (all > n)
		rt_add(t, RL_GIT, xasprintf("git: ... and %d more commit%s",
		    all - n, all - n == 1 ? "" : "s"), false);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(git, "refs")) {
		name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
		change = cJSON_GetStringValue(cJSON_GetObjectItem(e,
		    "change"));
		old = cJSON_GetStringValue(cJSON_GetObjectItem(e, "old"));
		new = cJSON_GetStringValue(cJSON_GetObjectItem(e, "new"));
		if (name == NULL || change == NULL)
			continue;
		a = o->escape(name);
		b = old != NULL ? rt_id(old, o) : NULL;
		c = new != NULL ? rt_id(new, o) : NULL;
		/* old..new between commits; a symbolic ref (HEAD on a
		   branch) is not a range: old -> new. */
		if (b != NULL && c != NULL)
			rt_add(t, RL_GIT, xasprintf("git: %s %s %s%s%s%s", a,
			    change, b, rt_is_id(old) && rt_is_id(new) ?
			    ".." : " -> ", c, strcmp(change, "forced") == 0 ?
			    " (not a fast-forward)" : ""), false);
		else if (c != NULL)
			rt_add(t, RL_GIT, xasprintf("git: %s created at %s", a,
			    c), false);
		else
			rt_add(t, RL_GIT, xasprintf("git: %s deleted (was %s)",
			    a, b != NULL ? b : "?"), false);
		free(a);
		free(b);
		free(c);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(git, "index_changed")))
		rt_add(t, RL_GIT, xstrdup("git: index changed"), false);
}

/* Build the lines of a report. */
void
report_text_build(const cJSON *rep, const struct report_text_opts *o,
    struct report_text *t)
{
	const cJSON	*ch, *e;
	const char	*scope, *how;
	int		 c, m, d, r;
	char		*s;

	if (!cJSON_IsObject(rep))
		return;
	rt_attention(rep, o, t);
	ch = cJSON_GetObjectItem(rep, "changes");
	if (cJSON_IsObject(ch)) {
		c = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "created"));
		m = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "modified"));
		d = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "deleted"));
		r = cJSON_GetArraySize(cJSON_GetObjectItem(ch, "renamed"));
		scope = cJSON_GetStringValue(cJSON_GetObjectItem(rep,
		    "changes_scope"));
		/* How the report was made: "exact" (every call resolved) or
		   the whole project compared. */
		how = scope == NULL ? "" : strcmp(scope, "exact") == 0 ?
		    " (exact)" : " (whole project compared)";
		/* An allowlisted reader could change nothing: said plainly,
		   never as "the project was read-only", which agents took
		   for a property of the project. */
		if (cJSON_IsFalse(cJSON_GetObjectItem(rep,
		    "changes_possible")))
			rt_add(t, RL_COUNT, xstrdup("no changes in the "
			    "project"), false);
		else if (c + m + d + r == 0)
			rt_add(t, RL_COUNT, xasprintf("no changes in the "
			    "project%s", how), false);
		else
			rt_add(t, RL_COUNT, xasprintf("%d created, %d "
			    "modified, %d deleted, %d renamed%s", c, m, d, r,
			    how), false);
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(rep,
		    "changes_widened")) {
			if (!cJSON_IsString(e))
				continue;
			s = o->escape(e->valuestring);
			rt_add(t, RL_NOTE, xasprintf("change report widened "
			    "to the whole project: %s", s), false);
			free(s);
		}
		rt_paths(cJSON_GetObjectItem(ch, "created"), "+", RL_CREATED,
		    true, o, t);
		rt_paths(cJSON_GetObjectItem(ch, "modified"), "~",
		    RL_MODIFIED, false, o, t);
		rt_paths(cJSON_GetObjectItem(ch, "deleted"), "-", RL_DELETED,
		    true, o, t);
		rt_renamed(cJSON_GetObjectItem(ch, "renamed"), o, t);
		if (c + m + d + r > 0)
			rt_undo(rep, o, t);
	}
	rt_git(rep, o, t);
	rt_refused(rep, o, t);
	rt_network(rep, o, t);
	if (cJSON_IsTrue(cJSON_GetObjectItem(rep, "stdout_truncated")) ||
	    cJSON_IsTrue(cJSON_GetObjectItem(rep, "stderr_truncated")))
		rt_add(t, RL_NOTE, xstrdup("output was truncated in the report "
		    "(output_limit)"), false);
	if (cJSON_IsTrue(cJSON_GetObjectItem(rep, "events_lossy")))
		rt_add(t, RL_NOTE, xstrdup("the live event stream lost events; "
		    "the change report is still exact"), false);
	rt_service(rep, t);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(rep, "warnings")) {
		if (!cJSON_IsString(e))
			continue;
		s = o->escape(e->valuestring);
		rt_add(t, RL_NOTE, xasprintf("warning: %s", s), false);
		free(s);
	}
}

/*
 * The command's background processes: kept as the project's service (the
 * console adds its id), or killed when it ended. One line each; what a
 * service changes after its request is no request's (no report, no undo).
 */
static void
rt_service(const cJSON *rep, struct report_text *t)
{
	const cJSON	*sv = cJSON_GetObjectItem(rep, "service");
	double		 n = cJSON_GetNumberValue(cJSON_GetObjectItem(sv,
			    "processes"));
	double		 id = cJSON_GetNumberValue(cJSON_GetObjectItem(sv,
			    "id"));
	double		 k = cJSON_GetNumberValue(cJSON_GetObjectItem(rep,
			    "background_killed"));
	char		 stop[48] = "";

	if (cJSON_IsObject(sv) && n >= 1) {
		if (id >= 1)
			snprintf(stop, sizeof stop, " %.0f (bwgate stop %.0f)",
			    id, id);
		rt_add(t, RL_NOTE, xasprintf("%.0f background process%s "
		    "keep%s running as the project's service%s: what %s "
		    "change%s from now on is in neither this report nor its "
		    "undo", n, n == 1 ? "" : "es", n == 1 ? "s" : "", stop,
		    n == 1 ? "it" : "they", n == 1 ? "s" : ""), false);
	}
	if (k >= 1)
		rt_add(t, RL_NOTE, xasprintf("%.0f background process%s "
		    "killed when the command ended: not kept as the "
		    "project's service (only a console keeps them, up to its "
		    "console.max_services)", k, k == 1 ? " was" : "es were"),
		    false);
}

/* Is a line one of a path list? */
bool
report_line_is_path(enum report_line_kind k)
{
	return k == RL_CREATED || k == RL_MODIFIED || k == RL_DELETED ||
	    k == RL_RENAMED || k == RL_MORE;
}

void
report_text_release(struct report_text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
	memset(t, 0, sizeof *t);
}
