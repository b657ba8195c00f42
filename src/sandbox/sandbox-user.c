/*
 * sandbox-user: who the sandbox is to the host kernel.
 *
 * bwrap started by root without setuid maps uid 0 to uid 0, and Linux
 * grants global uid 0 things no capability governs: owner access to
 * root's files (/etc/shadow is root's, mode 0640) and sysctl writes. So:
 *
 *  - root running bwgate for a project owned by an ordinary user runs
 *    the sandbox as that user, as `sudo -u` would (uid, the user's primary
 *    gid, supplementary groups cleared): bwrap is started through
 *    setpriv(1), which shows in the argv, and files the command creates
 *    belong to the project's owner; that user must reach what bwrap binds,
 *    or bwgate refuses first (sandbox-reach.c);
 *  - otherwise (a root-owned project, or a host where only root may create
 *    user namespaces, or an owner this namespace cannot map) the kernel
 *    uid stays 0, /proc is read-only (sandbox-proc.c) and the files under
 *    the read-only system directories that are not world-readable are
 *    hidden, unless the policy names them. The list comes from a scan of
 *    /etc, /opt and /usr/local (a few thousand entries, ~15 ms) cached in
 *    the runtime directory and keyed by the directories' modification
 *    times; /usr is package-managed and not scanned.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "jsonutil.h"
#include "path.h"
#include "probe.h"
#include "rundir.h"
#include "sandbox-int.h"
#include "xalloc.h"

/* Scanned for entries root can read only because it is root. */
static const char *const secret_roots[] = {
	"/etc", "/opt", "/usr/local", NULL
};

#define SECRET_MAX_DEPTH	16

/* The kernel's overflow uid (what unmapped owners look like here). */
static long
overflow_uid(void)
{
	char	buf[32];
	int	fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
	ssize_t	n;

	if (fd < 0)
		return 65534;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 65534;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * Decide the identity; when root runs for a user's project, start the argv
 * with setpriv so bwrap (and so the sandbox) runs as that user, once that
 * user is known to reach what the sandbox binds (sandbox-reach.c). -1 with
 * *cause when it cannot.
 */
int
build_identity(struct build *b, char **cause)
{
	struct sandbox	*sb = b->sb;
	struct passwd	*pw;
	struct stat	 st;
	char		 arg[64];
	gid_t		 gid;

	sb->kernel_uid = (long)getuid();
	sb->kernel_gid = (long)getgid();
	if (getuid() != 0 || stat(b->pol->project, &st) != 0 || st.st_uid == 0)
		return 0;
	if ((long)st.st_uid == overflow_uid()) {
		strv_pushf(&sb->warnings, "the project's owner is not mapped in "
		    "this user namespace: the sandbox keeps kernel uid 0");
		return 0;
	}
	if (!b->probe->userns_unpriv) {
		strv_pushf(&sb->warnings, "only root can create user "
		    "namespaces here: the sandbox runs with kernel uid 0, not "
		    "as the project's owner (uid %lu)", (unsigned long)st.st_uid);
		return 0;
	}
	if (access(PROBE_SETPRIV, X_OK) != 0) {
		strv_pushf(&sb->warnings, "'%s' is missing: the sandbox keeps "
		    "kernel uid 0 (install util-linux)", PROBE_SETPRIV);
		return 0;
	}
	pw = getpwuid(st.st_uid);
	gid = pw != NULL ? pw->pw_gid : st.st_gid;
	if (build_reach(b, st.st_uid, gid, cause) != 0)
		return -1;
	build_arg(b, PROBE_SETPRIV);
	snprintf(arg, sizeof arg, "--reuid=%lu", (unsigned long)st.st_uid);
	build_arg(b, arg);
	snprintf(arg, sizeof arg, "--regid=%lu", (unsigned long)gid);
	build_arg(b, arg);
	build_arg(b, "--clear-groups");
	/* The credential change clears the runner's parent-death signal. */
	build_arg(b, "--pdeathsig=KILL");
	build_arg(b, "--");
	sb->kernel_uid = (long)st.st_uid;
	sb->kernel_gid = (long)gid;
	sb->run_as = pw != NULL ? xstrdup(pw->pw_name) :
	    xasprintf("%lu", (unsigned long)st.st_uid);
	if (pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/' &&
	    strcmp(pw->pw_dir, "/") != 0)
		b->home = sb->run_home = xstrdup(pw->pw_dir); /* hidden too */
	return 0;
}

/* Walk dirfd (path) and collect entries not readable by everyone. */
static void
secret_walk(int dirfd, const char *path, int depth, struct strv *out)
{
	DIR		*d;
	struct dirent	*de;

	if (depth > SECRET_MAX_DEPTH || (d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat	 st;
		_cleanup_free_ char *p = NULL;
		int		 fd;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		p = path_join(path, de->d_name);
		if (S_ISDIR(st.st_mode)) {
			if ((st.st_mode & (S_IROTH | S_IXOTH)) !=
			    (S_IROTH | S_IXOTH)) {
				strv_push(out, p);
				continue;
			}
			fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0)
				secret_walk(fd, p, depth + 1, out);
		} else if (S_ISREG(st.st_mode) && !(st.st_mode & S_IROTH) &&
		    st.st_size > 0)	/* an empty file tells nothing */
			strv_push(out, p);
	}
	closedir(d);
}

/* A key for the cache: the roots' and their subdirectories' mtimes. */
static uint32_t
secret_key(void)
{
	uint32_t	h = 2166136261u;

	for (const char *const *r = secret_roots; *r != NULL; r++) {
		DIR		*d = opendir(*r);
		struct dirent	*de;
		struct stat	 st;

		if (d == NULL)
			continue;
		if (fstat(dirfd(d), &st) == 0)
			h = (h ^ (uint32_t)st.st_mtim.tv_nsec ^
			    (uint32_t)st.st_mtime) * 16777619u;
		while ((de = readdir(d)) != NULL) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0)
				h = (h ^ (uint32_t)st.st_mtim.tv_nsec ^
				    (uint32_t)st.st_mtime) * 16777619u;
		}
		closedir(d);
	}
	return h;
}

