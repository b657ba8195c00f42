/*
 * rules: read and validate allowlist rule files.
 *
 * Validation is strict on purpose: a typo in a key would otherwise turn a
 * restriction into nothing ("forbiden": {...} silently ignored), so every
 * object has a table of the keys it may have and their types, and the
 * first problem found is reported with the file, the line of the key (found
 * by walking the JSON text again, since cJSON keeps no positions) and the
 * key's path.
 */
#include "autoconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "cleanup.h"
#include "domains.h"
#include "jsonutil.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "xalloc.h"

#include "rules-int.h"

/* Commands that run other commands: never allowed by name alone. */
static const struct {
	const char	*glob;
	const char	*why;
} rule_launchers[] = {
	{ "sh", "a shell runs any command" },
	{ "*sh", "a shell runs any command" },
	{ "busybox", "busybox contains a shell" },
	{ "python*", "an interpreter runs any program" },
	{ "pypy*", "an interpreter runs any program" },
	{ "perl*", "an interpreter runs any program" },
	{ "ruby*", "an interpreter runs any program" },
	{ "irb", "an interpreter runs any program" },
	{ "node", "an interpreter runs any program" },
	{ "nodejs", "an interpreter runs any program" },
	{ "deno", "an interpreter runs any program" },
	{ "bun", "an interpreter runs any program" },
	{ "php*", "an interpreter runs any program" },
	{ "lua*", "an interpreter runs any program" },
	{ "tclsh*", "an interpreter runs any program" },
	{ "wish*", "an interpreter runs any program" },
	{ "expect", "an interpreter runs any program" },
	{ "R", "an interpreter runs any program" },
	{ "Rscript", "an interpreter runs any program" },
	{ "julia", "an interpreter runs any program" },
	{ "guile*", "an interpreter runs any program" },
	{ "java", "an interpreter runs any program" },
	{ "jshell", "an interpreter runs any program" },
	{ "*awk", "awk runs programs through system() and pipes" },
	{ "eval", "eval runs its arguments as shell code" },
	{ "exec", "exec replaces the shell with any program" },
	{ "source", "source runs a file as shell code" },
	{ ".", "'.' runs a file as shell code" },
	{ "command", "command runs any command, bypassing checks" },
	{ "builtin", "builtin runs shell builtins by name" },
	{ "coproc", "coproc runs any command" },
	{ "trap", "trap runs shell code on signals" },
	{ "alias", "alias changes what later words mean" },
	{ "hash", "hash changes which program a name runs" },
	{ "enable", "enable loads builtins from shared objects" },
	{ "export", "export changes the environment of later commands" },
	{ "declare", "declare changes shell variables" },
	{ "typeset", "typeset changes shell variables" },
	{ "readonly", "readonly changes shell variables" },
	{ "local", "local changes shell variables" },
	{ "set", "set changes shell options" },
	{ "shopt", "shopt changes shell options" },
	{ "unset", "unset changes shell variables and functions" },
	{ "fc", "fc runs commands from history" },
	{ "env", "env runs any program with any environment" },
	{ "xargs", "xargs runs any program" },
	{ "parallel", "parallel runs any program" },
	{ "sudo", "sudo runs any program with privileges" },
	{ "doas", "doas runs any program with privileges" },
	{ "su", "su runs a shell as another user" },
	{ "runuser", "runuser runs any program" },
	{ "pkexec", "pkexec runs any program with privileges" },
	{ "nice", "nice runs any program" },
	{ "nohup", "nohup runs any program" },
	{ "timeout", "timeout runs any program" },
	{ "stdbuf", "stdbuf runs any program" },
	{ "time", "time runs any program" },
	{ "chroot", "chroot runs any program" },
	{ "unshare", "unshare runs any program" },
	{ "nsenter", "nsenter runs any program" },
	{ "setsid", "setsid runs any program" },
	{ "setpriv", "setpriv runs any program" },
	{ "ionice", "ionice runs any program" },
	{ "taskset", "taskset runs any program" },
	{ "chrt", "chrt runs any program" },
	{ "prlimit", "prlimit runs any program" },
	{ "flock", "flock runs any program" },
	{ "watch", "watch runs any command" },
	{ "script", "script runs a shell" },
	{ "strace", "strace runs any program" },
	{ "ltrace", "ltrace runs any program" },
	{ "gdb", "gdb runs any program" },
	{ "valgrind", "valgrind runs any program" },
	{ "ssh", "ssh runs commands elsewhere" },
	{ "bwrap", "bwrap runs any program" },
	{ "firejail", "firejail runs any program" },
	{ "systemd-run", "systemd-run runs any program" },
	{ "fakeroot", "fakeroot runs any program" },
	{ "proot", "proot runs any program" },
	{ "run-parts", "run-parts runs programs" },
	{ "sg", "sg runs a command" },
	{ "newgrp", "newgrp runs a shell" },
};

