/*
 * sandbox: build the exact bwrap argv for a policy.
 *
 * The layout, in bwrap order (later mounts cover earlier ones):
 *
 *	namespaces, session, capabilities	--unshare-all --new-session ...
 *	environment				--clearenv --setenv ...
 *	system, read-only			/usr /etc ... (usr-merge symlinks kept)
 *	fresh /dev and /proc			(or a bind of /proc when nested)
 *	private tmpfs				/tmp /var/tmp /run, and $HOME
 *	extra read-only / writable paths	--ro-bind-fd / --bind-fd
 *	the project				--bind-fd (or --ro-bind-fd)
 *	protected paths inside it		--ro-bind-fd (those that exist)
 *	hidden paths				--tmpfs / --ro-bind /dev/null
 *	seccomp, status, helper			--seccomp --json-status-fd ...
 *
 * Host paths the command could influence (the project and everything named
 * by the operator) are opened with O_PATH|O_NOFOLLOW and mounted by
 * descriptor, so a symlink swapped in between the check and the mount
 * cannot redirect it. System directories are root-owned and bound by path.
 *
 * A protected path that does not exist gets nothing: the observer refuses
 * to create it at the call (observe-act.c), so the project inside looks
 * exactly as it is and nothing of bwgate's appears in the host's project.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "cleanup.h"
#include "domains.h"
#include "jsonutil.h"
#include "netbackend.h"
#include "path.h"
#include "probe.h"
#include "protect.h"
#include "sandbox.h"
#include "sandbox-int.h"
#include "seccomp-deny.h"
#include "xalloc.h"

/* System directories shown read-only (those that exist). */
static const char *const sandbox_system_ro[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", NULL
};

/* Private, empty, writable directories. */
static const char *const sandbox_private_tmpfs[] = {
	"/tmp", "/var/tmp", "/run", NULL
};

static const char *const mount_kind_names[] = {
	[MOUNT_RO] = "ro",
	[MOUNT_RW] = "rw",
	[MOUNT_PROTECTED] = "protected",
	[MOUNT_HIDDEN] = "hidden",
	[MOUNT_TMPFS] = "tmpfs",
	[MOUNT_PROC] = "proc",
	[MOUNT_DEV] = "dev",
	[MOUNT_SYMLINK] = "symlink",
};


const char *
mount_kind_name(enum mount_kind k)
{
	return mount_kind_names[k];
}

void
sandbox_policy_init(struct sandbox_policy *pol)
{
	memset(pol, 0, sizeof *pol);
	pol->profile = xstrdup("project");
	pol->seccomp = true;
	pol->helper_fd = -1;
}

void
sandbox_policy_copy(struct sandbox_policy *dst, const struct sandbox_policy *src)
{
	sandbox_policy_init(dst);
	free(dst->profile);
	dst->project = src->project ? xstrdup(src->project) : NULL;
	dst->cwd = src->cwd ? xstrdup(src->cwd) : NULL;
	dst->profile = src->profile ? xstrdup(src->profile) : NULL;
	dst->project_readonly = src->project_readonly;
	dst->git_writable = src->git_writable;
	dst->agent_config_writable = src->agent_config_writable;
	dst->network = src->network;
	strv_append_all(&dst->domains, &src->domains);
	dst->allow_userns = src->allow_userns;
	dst->allow_ptrace = src->allow_ptrace;
	dst->seccomp = src->seccomp;
	strv_append_all(&dst->rw_paths, &src->rw_paths);
	strv_append_all(&dst->ro_paths, &src->ro_paths);
	strv_append_all(&dst->hide_paths, &src->hide_paths);
	strv_append_all(&dst->protected, &src->protected);
	strv_append_all(&dst->agent_config, &src->agent_config);
	strv_append_all(&dst->git_hooks, &src->git_hooks);
	strv_append_all(&dst->env_pass, &src->env_pass);
	strv_append_all(&dst->env_set, &src->env_set);
	dst->env_agent = src->env_agent;
	strv_append_all(&dst->env_in, &src->env_in);
	dst->helper = src->helper ? xstrdup(src->helper) : NULL;
	dst->helper_fd = src->helper_fd;
	dst->helper_argv_later = src->helper_argv_later;
}

