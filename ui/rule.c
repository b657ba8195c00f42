/*
 * rule: the allowlist rule that `A` (approve and add a rule) writes to
 * the user's rule file, $XDG_CONFIG_HOME/bwgate/allowlist.json
 * (bwgate-allowlist(5)).
 *
 * The rule is an argv "pattern" rule, one pattern per simple command of
 * the request: the exact words, or the first N words and "*" (any rest).
 * Glob characters in a word are escaped so they match only themselves.
 * The request's own command is the rule's "match" example, so the rule
 * file loader proves, before anything is kept, that the new rule really
 * allows this command under the layered rules (a redirection that writes,
 * a launcher with a wildcard ... make it fail). When the files do not load
 * with the new rule, the old file is put back and the loader's message is
 * the cause.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "allowlist.h"
#include "cleanup.h"
#include "config.h"
#include "file.h"
#include "jsonutil.h"
#include "path.h"
#include "shparse.h"
#include "shquote.h"
#include "ui.h"
#include "xalloc.h"

/* A word as a pattern word: glob characters escaped; a word that is
   empty or holds blanks or quotes in single quotes (bwgate-allowlist(5)),
   so any word the parser produced can be pinned down exactly. */
static char *
rule_word(const char *w, char **cause)
{
	struct buf	b = BUF_INIT;

	(void)cause;
	/* The pattern's quotes are the shell's: the one quoting function. */
	if (*w == '\0' || strpbrk(w, " \t\n\r\v\f'") != NULL)
		return shell_squote(w);
	for (; *w != '\0'; w++) {
		if (strchr("*?[]\\", *w) != NULL)
			buf_putc(&b, '\\');
		buf_putc(&b, *w);
	}
	return buf_detach(&b);
}

/* The pattern for one simple command's words. */
static char *
rule_pattern(char *const *words, const bool *literal, size_t n,
    size_t prefix, char **cause)
{
	struct strv	 pat = STRV_INIT;
	size_t		 keep = prefix == 0 || prefix > n ? n : prefix;
	char		*w, *s;

	for (size_t i = 0; i < keep; i++) {
		if (!literal[i]) {
			*cause = xasprintf("the word '%s' is expanded by the "
			    "shell ($, globs, ~ ...); %s", words[i], i == 0 ?
			    "no rule can pin it down" : "try a shorter prefix");
			strv_release(&pat);
			return NULL;
		}
		if ((w = rule_word(words[i], cause)) == NULL) {
			strv_release(&pat);
			return NULL;
		}
		strv_push_owned(&pat, w);
	}
	if (prefix != 0)
		strv_push(&pat, "*");
	s = strv_join(&pat, " ", false);
	strv_release(&pat);
	return s;
}

/* Patterns for every simple command of a choice. */
static int
rule_patterns(const struct rule_choice *ch, struct strv *out, char **cause)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*p, *u, **words;
	bool			*lit;
	size_t			 i, k;

	if (ch->is_argv) {
		lit = xcalloc(ch->argv->n + 1, sizeof *lit);
		for (k = 0; k < ch->argv->n; k++)
			lit[k] = true;
		p = rule_pattern(ch->argv->v, lit, ch->argv->n, ch->prefix,
		    cause);
		free(lit);
		if (p == NULL)
			return -1;
		strv_push_owned(out, p);
		return 0;
	}
	if (sh_parse(ch->command, &s, cause) != 0)
		return -1;
	if (s.unknown.n > 0) {
		u = strv_join(&s.unknown, ", ", false);
		*cause = xasprintf("the command uses %s, which no rule can "
		    "allow", u);
		free(u);
		sh_script_release(&s);
		return -1;
	}
	for (i = 0; i < s.ncmds; i++) {
		const struct sh_cmd *c = &s.cmds[i];

		if (c->nwords == 0)
			continue;
		words = xcalloc(c->nwords + 1, sizeof *words);
		lit = xcalloc(c->nwords + 1, sizeof *lit);
		for (k = 0; k < c->nwords; k++) {
			words[k] = c->words[k].text;
			lit[k] = SH_WORD_LITERAL(&c->words[k]);
		}
		p = rule_pattern(words, lit, c->nwords, ch->prefix, cause);
		free(words);
		free(lit);
		if (p == NULL) {
			sh_script_release(&s);
			return -1;
		}
		if (strv_contains(out, p))
			free(p);
		else
			strv_push_owned(out, p);
	}
	sh_script_release(&s);
	if (out->n == 0) {
		*cause = xstrdup("the command has no command words");
		return -1;
	}
	return 0;
}

/* The rule for a choice, as JSON. */
cJSON *
rule_build(const struct rule_choice *ch, char **cause)
{
	struct strv	 pats = STRV_INIT, ex = STRV_INIT;
	static unsigned	 serial;
	char		 date[32], id[64], *reason;
	time_t		 now = time(NULL);
	struct tm	 tm;
	cJSON		*j;

	if (rule_patterns(ch, &pats, cause) != 0) {
		strv_release(&pats);
		return NULL;
	}
	localtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
	strftime(id, sizeof id, "console-%Y%m%d-%H%M%S", &tm);
	snprintf(id + strlen(id), sizeof id - strlen(id), "-%u-%u",
	    (unsigned)getpid(), ++serial);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "id", id);
	cJSON_AddItemToObject(j, "pattern", json_strv(&pats));
	cJSON_AddStringToObject(j, "verdict", "allow");
	cJSON_AddStringToObject(j, "profile", ch->profile);
	reason = xasprintf("approved in the bwgate console by %s on %s (%s)",
	    ch->who, date, ch->prefix == 0 ? "this exact command" :
	    "this command prefix");
	cJSON_AddStringToObject(j, "reason", reason);
	free(reason);
	/* The loader checks the rule allows what it was made for. */
	if (ch->is_argv)
		strv_push_owned(&ex, strv_join(ch->argv, " ", true));
	else
		strv_push(&ex, ch->command);
	cJSON_AddItemToObject(j, "match", json_strv(&ex));
	strv_release(&ex);
	strv_release(&pats);
	return j;
}