static const struct rule_key rule_top_keys[] = {
	{ "version", T_NUMBER },
	{ "description", T_STRING },
	{ "profiles", T_OBJECT },
	{ "rules", T_ARRAY },
	{ "domains", T_ARRAY },
	{ NULL, 0 }
};

static const struct rule_key rule_profile_keys[] = {
	{ "description", T_STRING },
	{ "project_readonly", T_BOOL },
	{ "network", T_BOOL },
	{ "git_writable", T_BOOL },
	{ "agent_config_writable", T_BOOL },
	{ "writable", T_ARRAY },
	{ "domains", T_ARRAY },
	{ NULL, 0 }
};

/*
 * Split a pattern into words at blanks. A word may hold single-quoted
 * parts ('a b', '' for an empty word): inside quotes every character is
 * itself, glob characters included (they are escaped for fnmatch). Outside
 * quotes a backslash escapes the next character, as in fnmatch. -1 on an
 * unterminated quote.
 */
static int
rule_pattern_split(const char *s, struct strv *out)
{
	struct buf	 b = BUF_INIT;
	bool		 inword = false;

	for (;;) {
		if (*s == '\0' || *s == ' ' || *s == '\t') {
			if (inword)
				strv_push_owned(out, b.data != NULL ?
				    buf_detach(&b) : xstrdup(""));
			buf_release(&b);
			inword = false;
			if (*s == '\0')
				return 0;
			s++;
			continue;
		}
		inword = true;
		if (*s == '\'') {
			for (s++; *s != '\''; s++) {
				if (*s == '\0') {
					buf_release(&b);
					return -1;
				}
				if (strchr("*?[]\\", *s) != NULL)
					buf_putc(&b, '\\');
				buf_putc(&b, *s);
			}
			s++;
		} else if (*s == '\\' && s[1] != '\0') {
			buf_putc(&b, *s++);
			buf_putc(&b, *s++);
		} else
			buf_putc(&b, *s++);
	}
}

/* Does a pattern word hold an unescaped glob character? */
static bool
rule_has_glob(const char *w)
{
	for (; *w != '\0'; w++) {
		if (*w == '\\' && w[1] != '\0')
			w++;
		else if (strchr("*?[", *w) != NULL)
			return true;
	}
	return false;
}

const struct rule_key rule_rule_keys[] = {
	{ "id", T_STRING },
	{ "reason", T_STRING },
	{ "verdict", T_STRING },
	{ "profile", T_STRING },
	{ "command", T_STRING | T_ARRAY },
	{ "pattern", T_STRING | T_ARRAY },
	{ "redirect_writes", T_BOOL },
	{ "match", T_ARRAY },
	{ "no_match", T_ARRAY },
	{ "runs", T_ARRAY },
	{ "project_root", T_BOOL },
	/* Grammar keys, also allowed in subcommands. */
	{ "options", T_ARRAY },
	{ "forbidden", T_OBJECT },
	{ "abbrev", T_BOOL },
	{ "permute", T_BOOL },
	{ "numeric", T_BOOL },
	{ "style", T_STRING },
	{ "required", T_ARRAY },
	{ "operands", T_OBJECT },
	{ "script", T_STRING },
	{ "subcommands", T_OBJECT },
	{ "values", T_OBJECT },
	{ "refused_values", T_OBJECT },
	{ "bounded", T_ARRAY },
	{ "operand_numbers", T_NUMBER },
	{ NULL, 0 }
};


