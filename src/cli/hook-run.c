/* hook-run: recognise `bwgate run --domain ... -- CMD` in a Bash call
   (hook-run.h). */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "hook-run.h"
#include "shparse.h"

int
hook_run_args(const char *command, struct strv *out)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	const struct sh_cmd	*c;
	char			*cause = NULL;
	const char		*w, *name;
	size_t			 i;
	int			 ok = 0;

	strv_release(out);
	if (sh_parse(command, &s, &cause) != 0) {
		free(cause);
		return 0;
	}
	if (s.ncmds != 1 || s.unknown.n > 0 || s.nfors > 0)
		goto out;
	c = &s.cmds[0];
	if (c->nassigns > 0 || c->nredirs > 0 || c->flags != 0 ||
	    c->nwords < 4)
		goto out;
	for (i = 0; i < c->nwords; i++)
		if (!SH_WORD_LITERAL(&c->words[i]))
			goto out;
	name = strrchr(c->words[0].text, '/');
	name = name != NULL ? name + 1 : c->words[0].text;
	if (strcmp(name, "bwgate") != 0 || strcmp(c->words[1].text, "run"))
		goto out;
	for (i = 2; i < c->nwords; i++) {
		w = c->words[i].text;
		if (strcmp(w, "--") == 0)
			break;
		if (strcmp(w, "--network") == 0)
			strv_push(out, w);
		else if (strcmp(w, "--domain") == 0 && i + 1 < c->nwords) {
			strv_push(out, w);
			strv_push(out, c->words[++i].text);
		} else if (strncmp(w, "--domain=", 9) == 0)
			strv_push(out, w);
		else
			goto out;
	}
	if (out->n == 0 || i + 1 >= c->nwords)
		goto out;
	for (; i < c->nwords; i++)
		strv_push(out, c->words[i].text);
	ok = 1;
out:
	if (!ok)
		strv_release(out);
	sh_script_release(&s);
	return ok;
}
