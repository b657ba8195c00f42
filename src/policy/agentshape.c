/* agentshape: read through the shell wrappers agents send (agentshape.h). */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentshape.h"
#include "xalloc.h"

/* The shells read through, by name or by a system path. */
static const char *const agentshape_shells[] = {
	"bash", "sh", "dash", "zsh", NULL
};

/* Characters zsh expands unlike bash where they stand unquoted (glob
   qualifiers and numeric ranges, =cmd, ~ forms, parameter flags and
   subscripts, history, brace forms); in double quotes only $ and ` differ
   (the parameter flags, the subscripts), and nothing in single quotes. A
   zsh string with any of them is not read through. Unquoted glob
   characters (* ? [ ]) stay: zsh matches the same names or fails the
   command (NOMATCH) where bash would pass the word on. */
#define ZSH_UNQUOTED	"$`()~^#{}!<"
#define ZSH_DQUOTED	"$`"

/* Does text mean to zsh what it means to bash? */
static bool
agentshape_zsh_plain(const char *text)
{
	bool	 word_start = true;

	for (const char *p = text; *p != '\0'; p++) {
		if (*p == '\'') {
			if ((p = strchr(p + 1, '\'')) == NULL)
				return false;
			word_start = false;
			continue;
		}
		if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || strchr(ZSH_DQUOTED, *p))
					return false;
				if (*p == '\\' && *++p == '\0')
					return false;
			}
			word_start = false;
			continue;
		}
		if (*p == '\\') {
			if (*++p == '\0' || *p == '\n')
				return false;
			word_start = false;
			continue;
		}
		if (strchr(ZSH_UNQUOTED, *p) != NULL)
			return false;
		/* =cmd at the start of a word is the path of cmd. */
		if (*p == '=' && word_start)
			return false;
		word_start = strchr(" \t\n;&|>", *p) != NULL;
	}
	return true;
}

/* The shell's name if w is one: a plain name or one in a system
   directory. */
static const char *
agentshape_shell(const char *w)
{
	static const char *const dirs[] = { "/bin/", "/usr/bin/", NULL };
	const char *name = w;

	for (size_t i = 0; dirs[i] != NULL; i++)
		if (strncmp(w, dirs[i], strlen(dirs[i])) == 0)
			name = w + strlen(dirs[i]);
	if (strchr(name, '/') != NULL)
		return NULL;
	for (size_t i = 0; agentshape_shells[i] != NULL; i++)
		if (strcmp(name, agentshape_shells[i]) == 0)
			return agentshape_shells[i];
	return NULL;
}

/* Is t an option word that changes nothing the rules judge? Sets *c when
   it holds -c (which must come last in its cluster or be alone). */
static bool
agentshape_option(const char *t, bool *c)
{
	static const char *const longs[] = { "--login", "--norc",
	    "--noprofile", "--posix", NULL };

	for (size_t i = 0; longs[i] != NULL; i++)
		if (strcmp(t, longs[i]) == 0)
			return true;
	if (t[0] != '-' || t[1] == '\0' || t[1] == '-')
		return false;
	for (const char *p = t + 1; *p != '\0'; p++) {
		if (strchr("leuxv", *p) != NULL)
			continue;
		if (*p == 'c' && p[1] == '\0') {
			*c = true;
			continue;
		}
		return false;
	}
	return true;
}

const char *
agentshape_shell_string(const struct sh_script *s, const char **shell)
{
	static const char *const sets[] = { "pipefail", "errexit", "nounset",
	    "xtrace", NULL };
	const struct sh_cmd	*cmd;
	const char		*sh, *text;
	bool			 c = false;
	size_t			 i;

	if (s->ncmds != 1 || s->unknown.n > 0)
		return NULL;
	cmd = &s->cmds[0];
	if (cmd->nassigns > 0 || cmd->nredirs > 0 || cmd->flags != 0 ||
	    cmd->nwords < 3)
		return NULL;
	for (i = 0; i < cmd->nwords; i++)
		if (!SH_WORD_LITERAL(&cmd->words[i]))
			return NULL;
	if ((sh = agentshape_shell(cmd->words[0].text)) == NULL)
		return NULL;
	for (i = 1; i + 1 < cmd->nwords && !c; i++) {
		const char *t = cmd->words[i].text;
		bool known = false;

		/* -o NAME, also at the end of a cluster (-euo pipefail). */
		if (t[0] == '-' && t[1] != '\0' && t[strlen(t) - 1] == 'o' &&
		    strspn(t + 1, "leuxv") == strlen(t) - 2 &&
		    i + 2 < cmd->nwords) {
			for (size_t k = 0; sets[k] != NULL; k++)
				known = known ||
				    strcmp(cmd->words[i + 1].text, sets[k]) == 0;
			if (!known)
				return NULL;
			i++;
			continue;
		}
		if (!agentshape_option(t, &c))
			return NULL;
	}
	/* The string must be the last word: anything after it is $0 and
	   positional parameters the string may use. */
	if (!c || i != cmd->nwords - 1)
		return NULL;
	text = cmd->words[i].text;
	if (strcmp(sh, "zsh") == 0 && !agentshape_zsh_plain(text))
		return NULL;
	*shell = sh;
	return text;
}

