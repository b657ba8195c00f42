/*
 * config: read bwgate's JSON settings, validate them, apply them.
 *
 * Unknown keys and wrong types are errors (naming file and key), so a typo
 * never silently weakens or widens the sandbox.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "agentcfg.h"
#include "config.h"
#include "jsonutil.h"
#include "path.h"
#include "xalloc.h"

#define DEFAULT_OUTPUT_LIMIT	(1024 * 1024)
#define DEFAULT_GRACE_MS	2000
#define DEFAULT_MAX_SERVICES	16
#define DEFAULT_AUDIT_MAX	(16 * 1024 * 1024)
#define DEFAULT_AUDIT_KEEP	8
/* Keep a 2-core, 8 GiB laptop usable (limiter.h has the same numbers). */
#define DEFAULT_MEMORY		((size_t)2 * 1024 * 1024 * 1024)
#define DEFAULT_PIDS		512
#define DEFAULT_HEADLESS_TIMEOUT 1800

enum config_type { CT_BOOL, CT_STRV, CT_SIZE, CT_INT, CT_UIDS, CT_LIMITS };

/* The settings a file may carry: key -> type -> field. */
struct config_key {
	const char		*section;	/* NULL: top level */
	const char		*key;
	enum config_type	 type;
	size_t			 offset;
};

#define F(f)	offsetof(struct config, f)
static const struct config_key config_keys[] = {
	{ "sandbox", "protected", CT_STRV, F(protected) },
	{ "sandbox", "env", CT_STRV, F(env_pass) },
	{ "sandbox", "writable", CT_STRV, F(rw_paths) },
	{ "sandbox", "readonly", CT_STRV, F(ro_paths) },
	{ "sandbox", "hidden", CT_STRV, F(hide_paths) },
	{ "sandbox", "network", CT_BOOL, F(network) },
	{ "sandbox", "allow_nested_sandboxes", CT_BOOL, F(allow_userns) },
	{ "sandbox", "allow_debuggers", CT_BOOL, F(allow_ptrace) },
	{ NULL, "exclude", CT_STRV, F(exclude) },
	{ NULL, "attention", CT_STRV, F(attention) },
	{ NULL, "output_limit", CT_SIZE, F(output_limit) },
	{ NULL, "timeout", CT_INT, F(timeout_s) },
	{ NULL, "grace_ms", CT_INT, F(grace_ms) },
	{ NULL, "headless_timeout", CT_INT, F(headless_timeout_s) },
	{ "limits", "memory", CT_SIZE, F(limit_memory) },
	{ "limits", "pids", CT_INT, F(limit_pids) },
	{ "limits", "cpu", CT_INT, F(limit_cpu_s) },
	{ "limits", "profiles", CT_LIMITS, 0 },
	{ "console", "allowed_uids", CT_UIDS, 0 },
	{ "console", "audit_max_bytes", CT_SIZE, F(audit_max_bytes) },
	{ "console", "audit_keep", CT_INT, F(audit_keep) },
	{ "console", "bell", CT_BOOL, F(bell) },
	{ "console", "follow_resume", CT_BOOL, F(follow_resume) },
	{ "console", "mouse", CT_BOOL, F(mouse) },
	{ "console", "warm_exec", CT_BOOL, F(warm_exec) },
	{ "console", "prestart", CT_BOOL, F(prestart) },
	{ "console", "max_services", CT_INT, F(max_services) },
};
#undef F

static const char *const config_sections[] = { "sandbox", "console",
	"limits", NULL };

void
config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
	c->output_limit = DEFAULT_OUTPUT_LIMIT;
	c->grace_ms = DEFAULT_GRACE_MS;
	c->audit_max_bytes = DEFAULT_AUDIT_MAX;
	c->audit_keep = DEFAULT_AUDIT_KEEP;
	c->bell = true;
	c->follow_resume = true;
	c->warm_exec = true;
	c->prestart = true;
	c->max_services = DEFAULT_MAX_SERVICES;
	c->limit_memory = DEFAULT_MEMORY;
	c->limit_pids = DEFAULT_PIDS;
	c->headless_timeout_s = DEFAULT_HEADLESS_TIMEOUT;
}

void
config_release(struct config *c)
{
	strv_release(&c->protected);
	strv_release(&c->env_pass);
	strv_release(&c->rw_paths);
	strv_release(&c->ro_paths);
	strv_release(&c->hide_paths);
	strv_release(&c->exclude);
	strv_release(&c->attention);
	strv_release(&c->agent_config);
	strv_release(&c->files);
	free(c->allowed_uids);
	cJSON_Delete(c->profile_limits);
	memset(c, 0, sizeof *c);
}

