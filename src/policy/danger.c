/* danger: the table of commands whose mistakes the sandbox does not stop,
   and the check of a parsed command string against it (danger.h). */
#include "autoconf.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "config.h"
#include "buf.h"
#include "danger.h"
#include "danger-int.h"
#include "jsonutil.h"
#include "path.h"
#include "xalloc.h"

/* Strings handed to a shell are parsed again, to this depth. */
#define DANGER_MAX_DEPTH	4

/* Programs that run the command after their own options. */
static const struct wrapper {
	const char	*name;
	const char	*values;	/* options that take the next word */
	int		 positional;	/* words of its own after options */
} danger_wrappers[] = {
	{ "sudo", " -u -g -C -D -h -p -r -t -U ", 0 },
	{ "doas", " -u -C ", 0 },
	{ "env", " -u -C -S ", 0 },
	{ "xargs", " -I -L -n -P -s -d -E -a ", 0 },
	{ "nice", " -n ", 0 },
	{ "ionice", " -c -n -p ", 0 },
	{ "timeout", " -s -k ", 1 },
	{ "nohup", "", 0 },
	{ "time", "", 0 },
	{ "command", "", 0 },
	{ "builtin", "", 0 },
	{ "exec", " -a ", 0 },
	{ "stdbuf", " -i -o -e ", 0 },
	{ "setsid", "", 0 },
	{ "chronic", "", 0 },
	{ NULL, NULL, 0 }
};

/* Options of a program that take the next word, before its subcommand. */
static const struct {
	const char	*name;
	const char	*values;
} danger_globals[] = {
	{ "git", " -C -c --git-dir --work-tree --namespace --exec-path " },
	{ "npm", " -C --prefix -w --workspace " },
	{ "pnpm", " -C --dir --filter " },
	{ "yarn", " --cwd " },
	{ "cargo", " -Z --config --manifest-path " },
	{ "docker", " -H --host -c --context --config -l --log-level " },
	{ "podman", " --url -c --connection " },
	{ "gh", " -R --repo " },
	{ "dotnet", "" },
	{ NULL, NULL }
};

/* Shells whose -c string is parsed and checked too. */
const char *const danger_shells[] = {
	"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox", NULL
};

static void
danger_entry_release(struct danger_entry *e)
{
	free(e->id);
	free(e->reason);
	free(e->stake);
	strv_release(&e->command);
	strv_release(&e->subcommand);
	strv_release(&e->options);
	strv_release(&e->words);
	strv_release(&e->fetch);
	strv_release(&e->run);
	strv_release(&e->writes);
	strv_release(&e->match);
	strv_release(&e->no_match);
	free(e->unless_local);
	free(e->profile);
}

/* "unless_local": a relative directory, no '..', no empty component. */
static bool
danger_local_dir_ok(const char *d)
{
	const char	*p = d;

	if (*d == '\0' || *d == '/')
		return false;
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

void
danger_free(struct danger *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n; i++)
		danger_entry_release(&d->e[i]);
	free(d->e);
	free(d);
}

void
danger_hit_release(struct danger_hit *h)
{
	free(h->id);
	free(h->reason);
	free(h->stake);
	strv_release(&h->targets);
	strv_release(&h->profiles);
	*h = (struct danger_hit)DANGER_HIT_INIT;
}

/* A member that is a string or an array of strings; -1 otherwise. */
static int
danger_strings(const cJSON *o, const char *name, struct strv *out)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	if (v == NULL)
		return 0;
	if (cJSON_IsString(v)) {
		strv_push(out, v->valuestring);
		return 0;
	}
	return cJSON_IsArray(v) ? json_get_strv(v, out) : -1;
}