void
sandbox_policy_release(struct sandbox_policy *pol)
{
	free(pol->project);
	free(pol->cwd);
	free(pol->profile);
	free(pol->helper);
	strv_release(&pol->rw_paths);
	strv_release(&pol->domains);
	strv_release(&pol->ro_paths);
	strv_release(&pol->hide_paths);
	strv_release(&pol->protected);
	strv_release(&pol->agent_config);
	strv_release(&pol->git_hooks);
	strv_release(&pol->env_pass);
	strv_release(&pol->env_set);
	strv_release(&pol->env_in);
	memset(pol, 0, sizeof *pol);
	pol->helper_fd = -1;
}

int
sandbox_policy_set_dirs(struct sandbox_policy *pol, const char *project,
    const char *cwd, char **cause)
{
	_cleanup_free_ char	*here = getcwd(NULL, 0);
	char			*p, *c;
	struct stat		 st;

	if (here == NULL) {
		*cause = xasprintf("cannot get the current directory: %s",
		    strerror(errno));
		return -1;
	}
	if (project == NULL)	/* the console's rule (path.h) */
		p = path_project_of(here, cause);
	else
		p = path_canonical(project, cause);
	if (p == NULL)
		return -1;
	if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("project '%s' is not a directory", p);
		free(p);
		return -1;
	}
	if (strcmp(p, "/") == 0) {
		*cause = xstrdup("the project cannot be '/'");
		free(p);
		return -1;
	}
	c = path_canonical(cwd != NULL ? cwd : here, cause);
	if (c == NULL) {
		free(p);
		return -1;
	}
	if (stat(c, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*cause = xasprintf("working directory '%s' is not a directory",
		    c);
		free(p);
		free(c);
		return -1;
	}
	if (!path_is_under(c, p)) {
		if (cwd != NULL) {
			*cause = xasprintf("working directory '%s' is outside "
			    "the project '%s'", c, p);
			free(p);
			free(c);
			return -1;
		}
		/* Started outside the named project: run at its root. */
		free(c);
		c = xstrdup(p);
	}
	/* What the repository's config makes git run: read once here,
	   where every policy is built, and carried to the exec. */
	strv_release(&pol->git_hooks);
	if (protect_git_read(p, &pol->git_hooks, cause) != 0) {
		free(p);
		free(c);
		return -1;
	}
	free(pol->project);
	free(pol->cwd);
	pol->project = p;
	pol->cwd = c;
	return 0;
}

#define add	build_arg
#define add2	build_arg2
#define add3	build_arg3

/* Append one argument to the argv. */
void
build_arg(struct build *b, const char *arg)
{
	strv_push(&b->sb->argv, arg);
}

/* Append an option and its argument. */
void
build_arg2(struct build *b, const char *opt, const char *arg)
{
	add(b, opt);
	add(b, arg);
}

/* Append an option and its two arguments. */
void
build_arg3(struct build *b, const char *opt, const char *a1, const char *a2)
{
	add(b, opt);
	add(b, a1);
	add(b, a2);
}

/* Cover path with an empty read-only directory or /dev/null. */
void
build_mask(struct build *b, const char *path, bool dir, enum mount_kind kind,
    const char *why)
{
	if (dir) {
		add2(b, "--tmpfs", path);
		add2(b, "--remount-ro", path);
	} else
		add3(b, "--ro-bind", "/dev/null", path);
	build_mount(b, kind, path, why);
}

/* Record a mount for the table people read (and violations resolve). */
void
build_mount(struct build *b, enum mount_kind kind, const char *path,
    const char *why)
{
	struct sandbox	*sb = b->sb;

	sb->mounts = xreallocarray(sb->mounts, sb->nmounts + 1,
	    sizeof *sb->mounts);
	sb->mounts[sb->nmounts++] = (struct sandbox_mount){ .kind = kind,
	    .path = xstrdup(path), .why = xstrdup(why) };
}