/* The glob word that stands for what a command reads or finds. */
static const struct sh_word agentshape_input = { "*", "*", SH_W_GLOB };

static const char *
agentshape_base(const char *w)
{
	const char *s = strrchr(w, '/');

	return s != NULL ? s + 1 : w;
}

/* A new command of words [from, to) of c, with the input word appended
   when append. */
static void
agentshape_slice(struct sh_cmd *out, const struct sh_word *words,
    size_t from, size_t to, bool append, int flags)
{
	size_t n = to - from + (append ? 1 : 0);

	memset(out, 0, sizeof *out);
	out->words = xcalloc(n + 1, sizeof *out->words);
	for (size_t i = from; i < to; i++)
		out->words[out->nwords++] = words[i];
	if (append)
		out->words[out->nwords++] = agentshape_input;
	out->flags = flags;
}

void
agentshape_cmds_release(struct sh_cmd *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i].words);
	free(v);
}

struct sh_cmd *
agentshape_xargs(const struct sh_cmd *c)
{
	/* Options that change how the input is cut, never what runs. */
	static const char *const plain = " -0 --null -r --no-run-if-empty "
	    "-t --verbose -x --exit ";
	static const char *const valued = " -n -L -P -s -d ";
	static const char *const longs[] = { "--max-args=", "--max-lines=",
	    "--max-procs=", "--max-chars=", "--delimiter=", NULL };
	struct sh_cmd	*out;
	size_t		 i;
	char		 pad[64];

	if (c->nwords == 0 || strcmp(agentshape_base(c->words[0].text),
	    "xargs") != 0)
		return NULL;
	for (i = 1; i < c->nwords; i++) {
		const char	*t = c->words[i].text;
		bool		 known = false;

		if (!SH_WORD_LITERAL(&c->words[i]))
			return NULL;
		if (strcmp(t, "--") == 0) {
			i++;
			break;
		}
		if (t[0] != '-')
			break;
		snprintf(pad, sizeof pad, " %s ", t);
		if (strlen(t) < sizeof pad - 3 && strstr(plain, pad) != NULL)
			continue;
		if (strlen(t) < sizeof pad - 3 && strstr(valued, pad) != NULL &&
		    i + 1 < c->nwords) {
			i++;
			continue;
		}
		/* -n5, -d'\n' */
		snprintf(pad, sizeof pad, " %.2s ", t);
		if (strlen(t) > 2 && t[1] != '-' && strstr(valued, pad) != NULL)
			continue;
		for (size_t k = 0; longs[k] != NULL; k++)
			known = known || strncmp(t, longs[k],
			    strlen(longs[k])) == 0;
		if (!known)
			return NULL;
	}
	out = xcalloc(1, sizeof *out);
	if (i >= c->nwords) {
		static const struct sh_word echo = { "echo", "echo", 0 };

		agentshape_slice(out, &echo, 0, 1, true, c->flags);
	} else
		agentshape_slice(out, c->words, i, c->nwords, true, c->flags);
	out->assigns = c->assigns;
	out->nassigns = c->nassigns;
	out->redirs = c->redirs;
	out->nredirs = c->nredirs;
	return out;
}

struct sh_cmd *
agentshape_find_exec(const struct sh_cmd *c, size_t *n)
{
	struct sh_cmd	*v;
	struct sh_word	*outer;
	size_t		 nouter = 0, i;

	*n = 0;
	if (c->nwords == 0 || strcmp(agentshape_base(c->words[0].text),
	    "find") != 0)
		return NULL;
	v = xcalloc(c->nwords + 1, sizeof *v);
	outer = xcalloc(c->nwords + 1, sizeof *outer);
	*n = 1;
	for (i = 0; i < c->nwords; i++) {
		const char	*t = c->words[i].text;
		size_t		 end;

		if (strcmp(t, "-ok") == 0 || strcmp(t, "-okdir") == 0)
			goto no;
		if (strcmp(t, "-exec") != 0 && strcmp(t, "-execdir") != 0) {
			outer[nouter++] = c->words[i];
			continue;
		}
		for (end = i + 1; end < c->nwords; end++)
			if (strcmp(c->words[end].text, ";") == 0 ||
			    (strcmp(c->words[end].text, "+") == 0 &&
			    end > i + 1 &&
			    strcmp(c->words[end - 1].text, "{}") == 0))
				break;
		if (end >= c->nwords || end == i + 1)
			goto no;
		agentshape_slice(&v[*n], c->words, i + 1, end, false,
		    c->flags);
		/* Where find puts a name, the input word; a word that only
		   holds {} among other text cannot be judged. */
		for (size_t k = 0; k < v[*n].nwords; k++) {
			if (strcmp(v[*n].words[k].text, "{}") == 0)
				v[*n].words[k] = agentshape_input;
			else if (strstr(v[*n].words[k].text, "{}") != NULL) {
				(*n)++;
				goto no;
			}
		}
		(*n)++;
		i = end;
	}
	if (*n == 1)
		goto no;
	v[0].words = outer;
	v[0].nwords = nouter;
	v[0].flags = c->flags;
	v[0].assigns = c->assigns;
	v[0].nassigns = c->nassigns;
	v[0].redirs = c->redirs;
	v[0].nredirs = c->nredirs;
	return v;
no:
	free(outer);
	agentshape_cmds_release(v, *n);
	*n = 0;
	return NULL;
}