/* Add the entries of one file. */
static int
danger_add_file(struct danger *d, const char *path, const char *key,
    char **cause)
{
	static const char *const lists[] = { "command", "subcommand",
	    "options", "words", "fetch", "run", "writes", "match",
	    "no_match", NULL };
	cJSON		*j, *arr, *o;
	const cJSON	*s;
	int		 rc = -1;

	if ((j = json_load_file(path, cause)) == NULL)
		return -1;
	arr = cJSON_GetObjectItemCaseSensitive(j, key);
	if (!cJSON_IsArray(arr)) {
		*cause = xasprintf("'%s': no \"%s\" array", path, key);
		goto out;
	}
	cJSON_ArrayForEach(o, arr) {
		struct danger_entry	*e;
		struct strv		*sv[9];

		d->e = xreallocarray(d->e, d->n + 1, sizeof *d->e);
		e = &d->e[d->n++];
		memset(e, 0, sizeof *e);
		sv[0] = &e->command; sv[1] = &e->subcommand;
		sv[2] = &e->options; sv[3] = &e->words; sv[4] = &e->fetch;
		sv[5] = &e->run; sv[6] = &e->writes; sv[7] = &e->match;
		sv[8] = &e->no_match;
		if (!cJSON_IsString(s = cJSON_GetObjectItem(o, "id")) ||
		    *s->valuestring == '\0') {
			*cause = xasprintf("'%s': an entry without an id",
			    path);
			goto out;
		}
		e->id = xstrdup(s->valuestring);
		for (size_t k = 0; lists[k] != NULL; k++)
			if (danger_strings(o, lists[k], sv[k]) != 0) {
				*cause = xasprintf("'%s': %s: \"%s\" must be "
				    "a string or an array of strings", path,
				    e->id, lists[k]);
				goto out;
			}
		if (!cJSON_IsString(s = cJSON_GetObjectItem(o, "reason"))) {
			*cause = xasprintf("'%s': %s: no reason", path, e->id);
			goto out;
		}
		e->reason = xstrdup(s->valuestring);
		s = cJSON_GetObjectItem(o, "unless_local");
		if (s != NULL && (!cJSON_IsString(s) ||
		    !danger_local_dir_ok(s->valuestring))) {
			*cause = xasprintf("'%s': %s: \"unless_local\" must be "
			    "a relative directory without '..'", path, e->id);
			goto out;
		}
		if (s != NULL)
			e->unless_local = xstrdup(s->valuestring);
		s = cJSON_GetObjectItem(o, "profile");
		if (s != NULL && (!cJSON_IsString(s) ||
		    *s->valuestring == '\0')) {
			*cause = xasprintf("'%s': %s: \"profile\" must be a "
			    "profile's name", path, e->id);
			goto out;
		}
		if (s != NULL)
			e->profile = xstrdup(s->valuestring);
		s = cJSON_GetObjectItem(o, "at_once");
		if (s != NULL && !cJSON_IsBool(s)) {
			*cause = xasprintf("'%s': %s: \"at_once\" must be "
			    "true or false", path, e->id);
			goto out;
		}
		e->at_once = cJSON_IsTrue(s);
		s = cJSON_GetObjectItem(o, "opaque");
		if (s != NULL && !cJSON_IsBool(s)) {
			*cause = xasprintf("'%s': %s: \"opaque\" must be "
			    "true or false", path, e->id);
			goto out;
		}
		e->opaque = cJSON_IsTrue(s);
		s = cJSON_GetObjectItem(o, "unless_loopback");
		if (s != NULL && !cJSON_IsBool(s)) {
			*cause = xasprintf("'%s': %s: \"unless_loopback\" must "
			    "be true or false", path, e->id);
			goto out;
		}
		e->unless_loopback = cJSON_IsTrue(s);
		s = cJSON_GetObjectItem(o, "only_loopback");
		if (s != NULL && !cJSON_IsBool(s)) {
			*cause = xasprintf("'%s': %s: \"only_loopback\" must "
			    "be true or false", path, e->id);
			goto out;
		}
		e->only_loopback = cJSON_IsTrue(s);
		s = cJSON_GetObjectItem(o, "stake");
		e->stake = xstrdup(cJSON_IsString(s) ? s->valuestring :
		    "other");
		if (e->command.n == 0 && (e->fetch.n == 0 || e->run.n == 0) &&
		    e->writes.n == 0 && !e->opaque) {
			*cause = xasprintf("'%s': %s: needs \"command\", "
			    "\"fetch\" with \"run\", or \"writes\"", path,
			    e->id);
			goto out;
		}
	}
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

struct danger *
danger_load_file(const char *path, char **cause)
{
	struct danger	*d = xcalloc(1, sizeof *d);

	if (danger_add_file(d, path, "danger", cause) != 0) {
		danger_free(d);
		return NULL;
	}
	return d;
}

struct danger *
danger_load_table(const char *name, const char *key, char **cause)
{
	char		*shipped, *dir, *user = NULL;
	struct danger	*d = xcalloc(1, sizeof *d);
	struct stat	 st;

	shipped = path_join(config_datadir(), name);
	if (danger_add_file(d, shipped, key, cause) != 0) {
		danger_free(d);
		d = NULL;
	}
	free(shipped);
	if (d != NULL && (dir = config_user_dir()) != NULL) {
		user = path_join(dir, name);
		free(dir);
		if (stat(user, &st) == 0 && danger_add_file(d, user, key,
		    cause) != 0) {
			danger_free(d);
			d = NULL;
		}
	}
	free(user);
	return d;
}

struct danger *
danger_load(char **cause)
{
	return danger_load_table("danger.json", "danger", cause);
}

/* The basename of a command word. */
const char *
danger_base(const char *w)
{
	const char	*s = strrchr(w, '/');

	return s != NULL ? s + 1 : w;
}

/* Is w (" -x ", space separated) in list? */
static bool
danger_in(const char *list, const char *w)
{
	size_t		 n = strlen(w);
	const char	*p = list;

	while ((p = strstr(p, w)) != NULL) {
		if (p > list && p[-1] == ' ' && p[n] == ' ')
			return true;
		p++;
	}
	return false;
}

/* The index of the command word after wrappers (sudo, env, xargs ...),
   or argc when there is none. */
size_t
danger_skip_wrappers(const struct sh_cmd *c)
{
	size_t	 i = 0;

	while (i < c->nwords) {
		const char		*n = danger_base(c->words[i].text);
		const struct wrapper	*w;
		int			 pos;

		for (w = danger_wrappers; w->name != NULL; w++)
			if (strcmp(w->name, n) == 0)
				break;
		if (w->name == NULL)
			return i;
		pos = w->positional;
		for (i++; i < c->nwords; i++) {
			const char *t = c->words[i].text;

			if (strcmp(t, "--") == 0) {
				i++;
				break;
			}
			if (t[0] == '-' && t[1] != '\0') {
				if (danger_in(w->values, t))
					i++;
				continue;
			}
			if (strcmp(w->name, "env") == 0 && strchr(t, '=') !=
			    NULL)
				continue;
			if (pos-- > 0)
				continue;
			break;
		}
	}
	return i;
}

/* The index of the subcommand after the command at first (its global
   options and their values skipped), or nwords. */
static size_t
danger_subcommand(const struct sh_cmd *c, size_t first)
{
	const char	*vals = "";
	const char	*n = danger_base(c->words[first].text);
	size_t		 i;

	for (size_t k = 0; danger_globals[k].name != NULL; k++)
		if (strcmp(danger_globals[k].name, n) == 0)
			vals = danger_globals[k].values;
	for (i = first + 1; i < c->nwords; i++) {
		const char *t = c->words[i].text;

		if (t[0] != '-')
			return i;
		if (danger_in(vals, t))
			i++;
	}
	return c->nwords;
}

/* Does word w give option opt ("-r", "--recursive")? */
static bool
danger_option(const char *w, const char *opt)
{
	size_t	 n;

	if (opt[0] != '-')
		return strcmp(w, opt) == 0;
	if (opt[1] == '-') {
		if (strncmp(w, "--", 2) != 0)
			return false;
		n = strcspn(w, "=");
		/* getopt_long and git take an unambiguous abbreviation. */
		return n >= 4 && n <= strlen(opt) && strncmp(w, opt, n) == 0;
	}
	/* A short option, alone or in a cluster (-rf). */
	return w[0] == '-' && w[1] != '-' && w[1] != '\0' &&
	    strchr(w + 1, opt[1]) != NULL && opt[2] == '\0';
}

/* Does the path w fall under one of the prefixes (at its start or after
   a slash: ./x, ../proj/x)? */
static bool
danger_path(const struct strv *prefixes, const char *w)
{
	for (size_t k = 0; k < prefixes->n; k++) {
		const char	*p = prefixes->v[k];
		size_t		 n = strlen(p);
		const char	*s = w;

		for (;;) {
			if (strncmp(s, p, n) == 0 || (p[n - 1] == '/' &&
			    strncmp(s, p, n - 1) == 0 && s[n - 1] == '\0'))
				return true;
			if ((s = strchr(s, '/')) == NULL)
				break;
			s++;
		}
	}
	return false;
}

/* A quoted operand that holds pattern characters names one file: its
   target has them escaped, as fnmatch reads them (stake.h). */
static void
danger_fill_quoted(struct danger_hit *hit, const char *t)
{
	struct buf	b = BUF_INIT;

	for (; *t != '\0'; t++) {
		if (strchr("*?[\\", *t) != NULL)
			buf_putc(&b, '\\');
		buf_putc(&b, *t);
	}
	strv_push(&hit->targets, b.data != NULL ? b.data : "");
	buf_release(&b);
}

/* Fill hit from entry e; the operands from first on are the targets. */
static void
danger_fill(const struct danger_entry *e, const struct sh_cmd *c,
    size_t first, struct danger_hit *hit)
{
	bool	opts = true;

	danger_hit_release(hit);
	hit->id = xstrdup(e->id);
	hit->reason = xstrdup(e->reason);
	hit->stake = xstrdup(e->stake);
	if (c == NULL || strcmp(e->stake, "delete") != 0)
		return;
	for (size_t i = first; i < c->nwords; i++) {
		const char *t = c->words[i].text;

		if (opts && strcmp(t, "--") == 0)
			opts = false;
		else if (opts && (t[0] == '-' || t[0] == '(' || t[0] == '!'))
			continue;
		else if (strcmp(danger_base(c->words[first - 1].text),
		    "find") == 0 && t[0] == '-')
			break;
		else if ((c->words[i].flags & SH_W_GLOB) == 0 &&
		    strpbrk(t, "*?[") != NULL)
			danger_fill_quoted(hit, t);
		else
			strv_push(&hit->targets, t);
	}
}

/* What a check needs to know about where it runs: the project's
   directory (or NULL) for "unless_local", and the note when an entry did
   not hold because of it. */
struct danger_ctx {
	const char	*project;
	char		*local;
	bool		 all;		/* every entry that holds (needs) */
	bool		 found;
	bool		 at_once;	/* every entry that held has at_once */
	struct danger_hit *first;
};

/* Options of npx, pnpx and bunx that neither name a package nor take a
   value: the program they run is the next word. */
static const char *const danger_local_opts[] = { "-y", "--yes", "--no",
    "-q", "--quiet", "--offline", "--prefer-offline", "--no-install",
    "--silent", NULL };

/*
 * An entry with "unless_local" (npx, say) does not hold when the program
 * the command runs is a file in that directory of the project
 * (node_modules/.bin): it runs from there, without a download. Only a
 * plain name (no version, no path, no package option) counts; decided on
 * the file system now, through the project door. Sets ctx->local.
 */
static bool
danger_local(const struct danger_entry *e, const struct sh_cmd *c,
    size_t first, struct danger_ctx *ctx)
{
	const char	*t = NULL;
	char		*rel, *cause = NULL;
	struct stat	 st;
	bool		 ok = false;
	int		 root;
	size_t		 i, k;

	if (e->unless_local == NULL || ctx == NULL || ctx->project == NULL)
		return false;
	for (i = first + 1; i < c->nwords; i++) {
		if (!SH_WORD_LITERAL(&c->words[i]))
			return false;
		t = c->words[i].text;
		if (t[0] != '-')
			break;
		for (k = 0; danger_local_opts[k] != NULL; k++)
			if (strcmp(t, danger_local_opts[k]) == 0)
				break;
		if (danger_local_opts[k] == NULL)
			return false;
		t = NULL;
	}
	if (t == NULL || t[0] == '.' || strlen(t) > 128 ||
	    t[strspn(t, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] != '\0')
		return false;
	if ((root = beneath_root(ctx->project, &st, &cause)) < 0) {
		free(cause);
		return false;
	}
	rel = xasprintf("%s/%s", e->unless_local, t);
	if (beneath_lstat(root, rel, &st) == 0 &&
	    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		ok = true;
	close(root);
	if (ok && ctx->local == NULL)
		ctx->local = xasprintf("%s%s%s runs %s from the project's "
		    "%s, without a download", danger_base(c->words[
		    danger_skip_wrappers(c)].text), e->subcommand.n > 0 ?
		    " " : "", e->subcommand.n > 0 ? c->words[first].text : "",
		    t, e->unless_local);
	free(rel);
	return ok;
}

/* Does one simple command match a command entry? */
bool
danger_command(const struct danger_entry *e, const struct sh_cmd *c,
    struct danger_ctx *ctx, struct danger_hit *hit)
{
	size_t	 first = danger_skip_wrappers(c), from;
	bool	 ended = false;

	if (first >= c->nwords || e->command.n == 0 ||
	    !strv_contains(&e->command, danger_base(c->words[first].text)))
		return false;
	from = first + 1;
	if (e->subcommand.n > 0) {
		from = danger_subcommand(c, first);
		if (from >= c->nwords ||
		    !strv_contains(&e->subcommand, c->words[from].text))
			return false;
		from++;
	}
	/* npx TOOL, pnpm exec TOOL: the program follows the subcommand. */
	if (danger_local(e, c, from - 1, ctx))
		return false;
	/* curl localhost:3000: the project's own loopback (its pod). */
	if (e->unless_loopback && ctx != NULL && danger_loopback_only(c, from)) {
		if (ctx->local == NULL)
			ctx->local = xasprintf("%s reaches only the project's "
			    "own loopback, without the network",
			    danger_base(c->words[first].text));
		return false;
	}
	/* ... and reaching them is the services' own access. */
	if (e->only_loopback && (ctx == NULL || !danger_loopback_only(c,
	    from)))
		return false;
	if (e->options.n == 0 && e->words.n == 0) {
		danger_fill(e, c, from, hit);
		return true;
	}
	for (size_t i = from; i < c->nwords; i++) {
		const char *t = c->words[i].text;

		for (size_t k = 0; k < e->words.n; k++)
			if (fnmatch(e->words.v[k], t, 0) == 0) {
				danger_fill(e, c, from, hit);
				return true;
			}
		if (strcmp(t, "--") == 0)
			ended = true;
		for (size_t k = 0; !ended && k < e->options.n; k++)
			if (danger_option(t, e->options.v[k])) {
				danger_fill(e, c, from, hit);
				return true;
			}
	}
	return false;
}

/* Does the command write one of e's paths (a redirection, or a word of a
   command no rule allows)? */
bool
danger_writes(const struct danger_entry *e, const struct sh_cmd *c,
    bool allowed)
{
	for (size_t i = 0; i < c->nredirs; i++) {
		switch (c->redirs[i].op) {
		case SH_R_OUT: case SH_R_APPEND: case SH_R_CLOBBER:
		case SH_R_INOUT: case SH_R_OUT_ERR: case SH_R_APPEND_ERR:
			if (danger_path(&e->writes, c->redirs[i].target.text))
				return true;
			break;
		default:
			break;
		}
	}
	for (size_t i = 1; !allowed && i < c->nwords; i++)
		if (danger_path(&e->writes, c->words[i].text))
			return true;
	return false;
}

/* Is the command's name (after wrappers) in names? */
static bool
danger_named(const struct sh_cmd *c, const struct strv *names)
{
	size_t	 i = danger_skip_wrappers(c);

	return i < c->nwords &&
	    strv_contains(names, danger_base(c->words[i].text));
}

/* python3 -m json.tool only formats what it reads: it runs none of it. */
static bool
danger_formats_only(const struct sh_cmd *c)
{
	size_t	 i = danger_skip_wrappers(c);

	return i + 2 < c->nwords &&
	    strncmp(danger_base(c->words[i].text), "python", 6) == 0 &&
	    strcmp(c->words[i + 1].text, "-m") == 0 &&
	    strcmp(c->words[i + 2].text, "json.tool") == 0;
}

/* A download piped into, or substituted into, a program that runs it. */
bool
danger_fetch_run(const struct danger_entry *e, const struct sh_script *s)
{
	bool	 piped = false, subst = false, run_piped = false, run = false;

	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sh_cmd *c = &s->cmds[i];

		if (danger_named(c, &e->fetch)) {
			piped |= (c->flags & SH_C_PIPED) != 0;
			subst |= (c->flags & SH_C_SUBST) != 0;
		}
		if (danger_named(c, &e->run) && !danger_formats_only(c)) {
			run = true;
			run_piped |= (c->flags & SH_C_PIPED) != 0;
		}
	}
	return (piped && run_piped) || (subst && run);
}

/* The string a shell is given with -c (bash -lc 'x', sh -ec 'x'), if
   literal. */
static const char *
danger_shell_string(const struct sh_cmd *c)
{
	size_t	 i = danger_skip_wrappers(c);

	const char *const	*sh;

	if (i >= c->nwords)
		return NULL;
	for (sh = danger_shells; *sh != NULL; sh++)
		if (strcmp(*sh, danger_base(c->words[i].text)) == 0)
			break;
	if (*sh == NULL)
		return NULL;
	for (i++; i < c->nwords; i++) {
		const char *t = c->words[i].text;

		if (t[0] != '-' && t[0] != '+')
			return NULL;
		if (t[1] != '-' && strchr(t, 'c') != NULL)
			return i + 1 < c->nwords &&
			    SH_WORD_LITERAL(&c->words[i + 1]) ?
			    c->words[i + 1].text : NULL;
		if (strcmp(t, "-o") == 0 || strcmp(t, "+o") == 0)
			i++;
	}
	return NULL;
}

/* Entry e held, its hit in hit: with ctx->all, note it and go on (the
   first hit stays in ctx->first, every profile in its profiles); true
   to stop here. */
static bool
danger_held(const struct danger_entry *e, struct danger_ctx *ctx,
    struct danger_hit *hit)
{
	struct danger_hit	*f;

	if (ctx == NULL || !ctx->all)
		return true;
	f = ctx->first;
	if (!ctx->found) {
		ctx->at_once = true;
		if (hit != f) {
			danger_hit_release(f);
			*f = *hit;
			*hit = (struct danger_hit)DANGER_HIT_INIT;
		}
	} else if (hit != f) {
		/* The verdict names what makes it ask: git add && git push
		   needs git-network, not git-local's at once. */
		if (ctx->at_once && !e->at_once) {
			char *t;

			t = f->id; f->id = hit->id; hit->id = t;
			t = f->reason; f->reason = hit->reason; hit->reason = t;
			t = f->stake; f->stake = hit->stake; hit->stake = t;
		}
		danger_hit_release(hit);
	}
	ctx->found = true;
	ctx->at_once = ctx->at_once && e->at_once;
	if (e->profile != NULL) {
		char	*copy = xstrdup(e->profile), *n, *last;

		for (n = strtok_r(copy, "+", &last); n != NULL;
		    n = strtok_r(NULL, "+", &last))
			if (!strv_contains(&f->profiles, n))
				strv_push(&f->profiles, n);
		free(copy);
	}
	return false;
}

static bool
danger_check_depth(const struct danger *d, const struct sh_script *s,
    const bool *allowed, struct danger_ctx *ctx, struct danger_hit *hit,
    int depth)
{
	struct danger_hit	 spare = DANGER_HIT_INIT, *h;

	for (size_t k = 0; k < d->n; k++) {
		const struct danger_entry *e = &d->e[k];

		h = ctx != NULL && ctx->found ? &spare : hit;
		if (e->fetch.n > 0 && e->run.n > 0 && danger_fetch_run(e, s)) {
			danger_fill(e, NULL, 0, h);
			if (danger_held(e, ctx, h))
				return true;
			continue;
		}
		for (size_t i = 0; i < s->ncmds; i++) {
			h = ctx != NULL && ctx->found ? &spare : hit;
			if (e->opaque) {
				if (!danger_opaque(e, &s->cmds[i]))
					continue;
				danger_fill(e, NULL, 0, h);
				if (danger_held(e, ctx, h))
					return true;
				continue;
			}
			if (danger_command(e, &s->cmds[i], ctx, h)) {
				if (danger_held(e, ctx, h))
					return true;
				continue;
			}
			if (e->writes.n > 0 && danger_writes(e, &s->cmds[i],
			    allowed != NULL && allowed[i])) {
				danger_fill(e, NULL, 0, h);
				if (danger_held(e, ctx, h))
					return true;
			}
		}
	}
	for (size_t i = 0; depth < DANGER_MAX_DEPTH && i < s->ncmds; i++) {
		const char		*text = danger_shell_string(&s->cmds[i]);
		struct sh_script	 inner = SH_SCRIPT_INIT;
		char			*cause = NULL;
		bool			 found;

		if (text == NULL)
			continue;
		if (sh_parse(text, &inner, &cause) != 0) {
			free(cause);
			continue;
		}
		found = danger_check_depth(d, &inner, NULL, ctx, hit,
		    depth + 1);
		sh_script_release(&inner);
		if (found)
			return true;
	}
	danger_hit_release(&spare);
	return ctx != NULL && ctx->all && ctx->found && depth == 0;
}

bool
danger_check(const struct danger *d, const struct sh_script *s,
    const bool *allowed, struct danger_hit *hit)
{
	danger_hit_release(hit);
	return d != NULL && danger_check_depth(d, s, allowed, NULL, hit, 0);
}

bool
danger_check_project(const struct danger *d, const struct sh_script *s,
    const bool *allowed, const char *project, struct danger_hit *hit,
    char **local)
{
	struct danger_ctx	ctx = { project, NULL, true, false, false,
				    hit };
	bool			found;

	danger_hit_release(hit);
	*local = NULL;
	found = d != NULL && danger_check_depth(d, s, allowed, &ctx, hit, 0);
	hit->at_once = found && ctx.at_once;
	if (found)
		free(ctx.local);
	else
		*local = ctx.local;
	return found;
}

int
danger_examples(const struct danger *d, int (*fn)(const char *, const char *,
    bool, void *), void *arg)
{
	for (size_t k = 0; d != NULL && k < d->n; k++) {
		const struct danger_entry *e = &d->e[k];

		for (size_t i = 0; i < e->match.n; i++)
			if (fn(e->id, e->match.v[i], true, arg) != 0)
				return -1;
		for (size_t i = 0; i < e->no_match.n; i++)
			if (fn(e->id, e->no_match.v[i], false, arg) != 0)
				return -1;
	}
	return 0;
}

/* Does an entry's "writes" name rel (a direct file write, filereq.h)? */
bool
danger_check_write(const struct danger *d, const char *rel,
    struct danger_hit *hit)
{
	for (size_t i = 0; d != NULL && i < d->n; i++) {
		if (d->e[i].writes.n == 0 || !danger_path(&d->e[i].writes, rel))
			continue;
		danger_fill(&d->e[i], NULL, 0, hit);
		return true;
	}
	return false;
}
