/*
 * probe: learn once what bwrap can do on this host.
 *
 * On a plain host (no container, our user namespace is the initial one)
 * bwgate trusts the sysctls and runs nothing: the common case costs a few
 * reads. When it runs nested (bwrap, flatpak, a container) or the sysctls
 * are ambiguous, it runs bwrap with the sandbox's own options and narrows
 * down what fails: a fresh /proc ("Can't mount proc ... Operation not
 * permitted" inside an outer bwrap that has its own user namespace),
 * --disable-userns, or any user namespace at all. The answer is cached per
 * (bwrap, user namespace, mount namespace).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "file.h"
#include "log.h"
#include "rundir.h"
#include "jsonutil.h"
#include "path.h"
#include "probe.h"
#include "spawn.h"
#include "xalloc.h"

void
probe_init(struct probe *p)
{
	memset(p, 0, sizeof *p);
}

void
probe_release(struct probe *p)
{
	free(p->bwrap);
	free(p->bwrap_version);
	free(p->nested_in);
	free(p->error);
	free(p->fix);
	strv_release(&p->notes);
	memset(p, 0, sizeof *p);
}

void
probe_assume_ok(struct probe *p)
{
	const char	*env = getenv("BWGATE_BWRAP");

	probe_release(p);
	p->bwrap = xstrdup(env != NULL && env[0] == '/' ? env : BWRAP_PATH);
	p->bwrap_ok = p->userns_ok = p->proc_fresh = p->disable_userns = true;
	p->userns_unpriv = true;
}

/* Read a small sysctl as a number; -1 when absent. */
static long
read_sysctl(const char *path)
{
	char	buf[32];
	int	fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t	n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Are we in the initial user namespace (identity uid map)? */
static bool
initial_userns(void)
{
	char	buf[128] = "";
	int	fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	ssize_t	n;
	unsigned long a, b, c;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return sscanf(buf, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 &&
	    b == 0 && c == 4294967295UL && strchr(buf, '\n') ==
	    buf + strlen(buf) - 1;
}

/* Where are we running? NULL on a plain host. */
static const char *
detect_nesting(void)
{
	char	buf[64] = "";
	int	fd;
	ssize_t	n;

	if (access("/.flatpak-info", F_OK) == 0)
		return "flatpak";
	if (access("/run/.containerenv", F_OK) == 0)
		return "container (podman)";
	if (access("/.dockerenv", F_OK) == 0)
		return "container (docker)";
	fd = open("/proc/1/comm", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0 && strncmp(buf, "bwrap", 5) == 0)
			return "bwrap";
	}
	if (getenv("container") != NULL)
		return "container";
	if (!initial_userns())
		return "user namespace";
	return NULL;
}

/* Run bwrap with extra options around `true` (as nobody when unpriv is
   set, through setpriv); 0 when it worked. *err is always set (bwrap's
   error output, or why it could not run). */
static int
try_bwrap_as(const char *bwrap, const char *const *opts, bool unpriv,
    char **err)
{
	struct strv	 argv = STRV_INIT;
	struct buf	 out = BUF_INIT;
	char		*cause = NULL;
	int		 status;

	if (unpriv)
		strv_pushv(&argv, (const char *const[]){ PROBE_SETPRIV,
		    "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		    NULL });
	strv_push(&argv, bwrap);
	strv_pushv(&argv, (const char *const[]){ "--unshare-all",
	    "--unshare-user", "--die-with-parent", "--new-session",
	    "--ro-bind", "/", "/", "--dev", "/dev", NULL });
	strv_pushv(&argv, opts);
	strv_pushv(&argv, (const char *const[]){ "--", "/bin/true", NULL });
	status = spawn_capture(argv.v, 0, 2, &out, 4096, &cause);
	strv_release(&argv);
	if (status == -1) {
		buf_release(&out);
		*err = cause;
		return -1;
	}
	if (out.len > 0 && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	*err = out.data != NULL ? buf_detach(&out) : xstrdup("");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Run bwrap with extra options around `true`; 0 when it worked. */
static int
try_bwrap(const char *bwrap, const char *const *opts, char **err)
{
	return try_bwrap_as(bwrap, opts, false, err);
}

/* Advice for a host where no user namespace can be made. */
static void
explain_userns(struct probe *p, const char *err)
{
	long	v;

	free(p->error);
	free(p->fix);
	p->error = xasprintf("bwrap cannot create a sandbox here: %s",
	    err[0] != '\0' ? err : "unknown error");
	if ((v = read_sysctl("/proc/sys/user/max_user_namespaces")) == 0)
		p->fix = xstrdup("user namespaces are disabled: sysctl -w "
		    "user.max_user_namespaces=15000");
	else if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone")
	    == 0)
		p->fix = xstrdup("sysctl -w kernel.unprivileged_userns_clone=1");
	else if (read_sysctl(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		p->fix = xstrdup("AppArmor restricts user namespaces: sysctl "
		    "-w kernel.apparmor_restrict_unprivileged_userns=0, or "
		    "install an AppArmor profile for bwrap");
	else if (p->nested)
		p->fix = xasprintf("bwgate runs inside %s, which forbids "
		    "new namespaces: allow them in the outer sandbox "
		    "(e.g. --unshare-user or a seccomp profile permitting "
		    "clone(CLONE_NEWUSER))", p->nested_in);
	else
		p->fix = xstrdup("check that bwrap works: bwrap --ro-bind / / "
		    "true");
}

/* Run the probes: full variant first, then narrow down. */
static void
probe_run(struct probe *p)
{
	static const char *const full[] = { "--proc", "/proc",
	    "--disable-userns", NULL };
	static const char *const bindproc[] = { "--ro-bind", "/proc", "/proc",
	    "--disable-userns", NULL };
	static const char *const fresh_only[] = { "--proc", "/proc", NULL };
	static const char *const bind_only[] = { "--ro-bind", "/proc",
	    "/proc", NULL };
	char	*err = NULL;
	const char *const *worked = full;

	p->userns_ok = true;
	if (try_bwrap(p->bwrap, full, &err) == 0) {
		p->proc_fresh = p->disable_userns = true;
		goto out;
	}
	strv_pushf(&p->notes, "full sandbox failed: %s", err);
	free(err);
	if (try_bwrap(p->bwrap, bindproc, &err) == 0) {
		p->disable_userns = true;
		worked = bindproc;
		goto out;
	}
	free(err);
	if (try_bwrap(p->bwrap, fresh_only, &err) == 0) {
		p->proc_fresh = true;
		worked = fresh_only;
		goto out;
	}
	free(err);
	worked = bind_only;
	if (try_bwrap(p->bwrap, bind_only, &err) == 0)
		goto out;
	p->userns_ok = false;
	explain_userns(p, err);
out:
	free(err);
	err = NULL;
	/* Can root hand the sandbox to an ordinary user here? */
	if (p->userns_ok && getuid() == 0 && access(PROBE_SETPRIV, X_OK) == 0)
		p->userns_unpriv = try_bwrap_as(p->bwrap, worked, true,
		    &err) == 0;
	else
		p->userns_unpriv = p->userns_ok && getuid() != 0;
	free(err);
}

/* The cache file for this bwrap and these namespaces. */
static char *
probe_cache_path(const struct probe *p)
{
	struct stat	 bw, userns, mntns;
	char		*dir, *cause = NULL, *path;

	if (stat(p->bwrap, &bw) != 0 || stat("/proc/self/ns/user",
	    &userns) != 0 || stat("/proc/self/ns/mnt", &mntns) != 0)
		return NULL;
	/* The checked 0700 runtime directory the sockets use too. */
	if ((dir = rundir_get(true, &cause)) == NULL) {
		free(cause);
		return NULL;
	}
	path = xasprintf("%s/probe2-%lx-%lx-%lx-%lx.json", dir,
	    (unsigned long)bw.st_ino, (unsigned long)bw.st_mtime,
	    (unsigned long)userns.st_ino, (unsigned long)mntns.st_ino);
	free(dir);
	return path;
}

static bool
probe_cache_load(struct probe *p, const char *path)
{
	char		*cause = NULL;
	struct stat	 st;
	cJSON		*j;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid())
		return false;
	j = json_load_file(path, &cause);
	free(cause);
	if (j == NULL)
		return false;
	p->userns_ok = cJSON_IsTrue(cJSON_GetObjectItem(j, "userns_ok"));
	p->proc_fresh = cJSON_IsTrue(cJSON_GetObjectItem(j, "proc_fresh"));
	p->disable_userns = cJSON_IsTrue(cJSON_GetObjectItem(j,
	    "disable_userns"));
	p->userns_unpriv = cJSON_IsTrue(cJSON_GetObjectItem(j,
	    "userns_unpriv"));
	cJSON_Delete(j);
	return p->userns_ok;	/* never cache a failure */
}

/* Save the answer (atomically: readers never see half a file). */
static void
probe_cache_save(const struct probe *p, const char *path)
{
	cJSON	*j = cJSON_CreateObject();
	char	*s, *cause = NULL;

	cJSON_AddBoolToObject(j, "userns_ok", p->userns_ok);
	cJSON_AddBoolToObject(j, "proc_fresh", p->proc_fresh);
	cJSON_AddBoolToObject(j, "disable_userns", p->disable_userns);
	cJSON_AddBoolToObject(j, "userns_unpriv", p->userns_unpriv);
	s = json_line(j);
	if (file_write_atomic(path, s, strlen(s), 0600, &cause) != 0) {
		LOG("%s", cause);	/* only a cache: probed again */
		free(cause);
	}
	free(s);
	cJSON_Delete(j);
}

/* Can the kernel hand seccomp notifications to a supervisor? */
static bool
probe_seccomp_notify(void)
{
	unsigned int	action = SECCOMP_RET_USER_NOTIF;

	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

int
probe_host(struct probe *p, bool use_cache)
{
	const char	*env = getenv("BWGATE_BWRAP");
	const char	*nest;
	char		*cache = NULL;
	long		 v;

	probe_release(p);
	/* An override must be absolute: never a $PATH lookup. */
	p->bwrap = xstrdup(env != NULL && env[0] == '/' ? env : BWRAP_PATH);
	p->seccomp_notify = probe_seccomp_notify();
	if (access(p->bwrap, X_OK) != 0) {
		p->error = xasprintf("bwrap not found at '%s': %s", p->bwrap,
		    strerror(errno));
		p->fix = xstrdup("install bubblewrap (apt-get install "
		    "bubblewrap)");
		return 0;
	}
	p->bwrap_ok = true;
	nest = detect_nesting();
	if (nest != NULL) {
		p->nested = true;
		p->nested_in = xstrdup(nest);
	}
	v = read_sysctl("/proc/sys/user/max_user_namespaces");
	if (!p->nested && v != 0 &&
	    read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") != 0 &&
	    (getuid() == 0 || read_sysctl(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") != 1)) {
		/* A plain host: everything works without trying. */
		p->userns_ok = p->proc_fresh = p->disable_userns = true;
		p->userns_unpriv = read_sysctl("/proc/sys/kernel/"
		    "apparmor_restrict_unprivileged_userns") != 1;
		return 0;
	}
	if (use_cache && (cache = probe_cache_path(p)) != NULL &&
	    probe_cache_load(p, cache)) {
		free(cache);
		return 0;
	}
	probe_run(p);
	if (cache != NULL && p->userns_ok)
		probe_cache_save(p, cache);
	free(cache);
	return 0;
}

cJSON *
probe_json(const struct probe *p)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "bwrap", p->bwrap ? p->bwrap : "");
	if (p->bwrap_version != NULL)
		cJSON_AddStringToObject(j, "bwrap_version", p->bwrap_version);
	cJSON_AddBoolToObject(j, "bwrap_ok", p->bwrap_ok);
	cJSON_AddBoolToObject(j, "userns_ok", p->userns_ok);
	cJSON_AddBoolToObject(j, "nested", p->nested);
	if (p->nested_in != NULL)
		cJSON_AddStringToObject(j, "nested_in", p->nested_in);
	cJSON_AddStringToObject(j, "proc", p->proc_fresh ? "fresh" : "bind");
	cJSON_AddBoolToObject(j, "disable_userns", p->disable_userns);
	cJSON_AddBoolToObject(j, "userns_unpriv", p->userns_unpriv);
	cJSON_AddBoolToObject(j, "seccomp_notify", p->seccomp_notify);
	if (p->error != NULL)
		cJSON_AddStringToObject(j, "error", p->error);
	if (p->fix != NULL)
		cJSON_AddStringToObject(j, "fix", p->fix);
	cJSON_AddItemToObject(j, "notes", json_strv(&p->notes));
	return j;
}