/*
 * The identity of the last mount's source, by its descriptor. bwrap 0.8
 * turns a --bind-fd source back into a path (realpath of /proc/self/fd/N)
 * and mounts by that path later, and resolves the destination through
 * whatever is there then: a second sandbox that swaps a directory of the
 * project for a link in between redirects the mount. The identity lets
 * the observer check, before the command runs, that what is mounted at
 * each place is what was opened (sandbox_verify).
 */
void
build_mount_id(struct build *b, int fd)
{
	struct sandbox_mount	*m = &b->sb->mounts[b->sb->nmounts - 1];
	struct stat		 st;

	if (fd >= 0 && fstat(fd, &st) == 0) {
		m->has_id = true;
		m->dev = st.st_dev;
		m->ino = st.st_ino;
	}
}

/* Reserve the next descriptor number for fd (-1 in dry runs). */
int
build_fd(struct build *b, int fd)
{
	return sandbox_add_fd(b->sb, fd);
}

int
sandbox_add_fd(struct sandbox *sb, int fd)
{
	sb->fds = xreallocarray(sb->fds, sb->nfds + 1, sizeof *sb->fds);
	sb->fds[sb->nfds] = fd;
	return SANDBOX_FD_BASE + (int)sb->nfds++;
}

/* Mount a host path by descriptor: --ro-bind-fd / --bind-fd N path. */
int
build_bind_fd(struct build *b, const char *path, bool writable,
    enum mount_kind kind, const char *why, char **cause)
{
	int		 fd = -1, n;
	char		 num[16];

	if (!b->dry) {
		struct stat st;

		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			*cause = xasprintf("cannot open '%s': %s", path,
			    strerror(errno));
			return -1;
		}
		if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
			close(fd);
			*cause = xasprintf("'%s' is a symbolic link: name "
			    "its target instead", path);
			return -1;
		}
	}
	n = build_fd(b, fd);
	snprintf(num, sizeof num, "%d", n);
	add3(b, writable ? "--bind-fd" : "--ro-bind-fd", num, path);
	build_mount(b, kind, path, why);
	build_mount_id(b, fd);
	return 0;
}

/* Mount a project path (rel) by a descriptor opened through the door. */
int
build_bind_rel(struct build *b, const char *rel, bool writable,
    enum mount_kind kind, const char *why, char **cause)
{
	_cleanup_free_ char	*abs = strcmp(rel, ".") == 0 ?
				    xstrdup(b->pol->project) :
				    path_join(b->pol->project, rel);
	int			 fd = -1, n;
	char			 num[16];
	struct stat		 st;

	if (!b->dry) {
		fd = beneath_open(b->root, rel, O_PATH | O_NOFOLLOW, 0, cause);
		if (fd < 0) {
			free(*cause);
			*cause = errno == ELOOP || errno == EXDEV ?
			    xasprintf("'%s' is or goes through a symbolic "
			    "link: refusing to mount it", abs) :
			    xasprintf("cannot open '%s': %s", abs,
			    strerror(errno));
			return -1;
		}
		if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
			close(fd);
			*cause = xasprintf("protected path '%s' is a symbolic "
			    "link: refusing to run with it", abs);
			return -1;
		}
	}
	n = build_fd(b, fd);
	snprintf(num, sizeof num, "%d", n);
	add3(b, writable ? "--bind-fd" : "--ro-bind-fd", num, abs);
	build_mount(b, kind, abs, why);
	build_mount_id(b, fd);
	return 0;
}

