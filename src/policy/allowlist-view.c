/*
 * allowlist-view: a simple command as the rules see it (struct cmdview):
 * the raw text checked for hidden characters, words that are expanded
 * when they run, globs, the command name, redirections that write,
 * /dev/tcp network redirections and endless devices that are read.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allowlist.h"
#include "buf.h"
#include "cleanup.h"
#include "config.h"
#include "jsonutil.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "shparse.h"
#include "xalloc.h"

#include "allowlist-int.h"

/* Longer command strings are never allowed automatically. */
#define ALLOWLIST_MAX_TEXT	(64 * 1024)

/* Devices that bash turns into network connections in redirections. */
static const char *const allowlist_netdevs[] = { "tcp", "udp", NULL };

/* Devices whose reading never ends. */
static const char *const allowlist_endless[] = {
	"zero", "urandom", "random", "full", NULL
};

/* Builtins that change the directory later commands run in. */
static const char *const allowlist_cd[] = { "cd", "pushd", "popd", NULL };

/* Directories whose programs may be named by absolute path. */
static const char *const allowlist_sysdirs[] = {
	"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin",
	"/usr/local/sbin",
};

/* Invisible, spacing and bidirectional code points (inclusive ranges). */
static const struct {
	unsigned	lo, hi;
	const char	*what;
} allowlist_invisible[] = {
	{ 0x0080, 0x009f, "a C1 control character" },
	{ 0x00a0, 0x00a0, "a no-break space" },
	{ 0x00ad, 0x00ad, "a soft hyphen" },
	{ 0x034f, 0x034f, "an invisible combining mark" },
	{ 0x061c, 0x061c, "a bidirectional mark" },
	{ 0x115f, 0x1160, "an invisible filler" },
	{ 0x1680, 0x1680, "a unicode space" },
	{ 0x17b4, 0x17b5, "an invisible vowel" },
	{ 0x180b, 0x180f, "an invisible mongolian mark" },
	{ 0x2000, 0x200a, "a unicode space" },
	{ 0x200b, 0x200f, "a zero-width or bidirectional mark" },
	{ 0x2028, 0x2029, "a line or paragraph separator" },
	{ 0x202a, 0x202e, "a bidirectional override" },
	{ 0x202f, 0x202f, "a no-break space" },
	{ 0x205f, 0x2064, "an invisible operator or space" },
	{ 0x2066, 0x2069, "a bidirectional isolate" },
	{ 0x206a, 0x206f, "a deprecated format character" },
	{ 0x3000, 0x3000, "an ideographic space" },
	{ 0x3164, 0x3164, "an invisible filler" },
	{ 0xfe00, 0xfe0f, "a variation selector" },
	{ 0xfeff, 0xfeff, "a zero-width no-break space" },
	{ 0xffa0, 0xffa0, "an invisible filler" },
	{ 0xfff0, 0xfffb, "an invisible special" },
	{ 0x1d173, 0x1d17a, "an invisible musical format mark" },
	{ 0xe0000, 0xe0fff, "a tag or variation selector" },
};

/*
 * Check the raw text: return why it cannot be allowed, or NULL.
 */