/* Initialise an empty rule file. */
void
rulefile_init(struct rulefile *rf)
{
	memset(rf, 0, sizeof *rf);
}

/* Free one rule. */
static void
rule_release(struct rule *r)
{
	size_t	i;

	free(r->id);
	free(r->reason);
	free(r->profile);
	strv_release(&r->names);
	opt_grammar_release(&r->grammar);
	for (i = 0; i < r->npatterns; i++)
		strv_release(&r->patterns[i]);
	free(r->patterns);
	strv_release(&r->match);
	strv_release(&r->no_match);
	strv_release(&r->runs);
}

/* Free everything a rule file holds. */
void
rulefile_release(struct rulefile *rf)
{
	size_t	i;

	for (i = 0; i < rf->nrules; i++)
		rule_release(&rf->rules[i]);
	free(rf->rules);
	for (i = 0; i < rf->nprofiles; i++) {
		free(rf->profiles[i].name);
		free(rf->profiles[i].description);
		strv_release(&rf->profiles[i].writable);
		strv_release(&rf->profiles[i].domains);
	}
	strv_release(&rf->domains);
	free(rf->profiles);
	free(rf->path);
	free(rf->text);
	rulefile_init(rf);
}

/* Why this command name is never allowed by name alone, or NULL. */
const char *
rule_launcher(const char *name)
{
	size_t	i;

	const char	*g;

	for (i = 0; i < sizeof rule_launchers / sizeof *rule_launchers; i++) {
		g = rule_launchers[i].glob;
		if (strchr(g, '*') != NULL ? fnmatch(g, name, 0) == 0 :
		    strcmp(g, name) == 0)
			return rule_launchers[i].why;
	}
	return NULL;
}

/* A profile by name, or NULL. */
const struct profile *
rulefile_profile(const struct rulefile *rf, const char *name)
{
	size_t	i;

	for (i = 0; i < rf->nprofiles; i++)
		if (strcmp(rf->profiles[i].name, name) == 0)
			return &rf->profiles[i];
	return NULL;
}

/* Line of the value at path in text. */
int
rulefile_line(const char *text, const char *const *path, size_t n)
{
	return json_line_at(text, path, n);
}

/* Is s a plain command name (no globbing, no slash)? */
static bool
rule_plain_name(const char *s)
{
	if (*s == '\0')
		return false;
	if (strcmp(s, "[") == 0)	/* test's other name, matched exactly */
		return true;
	for (; *s != '\0'; s++)
		if (strchr("/*?[]\\ \t\n", *s) != NULL)
			return false;
	return true;
}