static void
build_namespaces(struct build *b)
{
	const struct sandbox_policy	*pol = b->pol;

	/* The project's processes: the pod's pid namespace. */
	if (b->sb->pod_pid)
		build_pod_pid_namespaces(b);
	else {
		/* Network on still means a namespace of its own: the engine
		   attaches user-mode networking to it (netbackend.h), never
		   the host's. */
		add(b, "--unshare-all");
		/* The project's own loopback: the pod's namespace, entered
		   before bwrap starts (runner.h). */
		if (b->sb->pod_net)
			add(b, "--share-net");
		add(b, "--unshare-user");
	}
	add(b, "--die-with-parent");
	add(b, "--new-session");
	/* In the pod's U2 no user namespace can be made (pod-main.c). */
	if (!pol->allow_userns && !b->sb->pod_pid) {
		if (b->probe->disable_userns)
			add(b, "--disable-userns");
		else
			strv_push(&b->sb->warnings, "--disable-userns does not "
			    "work here: nested user namespaces are refused by "
			    "the seccomp filter only");
	}
	add2(b, "--cap-drop", "ALL");
}

/* Network on needs the user-mode stack; a dry run only warns. */
static int
build_network(struct build *b, char **cause)
{
	_cleanup_free_ char *path = netbackend_find();

	if (path != NULL)
		return 0;
	if (!b->dry) {
		*cause = xstrdup(netbackend_missing());
		return -1;
	}
	strv_pushf(&b->sb->warnings, "%s: the command will be refused",
	    netbackend_missing());
	return 0;
}

static void
build_system(struct build *b)
{
	for (const char *const *p = sandbox_system_ro; *p != NULL; p++) {
		struct stat	st;
		char		target[PATH_MAX];
		ssize_t		n;

		if (lstat(*p, &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(*p, target, sizeof target - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			add3(b, "--symlink", target, *p);
			build_mount(b, MOUNT_SYMLINK, *p, "usr-merge symlink");
		} else if (S_ISDIR(st.st_mode)) {
			add3(b, "--ro-bind", *p, *p);
			build_mount(b, MOUNT_RO, *p, "system, read-only");
		}
	}
}

/* /etc/resolv.conf pointing into /run must stay reachable with network on. */
static void
build_resolv(struct build *b)
{
	char	*real = path_real("/etc/resolv.conf");
	char	*dir, *slash;

	if (real == NULL)
		return;
	if (path_is_under(real, "/run")) {
		dir = xstrdup(real);
		slash = strrchr(dir, '/');
		*slash = '\0';
		add3(b, "--ro-bind", dir, dir);
		build_mount(b, MOUNT_RO, dir, "name resolution (network on)");
		free(dir);
	}
	free(real);
}

static void
build_private(struct build *b)
{
	const char	*home = b->home;

	add2(b, "--dev", "/dev");
	build_mount(b, MOUNT_DEV, "/dev", "fresh minimal /dev");
	build_mount(b, MOUNT_TMPFS, "/dev/shm", "private (fresh /dev)");
	build_proc(b);
	for (const char *const *p = sandbox_private_tmpfs; *p != NULL; p++) {
		if (strcmp(*p, "/tmp") == 0 && build_pod_tmp(b))
			continue;
		add2(b, "--tmpfs", *p);
		build_mount(b, MOUNT_TMPFS, *p, "private, discarded");
	}
	if (b->pol->network)
		build_resolv(b);
	if (home != NULL && home[0] == '/' && strcmp(home, "/") != 0) {
		add2(b, "--tmpfs", home);
		/* Hidden: writes there are discarded (a violation). */
		build_mount(b, MOUNT_HIDDEN, home, SANDBOX_HOME_WHY);
	}
}

/* Extra operator/policy paths; each must exist. */
static int
build_extra(struct build *b, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;
	const struct strv		*lists[] = { &pol->ro_paths,
					    &pol->rw_paths };

	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			_cleanup_free_ char *p = NULL;

			p = path_canonical(lists[l]->v[i], cause);
			if (p == NULL)
				return -1;
			if (build_bind_fd(b, p, l == 1, l == 1 ? MOUNT_RW :
			    MOUNT_RO, l == 1 ? "writable by request" :
			    "read-only by request", cause) != 0)
				return -1;
		}
	}
	return 0;
}