/* Most words in one simple command of the request. */
size_t
rule_max_words(const struct request *r)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL;
	size_t			 max = 0;

	if (r->is_argv)
		return r->argv.n;
	if (sh_parse(r->command, &s, &cause) != 0) {
		free(cause);
		return 1;
	}
	for (size_t i = 0; i < s.ncmds; i++)
		if (s.cmds[i].nwords > max)
			max = s.cmds[i].nwords;
	sh_script_release(&s);
	return max > 0 ? max : 1;
}

/* Profile names defined in a rule file (missing file: none). */
static void
rule_profiles_of(const char *path, struct strv *out)
{
	char		*cause = NULL;
	cJSON		*j, *p;

	if (access(path, R_OK) != 0 || (j = json_load_file(path,
	    &cause)) == NULL) {
		free(cause);
		return;
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(j,
	    "profiles")) {
		if (p->string != NULL && !strv_contains(out, p->string))
			strv_push(out, p->string);
	}
	cJSON_Delete(j);
}

/* The profile names the rule files define. */
void
rule_profiles(struct strv *out)
{
	char	*shipped, *dir, *user;

	shipped = path_join(config_datadir(), "allowlist.json");
	rule_profiles_of(shipped, out);
	free(shipped);
	if ((dir = config_user_dir()) != NULL) {
		user = path_join(dir, "allowlist.json");
		rule_profiles_of(user, out);
		free(user);
		free(dir);
	}
	if (out->n == 0)
		strv_push(out, "project");
}

/* Append the rule to the user rule file (or the user's file for this
   project); keep it only if the files load. */
int
rule_write(const cJSON *rule, const char *project, enum rule_scope scope,
    char **pathp, char **cause)
{
	_cleanup_free_ char	*dir = NULL, *path = NULL, *old = NULL;
	_cleanup_free_ char	*pdir = NULL;
	struct buf		 b = BUF_INIT;
	struct allowlist	*al;
	cJSON			*root = NULL, *rules;
	char			*text, *why = NULL;
	int			 fd;

	if ((dir = config_user_dir()) == NULL) {
		*cause = xstrdup("no configuration directory (set HOME or "
		    "XDG_CONFIG_HOME)");
		return -1;
	}
	if (scope == RULE_SCOPE_SESSION) {
		if (allowlist_session_file() == NULL) {
			*cause = xstrdup("this console keeps no session rules");
			return -1;
		}
		path = xstrdup(allowlist_session_file());
	} else if (scope == RULE_SCOPE_ALL)
		path = path_join(dir, "allowlist.json");
	else if ((path = allowlist_user_project_file(project, cause)) == NULL)
		return -1;
	pdir = xstrdup(path);
	*strrchr(pdir, '/') = '\0';
	if (mkdir_p(pdir, 0700, cause) != 0)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (buf_read_fd(&b, fd, 16 << 20) < 0) {
			*cause = xasprintf("cannot read '%s': %s", path,
			    strerror(errno));
			close(fd);
			buf_release(&b);
			return -1;
		}
		close(fd);
		old = b.data != NULL ? buf_detach(&b) : xstrdup("");
		if ((root = json_parse_text(old, path, cause)) == NULL)
			return -1;
		if (!cJSON_IsObject(root)) {
			*cause = xasprintf("'%s' is not a JSON object", path);
			cJSON_Delete(root);
			return -1;
		}
	} else if (errno != ENOENT) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return -1;
	} else {
		root = cJSON_CreateObject();
		cJSON_AddNumberToObject(root, "version", 1);
		cJSON_AddStringToObject(root, "description",
		    scope == RULE_SCOPE_SESSION ? "rules for one console's "
		    "life, added with its A key; removed when it ends" :
		    scope == RULE_SCOPE_ALL ? "your own rules "
		    "(bwgate-allowlist(5)); the console's A key adds to them" :
		    "your own rules for one project, kept outside it "
		    "(bwgate-allowlist(5)); the console's A key adds to them");
	}
	rules = cJSON_GetObjectItemCaseSensitive(root, "rules");
	if (rules == NULL)
		rules = cJSON_AddArrayToObject(root, "rules");
	if (!cJSON_IsArray(rules)) {
		*cause = xasprintf("'%s': \"rules\" is not an array", path);
		cJSON_Delete(root);
		return -1;
	}
	cJSON_AddItemToArray(rules, cJSON_Duplicate(rule, 1));
	text = cJSON_Print(root);
	cJSON_Delete(root);
	buf_puts(&b, text);
	buf_putc(&b, '\n');
	cJSON_free(text);
	if (file_write_atomic(path, b.data, b.len, 0600, cause) != 0) {
		buf_release(&b);
		return -1;
	}
	buf_release(&b);

	/* Prove the files load, and that the rule does what it says. */
	if ((al = allowlist_load(project, &why)) == NULL) {
		*cause = xasprintf("the rule was not kept: %s", why);
		free(why);
		why = NULL;
		if (old == NULL)
			unlink(path);
		else if (file_write_atomic(path, old, strlen(old), 0600,
		    &why) != 0) {
			free(*cause);
			*cause = xasprintf("the new rule does not load and the "
			    "old file could not be put back: %s", why);
			free(why);
		}
		return -1;
	}
	allowlist_free(al);
	*pathp = steal_pointer(&path);
	return 0;
}