char *
allowlist_text_problem(const char *text)
{
	const unsigned char	*p = (const unsigned char *)text;
	unsigned		 cp;
	size_t			 i, n, len = strlen(text);
	int			 extra;

	if (len > ALLOWLIST_MAX_TEXT)
		return xasprintf("the command is too long to check (%zu "
		    "bytes)", len);
	for (i = 0; i < len; i += n) {
		cp = p[i];
		n = 1;
		if (cp == '\r')
			return xasprintf("a carriage return at byte %zu "
			    "(it can hide text on a terminal)", i);
		if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f)
			return xasprintf("a control character (0x%02x) at byte "
			    "%zu", cp, i);
		if (cp < 0x80)
			continue;
		if (cp >= 0xc2 && cp <= 0xdf) {
			extra = 1;
			cp &= 0x1f;
		} else if (cp >= 0xe0 && cp <= 0xef) {
			extra = 2;
			cp &= 0x0f;
		} else if (cp >= 0xf0 && cp <= 0xf4) {
			extra = 3;
			cp &= 0x07;
		} else
			goto invalid;
		for (n = 1; n <= (size_t)extra; n++) {
			if (i + n >= len || (p[i + n] & 0xc0) != 0x80)
				goto invalid;
			cp = (cp << 6) | (p[i + n] & 0x3f);
		}
		if ((extra == 2 && cp < 0x800) || (extra == 3 &&
		    (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			goto invalid;
		for (size_t k = 0; k < sizeof allowlist_invisible /
		    sizeof *allowlist_invisible; k++) {
			if (cp >= allowlist_invisible[k].lo &&
			    cp <= allowlist_invisible[k].hi)
				return xasprintf("%s (U+%04X) at byte %zu: it "
				    "looks like something else",
				    allowlist_invisible[k].what, cp, i);
		}
	}
	return NULL;
invalid:
	return xasprintf("invalid UTF-8 at byte %zu", i);
}

/* Is an absolute command path a program in a system directory? */
static bool
allowlist_system_path(const char *path)
{
	const char	*slash = strrchr(path, '/');
	size_t		 dirlen = slash - path, i;

	if (strstr(path, "/./") != NULL || strstr(path, "/../") != NULL ||
	    strstr(path, "//") != NULL || slash[1] == '\0' ||
	    strcmp(slash, "/.") == 0 || strcmp(slash, "/..") == 0)
		return false;
	for (i = 0; i < sizeof allowlist_sysdirs / sizeof *allowlist_sysdirs;
	    i++) {
		if (strlen(allowlist_sysdirs[i]) == dirlen &&
		    strncmp(allowlist_sysdirs[i], path, dirlen) == 0)
			return true;
	}
	return false;
}

/*
 * A plain name is judged as the program the sandbox will run: the first
 * match in the PATH it gets (path_env_clean, as in sandbox.c), which must
 * be in a system directory; not found at all runs nothing. NULL when
 * fine, else the reason to ask. (Rule examples are checked without this:
 * they must not depend on the operator's PATH.)
 */
char *
allowlist_resolve_check(const struct cmdview *cv)
{
	const char	*env = getenv("PATH"), *home = getenv("HOME");
	char		*clean, *found, *why = NULL;

	if (cv->argc == 0 || strchr(cv->argv[0], '/') != NULL)
		return NULL;
	clean = path_env_clean(env != NULL ? env : "/usr/local/bin:/usr/bin:"
	    "/bin", NULL, home != NULL && home[0] == '/' &&
	    strcmp(home, "/") != 0 ? home : NULL);
	found = path_search(cv->argv[0], clean);
	if (found != NULL && !allowlist_system_path(found))
		why = xasprintf("'%s' would run '%s', which is not in a "
		    "system directory", cv->argv[0], found);
	free(found);
	free(clean);
	return why;
}

/* Are all characters digits (an fd number)? */
static bool
allowlist_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Is s one of the NULL-terminated list? */
static bool
allowlist_in(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/*
 * Does w, read as a path whatever its spelling (//, /./, a/../, after an
 * option's '='), name dev/X for an X in names (a directory of it when
 * below is set)? Looks for the components "dev" and X in a row; the
 * command's directory is not known, so relative paths count too.
 */
static bool
allowlist_dev_path(const char *w, const char *const *names, bool below)
{
	const char	*comp[64];
	size_t		 len[64], n = 0, i, l;
	const char	*p = w, *e;

	while (*p != '\0') {
		e = strchrnul(p, '/');
		l = e - p;
		/* An option's value ("--from=/dev/zero", "-f/dev/zero")
		   is a path too: the text before it is a component. */
		if (l == 0 || (l == 1 && p[0] == '.'))
			;
		else if (l == 2 && p[0] == '.' && p[1] == '.' && n > 0 &&
		    !(len[n - 1] == 2 && strncmp(comp[n - 1], "..", 2) == 0))
			n--;
		else if (n == sizeof comp / sizeof *comp)
			return true;	/* too deep to tell: assume so */
		else {
			comp[n] = p;
			len[n++] = l;
		}
		p = *e == '/' ? e + 1 : e;
	}
	for (i = 0; i + 1 < n; i++) {
		l = len[i];
		if (!(l >= 3 && strncmp(comp[i] + l - 3, "dev", 3) == 0 &&
		    (l == 3 || comp[i][l - 4] == '=')))
			continue;
		for (const char *const *x = names; *x != NULL; x++) {
			if (strlen(*x) == len[i + 1] &&
			    strncmp(*x, comp[i + 1], len[i + 1]) == 0 &&
			    (below || i + 2 == n))
				return true;
		}
	}
	return false;
}

/* Could glob pattern w expand to an endless device (/dev/zero)? */
static bool
allowlist_glob_endless(const char *w)
{
	char		 path[32];
	const char	*const *x;

	for (x = allowlist_endless; *x != NULL; x++) {
		snprintf(path, sizeof path, "/dev/%s", *x);
		if (fnmatch(w, path, FNM_PATHNAME | FNM_PERIOD) == 0 ||
		    fnmatch(w, path + 1, FNM_PATHNAME | FNM_PERIOD) == 0)
			return true;
	}
	return false;
}

/* Does w hold a path component "dev" (a directory of devices)? */
static bool
allowlist_dev_dir(const char *w)
{
	const char	*p;

	for (p = w; (p = strstr(p, "dev")) != NULL; p += 3)
		if ((p == w || p[-1] == '/') && (p[3] == '\0' || p[3] == '/'))
			return true;
	return false;
}

/* Note the first reason a command cannot be allowed. */
static void
cmdview_unsafe(struct cmdview *cv, char *why)
{
	if (cv->unsafe == NULL)
		cv->unsafe = why;
	else
		free(why);
}

/* A reason naming shell text, quoted so it stays on one line. */
static char *
quoted_reason(const char *before, const char *text, const char *after)
{
	char	*q = shell_quote(text), *s;

	s = xasprintf("%s%s%s", before, q, after);
	free(q);
	return s;
}

/*
 * A word that is "~" or starts with "~/", its tilde unquoted and nothing
 * else expanded: bash gives it the sandbox's HOME, which is the console's
 * own (sandbox-env.c: the agent's HOME is not passed) on a private empty
 * tmpfs. The expanded path, or NULL.
 */
static char *
cmdview_home_word(const struct sh_word *w)
{
	const char	*home = getenv("HOME");

	if ((w->flags & ~SH_W_QUOTED) != SH_W_TILDE || w->text[0] != '~' ||
	    (w->text[1] != '\0' && w->text[1] != '/') ||
	    strchr(w->text + 1, '~') != NULL)
		return NULL;
	if (home == NULL || home[0] != '/' || strcmp(home, "/") == 0 ||
	    strstr(home, "..") != NULL)
		return NULL;
	return xasprintf("%s%s", home, w->text + 1);
}

/* Build the view of one simple command. */
void
cmdview_init(struct cmdview *cv, const struct sh_cmd *cmd)
{
	const struct sh_redir	*r;
	const char		*t;
	size_t			 i;

	memset(cv, 0, sizeof *cv);
	cv->cmd = cmd;
	cv->argc = cmd->nwords;
	cv->argv = xcalloc(cmd->nwords + 1, sizeof *cv->argv);
	cv->globs = xcalloc(cmd->nwords + 1, sizeof *cv->globs);
	cv->home = xcalloc(cmd->nwords + 1, sizeof *cv->home);
	for (i = 0; i < cmd->nwords; i++) {
		cv->argv[i] = cmd->words[i].text;
		if (i > 0 && (cv->home[i] = cmdview_home_word(
		    &cmd->words[i])) != NULL) {
			cv->argv[i] = cv->home[i];
			continue;
		}
		/* A glob after the name may pass the command's grammar
		   (opt_check_words); it must not reach a device. */
		if (i > 0 && (cmd->words[i].flags & ~SH_W_QUOTED) ==
		    SH_W_GLOB && !allowlist_dev_dir(cv->argv[i]) &&
		    strstr(cv->argv[i], "..") == NULL) {
			cv->globs[i] = true;
			if (cv->glob == NULL)
				cv->glob = cmd->words[i].raw;
		} else if (!SH_WORD_LITERAL(&cmd->words[i]))
			cmdview_unsafe(cv, quoted_reason("", cmd->words[i].raw,
			    " is expanded when it runs: its value is not known "
			    "now"));
		if (i > 0 && cv->endless == NULL &&
		    (allowlist_dev_path(cv->argv[i], allowlist_endless,
		    false) || (cv->globs[i] &&
		    allowlist_glob_endless(cv->argv[i]))))
			cv->endless = quoted_reason("it reads ", cv->argv[i],
			    ", which never ends");
	}
	if (cmd->nassigns > 0)
		cmdview_unsafe(cv, quoted_reason("the assignment ",
		    cmd->assigns[0].raw, " changes how the command runs"));
	if (cmd->flags & SH_C_BACKGROUND)
		cmdview_unsafe(cv, xstrdup("a background job ('&') outlives "
		    "the command"));
	if (cmd->flags & SH_C_CONTROL)
		cmdview_unsafe(cv, xstrdup("control flow is not checked"));
	if (cmd->flags & SH_C_SUBST)
		cmdview_unsafe(cv, xstrdup("its output becomes part of "
		    "another command"));
	if (cmd->nwords == 0) {
		cv->name = "";
		if (cmd->nredirs == 0)
			cmdview_unsafe(cv, xstrdup("a command without a "
			    "name"));
	} else if (strchr(cv->argv[0], '/') != NULL) {
		cv->name = strrchr(cv->argv[0], '/') + 1;
		cv->name_ok = cv->argv[0][0] == '/' &&
		    allowlist_system_path(cv->argv[0]);
	} else {
		cv->name = cv->argv[0];
		cv->name_ok = cv->name[0] != '\0';
	}
	cv->launcher = cv->name[0] != '\0' ? rule_launcher(cv->name) : NULL;
	if (allowlist_in(allowlist_cd, cv->name)) {
		for (i = 1; i < cv->argc; i++) {
			if (strcmp(cv->argv[i], "-") == 0)
				cmdview_unsafe(cv, xstrdup("'cd -' returns to "
				    "a directory not known now"));
			else if (allowlist_dev_dir(cv->argv[i]))
				cmdview_unsafe(cv, quoted_reason("",
				    cv->argv[i], " is a directory of devices"));
		}
	}
	/* test -v 'a[$(cmd)]': bash evaluates an array subscript, and a
	   command substitution in it runs. */
	if (strcmp(cv->name, "test") == 0 || strcmp(cv->name, "[") == 0)
		for (i = 1; i + 1 < cv->argc; i++)
			if ((strcmp(cv->argv[i], "-v") == 0 ||
			    strcmp(cv->argv[i], "-R") == 0) &&
			    strchr(cv->argv[i + 1], '[') != NULL)
				cmdview_unsafe(cv, quoted_reason("the "
				    "subscript of ", cv->argv[i + 1], " is "
				    "evaluated by bash (a $(...) in it runs)"));
	for (i = 0; i < cmd->nredirs; i++) {
		r = &cmd->redirs[i];
		t = r->target.text;
		if (!SH_WORD_LITERAL(&r->target)) {
			cmdview_unsafe(cv, quoted_reason("the redirection "
			    "target ", r->target.raw, " is expanded when it "
			    "runs"));
			continue;
		}
		if (r->op != SH_R_DUP_IN && r->op != SH_R_DUP_OUT &&
		    r->op != SH_R_HEREDOC && r->op != SH_R_HERESTRING &&
		    cv->network == NULL &&
		    allowlist_dev_path(t, allowlist_netdevs, true)) {
			cv->network = quoted_reason("the redirection ", t,
			    " opens a network connection (bash)");
			continue;
		}
		if ((r->op == SH_R_IN || r->op == SH_R_INOUT) &&
		    cv->endless == NULL &&
		    allowlist_dev_path(t, allowlist_endless, false))
			cv->endless = quoted_reason("it reads ", t,
			    ", which never ends");
		switch (r->op) {
		case SH_R_IN:
		case SH_R_HEREDOC:
		case SH_R_HERESTRING:
			break;
		case SH_R_DUP_IN:
		case SH_R_DUP_OUT:
			if (!allowlist_digits(t) && strcmp(t, "-") != 0)
				cmdview_unsafe(cv, quoted_reason("the "
				    "redirection to ", t, " is not a descriptor"));
			break;
		case SH_R_OUT:
		case SH_R_APPEND:
		case SH_R_CLOBBER:
		case SH_R_OUT_ERR:
		case SH_R_APPEND_ERR:
		case SH_R_INOUT:
			if (strcmp(t, "/dev/null") == 0 && r->op != SH_R_INOUT)
				break;
			if (cv->writes == NULL)
				cv->writes = xasprintf("the redirection writes "
				    "'%s'", t);
			break;
		}
	}
}

/* Free what a command view holds. */
void
cmdview_release(struct cmdview *cv)
{
	for (size_t i = 0; cv->home != NULL && i < cv->argc; i++)
		free(cv->home[i]);
	free(cv->home);
	free(cv->argv);
	free(cv->globs);
	free(cv->unsafe);
	free(cv->writes);
	free(cv->network);
	free(cv->endless);
}

/* Does the command change the directory of later ones (cd, pushd)? */
bool
cmdview_changes_dir(const struct cmdview *cv)
{
	return allowlist_in(allowlist_cd, cv->name);
}