/* Parse one rule object. */
static int
rule_parse(struct rule_ctx *c, const cJSON *obj, struct rule *r,
    const struct rulefile *rf)
{
	const cJSON	*j;
	struct strv	 pats = STRV_INIT;
	char		*w;
	size_t		 i, k;
	bool		 wild;

	opt_grammar_init(&r->grammar);
	if (!cJSON_IsObject(obj))
		return rule_ctx_error(c, "a rule must be an object");
	j = cJSON_GetObjectItemCaseSensitive(obj, "id");
	if (j == NULL || !cJSON_IsString(j) || j->valuestring[0] == '\0')
		return rule_ctx_error(c, "a rule needs an \"id\"");
	for (w = j->valuestring; *w != '\0'; w++) {
		if (!isalnum((unsigned char)*w) && strchr("._-", *w) == NULL) {
			rule_ctx_push(c, "id");
			return rule_ctx_error(c, "an id may hold letters, "
			    "digits, '.', '_' and '-' only");
		}
	}
	r->id = xstrdup(j->valuestring);
	c->rule_id = r->id;
	for (i = 0; i < rf->nrules; i++) {
		if (strcmp(rf->rules[i].id, r->id) == 0) {
			rule_ctx_push(c, "id");
			return rule_ctx_error(c, "id \"%s\" is used twice",
			    r->id);
		}
	}
	if (rule_check_keys(c, obj, rule_rule_keys, SIZE_MAX) != 0)
		return -1;
	j = cJSON_GetObjectItemCaseSensitive(obj, "reason");
	if (j == NULL || j->valuestring[0] == '\0')
		return rule_ctx_error(c, "a rule needs a \"reason\" saying "
		    "why");
	r->reason = xstrdup(j->valuestring);
	j = cJSON_GetObjectItemCaseSensitive(obj, "verdict");
	if (j == NULL)
		return rule_ctx_error(c, "a rule needs a \"verdict\"");
	rule_ctx_push(c, "verdict");
	if (strcmp(j->valuestring, "allow") == 0)
		r->verdict = VERDICT_ALLOW;
	else if (strcmp(j->valuestring, "ask") == 0)
		r->verdict = VERDICT_ASK;
	else if (strcmp(j->valuestring, "deny") == 0)
		r->verdict = VERDICT_DENY;
	else
		return rule_ctx_error(c, "verdict must be \"allow\", \"ask\" "
		    "or \"deny\"");
	rule_ctx_pop(c);
	j = cJSON_GetObjectItemCaseSensitive(obj, "profile");
	r->profile = xstrdup(j != NULL ? j->valuestring : "project");
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "redirect_writes")))
		r->redirect_writes = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "project_root")))
		r->project_root = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "runs")) != NULL &&
	    rule_strings(c, j, "runs", &r->runs) != 0)
		return -1;

	j = cJSON_GetObjectItemCaseSensitive(obj, "command");
	if (j != NULL) {
		r->type = RULE_GRAMMAR;
		if (cJSON_HasObjectItem(obj, "pattern"))
			return rule_ctx_error(c, "a rule has either "
			    "\"command\" or \"pattern\", not both");
		if (rule_strings(c, j, "command", &r->names) != 0)
			return -1;
		for (i = 0; i < r->names.n; i++) {
			rule_ctx_push(c, "command");
			if (!rule_plain_name(r->names.v[i]))
				return rule_ctx_error(c, "\"%s\" is not a "
				    "plain command name", r->names.v[i]);
			if (r->verdict == VERDICT_ALLOW &&
			    rule_launcher(r->names.v[i]) != NULL)
				return rule_ctx_error(c, "'%s' cannot be "
				    "allowed by name (%s); use an exact "
				    "\"pattern\"", r->names.v[i],
				    rule_launcher(r->names.v[i]));
			rule_ctx_pop(c);
		}
		if (rule_grammar(c, obj, &r->grammar, true) != 0)
			return -1;
	} else if ((j = cJSON_GetObjectItemCaseSensitive(obj, "pattern"))) {
		r->type = RULE_PATTERN;
		for (i = RULE_FIRST_GRAMMAR_KEY; rule_rule_keys[i].name; i++) {
			if (cJSON_HasObjectItem(obj, rule_rule_keys[i].name)) {
				rule_ctx_push(c, rule_rule_keys[i].name);
				return rule_ctx_error(c, "\"%s\" needs "
				    "\"command\", not \"pattern\"",
				    rule_rule_keys[i].name);
			}
		}
		if (rule_strings(c, j, "pattern", &pats) != 0)
			return -1;
		r->patterns = xcalloc(pats.n + 1, sizeof *r->patterns);
		for (i = 0; i < pats.n; i++) {
			r->npatterns++;
			rule_ctx_push(c, "pattern");
			if (rule_pattern_split(pats.v[i], &r->patterns[i]) !=
			    0) {
				rule_ctx_error(c, "pattern \"%s\" has an "
				    "unterminated quote", pats.v[i]);
				strv_release(&pats);
				return -1;
			}
			if (r->patterns[i].n == 0 ||
			    !rule_plain_name(r->patterns[i].v[0])) {
				rule_ctx_error(c, "pattern \"%s\" must "
				    "start with a plain command name",
				    pats.v[i]);
				strv_release(&pats);
				return -1;
			}
			wild = false;
			for (k = 1; k < r->patterns[i].n; k++)
				if (rule_has_glob(r->patterns[i].v[k]))
					wild = true;
			if (wild && r->verdict == VERDICT_ALLOW &&
			    rule_launcher(r->patterns[i].v[0]) != NULL) {
				rule_ctx_error(c, "'%s' cannot be allowed "
				    "with wildcards (%s); spell out the exact "
				    "command", r->patterns[i].v[0],
				    rule_launcher(r->patterns[i].v[0]));
				strv_release(&pats);
				return -1;
			}
			rule_ctx_pop(c);
		}
		strv_release(&pats);
	} else
		return rule_ctx_error(c, "a rule needs \"command\" or "
		    "\"pattern\"");
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "match")) != NULL &&
	    rule_strings(c, j, "match", &r->match) != 0)
		return -1;
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "no_match")) != NULL &&
	    rule_strings(c, j, "no_match", &r->no_match) != 0)
		return -1;
	c->rule_id = NULL;
	return 0;
}

