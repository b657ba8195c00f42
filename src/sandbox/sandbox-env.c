/*
 * sandbox-env: the environment inside the sandbox. By default a short
 * allowlist of names from bwgate's own environment; with an agent's
 * environment (env_agent), everything it sent but names that look like
 * secrets. Configured names pass, configured values are set; HOME is the
 * private one; an agent's PATH keeps only what is visible inside, project
 * entries last. Built after the mounts (its PATH is checked against them)
 * and placed right after the namespaces.
 */
#include "autoconf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cleanup.h"
#include "domains.h"
#include "path.h"
#include "pathglob.h"
#include "sandbox.h"
#include "sandbox-int.h"
#include "xalloc.h"

extern char **environ;

/* Environment passed through by default. */
static const char *const sandbox_env_allow[] = {
	"PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "TZ", "USER", "LOGNAME",
	"COLORTERM", "NO_COLOR", NULL
};

/* Names that look like secrets: passed only when named explicitly. */
static const char *const sandbox_env_secret[] = {
	"*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*",
	"*_KEY", "*_KEY_*", "*APIKEY*", "*API_KEY*", "*CREDENTIAL*",
	"*COOKIE*", "*SESSION*", "*AUTH*", "AWS_*", "AZURE_*", "GOOGLE_*",
	"GCP_*", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_*",
	"XDG_RUNTIME_DIR", "KRB5*", "NPM_CONFIG__AUTH*", "BWGATE_SOCKET", NULL
};

bool
sandbox_env_is_secret(const char *name)
{
	for (const char *const *g = sandbox_env_secret; *g != NULL; g++)
		if (pathglob_fnmatch(*g, name))
			return true;
	return false;
}

/* Does the default allowlist pass this name? */
static bool
env_allowed(const char *name)
{
	for (const char *const *g = sandbox_env_allow; *g != NULL; g++)
		if (pathglob_fnmatch(*g, name))
			return !sandbox_env_is_secret(name);
	return false;
}

/* Is a directory of an agent's PATH there inside the sandbox? */
static bool
env_path_visible(const struct sandbox *sb, const char *dir)
{
	const struct sandbox_mount	*m;

	if (dir[0] != '/')
		return false;
	if (sb == NULL)
		return true;
	if ((m = sandbox_mount_for(sb, dir)) == NULL)
		return false;
	switch (m->kind) {
	case MOUNT_RO:
	case MOUNT_RW:
	case MOUNT_PROTECTED:
	case MOUNT_SYMLINK:
		return true;
	default:
		return false;
	}
}

/*
 * An agent's PATH with only absolute entries visible inside. Entries in
 * the project (which commands can write) go last: node_modules/.bin still
 * finds the project's tools, but a name the system has (git, ls, the
 * names the allowlist trusts) is always the system's, never a file a
 * command planted in the project.
 */
static char *
env_path_filter(const struct sandbox *sb, const char *project,
    const char *value)
{
	struct buf	 sys = BUF_INIT, proj = BUF_INIT, *b;
	char		*copy = xstrdup(value), *p = copy, *dir;

	while ((dir = strsep(&p, ":")) != NULL) {
		if (!env_path_visible(sb, dir))
			continue;
		b = project != NULL && path_is_under(dir, project) ? &proj :
		    &sys;
		if (b->len > 0)
			buf_putc(b, ':');
		buf_puts(b, dir);
	}
	free(copy);
	if (proj.len > 0) {
		if (sys.len > 0)
			buf_putc(&sys, ':');
		buf_add(&sys, proj.data, proj.len);
	}
	buf_release(&proj);
	return sys.len > 0 ? buf_detach(&sys) : NULL;
}

