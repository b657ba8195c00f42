/* danger-measure: what only the words of a command string tell about
   it before it runs: words not known until then (opaque-words), and
   whether what it deletes can be measured (danger.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "danger.h"
#include "danger-int.h"
#include "xalloc.h"

/* Is the word built by expansion or substitution when the command runs
   (a home directory's ~ is known)? */
static bool
danger_built(const struct sh_word *w)
{
	return (w->flags & ~(SH_W_QUOTED | SH_W_TILDE)) != 0;
}

/*
 * Words not known before the command runs (an "opaque" entry): a command
 * name built by expansion or substitution ($x, $(echo rm), {rm,-rf,x}),
 * a program of the entry's "command" (eval), or a shell that reads its
 * script from stdin (no script operand, -s) or is given a -c string that
 * is not literal. A literal -c string is read through as a script.
 */
bool
danger_opaque(const struct danger_entry *e, const struct sh_cmd *c)
{
	size_t			 i = danger_skip_wrappers(c);
	const char *const	*sh;
	const char		*n;

	if (i >= c->nwords)
		return false;
	if (danger_built(&c->words[i]))
		return true;
	n = danger_base(c->words[i].text);
	if (strv_contains(&e->command, n))
		return true;
	for (sh = danger_shells; *sh != NULL; sh++)
		if (strcmp(*sh, n) == 0)
			break;
	if (*sh == NULL || strcmp(n, "busybox") == 0)
		return false;
	for (i++; i < c->nwords; i++) {
		const char *t = c->words[i].text;

		if (danger_built(&c->words[i]))
			return true;
		if (strcmp(t, "--") == 0 || (t[0] != '-' && t[0] != '+'))
			return strcmp(t, "--") == 0 ? i + 1 >= c->nwords :
			    false;
		if (t[1] != '-' && strchr(t, 's') != NULL)
			return true;
		if (t[1] != '-' && strchr(t, 'c') != NULL)
			return i + 1 >= c->nwords ||
			    danger_built(&c->words[i + 1]);
		if (strcmp(t, "-o") == 0 || strcmp(t, "+o") == 0 ||
		    strcmp(t, "-O") == 0 || strcmp(t, "+O") == 0 ||
		    strcmp(t, "--rcfile") == 0 ||
		    strcmp(t, "--init-file") == 0)
			i++;
	}
	return true;	/* no script named: it reads stdin */
}

/* Words that change the directory in ways not followed here (pushd,
   popd), or run words the script does not show (eval, source): no delete
   beside them is measured. */
static const char *const danger_unmeasured[] = { "pushd", "popd", "eval",
    "source", ".", "exec", NULL };

/* The directories a measured script's deletes may run in, relative to
   where it starts ("" is there): each `cd DIR` adds DIR under every one
   so far, as the cd may fail and the script go on where it was. */
#define DANGER_MEASURE_DIRS	8

/* Is the command (after wrappers) one of danger_unmeasured or a shell? */
static bool
danger_unmeasurable(const struct sh_cmd *c)
{
	size_t		 i = danger_skip_wrappers(c);
	const char	*n;

	if (i >= c->nwords)
		return false;
	if (!SH_WORD_LITERAL(&c->words[i]))
		return true;
	n = danger_base(c->words[i].text);
	/* A cd reached through a wrapper (builtin cd, command cd) is not
	   followed. */
	if (i > 0 && strcmp(n, "cd") == 0)
		return true;
	for (size_t k = 0; danger_unmeasured[k] != NULL; k++)
		if (strcmp(danger_unmeasured[k], n) == 0)
			return true;
	for (size_t k = 0; danger_shells[k] != NULL; k++)
		if (strcmp(danger_shells[k], n) == 0)
			return true;
	return false;
}

/* A `cd DIR` (one literal operand, no option): DIR added under every
   directory in from, into dirs and into to; false when it cannot be
   followed (cd -, cd alone, too many directories). Another command: true,
   nothing changed. */
static bool
danger_measure_cd(const struct sh_cmd *c, const struct strv *from,
    struct strv *dirs, struct strv *to)
{
	const char	*d;
	struct strv	 next = STRV_INIT;
	size_t		 n = from->n;	/* from may be dirs */

	if (c->nwords == 0 || strcmp(c->words[0].text, "cd") != 0)
		return true;
	if (c->nwords != 2 || !SH_WORD_LITERAL(&c->words[1]))
		return false;
	d = c->words[1].text;
	if (d[0] == '-' || d[0] == '\0' || d[0] == '~')
		return false;
	for (size_t i = 0; i < n; i++) {
		char *j = d[0] == '/' || from->v[i][0] == '\0' ? xstrdup(d) :
		    xasprintf("%s/%s", from->v[i], d);

		if (!strv_contains(&next, j))
			strv_push(&next, j);
		if (!strv_contains(dirs, j))
			strv_push(dirs, j);
		free(j);
	}
	strv_release(to);
	*to = next;
	return dirs->n <= DANGER_MEASURE_DIRS;
}

/* Could cd be steered (CDPATH named, or a variable set by a name not
   shown: declare "$v=...", printf -v "$v", ${!v:=...}) or be something
   else (alias, enable, a function: s->unknown)? Then no cd is followed. */