/* Parse one profile object. */
static int
rule_profile(struct rule_ctx *c, const cJSON *obj, struct profile *p)
{
	const cJSON	*j;

	p->name = xstrdup(obj->string);
	if (!rule_plain_name(p->name) || strchr(p->name, '+') != NULL)
		return rule_ctx_error(c, "\"%s\" is not a profile name",
		    p->name);
	if (!cJSON_IsObject(obj))
		return rule_ctx_error(c, "a profile must be an object");
	if (rule_check_keys(c, obj, rule_profile_keys, SIZE_MAX) != 0)
		return -1;
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "description")))
		p->description = xstrdup(j->valuestring);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "project_readonly")))
		p->project_readonly = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "network")))
		p->network = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "git_writable")))
		p->git_writable = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj,
	    "agent_config_writable")))
		p->agent_config_writable = cJSON_IsTrue(j);
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "writable")) != NULL &&
	    rule_strings(c, j, "writable", &p->writable) != 0)
		return -1;
	if ((j = cJSON_GetObjectItemCaseSensitive(obj, "domains")) != NULL &&
	    rule_strings(c, j, "domains", &p->domains) != 0)
		return -1;
	for (size_t i = 0; i < p->domains.n; i++) {
		struct domain_pattern	dp;
		char			*why = NULL;

		if (p->domains.v[i][0] == '@' &&
		    rule_plain_name(p->domains.v[i] + 1))
			continue;	/* a group, looked up when applied */
		if (domain_pattern_parse(p->domains.v[i], &dp, &why) != 0) {
			rule_ctx_push(c, "domains");
			rule_ctx_error(c, "%s", why);
			free(why);
			return -1;
		}
		domain_pattern_release(&dp);
	}
	for (size_t i = 0; i < p->writable.n; i++) {
		const char *w = p->writable.v[i];

		if (w[0] != '/' && strncmp(w, "~/", 2) != 0) {
			rule_ctx_push(c, "writable");
			return rule_ctx_error(c, "\"%s\" must be absolute or "
			    "start with ~/", w);
		}
	}
	return 0;
}

