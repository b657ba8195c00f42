/* ccperms: Claude Code's Bash permission rules (ccperms.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ccperms.h"
#include "shparse.h"
#include "xalloc.h"

/* Glob with '*' only (any text, '/' included). */
static bool
ccperms_glob(const char *p, const char *s)
{
	for (; *p != '\0'; p++, s++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (p[1] == '\0')
				return true;
			for (; *s != '\0'; s++)
				if (ccperms_glob(p + 1, s))
					return true;
			return false;
		}
		if (*s != *p)
			return false;
	}
	return *s == '\0';
}

bool
ccperms_rule_matches(const char *rule, const char *command)
{
	size_t	 n;
	char	*in;
	bool	 yes;

	while (*command == ' ' || *command == '\t' || *command == '\n')
		command++;
	if (strcmp(rule, "Bash") == 0)
		return true;
	if (strncmp(rule, "Bash(", 5) != 0 || (n = strlen(rule)) < 6 ||
	    rule[n - 1] != ')')
		return false;
	in = xstrndup(rule + 5, n - 6);
	n = strlen(in);
	if (n >= 2 && strcmp(in + n - 2, ":*") == 0) {
		in[n - 2] = '\0';
		yes = strncmp(command, in, n - 2) == 0;
	} else if (strchr(in, '*') != NULL) {
		yes = ccperms_glob(in, command);
		/* "ls *" is ls with or without arguments. */
		if (!yes && n >= 2 && strcmp(in + n - 2, " *") == 0) {
			in[n - 2] = '\0';
			yes = ccperms_glob(in, command);
		}
	} else
		yes = strcmp(in, command) == 0;
	free(in);
	return yes;
}

/* The first rule matching text. */
static const char *
ccperms_first(const struct strv *rules, const char *text)
{
	for (size_t i = 0; i < rules->n; i++)
		if (ccperms_rule_matches(rules->v[i], text))
			return rules->v[i];
	return NULL;
}

const char *
ccperms_match(const struct strv *rules, const char *command)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	struct buf		 b = BUF_INIT;
	const char		*hit;
	char			*cause = NULL;

	if (rules->n == 0)
		return NULL;
	if ((hit = ccperms_first(rules, command)) != NULL)
		return hit;
	if (sh_parse(command, &s, &cause) != 0) {
		free(cause);
		return NULL;
	}
	for (size_t i = 0; i < s.ncmds && hit == NULL; i++) {
		const struct sh_cmd *c = &s.cmds[i];

		if (c->nwords == 0)
			continue;
		buf_reset(&b);
		for (size_t w = 0; w < c->nwords; w++)
			buf_printf(&b, "%s%s", w > 0 ? " " : "",
			    c->words[w].text);
		hit = ccperms_first(rules, b.data);
		/* The same with the raw words (how Claude Code shows it). */
		if (hit == NULL) {
			buf_reset(&b);
			for (size_t w = 0; w < c->nwords; w++)
				buf_printf(&b, "%s%s", w > 0 ? " " : "",
				    c->words[w].raw);
			hit = ccperms_first(rules, b.data);
		}
	}
	buf_release(&b);
	sh_script_release(&s);
	return hit;
}