const char *
config_datadir(void)
{
	const char	*d = getenv("BWGATE_DATADIR");
	static int	 in_build = -1;
	static char	*beside;

	if (d != NULL && d[0] == '/')
		return d;
#if defined(BUILDDIR) && defined(SRCDATADIR)
	/* Run from the build tree (not installed): the source tree's data,
	   so `_build/bwgate check` works before `make install`. */
	if (in_build == -1) {
		char	*exe = path_real("/proc/self/exe");
		char	*dir = path_real(BUILDDIR), *slash;

		in_build = 0;
		if (exe != NULL && dir != NULL &&
		    (slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			in_build = strcmp(exe, dir) == 0;
		}
		free(exe);
		free(dir);
	}
	if (in_build == 1) {
		/* SRCDATADIR holds "..": say the directory as it is (rule
		   names carry it: "FILE:ID"). */
		static char *src;

		if (src == NULL && (src = path_real(SRCDATADIR)) == NULL)
			src = xstrdup(SRCDATADIR);
		return src;
	}
#endif
	(void)in_build;
	/* Installed with `make install prefix=DIR` (a prefix other than the
	   configured one): DIR/share/bwgate beside DIR/bin/bwgate. */
	if (beside == NULL) {
		char	*exe = path_real("/proc/self/exe"), *slash, *f;

		if (exe != NULL && (slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			f = xasprintf("%s/../share/bwgate", exe);
			if ((beside = path_real(f)) == NULL)
				beside = xstrdup(f);
			free(f);
			f = xasprintf("%s/allowlist.json", beside);
			if (access(f, R_OK) != 0 ||
			    access(PKGDATADIR "/allowlist.json", R_OK) == 0) {
				free(beside);
				beside = xstrdup(PKGDATADIR);
			}
			free(f);
		} else
			beside = xstrdup(PKGDATADIR);
		free(exe);
	}
	return beside;
}

/* $ENV/bwgate, or $HOME/FALLBACK/bwgate. */
static char *
xdg_dir(const char *env, const char *fallback)
{
	const char	*v = getenv(env), *home = getenv("HOME");

	if (v != NULL && v[0] == '/')
		return path_join(v, "bwgate");
	if (home == NULL || home[0] != '/')
		home = "/";
	return xasprintf("%s/%s/bwgate", strcmp(home, "/") == 0 ? "" : home,
	    fallback);
}

char *
config_user_dir(void)
{
	return xdg_dir("XDG_CONFIG_HOME", ".config");
}

char *
config_state_dir(void)
{
	return xdg_dir("XDG_STATE_HOME", ".local/state");
}

static const struct config_key *
config_find(const char *section, const char *key)
{
	for (size_t i = 0; i < sizeof config_keys / sizeof config_keys[0];
	    i++) {
		const struct config_key *k = &config_keys[i];

		if (((k->section == NULL && section == NULL) ||
		    (k->section != NULL && section != NULL &&
		    strcmp(k->section, section) == 0)) &&
		    strcmp(k->key, key) == 0)
			return k;
	}
	return NULL;
}

static int
config_set(struct config *c, const struct config_key *k, const cJSON *v,
    const char *file, char **cause)
{
	void		*field = (char *)c + k->offset;
	const cJSON	*e;

	switch (k->type) {
	case CT_BOOL:
		if (!cJSON_IsBool(v))
			goto bad;
		*(bool *)field = cJSON_IsTrue(v);
		return 0;
	case CT_STRV:
		if (!cJSON_IsArray(v))
			goto bad;
		cJSON_ArrayForEach(e, v)
			if (!cJSON_IsString(e))
				goto bad;
		json_get_strv(v, field);
		return 0;
	case CT_SIZE:
	case CT_INT:
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
		    v->valuedouble > 1e12)
			goto bad;
		if (k->type == CT_SIZE)
			*(size_t *)field = (size_t)v->valuedouble;
		else
			*(int *)field = (int)v->valuedouble;
		return 0;
	case CT_UIDS:
		if (!cJSON_IsArray(v))
			goto bad;
		cJSON_ArrayForEach(e, v) {
			if (!cJSON_IsNumber(e) || e->valuedouble < 0)
				goto bad;
			c->allowed_uids = xreallocarray(c->allowed_uids,
			    c->nallowed_uids + 1, sizeof *c->allowed_uids);
			c->allowed_uids[c->nallowed_uids++] =
			    (uid_t)e->valuedouble;
		}
		return 0;
	case CT_LIMITS:
		/* { "profile": { "memory": N, "pids": N, "cpu": N } } */
		if (!cJSON_IsObject(v))
			goto bad;
		cJSON_ArrayForEach(e, v) {
			const cJSON *f;

			if (!cJSON_IsObject(e))
				goto bad;
			cJSON_ArrayForEach(f, e)
				if ((strcmp(f->string, "memory") != 0 &&
				    strcmp(f->string, "pids") != 0 &&
				    strcmp(f->string, "cpu") != 0) ||
				    !cJSON_IsNumber(f) || f->valuedouble < 0 ||
				    f->valuedouble > 1e15)
					goto bad;
		}
		cJSON_Delete(c->profile_limits);
		c->profile_limits = cJSON_Duplicate(v, true);
		return 0;
	}
bad:
	*cause = xasprintf("%s: key '%s%s%s' has the wrong type", file,
	    k->section ? k->section : "", k->section ? "." : "", k->key);
	return -1;
}

int
config_load_file(struct config *c, const char *path, char **cause)
{
	cJSON		*j, *top, *item;
	int		 rc = -1;

	if ((j = json_load_file(path, cause)) == NULL)
		return -1;
	if (!cJSON_IsObject(j)) {
		*cause = xasprintf("%s: not a JSON object", path);
		goto out;
	}
	cJSON_ArrayForEach(top, j) {
		const struct config_key *k;
		bool section = false;

		if (strcmp(top->string, "comment") == 0)
			continue;
		for (const char *const *s = config_sections; *s; s++)
			if (strcmp(*s, top->string) == 0)
				section = true;
		if (!section) {
			if ((k = config_find(NULL, top->string)) == NULL) {
				*cause = xasprintf("%s: unknown key '%s'", path,
				    top->string);
				goto out;
			}
			if (config_set(c, k, top, path, cause) != 0)
				goto out;
			continue;
		}
		if (!cJSON_IsObject(top)) {
			*cause = xasprintf("%s: '%s' must be an object", path,
			    top->string);
			goto out;
		}
		cJSON_ArrayForEach(item, top) {
			k = config_find(top->string, item->string);
			if (k == NULL) {
				*cause = xasprintf("%s: unknown key '%s.%s'",
				    path, top->string, item->string);
				goto out;
			}
			if (config_set(c, k, item, path, cause) != 0)
				goto out;
		}
	}
	for (size_t i = 0; i < c->protected.n; i++) {
		if (path_has_dotdot(c->protected.v[i])) {
			*cause = xasprintf("%s: sandbox.protected: '%s' "
			    "contains '..' (give a path inside the project)",
			    path, c->protected.v[i]);
			goto out;
		}
	}
	strv_push(&c->files, path);
	rc = 0;
out:
	cJSON_Delete(j);
	return rc;
}

/* The agents' configuration (agentcfg.h): protected, and called out in
   attention. Without the table nothing runs (it protects the host). */
static int
config_agents(struct config *c, char **cause)
{
	const struct agentcfg	*t;

	if ((t = agentcfg_get(cause)) == NULL)
		return -1;
	agentcfg_strv(t, &c->agent_config);
	agentcfg_strv(t, &c->attention);
	strv_push(&c->files, t->file);
	return 0;
}

int
config_load(struct config *c, const char *explicit, char **cause)
{
	char		*shipped, *user, *dir;
	struct stat	 st;
	int		 rc = 0;

	shipped = path_join(config_datadir(), "config.json");
	if (stat(shipped, &st) == 0)
		rc = config_load_file(c, shipped, cause);
	free(shipped);
	if (rc != 0)
		return -1;
	dir = config_user_dir();
	user = path_join(dir, "config.json");
	free(dir);
	if (stat(user, &st) == 0)
		rc = config_load_file(c, user, cause);
	free(user);
	if (rc != 0)
		return -1;
	if (explicit != NULL && config_load_file(c, explicit, cause) != 0)
		return -1;
	return config_agents(c, cause);
}

void
config_limits(const struct config *c, const char *profile, size_t *memory,
    int *pids, int *cpu_s)
{
	char	*copy, *n, *last;

	*memory = c->limit_memory;
	*pids = c->limit_pids;
	*cpu_s = c->limit_cpu_s;
	if (profile == NULL || c->profile_limits == NULL)
		return;
	copy = xstrdup(profile);
	for (n = strtok_r(copy, "+", &last); n != NULL;
	    n = strtok_r(NULL, "+", &last)) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(
		    c->profile_limits, n), *f;

		if (p == NULL)
			continue;
		/* A profile raises or lowers the default; 0 lifts it. */
		if ((f = cJSON_GetObjectItemCaseSensitive(p, "memory")) != NULL)
			*memory = (size_t)f->valuedouble;
		if ((f = cJSON_GetObjectItemCaseSensitive(p, "pids")) != NULL)
			*pids = (int)f->valuedouble;
		if ((f = cJSON_GetObjectItemCaseSensitive(p, "cpu")) != NULL)
			*cpu_s = (int)f->valuedouble;
	}
	free(copy);
}

void
config_apply(const struct config *c, struct sandbox_policy *pol)
{
	strv_append_all(&pol->protected, &c->protected);
	strv_append_all(&pol->agent_config, &c->agent_config);
	strv_append_all(&pol->env_pass, &c->env_pass);
	for (size_t i = 0; i < c->rw_paths.n; i++) {
		char *p = path_expand_home(c->rw_paths.v[i]);

		strv_push_owned(&pol->rw_paths, p);
	}
	for (size_t i = 0; i < c->ro_paths.n; i++)
		strv_push_owned(&pol->ro_paths,
		    path_expand_home(c->ro_paths.v[i]));
	for (size_t i = 0; i < c->hide_paths.n; i++)
		strv_push_owned(&pol->hide_paths,
		    path_expand_home(c->hide_paths.v[i]));
	pol->network = pol->network || c->network;
	pol->allow_userns = pol->allow_userns || c->allow_userns;
	pol->allow_ptrace = pol->allow_ptrace || c->allow_ptrace;
}