/* Parse and validate a rule file's text. */
int
rulefile_parse(const char *path, const char *text, struct rulefile *rf,
    char **cause)
{
	struct rule_ctx	 c;
	const cJSON	*j, *e;
	cJSON		*root;
	size_t		 i = 0;
	int		 rc = -1;

	memset(&c, 0, sizeof c);
	c.path = path;
	c.text = text;
	rf->path = xstrdup(path);
	rf->text = xstrdup(text);
	sha256_hex(text, strlen(text), rf->sha256);
	if ((root = json_parse_text(text, path, cause)) == NULL) {
		char *q = xasprintf("'%s'%s", path, *cause + strlen(path));

		free(*cause);
		*cause = q;
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		rule_ctx_error(&c, "a rule file is a JSON object");
		goto out;
	}
	if (rule_check_keys(&c, root, rule_top_keys, SIZE_MAX) != 0)
		goto out;
	j = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (j != NULL && j->valuedouble != 1) {
		rule_ctx_push(&c, "version");
		rule_ctx_error(&c, "unsupported version (this bwgate reads "
		    "version 1)");
		goto out;
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(root, "profiles")) != NULL) {
		rule_ctx_push(&c, "profiles");
		rf->profiles = xcalloc(cJSON_GetArraySize(j) + 1,
		    sizeof *rf->profiles);
		cJSON_ArrayForEach(e, j) {
			rule_ctx_push(&c, e->string);
			if (rule_profile(&c, e, &rf->profiles[rf->nprofiles++])
			    != 0)
				goto out;
			rule_ctx_pop(&c);
		}
		rule_ctx_pop(&c);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(root, "domains")) != NULL) {
		if (rule_strings(&c, j, "domains", &rf->domains) != 0)
			goto out;
		for (size_t k = 0; k < rf->domains.n; k++) {
			struct domain_pattern	dp;
			char			*why = NULL;

			if (rf->domains.v[k][0] == '@' &&
			    rule_plain_name(rf->domains.v[k] + 1))
				continue;
			if (domain_pattern_parse(rf->domains.v[k], &dp,
			    &why) != 0) {
				rule_ctx_push(&c, "domains");
				rule_ctx_error(&c, "%s", why);
				free(why);
				goto out;
			}
			domain_pattern_release(&dp);
		}
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(root, "rules")) != NULL) {
		rule_ctx_push(&c, "rules");
		rf->rules = xcalloc(cJSON_GetArraySize(j) + 1,
		    sizeof *rf->rules);
		cJSON_ArrayForEach(e, j) {
			rule_ctx_pushi(&c, i++);
			if (rule_parse(&c, e, &rf->rules[rf->nrules], rf)
			    != 0) {
				rule_release(&rf->rules[rf->nrules]);
				goto out;
			}
			rf->nrules++;
			rule_ctx_pop(&c);
		}
		rule_ctx_pop(&c);
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc != 0)
		*cause = c.cause;
	return rc;
}

/*
 * Could someone else change this file? World-writable: yes. Group-
 * writable: yes, unless the group is the owner's private group (named
 * after the owner, with no other members), as umask 002 systems create.
 */
const char *
rulefile_mode_problem(const struct stat *st)
{
	struct passwd	*pw;
	struct group	*gr;

	if (st->st_mode & S_IWOTH)
		return "world-writable";
	if ((st->st_mode & S_IWGRP) == 0)
		return NULL;
	pw = getpwuid(st->st_uid);
	if (pw == NULL || pw->pw_gid != st->st_gid)
		return "group-writable";
	gr = getgrgid(st->st_gid);
	if (gr == NULL || strcmp(gr->gr_name, pw->pw_name) != 0 ||
	    (gr->gr_mem != NULL && gr->gr_mem[0] != NULL))
		return "group-writable";
	return NULL;
}

/* A rule file of more is refused (read only this far). */
#define RULEFILE_MAX	(4 << 20)

