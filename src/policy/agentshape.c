/* agentshape: read through the shell wrappers agents send (agentshape.h). */
#include "autoconf.h"

#include <string.h>

#include "agentshape.h"

/* The shells read through, by name or by a system path. */
static const char *const agentshape_shells[] = {
	"bash", "sh", "dash", "zsh", NULL
};

/* Characters zsh expands unlike bash (globs with qualifiers, =cmd,
   parameter flags, history): a zsh string with any is not read through. */
#define ZSH_SPECIAL	"$`*?[]()~=^#{}!<>"

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
	if (strcmp(sh, "zsh") == 0 && strpbrk(text, ZSH_SPECIAL) != NULL)
		return NULL;
	*shell = sh;
	return text;
}