static int
build_hidden(struct build *b, char **cause)
{
	for (size_t i = 0; i < b->pol->hide_paths.n; i++) {
		_cleanup_free_ char *p = NULL;
		struct stat	 st;

		p = path_canonical_maybe(b->pol->hide_paths.v[i], cause);
		if (p == NULL)
			return -1;
		if (stat(p, &st) != 0)
			continue;	/* nothing to hide */
		if (S_ISDIR(st.st_mode))
			add2(b, "--tmpfs", p);
		else
			add3(b, "--ro-bind", "/dev/null", p);
		build_mount(b, MOUNT_HIDDEN, p, "hidden by request");
	}
	return 0;
}

static int
build_seccomp(struct build *b, char **cause)
{
	int	fd = -1;
	char	num[16];

	if (!b->pol->seccomp)
		return 0;
	if (!b->dry) {
		fd = seccomp_deny_fd(b->pol->allow_ptrace,
		    b->pol->allow_userns, b->pol->helper != NULL &&
		    b->pol->setid_observed, cause);
		if (fd < 0)
			return -1;
	}
	snprintf(num, sizeof num, "%d", build_fd(b, fd));
	add2(b, "--seccomp", num);
	return 0;
}

static int
build_helper(struct build *b, char **cause)
{
	int	fd = -1;
	char	num[16];

	if (b->pol->helper == NULL)
		return 0;
	if (!b->dry) {
		fd = open(b->pol->helper, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			*cause = xasprintf("cannot open helper '%s': %s",
			    b->pol->helper, strerror(errno));
			return -1;
		}
	}
	snprintf(num, sizeof num, "%d", build_fd(b, fd));
	b->sb->helper_mount_at = b->sb->argv.n;
	add3(b, "--ro-bind-fd", num, SANDBOX_HELPER_PATH);
	return 0;
}

int
sandbox_build(const struct sandbox_policy *pol, const struct probe *probe,
    int flags, struct sandbox *sb, char **cause)
{
	struct build	b = { pol, probe, sb, (flags & SANDBOX_DRY) != 0,
			    getenv("HOME"), -1, ASIDE_INIT, STRV_INIT };
	struct stat	st;
	char		num[16];
	size_t		env_pos;

	if (pol->project == NULL || pol->cwd == NULL) {
		*cause = xstrdup("no project directory");
		return -1;
	}
	/* The project, once: every later step goes through this. */
	if ((b.root = beneath_root(pol->project, &st, cause)) < 0)
		return -1;
	sb->root_fd = b.root;
	sb->root_open = true;
	if (!probe->userns_ok) {
		*cause = xstrdup(probe->error != NULL ? probe->error :
		    "no sandbox can be built on this host");
		return -1;
	}
	sb->nested = probe->nested;
	sb->network = pol->network;
	sb->proxied = sandbox_policy_proxied(pol);
	if (sb->proxied && domains_check(&pol->domains, cause) != 0) {
		sandbox_finish(sb);
		return -1;
	}
	/* First: it may start the argv with setpriv, or refuse. */
	if (build_identity(&b, cause) != 0) {
		sandbox_finish(sb);
		return -1;
	}
	build_pod(&b, &st);
	if (pol->network && build_network(&b, cause) != 0) {
		sandbox_finish(sb);
		return -1;
	}
	build_secrets_start(&b);
	sb->bwrap_at = sb->argv.n;	/* after setpriv's, when it runs as */
	add(&b, probe->bwrap);
	build_namespaces(&b);
	env_pos = sb->argv.n;
	build_system(&b);
	build_private(&b);
	if (build_extra(&b, cause) != 0 || build_sys(&b, cause) != 0 ||
	    build_project(&b, cause) != 0 ||
	    build_hidden(&b, cause) != 0)
		goto fail;
	/* Last of the mounts, so the table people read starts with the
	   layout, not a list of files in /etc. */
	build_secrets(&b);
	if (build_seccomp(&b, cause) != 0)
		goto fail;
	build_env(&b, env_pos);
	/* The engine supplies these pipes (see sandbox_fd_slot). */
	snprintf(num, sizeof num, "%d", build_fd(&b, -1));
	add2(&b, "--block-fd", num);
	snprintf(num, sizeof num, "%d", build_fd(&b, -1));
	add2(&b, "--json-status-fd", num);
	/* The helper's descriptors last: without them (the argv shown) no
	   other number changes. */
	if (build_helper(&b, cause) != 0)
		goto fail;
	add2(&b, "--chdir", pol->cwd);
	sb->opts_end = sb->argv.n;
	add(&b, "--");
	if (pol->helper != NULL && pol->helper_fd >= 0) {
		snprintf(num, sizeof num, "%d", build_fd(&b, pol->helper_fd));
		sb->helper_run_at = sb->argv.n;
		add2(&b, SANDBOX_HELPER_PATH, num);
		sb->helper_run_len = 2;
		if (!pol->helper_argv_later) {
			add(&b, "--");
			sb->helper_run_len = 3;
		}
	}
	return 0;
fail:
	build_secrets_end(&b);
	sandbox_finish(sb);
	return -1;
}

