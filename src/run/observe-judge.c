/*
 * observe-judge: read a stopped caller's arguments (its memory, cwd and
 * descriptors) and decide whether a call fails for a sandbox reason.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "log.h"
#include "observe-int.h"
#include "observe.h"
#include "pathwalk.h"
#include "snapshot.h"
#include "proctree.h"
#include "xalloc.h"

/* Scope-bound release of a struct observe_mem. */
void
observe_mem_release(struct observe_mem *mem)
{
	if (mem->fd >= 0)
		close(mem->fd);
	free(mem->raw);
}

/* Read len bytes at addr; the count read or -1. */
ssize_t
observe_peek(struct observe_mem *mem, void *buf, size_t len, uint64_t addr)
{
	struct iovec	local = { buf, len };
	struct iovec	remote = { (void *)(uintptr_t)addr, len };
	char		p[64];
	ssize_t		n;

	if (mem->fd < 0) {
		n = process_vm_readv(mem->pid, &local, 1, &remote, 1, 0);
		if (n >= 0 || (errno != EPERM && errno != ENOSYS))
			return n;
		snprintf(p, sizeof p, "/proc/%d/mem", (int)mem->pid);
		if ((mem->fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			return -1;
	}
	return pread(mem->fd, buf, len, (off_t)addr);
}

/* Read a NUL-terminated string from another process; NULL on failure. */
char *
observe_read_string(struct observe_mem *mem, uint64_t addr)
{
	struct buf	b = BUF_INIT;
	char		chunk[4096];
	ssize_t		n;
	size_t		want;
	char		*nul;

	if (addr == 0)
		return NULL;
	while (b.len < PATH_MAX) {
		/* Never read across a page: the next one may be unmapped. */
		want = 4096 - (size_t)(addr % 4096);
		n = observe_peek(mem, chunk, want, addr);
		if (n <= 0) {
			buf_release(&b);
			return NULL;
		}
		if ((nul = memchr(chunk, '\0', (size_t)n)) != NULL) {
			buf_add(&b, chunk, (size_t)(nul - chunk));
			if (b.data == NULL)
				buf_puts(&b, "");
			return buf_detach(&b);
		}
		buf_add(&b, chunk, (size_t)n);
		addr += (uint64_t)n;
	}
	buf_release(&b);
	return NULL;
}

/*
 * An argv, read while its exec waits: the pointers a page at a time, then
 * the first bytes of every string in one process_vm_readv, where one read
 * per pointer and one per string took a compiler's exec over a hundred
 * calls. A string not ended within its first read is read again whole.
 */
#define OBSERVE_ARG_FIRST	256

void
observe_read_strv(struct observe_mem *mem, uint64_t addr, size_t max,
    struct strv *out)
{
	uint64_t	 ptrs[EXECUTION_MAX_ARGS];
	char		 first[EXECUTION_MAX_ARGS][OBSERVE_ARG_FIRST];
	struct iovec	 local[EXECUTION_MAX_ARGS], remote[EXECUTION_MAX_ARGS];
	size_t		 n = 0, want, got, done = 0;
	ssize_t		 r = -1;
	char		*s;

	if (max > EXECUTION_MAX_ARGS)
		max = EXECUTION_MAX_ARGS;
	while (addr != 0 && n < max) {
		want = addr % 8 != 0 ? 1 : (4096 - addr % 4096) / 8;
		if (want > max - n)
			want = max - n;
		r = observe_peek(mem, ptrs + n, want * 8, addr);
		if (r < 8)
			break;
		got = (size_t)r / 8;
		for (size_t i = n; i < n + got; i++)
			if (ptrs[i] == 0) {
				got = i - n;
				addr = 0;	/* the end of the array */
				break;
			}
		n += got;
		if ((size_t)r < want * 8)
			break;
		if (addr != 0)
			addr += (uint64_t)got * 8;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = 4096 - ptrs[i] % 4096;

		local[i].iov_base = first[i];
		local[i].iov_len = len < OBSERVE_ARG_FIRST ? len :
		    OBSERVE_ARG_FIRST;
		remote[i].iov_base = (void *)(uintptr_t)ptrs[i];
		remote[i].iov_len = local[i].iov_len;
	}
	r = -1;
	if (n > 0 && mem->fd < 0)
		r = process_vm_readv(mem->pid, local, n, remote, n, 0);
	for (size_t i = 0; i < n; i++) {
		/* Whole elements only: a failed one ends the transfer. */
		bool read = r >= 0 && done + local[i].iov_len <= (size_t)r;
		char *nul = read ? memchr(first[i], '\0', local[i].iov_len) :
		    NULL;

		done += local[i].iov_len;
		if (nul != NULL)
			s = xstrdup(first[i]);
		else
			s = observe_read_string(mem, ptrs[i]);
		strv_push_owned(out, s != NULL ? s : xstrdup("?"));
	}
}

/* The path a descriptor or the cwd of pid refers to, if it is a path;
   NULL with errno 0 when it is none (a pipe, a socket), with errno set
   when it cannot be read. *deleted (when not NULL): the file's name is
   gone (it is still reachable through the descriptor). */
char *
observe_base(pid_t pid, int dirfd, bool *deleted)
{
	char	link[64], target[PATH_MAX];
	ssize_t	n;

	if (deleted != NULL)
		*deleted = false;
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
	n = readlink(link, target, sizeof target - 1);
	if (n <= 0) {
		if (n == 0 || errno == 0)
			errno = EIO;
		return NULL;
	}
	target[n] = '\0';
	if (target[0] != '/') {
		errno = 0;
		return NULL;	/* pipe:[...], anon_inode:... */
	}
	if (n > 10 && strcmp(target + n - 10, " (deleted)") == 0) {
		target[n - 10] = '\0';
		if (deleted != NULL)
			*deleted = true;
	}
	return xstrdup(target);
}

/* Does a call of this kind fail on a read-only (or protected) place? */
static bool
observe_fails_ro(enum observe_kind kind, const struct observe_target *t)
{
	switch (kind) {
	case OBSERVE_CREATE:
		return t->exists ? t->writes : t->parent_exists;
	case OBSERVE_CREATE_EXCL:
		return !t->exists && t->parent_exists;
	case OBSERVE_WRITE:
		return t->exists;
	case OBSERVE_DELETE:
		return t->parent_exists;
	}
	return false;
}

/*
 * On a place the sandbox does not show (hidden, or under no mount at all),
 * a write fails or lands in a throw-away tmpfs: every attempt counts
 * (but O_CREAT of a file there that it does not write, and mkdir of what
 * the sandbox has). Only the sandbox's own view decides: whether the host
 * has something there is never looked at, so a refusal tells a command
 * nothing about the host's files.
 */
static bool
observe_fails_hidden(enum observe_kind kind, const struct observe_target *t)
{
	switch (kind) {
	case OBSERVE_CREATE:
		return !t->exists || t->writes;
	case OBSERVE_CREATE_EXCL:
		return !t->exists;
	case OBSERVE_WRITE:
	case OBSERVE_DELETE:
		return true;
	}
	return false;
}

/*
 * A private tmpfs (/tmp, /run, ...) is scratch space: using it is fine.
 * Reaching below it for a directory it does not have fails: that may be
 * where the host has something, and the refusal says so without looking
 * (a file it does not have directly in it is an ordinary ENOENT).
 */
static bool
observe_fails_private(enum observe_kind kind, const struct observe_target *t)
{
	(void)kind;
	return !t->parent_exists;
}

int
observe_decide(const struct sandbox_mount *m, enum observe_kind kind,
    const struct observe_target *t, enum violation_reason *reason)
{
	if (m != NULL) {
		switch (m->kind) {
		case MOUNT_RW:
		case MOUNT_DEV:
		case MOUNT_PROC:
			return 0;
		case MOUNT_TMPFS:
			*reason = VIOLATION_NOT_VISIBLE;
			return observe_fails_private(kind, t);
		case MOUNT_RO:
			*reason = VIOLATION_READ_ONLY;
			return observe_fails_ro(kind, t);
		case MOUNT_PROTECTED:
			*reason = VIOLATION_PROTECTED;
			return observe_fails_ro(kind, t);
		case MOUNT_HIDDEN:
		case MOUNT_SYMLINK:	/* the link itself, in the root tmpfs */
			break;
		}
	}
	*reason = VIOLATION_NOT_VISIBLE;
	return observe_fails_hidden(kind, t);
}

/*
 * readlink inside the sandbox root (pathwalk_readlink_cb), arg the
 * observer. /proc needs care: "self" and "thread-self" name the reader,
 * so they are read as the caller's own entry (/proc/PID of our view);
 * the magic links there (cwd, root, fd/N) then give the caller's view of
 * the file. A name under /proc that cannot be read, or a descriptor whose
 * file has no name any more, cannot be resolved soundly: obs->res_unsound
 * (the change report then widens, it never drops the call).
 */
static ssize_t
observe_readlink_root(void *arg, const char *path, char *buf, size_t len)
{
	struct observer	*obs = arg;
	const char	*rest = NULL;
	char		 host[PATH_MAX];
	ssize_t		 n;
	bool		 proc;

	while (*path == '/')
		path++;
	if (*path == '\0') {
		errno = EINVAL;
		return -1;
	}
	proc = strncmp(path, "proc/", 5) == 0;
	if (proc && strncmp(path + 5, "self", 4) == 0)
		rest = path + 9;
	else if (proc && strncmp(path + 5, "thread-self", 11) == 0)
		rest = path + 16;
	if (rest != NULL && *rest != '\0' && *rest != '/')
		rest = NULL;	/* "proc/selfish" */
	if (rest != NULL) {
		if (*rest == '\0') {
			errno = EINVAL;	/* taken as the caller's directory */
			return -1;
		}
		snprintf(host, sizeof host, "/proc/%d%s", (int)obs->cur_pid,
		    rest);
		n = readlink(host, buf, len);
	} else
		n = readlinkat(obs->rootfd, path, buf, len);
	if (!proc)
		return n;
	if (n < 0) {
		if (errno != EINVAL && errno != ENOENT && errno != ENOTDIR) {
			obs->res_unsound = true;
			strv_pushf(&obs->res_why, "a path through /%s, which "
			    "the observer could not read (%s)", path,
			    strerror(errno));
		}
		return n;
	}
	if (n == 0 || buf[0] != '/') {
		errno = EINVAL;	/* pipe:[...]: not a file of a directory */
		return -1;
	}
	if (n > 10 && memcmp(buf + n - 10, " (deleted)", 10) == 0) {
		n -= 10;
		obs->res_deleted = true;
	}
	return n;
}

/*
 * Resolve a path inside the sandbox root, as pathwalk_resolve() does,
 * ".." applied after the names before it are resolved (as the kernel
 * does: after a link it goes up from where the link leads). Most paths
 * have no symlink above their last name: one openat2 that refuses
 * symlinks (and resolves ".." as the kernel does) shows it, where the
 * walk reads each component again from the root (depth squared lookups
 * a call).
 */
char *
observe_resolve(struct observer *obs, const char *named, bool follow,
    bool *missing)
{
	struct open_how		 how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
	};
	const char		*slash = strrchr(named, '/');
	_cleanup_free_ char	*parent = NULL;
	char			 c;
	int			 fd;

	*missing = false;
	obs->res_unsound = false;
	obs->res_deleted = false;
	if (named[0] != '/' || slash == NULL || slash[1] == '\0' ||
	    strncmp(named, "/proc/", 6) == 0 || strcmp(named, "/proc") == 0)
		goto walk;
	parent = slash == named ? xstrdup("/") :
	    xstrndup(named, (size_t)(slash - named));
	fd = (int)syscall(SYS_openat2, obs->rootfd, parent, &how, sizeof how);
	if (fd < 0)
		goto walk;	/* a link above, or something missing */
	close(fd);
	if (follow && observe_readlink_root(obs, named, &c, 1) >= 0)
		goto walk;	/* the last name is a link */
	if (strcmp(slash + 1, "..") == 0)
		goto walk;
	/* No link on the way: ".." is lexical. */
	return pathwalk_normalise(NULL, named);
walk:
	return pathwalk_resolve(named, follow, observe_readlink_root, obs,
	    missing);
}

/* Widen the change report (the observer could not resolve a call). */
static void
observe_widen(struct observer *obs, const char *why)
{
	if (obs->rec != NULL)
		snapshot_paths_widen(obs->rec, why);
}

void
observe_widen_lost(struct observer *obs, const char *op, int error)
{
	char	*why;

	if (obs->rec == NULL)
		return;
	if (error == ENOENT)
		why = xasprintf("a %s call through a descriptor of a file "
		    "whose name is gone (another hard link may show it)", op);
	else
		why = xasprintf("a %s call whose path the observer could not "
		    "read (%s)", op, strerror(error));
	observe_widen(obs, why);
	free(why);
}

/* Does path exist inside the sandbox root? */
static bool
observe_exists_in(int rootfd, const char *path)
{
	struct stat	st;

	while (*path == '/')
		path++;
	if (*path == '\0')
		return true;
	return fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * Record one refusal. One entry per path and reason: the calls of one
 * attempt (touch: open, then utimensat) count as repeats of the first
 * operation seen. The number of distinct entries is bounded.
 */
void
observe_add(struct violations *vs, const char *path, const char *op,
    enum violation_reason reason, bool exact)
{
	size_t	i;

	for (i = 0; i < vs->n; i++) {
		if (vs->v[i].reason == reason &&
		    strcmp(vs->v[i].path, path) == 0) {
			op = vs->v[i].operation;
			break;
		}
	}
	if (i == vs->n && vs->n >= OBSERVE_MAX_VIOLATIONS)
		return;
	violations_add(vs, path, op, reason, exact);
}

/* The project-relative form of a resolved path, if it is one whose changes
   are recorded (under the project, on a writable mount). */
static const char *
observe_rec_rel(struct observer *obs, const struct sandbox *sb,
    const char *res)
{
	const struct sandbox_mount	*m = sandbox_mount_for(sb, res);

	if (obs->rec == NULL || m == NULL || m->kind != MOUNT_RW ||
	    strncmp(res, obs->rec_root, obs->rec_len) != 0 ||
	    (res[obs->rec_len] != '/' && res[obs->rec_len] != '\0'))
		return NULL;
	return res + obs->rec_len;
}

/* After observe_resolve(): widen when it could not resolve soundly (a
   /proc name it could not read; a descriptor of a file whose name is
   gone, in the project: another hard link may show the change). */
static void
observe_widen_unsound(struct observer *obs, const struct sandbox *sb,
    const char *res)
{
	char	*why;

	if (obs->rec == NULL)
		return;
	if (obs->res_unsound && obs->res_why.n > 0)
		observe_widen(obs, obs->res_why.v[obs->res_why.n - 1]);
	strv_release(&obs->res_why);
	if (obs->res_deleted && observe_rec_rel(obs, sb, res) != NULL) {
		why = xasprintf("a change through a descriptor of a file "
		    "removed from the project (%s)", res);
		observe_widen(obs, why);
		free(why);
	}
	obs->res_unsound = obs->res_deleted = false;
}

/* Is the resolved path a symbolic link in the sandbox (not followed)? */
static bool
observe_is_link(struct observer *obs, const char *res)
{
	struct stat	st;
	const char	*p = res;

	while (*p == '/')
		p++;
	return *p != '\0' && fstatat(obs->rootfd, p, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/*
 * A symbolic link made, removed or replaced changes where a path through
 * that name leads, into the project too wherever the link is (/tmp/l ->
 * the project): when another task's call may be in flight meanwhile
 * (observe-flight.c), the report widens (the scan is taken now, before
 * the change is made).
 */
static void
observe_widen_link_change(struct observer *obs, const struct sandbox *sb,
    const char *res, const char *what)
{
	const char	*rel;
	char		*why;

	if (obs->rec == NULL || !observe_flight_link(obs, obs->cur_pid))
		return;
	if ((rel = observe_rec_rel(obs, sb, res)) != NULL)
		while (*rel == '/')
			rel++;
	why = xasprintf("a symbolic link %s (%s) while another task's call "
	    "may be in flight", what, rel != NULL ? rel : res);
	observe_widen(obs, why);
	free(why);
}

void
observe_record_rename(struct observer *obs, const struct sandbox *sb,
    const char *from, const char *to)
{
	_cleanup_free_ char	*r1 = NULL, *r2 = NULL;
	const char		*rel1, *rel2;
	bool			 missing;

	if (obs->rec == NULL)
		return;
	r1 = observe_resolve(obs, from, false, &missing);
	observe_widen_unsound(obs, sb, r1);
	r2 = observe_resolve(obs, to, false, &missing);
	observe_widen_unsound(obs, sb, r2);
	if (observe_is_link(obs, r1))
		observe_widen_link_change(obs, sb, r1, "renamed");
	if (observe_is_link(obs, r2))
		observe_widen_link_change(obs, sb, r2, "replaced");
	rel1 = observe_rec_rel(obs, sb, r1);
	rel2 = observe_rec_rel(obs, sb, r2);
	if (rel1 == NULL || rel2 == NULL)
		return;		/* across mounts: EXDEV, then a copy */
	/* Both ways: RENAME_EXCHANGE swaps two trees. */
	snapshot_paths_add_tree(obs->rec, rel1, rel2);
	snapshot_paths_add_tree(obs->rec, rel2, rel1);
}

void
observe_record_content(struct observer *obs, const struct sandbox *sb,
    pid_t pid, int fd, const char *named, bool unnamed)
{
	_cleanup_free_ char	*res = NULL;
	const char		*rel;
	struct stat		 st, rst;
	char			 link[64];
	bool			 missing;

	if (obs->rec == NULL)
		return;
	if (unnamed || named == NULL) {
		/* Its name is gone: any file kept may be it, unless it is
		   on another file system than the project's (a memfd). */
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
		if (fd >= 0 && stat(link, &st) == 0 &&
		    fstat(snapshot_paths_rootfd(obs->rec), &rst) == 0 &&
		    st.st_dev != rst.st_dev)
			return;
		snapshot_paths_content(obs->rec, NULL);
		return;
	}
	res = observe_resolve(obs, named, false, &missing);
	if ((rel = observe_rec_rel(obs, sb, res)) != NULL)
		snapshot_paths_content(obs->rec, rel);
}

/* Judge one path of one call; record a violation if refused. */
bool
observe_judge_path(struct observer *obs, const struct sandbox *sb,
    const char *named, enum observe_kind kind, bool follow, bool writes,
    const char *op, struct violations *vs)
{
	struct observe_target		 t;
	const struct sandbox_mount	*m;
	enum violation_reason		 reason;
	_cleanup_free_ char		*res = NULL, *parent = NULL;
	bool				 missing;
	char				*slash;
	const char			*rel;

	memset(&t, 0, sizeof t);
	t.writes = writes;
	res = observe_resolve(obs, named, follow, &missing);
	observe_widen_unsound(obs, sb, res);
	m = sandbox_mount_for(sb, res);
	/* The change report: paths in the project on a writable mount. */
	if (obs->rec != NULL && strcmp(op, "symlink") == 0)
		observe_widen_link_change(obs, sb, res, "made");
	else if (obs->rec != NULL && strcmp(op, "delete") == 0 &&
	    observe_is_link(obs, res))
		observe_widen_link_change(obs, sb, res, "removed");
	if ((rel = observe_rec_rel(obs, sb, res)) != NULL) {
		if (obs->rec_append)
			snapshot_paths_add_append(obs->rec, rel);
		else
			snapshot_paths_add(obs->rec, rel);
	}
	if (m != NULL && (m->kind == MOUNT_RW || m->kind == MOUNT_DEV ||
	    m->kind == MOUNT_PROC))
		return false;	/* writable: nothing more to look at */
	parent = xstrdup(res);
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	t.parent_exists = !missing && observe_exists_in(obs->rootfd, parent);
	t.exists = t.parent_exists && observe_exists_in(obs->rootfd, res);
	if (!observe_decide(m, kind, &t, &reason))
		return false;
	/* It worked inside, in a place the sandbox keeps to itself (the
	   empty $HOME): not refused, but thrown away at the end. */
	if (reason == VIOLATION_NOT_VISIBLE && m != NULL &&
	    (m->kind == MOUNT_TMPFS || (m->kind == MOUNT_HIDDEN &&
	    m->why != NULL && strcmp(m->why, SANDBOX_HOME_WHY) == 0)) &&
	    (kind == OBSERVE_CREATE ?
	    t.parent_exists : kind == OBSERVE_CREATE_EXCL ?
	    t.parent_exists && !t.exists : t.exists))
		reason = VIOLATION_DISCARDED;
	if (kind == OBSERVE_CREATE && t.exists)
		op = "write";
	LOG("%s %s (%s): %s", op, named, res, violation_reason_name(reason));
	observe_add(vs, named, op, reason, true);
	return true;
}

/*
 * A hard link from another mount fails (EXDEV) where the host may have
 * allowed it: the sandbox refused to let the old file be reached.
 */
void
observe_judge_link(struct observer *obs, const struct sandbox *sb,
    const char *old, const char *new, bool follow, struct violations *vs)
{
	const struct sandbox_mount	*mo, *mn;
	enum violation_reason		 reason;
	_cleanup_free_ char		*res = NULL;
	const char			*rel;
	bool				 missing;

	res = observe_resolve(obs, old, follow, &missing);
	observe_widen_unsound(obs, sb, res);
	/* Its link count and change time are about to change. */
	if ((rel = observe_rec_rel(obs, sb, res)) != NULL)
		snapshot_paths_add(obs->rec, rel);
	/* A hard link to a symbolic link is a new link (to the new name). */
	if (obs->rec != NULL && !follow && observe_is_link(obs, res))
		observe_widen_link_change(obs, sb, res, "linked");
	mo = sandbox_mount_for(sb, res);
	mn = sandbox_mount_for(sb, new);
	if (mo == mn || missing || !observe_exists_in(obs->rootfd, res))
		return;
	if (mo == NULL)
		reason = VIOLATION_NOT_VISIBLE;
	else {
		switch (mo->kind) {
		case MOUNT_RO:
		case MOUNT_SYMLINK:
			reason = VIOLATION_READ_ONLY;
			break;
		case MOUNT_PROTECTED:
			reason = VIOLATION_PROTECTED;
			break;
		case MOUNT_HIDDEN:
		case MOUNT_TMPFS:
			reason = VIOLATION_NOT_VISIBLE;
			break;
		default:
			return;	/* two writable mounts: not ours to judge */
		}
	}
	LOG("link %s -> %s: %s", old, new, violation_reason_name(reason));
	observe_add(vs, old, "link", reason, true);
}

/* Is something in pid's network namespace bound to this port? Its
   socket's inode in *inode. */
static bool
observe_port_bound(pid_t pid, unsigned port, unsigned long *inode)
{
	static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6" };
	char	 p[64], line[512];
	FILE	*f;
	unsigned lport, state;
	unsigned long ino;
	bool	 found = false;

	for (size_t i = 0; !found && i < 4; i++) {
		snprintf(p, sizeof p, "/proc/%d/net/%s", (int)pid, tables[i]);
		if ((f = fopen(p, "re")) == NULL)
			continue;
		while (!found && fgets(line, sizeof line, f) != NULL) {
			if (!proc_net_listener(line, &lport, &state, &ino))
				continue;
			if (lport == port && (i >= 2 || state == 0x0a)) {
				found = true;
				*inode = ino;
			}
		}
		fclose(f);
	}
	return found;
}

int
observe_sockaddr(const struct sockaddr *sa, socklen_t len, char **what,
    bool *loopback, unsigned *port)
{
	char	addr[INET6_ADDRSTRLEN];

	if (len >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, addr, sizeof addr);
		*port = ntohs(in->sin_port);
		/* 0.0.0.0 reaches this host too (a server's own probe). */
		*loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127 ||
		    in->sin_addr.s_addr == htonl(INADDR_ANY);
		*what = xasprintf("%s:%u", addr, *port);
		return 1;
	}
	if (len >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		const uint8_t		  *b = in6->sin6_addr.s6_addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof addr);
		*port = ntohs(in6->sin6_port);
		*loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		    IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) ||
		    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && (b[12] == 127 ||
		    (b[12] | b[13] | b[14] | b[15]) == 0));
		*what = xasprintf("[%s]:%u", addr, *port);
		return 1;
	}
	return 0;
}