/* Unrolled commands at most (a longer list asks). */
#define UNROLL_MAX	256

/* The loop whose body holds command i, or NULL. */
static const struct sh_for *
agentshape_loop_of(const struct sh_script *s, size_t i)
{
	for (size_t k = 0; k < s->nfors; k++)
		if (i >= s->fors[k].first && i < s->fors[k].end)
			return &s->fors[k];
	return NULL;
}

/* Is raw "$name", "${name}", or either in double quotes? quoted says
   which. */
static bool
agentshape_is_var(const struct sh_word *w, const char *name, bool *quoted)
{
	char	a[256], b[256], c[256], d[256];

	if ((w->flags & ~SH_W_QUOTED) != SH_W_PARAM || strlen(name) > 200)
		return false;
	snprintf(a, sizeof a, "$%s", name);
	snprintf(b, sizeof b, "${%s}", name);
	snprintf(c, sizeof c, "\"$%s\"", name);
	snprintf(d, sizeof d, "\"${%s}\"", name);
	*quoted = strcmp(w->raw, c) == 0 || strcmp(w->raw, d) == 0;
	return *quoted || strcmp(w->raw, a) == 0 || strcmp(w->raw, b) == 0;
}

/* May an unquoted $f take this list word without being split or
   globbed into something else? */
static bool
agentshape_splits(const struct sh_word *v)
{
	if ((v->flags & SH_W_GLOB) != 0)
		return false;
	return strpbrk(v->text, " \t\n*?[") != NULL;
}

bool
agentshape_unroll_for(const struct sh_script *s, struct agentshape_view *v)
{
	size_t	n = 0;

	memset(v, 0, sizeof *v);
	if (s->nfors == 0 || s->unknown.n != 1 ||
	    strcmp(s->unknown.v[0], "control flow 'for'") != 0)
		return false;
	for (size_t k = 0; k < s->nfors; k++) {
		const struct sh_for *f = &s->fors[k];

		if (f->nwords == 0)
			return false;
		for (size_t i = 0; i < f->nwords; i++)
			if ((f->words[i].flags & ~(SH_W_QUOTED | SH_W_GLOB))
			    != 0)
				return false;
		for (size_t j = 0; j < s->nfors; j++)
			if (j != k && s->fors[j].first >= f->first &&
			    s->fors[j].end <= f->end)
				return false;	/* nested */
	}
	/* Every command of control flow is in a loop's body. */
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sh_for *f = agentshape_loop_of(s, i);

		if ((s->cmds[i].flags & SH_C_CONTROL) != 0 && f == NULL)
			return false;
		n += f != NULL ? f->nwords : 1;
	}
	if (n > UNROLL_MAX)
		return false;
	v->s.cmds = xcalloc(n + 1, sizeof *v->s.cmds);
	v->owned = xcalloc(n + 1, sizeof *v->owned);
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sh_for *f = agentshape_loop_of(s, i);
		const struct sh_cmd *c = &s->cmds[i];

		if (f == NULL) {
			v->s.cmds[v->s.ncmds++] = *c;
			continue;
		}
		for (size_t w = 0; w < f->nwords; w++) {
			struct sh_cmd	*u = &v->s.cmds[v->s.ncmds];
			bool		 quoted;

			*u = *c;
			u->flags &= ~SH_C_CONTROL;
			u->words = xcalloc(c->nwords + 1, sizeof *u->words);
			v->owned[v->s.ncmds++] = true;
			for (size_t k = 0; k < c->nwords; k++) {
				u->words[k] = c->words[k];
				if (!agentshape_is_var(&c->words[k], f->name,
				    &quoted))
					continue;
				if (!quoted && agentshape_splits(&f->words[w]))
					goto no;
				u->words[k] = f->words[w];
			}
		}
	}
	return true;
no:
	agentshape_view_release(v);
	return false;
}

void
agentshape_view_release(struct agentshape_view *v)
{
	for (size_t i = 0; i < v->s.ncmds; i++)
		if (v->owned != NULL && v->owned[i])
			free(v->s.cmds[i].words);
	free(v->s.cmds);
	free(v->owned);
	memset(v, 0, sizeof *v);
}