void
sandbox_shown_argv(const struct sandbox *sb, struct strv *out)
{
	for (size_t i = 0; i < sb->argv.n; i++) {
		if (sb->helper_mount_at != 0 && i == sb->helper_mount_at)
			i += 2;		/* --ro-bind-fd N HELPER */
		else if (sb->helper_run_at != 0 && i == sb->helper_run_at)
			i += sb->helper_run_len - 1;	/* HELPER N [--] */
		else
			strv_push(out, sb->argv.v[i]);
	}
}

int
sandbox_fd_slot(const struct sandbox *sb, const char *option)
{
	for (size_t i = 0; i + 1 < sb->argv.n; i++)
		if (strcmp(sb->argv.v[i], option) == 0)
			return atoi(sb->argv.v[i + 1]) - SANDBOX_FD_BASE;
	return -1;
}

int
sandbox_status_slot(const struct sandbox *sb)
{
	return sandbox_fd_slot(sb, "--json-status-fd");
}

void
sandbox_finish(struct sandbox *sb)
{
	for (size_t i = 0; i < sb->nfds; i++) {
		if (sb->fds[i] >= 0 && sb->fds[i] > 2)
			close(sb->fds[i]);
		sb->fds[i] = -1;
	}
}

void
sandbox_release(struct sandbox *sb)
{
	sandbox_finish(sb);
	strv_release(&sb->argv);
	free(sb->fds);
	for (size_t i = 0; i < sb->nmounts; i++) {
		free(sb->mounts[i].path);
		free(sb->mounts[i].why);
	}
	free(sb->mounts);
	strv_release(&sb->warnings);
	free(sb->proc_mode);
	free(sb->run_as);
	free(sb->run_home);
	strv_release(&sb->proc_masked);
	pod_leave(&sb->pod);
	if (sb->root_open)
		close(sb->root_fd);
	memset(sb, 0, sizeof *sb);
	sb->pod = (struct pod)POD_INIT;
}

cJSON *
sandbox_mounts_json(const struct sandbox *sb)
{
	cJSON	*a = cJSON_CreateArray();

	for (size_t i = 0; i < sb->nmounts; i++) {
		cJSON	*m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "path", sb->mounts[i].path);
		cJSON_AddStringToObject(m, "mode",
		    mount_kind_name(sb->mounts[i].kind));
		cJSON_AddStringToObject(m, "why", sb->mounts[i].why);
		cJSON_AddItemToArray(a, m);
	}
	return a;
}

const struct sandbox_mount *
sandbox_mount_for(const struct sandbox *sb, const char *path)
{
	const struct sandbox_mount	*best = NULL;

	/* Later mounts cover earlier ones: the last deepest match wins. */
	for (size_t i = 0; i < sb->nmounts; i++) {
		const struct sandbox_mount *m = &sb->mounts[i];

		if (!path_is_under(path, m->path))
			continue;
		if (best == NULL || strlen(m->path) >= strlen(best->path))
			best = m;
	}
	return best;
}
