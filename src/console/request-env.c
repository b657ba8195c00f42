/*
 * request-env: the environment is part of the verdict. A variable the
 * agent sets that makes a program run other code (envask.h: LD_PRELOAD,
 * BASH_ENV, GIT_CONFIG_*, NODE_OPTIONS...) turns `ls` into whatever that
 * code does, so an allowlisted command with one is asked about, the
 * reason naming the variable. A variable the console's own environment
 * has with the same value is the operator's, not the agent's, and counts
 * for nothing.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "allowlist.h"
#include "buf.h"
#include "console-int.h"
#include "envask.h"
#include "xalloc.h"

/* The marker that keeps a second classification from adding it again. */
#define REQUEST_ENV_SAYS	"; but the agent's environment "

void
request_env_verdict(struct request *r)
{
	struct envask	*e;
	struct buf	 b = BUF_INIT;
	char		*cause = NULL, *s;
	size_t		 n = 0;

	if (!r->has_env || r->env.n == 0 || (r->reason != NULL &&
	    strstr(r->reason, REQUEST_ENV_SAYS) != NULL))
		return;
	if ((e = envask_load(&cause)) == NULL) {
		/* Cannot tell: ask, never allow unseen. */
		buf_printf(&b, "cannot be checked: the table of variables "
		    "that run code cannot be read (%s)", cause);
		free(cause);
		n = 1;
	}
	for (size_t i = 0; e != NULL && i < r->env.n; i++) {
		const char	*kv = r->env.v[i], *eq = strchr(kv, '=');
		const char	*why, *mine;
		char		*name;

		if (eq == NULL)
			continue;
		name = xstrndup(kv, (size_t)(eq - kv));
		mine = getenv(name);
		if ((mine == NULL || strcmp(mine, eq + 1) != 0) &&
		    (why = envask_match(e, name, eq + 1)) != NULL) {
			buf_printf(&b, "%s%s (%s)", n > 0 ? ", " : "sets ",
			    name, why);
			n++;
		}
		free(name);
	}
	envask_free(e);
	if (n == 0) {
		buf_release(&b);
		return;
	}
	s = xasprintf("%s%s%s, which needs an operator", r->reason != NULL ?
	    r->reason : "", REQUEST_ENV_SAYS, b.data);
	free(r->reason);
	r->reason = s;
	if (r->verdict == VERDICT_ALLOW)
		r->verdict = VERDICT_ASK;
	buf_release(&b);
}
