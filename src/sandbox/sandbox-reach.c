/*
 * sandbox-reach: can the user the sandbox runs as reach what it binds?
 *
 * bwrap turns every bind source into a path with realpath(3) before it
 * mounts anything, as the uid it runs as, and a source given by descriptor
 * too (/proc/self/fd/N reads back as the host path). So when root runs a
 * user's project as that user (sandbox-user.c), each directory on the way
 * to the project, to bwgate's helper and to the extra paths must be
 * searchable by that user, or bwrap dies with "Can't find source path
 * /proc/self/fd/3: Permission denied" after bwgate has shown the sandbox.
 * bwgate asks first, and refuses in one line naming the uid, the first
 * directory it cannot search and the fix.
 *
 * The kernel answers, not a reading of mode bits (ACLs, security modules,
 * a namespace's capabilities): test(1) runs through the same setpriv, with
 * the same uid, gid and cleared groups as the sandbox, on all the paths at
 * once. Only when that fails is each directory on the way tried, to name
 * the first one the user cannot search.
 */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "buf.h"
#include "cleanup.h"
#include "path.h"
#include "probe.h"
#include "sandbox-int.h"
#include "spawn.h"
#include "strv.h"
#include "xalloc.h"

#define REACH_TEST	"/usr/bin/test"

/* What the user must reach; exec: search (a directory) or run (a file). */
struct reach_target {
	char		*path;		/* canonical */
	const char	*what;		/* "the project", ... */
	bool		 exec;
};

/*
 * Run test(1) as uid/gid over the targets: 1 when every one is reached,
 * 0 when one is not, -1 with *cause when the question could not be asked.
 */
static int
reach_ask(uid_t uid, gid_t gid, const struct reach_target *t, size_t n,
    char **cause)
{
	struct strv	 argv = STRV_INIT;
	struct buf	 err = BUF_INIT;
	int		 status;

	strv_push(&argv, PROBE_SETPRIV);
	strv_pushf(&argv, "--reuid=%lu", (unsigned long)uid);
	strv_pushf(&argv, "--regid=%lu", (unsigned long)gid);
	strv_pushv(&argv, (const char *const[]){ "--clear-groups", "--",
	    REACH_TEST, NULL });
	for (size_t i = 0; i < n; i++) {
		/* Absolute paths: never taken for an operator of test. */
		if (i > 0)
			strv_push(&argv, "-a");
		strv_push(&argv, t[i].exec ? "-x" : "-e");
		strv_push(&argv, t[i].path);
	}
	status = spawn_capture(argv.v, 0, 2, &err, 4096, cause);
	strv_release(&argv);
	if (status == -1) {
		buf_release(&err);
		return -1;
	}
	/* test says no silently; setpriv failing says why. */
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1 && err.len == 0) {
		buf_release(&err);
		return WEXITSTATUS(status) == 0;
	}
	while (err.len > 0 && err.data[err.len - 1] == '\n')
		err.len--;
	*cause = err.len > 0 ? xasprintf("%.*s", (int)err.len, err.data) :
	    xasprintf("'%s' exited with status %d", PROBE_SETPRIV,
	    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	buf_release(&err);
	return -1;
}

/*
 * The first directory on the way to t (or t itself) that uid/gid cannot
 * search (or run); NULL with *cause when the question could not be asked.
 */
static char *
reach_first_denied(uid_t uid, gid_t gid, const struct reach_target *t,
    char **cause)
{
	struct reach_target	 step = { NULL, t->what, true };
	const char		*s = t->path;
	int			 ok;

	for (;;) {
		s = strchr(s + 1, '/');
		if (s == NULL)
			return xstrdup(t->path);
		step.path = xasprintf("%.*s", (int)(s - t->path), t->path);
		if ((ok = reach_ask(uid, gid, &step, 1, cause)) != 1) {
			if (ok == 0)
				return step.path;
			free(step.path);
			return NULL;
		}
		free(step.path);
	}
}

/* The narrowest chmod that lets uid/gid search dir. */
static const char *
reach_mode(const char *dir, uid_t uid, gid_t gid)
{
	struct stat	st;

	if (stat(dir, &st) != 0)
		return "o+x";
	if (st.st_uid == uid)
		return "u+x";
	if (st.st_gid == gid)
		return "g+x";
	return "o+x";
}

/* The refusal for t, denied at dir (t's path itself or a directory on
   the way). */
static char *
reach_refusal(const struct reach_target *t, const char *dir, uid_t uid,
    gid_t gid, const char *fix)
{
	_cleanup_free_ char *q = shell_quote(dir), *way = NULL;
	const char	*verb = "search";
	struct stat	 st;

	if (strcmp(dir, t->path) != 0)
		way = xasprintf(" on the way to %s '%s'", t->what, t->path);
	else if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		verb = t->exec ? "run" : "read";
	return xasprintf("the sandbox runs as uid %lu (the project's owner), "
	    "who cannot %s '%s'%s: chmod %s %s, or %s", (unsigned long)uid,
	    verb, dir, way != NULL ? way : "", reach_mode(dir, uid, gid), q,
	    fix);
}

/* What to do instead of the chmod, for target i. */
static const char *
reach_fix(const struct reach_target *t, size_t i)
{
	if (i == 0)
		return "move the project where that user can reach it";
	if (t->exec)
		return "install bwgate where that user can reach it "
		    "(make install)";
	return "leave the path out";
}

/*
 * Can uid/gid (no supplementary groups) reach the working directory, the
 * extra paths and the helper? 0, or -1 with *cause: the refusal.
 */
int
build_reach(struct build *b, uid_t uid, gid_t gid, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;
	const struct strv		*lists[] = { &pol->ro_paths,
					    &pol->rw_paths };
	struct reach_target		 t[64];
	size_t				 n = 0, i;
	char				*e = NULL, *denied;
	int				 ok, rc = -1;

	t[n++] = (struct reach_target){ xstrdup(pol->cwd),
	    strcmp(pol->cwd, pol->project) == 0 ? "the project" :
	    "the working directory", true };
	for (size_t l = 0; l < 2; l++)
		for (i = 0; i < lists[l]->n && n < 63; i++) {
			char *p = path_canonical(lists[l]->v[i], &e);

			free(e);	/* build_extra says it */
			e = NULL;
			if (p != NULL)
				t[n++] = (struct reach_target){ p, l == 0 ?
				    "the read-only path" : "the writable path",
				    false };
		}
	if (pol->helper != NULL &&
	    (t[n].path = path_real(pol->helper)) != NULL) {
		t[n].what = "bwgate's helper";
		t[n++].exec = true;
	}
	if ((ok = reach_ask(uid, gid, t, n, &e)) == 1) {
		rc = 0;
		goto out;
	}
	for (i = 0; ok == 0 && i < n; i++) {
		if ((ok = reach_ask(uid, gid, &t[i], 1, &e)) == 1) {
			ok = 0;		/* not this one */
			continue;
		}
		if (ok == -1 ||
		    (denied = reach_first_denied(uid, gid, &t[i], &e)) == NULL)
			break;
		*cause = reach_refusal(&t[i], denied, uid, gid,
		    reach_fix(&t[i], i));
		free(denied);
		goto out;
	}
	if (e == NULL)	/* no all at once, yes one by one: it changed */
		e = xstrdup("the answer changed while asking");
	*cause = xasprintf("cannot tell whether uid %lu (the project's owner) "
	    "can reach the project: %s", (unsigned long)uid, e);
out:
	free(e);
	for (i = 0; i < n; i++)
		free(t[i].path);
	return rc;
}