/* Set NAME=VALUE in a sorted-by-insertion list (replacing NAME). */
static void
env_put(struct strv *env, const char *name, const char *value)
{
	size_t	len = strlen(name);

	for (size_t i = 0; i < env->n; i++) {
		if (strncmp(env->v[i], name, len) == 0 &&
		    env->v[i][len] == '=') {
			free(env->v[i]);
			env->v[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	strv_pushf(env, "%s=%s", name, value);
}

/* Compare NAME=VALUE strings. */
static int
env_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
sandbox_env_list(const struct sandbox_policy *pol, const struct sandbox *sb,
    struct strv *out)
{
	const char	*home = sb != NULL && sb->run_home != NULL ?
			    sb->run_home : getenv("HOME");
	char *const	*src = pol->env_agent ? pol->env_in.v : environ;
	size_t		 nsrc = pol->env_agent ? pol->env_in.n : SIZE_MAX;
	bool		 have_path = false;

	for (size_t i = 0; i < nsrc && src != NULL && src[i] != NULL; i++) {
		const char	*eq = strchr(src[i], '=');
		_cleanup_free_ char *name = NULL, *path = NULL;

		if (eq == NULL || eq == src[i])
			continue;
		name = xstrndup(src[i], (size_t)(eq - src[i]));
		if (strv_contains(&pol->env_pass, name))
			;	/* named by the configuration */
		else if (pol->env_agent ? sandbox_env_is_secret(name) :
		    !env_allowed(name))
			continue;
		if (strcmp(name, "HOME") == 0)
			continue;
		if (strcmp(name, "PATH") == 0) {
			/* An agent's PATH: what is visible, project entries
			   last (its tools, never in front of the system's);
			   ours: no relative, project or home entry. */
			path = pol->env_agent ? env_path_filter(sb,
			    pol->project, eq + 1) : path_env_clean(eq + 1,
			    pol->project, home != NULL && home[0] == '/' &&
			    strcmp(home, "/") != 0 ? home : NULL);
			if (path == NULL || path[0] == '\0')
				continue;
			have_path = true;
		}
		env_put(out, name, path != NULL ? path : eq + 1);
	}
	if (!have_path)
		env_put(out, "PATH", "/usr/local/bin:/usr/bin:/bin");
	env_put(out, "HOME", home != NULL && home[0] == '/' ? home : "/tmp");
	/* git status/diff take no optional lock in a read-only project. */
	if (pol->project_readonly)
		env_put(out, "GIT_OPTIONAL_LOCKS", "0");
	for (size_t i = 0; i < pol->env_set.n; i++) {
		const char	*kv = pol->env_set.v[i], *eq = strchr(kv, '=');
		_cleanup_free_ char *name = NULL;

		if (eq == NULL || eq == kv)
			continue;
		name = xstrndup(kv, (size_t)(eq - kv));
		env_put(out, name, eq + 1);
	}
	/* Named hosts only: every client goes to the proxy (after the
	   agent's and the configuration's own values, which it replaces). */
	if (sandbox_policy_proxied(pol)) {
		struct strv	px = STRV_INIT;

		domains_proxy_env(&px);
		for (size_t i = 0; i < px.n; i++) {
			char *eq = strchr(px.v[i], '=');

			*eq = '\0';
			env_put(out, px.v[i], eq + 1);
		}
		strv_release(&px);
	}
	/* The user's names when the sandbox runs as the project's owner. */
	if (sb != NULL && sb->run_as != NULL) {
		env_put(out, "USER", sb->run_as);
		env_put(out, "LOGNAME", sb->run_as);
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, env_cmp);
}

/* --clearenv, then one --setenv per variable, placed at pos (after the
   namespaces) but built last, so an agent's PATH can be checked against
   the mounts. */
void
build_env(struct build *b, size_t pos)
{
	struct strv	env = STRV_INIT, args = STRV_INIT, all = STRV_INIT;
	struct strv	*argv = &b->sb->argv;

	strv_push(&args, "--clearenv");
	sandbox_env_list(b->pol, b->sb, &env);
	for (size_t i = 0; i < env.n; i++) {
		char	*eq = strchr(env.v[i], '=');

		*eq = '\0';
		strv_push(&args, "--setenv");
		strv_push(&args, env.v[i]);
		strv_push(&args, eq + 1);
		*eq = '=';
	}
	for (size_t i = 0; i < argv->n; i++) {
		if (i == pos)
			for (size_t k = 0; k < args.n; k++)
				strv_push(&all, args.v[k]);
		strv_push(&all, argv->v[i]);
	}
	strv_release(argv);
	*argv = all;
	strv_release(&env);
	strv_release(&args);
}