/* The unspecified address (0.0.0.0, ::)? A connection to it stays in
   the sandbox's own loopback: a server's probe whether its port is free
   before it binds, never a reach for the network. */
static bool
observe_unspecified(const struct sockaddr_storage *ss, socklen_t len)
{
	if (len >= sizeof(struct sockaddr_in) && ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)ss)->
		    sin_addr.s_addr == htonl(INADDR_ANY);
	if (len >= sizeof(struct sockaddr_in6) && ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)
		    (const void *)ss)->sin6_addr);
	return false;
}

/* A network call while the network is off: judge its address. */
void
observe_judge_net(struct observer *obs, struct observe_mem *mem, uint64_t addr,
    uint64_t len, const char *op, struct violations *vs)
{
	struct sockaddr_storage	 ss;
	_cleanup_free_ char	*what = NULL;
	bool			 loopback;
	unsigned		 port;
	unsigned long		 inode = 0;

	if (obs->network || addr == 0 || len < sizeof(sa_family_t))
		return;
	if (len > sizeof ss)
		len = sizeof ss;
	memset(&ss, 0, sizeof ss);
	if (observe_peek(mem, &ss, (size_t)len, addr) != (ssize_t)len)
		return;
	if (!observe_sockaddr((struct sockaddr *)&ss, (socklen_t)len, &what,
	    &loopback, &port))
		return;
	if (observe_unspecified(&ss, (socklen_t)len))
		return;
	/* The sandbox's own loopback works: only unbound ports count, and
	   as what they are (a server not up yet, or one of the host's). */
	if (loopback && observe_port_bound(mem->pid, port, &inode)) {
		char	num[16], *who;

		/* A server of the project's (its pod's loopback): named in
		   the report, as what the command reached, with what
		   listens there (observe-listener.c). */
		snprintf(num, sizeof num, "%u", port);
		if (obs->ports_out != NULL && obs->ports_out->n < 64 &&
		    !strv_contains(obs->ports_out, num)) {
			strv_push(obs->ports_out, num);
			who = observe_listener(mem->pid, inode);
			if (obs->names_out != NULL)
				strv_push(obs->names_out, who != NULL ? who :
				    "");
			free(who);
		}
		return;
	}
	LOG("%s %s: %s", op, what, loopback ? "local port" : "network");
	observe_add(vs, what, op, loopback ? VIOLATION_LOCAL :
	    VIOLATION_NETWORK, true);
}