/* Read the rule file open at fd (path names it in messages); *refused
   when others could have written it. */
static int
rulefile_load_fd(int fd, const char *path, struct rulefile *rf,
    bool *refused, char **cause)
{
	struct stat		 st;
	struct buf		 b = BUF_INIT;
	const char		*why;
	int			 rc;

	*refused = false;
	if (fstat(fd, &st) != 0) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*cause = xasprintf("'%s' is not a regular file", path);
		return -1;
	}
	if ((why = rulefile_mode_problem(&st)) != NULL) {
		*refused = true;
		*cause = xasprintf("'%s' is %s: refused (others could change "
		    "the rules; chmod go-w '%s')", path, why, path);
		return -1;
	}
	if (st.st_size > RULEFILE_MAX || buf_read_fd(&b, fd,
	    RULEFILE_MAX) < 0) {
		*cause = st.st_size > RULEFILE_MAX ? xasprintf("'%s' is "
		    "larger than %d bytes", path, RULEFILE_MAX) :
		    xasprintf("cannot read '%s': %s", path, strerror(errno));
		buf_release(&b);
		return -1;
	}
	if (b.data == NULL)
		buf_puts(&b, "");
	if (strlen(b.data) != b.len) {
		*cause = xasprintf("'%s' contains a NUL byte", path);
		buf_release(&b);
		return -1;
	}
	rc = rulefile_parse(path, b.data, rf, cause);
	buf_release(&b);
	return rc;
}

/* Read a rule file of the operator's (a FIFO or a device there never
   blocks: O_NONBLOCK, then regular files only). */
int
rulefile_load(const char *path, struct rulefile *rf, char **cause)
{
	_cleanup_close_ int	 fd = -1;
	bool			 refused;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	return rulefile_load_fd(fd, path, rf, &refused, cause);
}

/* The project's own rule file, through the door. */
int
rulefile_load_project(const char *project, struct rulefile *rf,
    bool *refused, char **cause)
{
	_cleanup_close_ int	 root = -1, fd = -1;
	_cleanup_free_ char	*path = path_join(project, RULEFILE_PROJECT);
	char			*why = NULL;
	struct stat		 st;

	*refused = false;
	if ((root = beneath_root(project, &st, cause)) < 0)
		return -1;
	fd = beneath_open_regular(root, RULEFILE_PROJECT, RULEFILE_MAX, &st,
	    &why);
	if (fd < 0 && errno == ENOENT) {
		free(why);
		return 0;
	}
	if (fd < 0) {
		*cause = xasprintf("in '%s': %s", project, why);
		free(why);
		return -1;
	}
	/* An empty one has no rules: it is also what a running sandbox's
	   placeholder for an absent .bwgate.json looks like. */
	if (st.st_size == 0 && rulefile_mode_problem(&st) == NULL)
		return 0;
	return rulefile_load_fd(fd, path, rf, refused, cause) == 0 ? 1 : -1;
}

/* Error text for rule i at key (for checks made after parsing). */
char *
rulefile_error(const struct rulefile *rf, size_t rule, const char *key,
    const char *fmt, ...)
{
	va_list		 ap;
	char		*msg, *out, idx[24];
	const char	*at[3];
	int		 line;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	snprintf(idx, sizeof idx, "#%zu", rule);
	at[0] = "rules";
	at[1] = idx;
	at[2] = key;
	/* Lines are found only for messages: scanning costs O(size). */
	line = rulefile_line(rf->text, at, key != NULL ? 3 : 2);
	if (line == 0 && key != NULL)
		line = rulefile_line(rf->text, at, 2);
	out = xasprintf("'%s':%d: rules[%zu]%s%s (rule \"%s\"): %s", rf->path,
	    line, rule, key != NULL ? "." : "", key != NULL ? key : "",
	    rf->rules[rule].id, msg);
	free(msg);
	return out;
}
