/*
 * engine-prestart: a sandbox made before its request is known.
 *
 * The console's warm exec makes the sandbox of the last read-only request
 * while nothing runs: bwrap sets up the namespaces and mounts, the helper
 * installs its filter, answers and waits. When the next request starts
 * (approved, its records on disk) its options come through
 * engine_opts.await, and the sandbox runs it only when all that is decided
 * before a command starts is what that request gets from a sandbox made
 * now:
 *  - the argv its operator was shown (built when it was queued, from the
 *    project as it was then) is this sandbox's argv with its command: the
 *    same mounts, masks, environment and descriptors;
 *  - the project's path still names the directory bound;
 *  - the limits, stdin and output merging are the same (the caller
 *    compares the two specs);
 *  - the command fits in the helper's go message.
 * Else the sandbox is dropped, nothing of the request having run in it,
 * and the request runs as usual. Only what cannot write the project is
 * prestarted: nothing of a run before (a snapshot) has to
 * exist while no request runs.
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine-int.h"
#include "log.h"
#include "observe.h"
#include "sandbox.h"
#include "sha256.h"
#include "xalloc.h"

bool
engine_prestart_possible(const struct engine_opts *o, bool writes,
    const struct observer *obs)
{
	return o->await != NULL && !writes && obs != NULL;
}

int
engine_prestart_take(struct engine *e, const struct sandbox *sb,
    char **cause)
{
	const struct engine_opts *pred = e->opts;
	struct engine_opts	*real = NULL;
	struct strv		 shown = STRV_INIT;
	struct stat		 st;
	char			*want = NULL, hex[SHA256_HEX_LEN + 1];
	const char		*why = NULL;

	/* Ready up to the command (the helper waits either way). */
	observe_wait_ready(e->obs, ENGINE_HELLO_MS);
	LOG("prestarted: waiting for a request");
	if (pred->await(pred->await_arg, &real, &want) != 0) {
		*cause = xstrdup("no request came for the prestarted sandbox");
		return -1;
	}
	e->taken = real;
	sandbox_shown_argv(sb, &shown);
	strv_append_all(&shown, &real->argv);
	sha256_strv(&shown, hex);
	strv_release(&shown);
	if (want == NULL || strcmp(hex, want) != 0)
		why = "its argv is not the one shown";
	else if (stat(real->policy.project, &st) != 0 ||
	    st.st_dev != sb->project_dev || st.st_ino != sb->project_ino)
		why = "the project directory is another one now";
	else if (!observe_argv_fits(&real->argv))
		why = "the command does not fit the helper's message";
	free(want);
	if (why != NULL) {
		LOG("prestarted sandbox not used: %s", why);
		*cause = xasprintf("prestarted sandbox not used: %s", why);
		return -1;
	}
	LOG("prestarted sandbox taken");
	return 0;
}

void
engine_argv_digests(struct engine *e, const struct sandbox *sb,
    const struct strv *argv)
{
	struct result	*r = e->r;
	struct strv	 full = STRV_INIT;
	char		 hex[SHA256_HEX_LEN + 1];

	/* The exact argv of bwrap (a prestart's command went to the
	   helper), digested with the command either way. */
	strv_append_all(&r->bwrap_argv, &sb->argv);
	if (!sandbox_command_later(sb))
		strv_append_all(&r->bwrap_argv, argv);
	strv_append_all(&full, &sb->argv);
	strv_append_all(&full, argv);
	sha256_strv(&full, hex);
	strv_release(&full);
	cJSON_AddStringToObject(r->sandbox, "started_argv_sha256", hex);
	/* The argv a console shows for this policy (engine-spec.h), from
	   the one that starts: what runs is compared, not a second build. */
	sandbox_shown_argv(sb, &full);
	strv_append_all(&full, argv);
	sha256_strv(&full, hex);
	strv_release(&full);
	cJSON_AddStringToObject(r->sandbox, "argv_sha256", hex);
}