/* The non-world-readable system files, from the cache or a scan. */
static void
secret_list(struct strv *out)
{
	_cleanup_free_ char	*dir = NULL, *cache = NULL, *cause = NULL;
	struct buf		 data = BUF_INIT;
	struct stat		 st;
	int			 fd;

	if ((dir = rundir_get(true, &cause)) != NULL)
		cache = xasprintf("%s/secrets2-%08x.txt", dir, secret_key());
	if (cache != NULL && (fd = open(cache, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) >= 0) {
		if (fstat(fd, &st) == 0 && st.st_uid == getuid() &&
		    buf_read_fd(&data, fd, 1 << 20) == 0) {
			buf_add(&data, "", 1);
			for (char *s = data.data, *nl; *s != '\0'; s = nl + 1) {
				if ((nl = strchr(s, '\n')) == NULL)
					break;
				*nl = '\0';
				if (s[0] == '/')
					strv_push(out, s);
			}
			close(fd);
			buf_release(&data);
			return;
		}
		close(fd);
	}
	for (const char *const *r = secret_roots; *r != NULL; r++) {
		fd = open(*r, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			secret_walk(fd, *r, 0, out);
	}
	if (cache == NULL)
		return;
	for (size_t i = 0; i < out->n; i++)
		buf_printf(&data, "%s\n", out->v[i]);
	_cleanup_free_ char *tmp = xasprintf("%s.%d", cache, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, data.data, data.len) == (ssize_t)data.len)
			rename(tmp, cache);
		close(fd);
		unlink(tmp);
	}
	buf_release(&data);
}

/* Does the policy name this path (or something inside it)? */
static bool
secret_named(const struct sandbox_policy *pol, const char *path)
{
	const struct strv	*lists[] = { &pol->ro_paths, &pol->rw_paths };

	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++)
			if (path_is_under(lists[l]->v[i], path))
				return true;
	return false;
}

static void *
secret_list_aside(void *arg)
{
	struct build	*b = arg;

	secret_list(&b->secrets);
	return NULL;
}

/* With kernel uid 0 the secret files are needed: find them (a hundred
   stats or so for the cache's key) while the rest is built. */
void
build_secrets_start(struct build *b)
{
	if (b->sb->kernel_uid == 0)
		aside_start(&b->secrets_aside, secret_list_aside, b);
}

/* With kernel uid 0: hide what only root can read in the system dirs
   (the list is released after). */
void
build_secrets(struct build *b)
{
	struct stat	st;

	if (b->sb->kernel_uid != 0)
		return;
	aside_join(&b->secrets_aside);
	for (size_t i = 0; i < b->secrets.n; i++) {
		const char *p = b->secrets.v[i];

		if (secret_named(b->pol, p) || lstat(p, &st) != 0 ||
		    S_ISLNK(st.st_mode))
			continue;
		build_mask(b, p, S_ISDIR(st.st_mode), MOUNT_HIDDEN,
		    "readable only by root: hidden");
		b->sb->secrets_hidden++;
	}
	build_secrets_end(b);
}

/* The list is no longer needed (also when the build failed before it). */
void
build_secrets_end(struct build *b)
{
	aside_join(&b->secrets_aside);
	strv_release(&b->secrets);
}

/* What the sandbox is to the host, for reports and doctor. */
void
sandbox_facts_json(const struct sandbox *sb, cJSON *j)
{
	cJSON_AddNumberToObject(j, "kernel_uid", (double)sb->kernel_uid);
	cJSON_AddNumberToObject(j, "kernel_gid", (double)sb->kernel_gid);
	if (sb->run_as != NULL)
		cJSON_AddStringToObject(j, "run_as", sb->run_as);
	cJSON_AddNumberToObject(j, "root_only_files_hidden",
	    (double)sb->secrets_hidden);
	cJSON_AddBoolToObject(j, "proc_readonly", sb->proc_readonly);
	cJSON_AddItemToObject(j, "proc_masked", json_strv(&sb->proc_masked));
	cJSON_AddNumberToObject(j, "git_nested", (double)sb->git_nested);
	cJSON_AddBoolToObject(j, "project_pids", sb->pod_pid);
}
