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
#include "xalloc.h"

/* Scope-bound release of a struct observe_mem. */
void
observe_mem_release(struct observe_mem *mem)
{
	if (mem->fd >= 0)
		close(mem->fd);
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

/* The path a descriptor or the cwd of pid refers to, if it is a path. */
char *
observe_base(pid_t pid, int dirfd)
{
	char	link[64], target[PATH_MAX];
	ssize_t	n;

	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
	n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (target[0] != '/')
		return NULL;	/* pipe:[...], anon_inode:... */
	if (n > 10 && strcmp(target + n - 10, " (deleted)") == 0)
		target[n - 10] = '\0';
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
 * a write fails or lands in a throw-away tmpfs. It counts when it would
 * have touched something on the host: the host view decides.
 */
static bool
observe_fails_hidden(enum observe_kind kind, const struct observe_target *t)
{
	switch (kind) {
	case OBSERVE_CREATE:
		if (t->exists && !t->writes)
			return false;
		return t->host_exists || t->host_parent_exists;
	case OBSERVE_CREATE_EXCL:
		return !t->exists && !t->host_exists && t->host_parent_exists;
	case OBSERVE_WRITE:
	case OBSERVE_DELETE:
		return t->host_exists || t->exists;
	}
	return false;
}

/*
 * A private tmpfs (/tmp, /run, ...) is scratch space: using it is fine.
 * Only reaching for what the host has there fails: a host directory or
 * file that the private tmpfs does not show.
 */
static bool
observe_fails_private(enum observe_kind kind, const struct observe_target *t)
{
	switch (kind) {
	case OBSERVE_CREATE:
	case OBSERVE_CREATE_EXCL:
		return !t->parent_exists && t->host_parent_exists;
	case OBSERVE_WRITE:
	case OBSERVE_DELETE:
		return !t->exists && t->host_exists;
	}
	return false;
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

/* readlink inside the sandbox root (pathwalk_readlink_cb). */
static ssize_t
observe_readlink_root(void *arg, const char *path, char *buf, size_t len)
{
	int	rootfd = *(int *)arg;

	while (*path == '/')
		path++;
	if (*path == '\0') {
		errno = EINVAL;
		return -1;
	}
	return readlinkat(rootfd, path, buf, len);
}

/*
 * Resolve a normalised path inside the sandbox root, as
 * pathwalk_resolve() does. Most paths have no symlink above their last
 * name: one openat2 that refuses symlinks shows it, where the walk reads
 * each component again from the root (depth squared lookups a call).
 */
static char *
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
	if (named[0] != '/' || slash == NULL || slash[1] == '\0')
		goto walk;
	parent = slash == named ? xstrdup("/") :
	    xstrndup(named, (size_t)(slash - named));
	fd = (int)syscall(SYS_openat2, obs->rootfd, parent, &how, sizeof how);
	if (fd < 0)
		goto walk;	/* a link above, or something missing */
	close(fd);
	if (follow && observe_readlink_root(&obs->rootfd, named, &c, 1) >= 0)
		goto walk;	/* the last name is a link */
	return xstrdup(named);
walk:
	return pathwalk_resolve(named, follow, observe_readlink_root,
	    &obs->rootfd, missing);
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

/* Does path exist on the host (our own view)? */
bool
observe_exists_host(const char *path)
{
	struct stat	st;

	return lstat(path, &st) == 0;
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
	r2 = observe_resolve(obs, to, false, &missing);
	rel1 = observe_rec_rel(obs, sb, r1);
	rel2 = observe_rec_rel(obs, sb, r2);
	if (rel1 == NULL || rel2 == NULL)
		return;		/* across mounts: EXDEV, then a copy */
	/* Both ways: RENAME_EXCHANGE swaps two trees. */
	snapshot_paths_add_tree(obs->rec, rel1, rel2);
	snapshot_paths_add_tree(obs->rec, rel2, rel1);
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
	m = sandbox_mount_for(sb, res);
	/* The change report: paths in the project on a writable mount. */
	if ((rel = observe_rec_rel(obs, sb, res)) != NULL)
		snapshot_paths_add(obs->rec, rel);
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
	if (m == NULL || m->kind == MOUNT_HIDDEN || m->kind == MOUNT_TMPFS ||
	    m->kind == MOUNT_SYMLINK) {
		t.host_exists = observe_exists_host(res);
		t.host_parent_exists = t.host_exists ||
		    observe_exists_host(parent);
	}
	if (!observe_decide(m, kind, &t, &reason))
		return false;
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
	bool				 missing;

	res = observe_resolve(obs, old, follow, &missing);
	/* The old name too: a change through the new name changes it
	   (undo keeps it under the name it had). */
	if (obs->rec != NULL && !missing) {
		const char *rel = observe_rec_rel(obs, sb, res);

		if (rel != NULL)
			snapshot_paths_add(obs->rec, rel);
	}
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

/* Is something in pid's network namespace bound to this port? */
static bool
observe_port_bound(pid_t pid, unsigned port)
{
	static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6" };
	char	 p[64], line[512];
	FILE	*f;
	unsigned lport, state;
	bool	 found = false;

	for (size_t i = 0; !found && i < 4; i++) {
		snprintf(p, sizeof p, "/proc/%d/net/%s", (int)pid, tables[i]);
		if ((f = fopen(p, "re")) == NULL)
			continue;
		while (!found && fgets(line, sizeof line, f) != NULL) {
			/* "  0: 0100007F:1F90 00000000:0000 0A ..." */
			if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x "
			    "%*[0-9A-Fa-f]:%*x %x", &lport, &state) != 2)
				continue;
			if (lport == port && (i >= 2 || state == 0x0a))
				found = true;
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
		*loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
		*what = xasprintf("%s:%u", addr, *port);
		return 1;
	}
	if (len >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		const uint8_t		  *b = in6->sin6_addr.s6_addr;

		inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof addr);
		*port = ntohs(in6->sin6_port);
		*loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127);
		*what = xasprintf("[%s]:%u", addr, *port);
		return 1;
	}
	return 0;
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
	/* The sandbox's own loopback works: only unbound ports count. */
	if (loopback && observe_port_bound(mem->pid, port))
		return;
	LOG("%s %s: network", op, what);
	observe_add(vs, what, op, VIOLATION_NETWORK, true);
}