static bool
danger_cd_unknown(const struct sh_script *s)
{
	static const char *const names[] = { "alias", "enable", "shopt",
	    NULL };
	static const char *const setters[] = { "declare", "typeset",
	    "export", "local", "readonly", "printf", "read", "mapfile",
	    "readarray", "let", NULL };

	if (s->unknown.n > 0)
		return true;
	for (size_t i = 0; i < s->nfors; i++)
		if (strcmp(s->fors[i].name, "CDPATH") == 0)
			return true;
	for (size_t i = 0; i < s->ncmds; i++) {
		const struct sh_cmd	*c = &s->cmds[i];
		const char		*n = c->nwords > 0 ?
					    danger_base(c->words[0].text) : "";
		bool			 setter = false;

		for (size_t k = 0; names[k] != NULL; k++)
			if (strcmp(n, names[k]) == 0)
				return true;
		for (size_t k = 0; setters[k] != NULL; k++)
			setter |= strcmp(n, setters[k]) == 0;
		for (size_t k = 0; k < c->nwords; k++)
			if (strstr(c->words[k].raw, "CDPATH") != NULL ||
			    strstr(c->words[k].raw, "${!") != NULL ||
			    (setter && !SH_WORD_LITERAL(&c->words[k])))
				return true;
		for (size_t k = 0; k < c->nassigns; k++)
			if (strstr(c->assigns[k].raw, "CDPATH") != NULL ||
			    strstr(c->assigns[k].raw, "${!") != NULL)
				return true;
	}
	return false;
}

/* One command of a measurable delete (danger_measurable): true when no
   entry holds for it, or only deletes by the program itself, every word
   literal; their operands, under each of dirs, are pushed to targets. */
static bool
danger_measure_cmd(const struct danger *d, const struct sh_cmd *c,
    bool allowed, const struct strv *dirs, struct strv *targets, bool *any)
{
	struct danger_hit	 h = DANGER_HIT_INIT;
	bool			 ok = true;

	for (size_t k = 0; ok && k < d->n; k++) {
		const struct danger_entry *e = &d->e[k];

		if (e->opaque && danger_opaque(e, c))
			ok = false;
		else if (e->writes.n > 0 && danger_writes(e, c, allowed))
			ok = false;
		else if (!e->opaque && danger_command(e, c, NULL, &h)) {
			ok = strcmp(e->stake, "delete") == 0 &&
			    danger_skip_wrappers(c) == 0 && h.targets.n > 0;
			/* A pattern operand is measured by its matches
			   (stake.h); it must be one of the operands. */
			for (size_t i = 0; ok && i < c->nwords; i++)
				ok = SH_WORD_LITERAL(&c->words[i]) ||
				    (i > 0 && (c->words[i].flags &
				    ~(SH_W_QUOTED | SH_W_GLOB)) == 0 &&
				    strv_contains(&h.targets,
				    c->words[i].text));
			for (size_t i = 0; ok && i < h.targets.n; i++)
				for (size_t j = 0; j < dirs->n; j++) {
					const char *t = h.targets.v[i];

					if (t[0] == '/' || dirs->v[j][0] == '\0')
						strv_push(targets, t);
					else
						strv_pushf(targets, "%s/%s",
						    dirs->v[j], t);
				}
			*any = true;
		}
		danger_hit_release(&h);
	}
	return ok;
}

/*
 * Where each command may run: dirs holds every directory a cd may have
 * reached, as a cd may fail and the script go on where it was. Right
 * after `cd DIR &&` (and along the && chain that follows) the commands
 * run only where the cd went (then): `cd build && rm -rf ../x` deletes
 * build/../x, never ../x. A cd that may not go where its word says
 * (danger_cd_unknown) is not followed: nothing is measured.
 */
bool
danger_measurable(const struct danger *d, const struct sh_script *s,
    const bool *allowed, struct strv *targets)
{
	struct strv	 dirs = STRV_INIT, then = STRV_INIT;
	bool		 any = false, chain = false;

	strv_release(targets);
	strv_push(&dirs, "");
	for (size_t k = 0; d != NULL && k < d->n; k++)
		if (d->e[k].fetch.n > 0 && d->e[k].run.n > 0 &&
		    danger_fetch_run(&d->e[k], s))
			goto no;
	/* A cd that may go elsewhere than it says is not followed. */
	for (size_t i = 0; d != NULL && i < s->ncmds; i++)
		if (s->cmds[i].nwords > 0 && strcmp(s->cmds[i].words[0].text,
		    "cd") == 0 && danger_cd_unknown(s))
			goto no;
	for (size_t i = 0; d != NULL && i < s->ncmds; i++) {
		const struct sh_cmd *c = &s->cmds[i];
		const struct strv *here = chain ? &then : &dirs;

		/* A shell's script is one of its own, not read here. */
		if ((c->nwords > 0 && !SH_WORD_LITERAL(&c->words[0])) ||
		    danger_unmeasurable(c))
			goto no;
		if (!danger_measure_cmd(d, c, allowed != NULL && allowed[i],
		    here, targets, &any))
			goto no;
		if (c->nwords > 0 && strcmp(c->words[0].text, "cd") == 0) {
			struct strv to = STRV_INIT;

			if (!danger_measure_cd(c, here, &dirs, &to)) {
				strv_release(&to);
				goto no;
			}
			strv_release(&then);
			then = to;
		}
		/* The next command runs here only after this one
		   succeeded, in the chain a cd began. */
		chain = c->flags == SH_C_THEN && (chain ||
		    (c->nwords > 0 && strcmp(c->words[0].text, "cd") == 0));
	}
	if (any) {
		strv_release(&dirs);
		strv_release(&then);
		return true;
	}
no:
	strv_release(&dirs);
	strv_release(&then);
	strv_release(targets);
	return false;
}
