/*
 * observe: record what the sandbox refused, from seccomp notifications.
 *
 * The helper (bwgate-helper.c) notifies us of write-intent system calls.
 * Each notification is handled in three steps, all while the caller is
 * stopped in the kernel:
 *
 *	read	the path (or socket address) with process_vm_readv (or
 *		/proc/PID/mem), the base directory from /proc/PID/cwd or
 *		/proc/PID/fd/N (these give the sandbox's own view), then
 *		SECCOMP_IOCTL_NOTIF_ID_VALID: the caller was still waiting
 *		throughout, so a recycled pid cannot have fed us another
 *		process's memory;
 *	resolve	normalise, follow symlinks component by component inside
 *		/proc/PID/root (so a link in the project that points out is
 *		judged by where it lands), and look at what exists there and
 *		on the host;
 *	decide	find the covering mount (sandbox_mount_for) and ask
 *		observe_decide() whether the call fails or is discarded for
 *		a sandbox reason; only then record a violation.
 *
 * Then the call always CONTINUEs: enforcement is the mounts' job. The
 * listener is only read when poll(2) says it is readable, so RECV never
 * blocks (a notification withdrawn because its task died makes RECV fail
 * with ENOENT, it does not block), and every reply to a dead task just
 * fails with ENOENT: a sandbox dying mid-notification cannot stall bwgate.
 * With SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6) the kernel hands
 * the CPU straight to bwgate and back: about a quarter less per call.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "log.h"
#include "loop.h"
#include "observe-filter.h"
#include "observe-proto.h"
#include "observe.h"
#include "xalloc.h"

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec/bwgate"
#endif

/* Linux 6.6: wake the supervisor on the notifying CPU (a direct handoff). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

/* Distinct violations kept per run (repeats only bump a count). */
#define OBSERVE_MAX_VIOLATIONS	256
/* Notifications handled per observe_handle() call. */
#define OBSERVE_BATCH		64

/* How a notified call is read. */
enum observe_how {
	HOW_OPEN,	/* dirfd?, path, flags */
	HOW_OPENAT2,	/* dirfd, path, struct open_how * */
	HOW_PATH,	/* dirfd?, path, optional AT_* flags */
	HOW_RENAME,	/* olddirfd?, old, newdirfd?, new */
	HOW_LINK,	/* olddirfd?, old, newdirfd?, new, flags */
	HOW_CONNECT,	/* fd, sockaddr, len */
	HOW_SENDTO,	/* fd, buf, len, flags, sockaddr, len */
	HOW_SENDMSG,	/* fd, msghdr */
};

/*
 * The calls the helper notifies. Argument indexes: dirfd (-1: relative to
 * the cwd), path, flags (-1: none). nofollow: the last component is not
 * followed (unless flags say otherwise).
 */
struct observe_call {
	const char		*name;
	enum observe_how	 how;
	const char		*op;
	enum observe_kind	 kind;
	int			 dirfd;
	int			 path;
	int			 flags;
	bool			 nofollow;
	int			 nr;	/* filled in at first use */
};

static struct observe_call observe_calls[] = {
	{ "open", HOW_OPEN, NULL, 0, -1, 0, 1, false, 0 },
	{ "openat", HOW_OPEN, NULL, 0, 0, 1, 2, false, 0 },
	{ "openat2", HOW_OPENAT2, NULL, 0, 0, 1, 2, false, 0 },
	{ "creat", HOW_OPEN, NULL, 0, -1, 0, -1, false, 0 },
	{ "mkdir", HOW_PATH, "mkdir", OBSERVE_CREATE_EXCL, -1, 0, -1, true, 0 },
	{ "mkdirat", HOW_PATH, "mkdir", OBSERVE_CREATE_EXCL, 0, 1, -1, true, 0 },
	{ "mknod", HOW_PATH, "mknod", OBSERVE_CREATE_EXCL, -1, 0, -1, true, 0 },
	{ "mknodat", HOW_PATH, "mknod", OBSERVE_CREATE_EXCL, 0, 1, -1, true, 0 },
	{ "unlink", HOW_PATH, "delete", OBSERVE_DELETE, -1, 0, -1, true, 0 },
	{ "unlinkat", HOW_PATH, "delete", OBSERVE_DELETE, 0, 1, -1, true, 0 },
	{ "rmdir", HOW_PATH, "delete", OBSERVE_DELETE, -1, 0, -1, true, 0 },
	{ "rename", HOW_RENAME, "rename", OBSERVE_DELETE, -1, 0, -1, true, 0 },
	{ "renameat", HOW_RENAME, "rename", OBSERVE_DELETE, 0, 1, -1, true, 0 },
	{ "renameat2", HOW_RENAME, "rename", OBSERVE_DELETE, 0, 1, -1, true, 0 },
	/* link: the new name, then the old one (a link across mounts). */
	{ "link", HOW_LINK, "link", OBSERVE_CREATE_EXCL, -1, 1, -1, true, 0 },
	{ "linkat", HOW_LINK, "link", OBSERVE_CREATE_EXCL, 2, 3, 4, true, 0 },
	/* symlink: only the new name matters (the target is just text). */
	{ "symlink", HOW_PATH, "symlink", OBSERVE_CREATE_EXCL, -1, 1, -1, true,
	    0 },
	{ "symlinkat", HOW_PATH, "symlink", OBSERVE_CREATE_EXCL, 1, 2, -1,
	    true, 0 },
	{ "truncate", HOW_PATH, "truncate", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "chmod", HOW_PATH, "chmod", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "fchmodat", HOW_PATH, "chmod", OBSERVE_WRITE, 0, 1, -1, false, 0 },
	{ "fchmodat2", HOW_PATH, "chmod", OBSERVE_WRITE, 0, 1, 3, false, 0 },
	{ "chown", HOW_PATH, "chown", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "lchown", HOW_PATH, "chown", OBSERVE_WRITE, -1, 0, -1, true, 0 },
	{ "fchownat", HOW_PATH, "chown", OBSERVE_WRITE, 0, 1, 4, false, 0 },
	{ "utime", HOW_PATH, "utime", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "utimes", HOW_PATH, "utime", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "futimesat", HOW_PATH, "utime", OBSERVE_WRITE, 0, 1, -1, false, 0 },
	{ "utimensat", HOW_PATH, "utime", OBSERVE_WRITE, 0, 1, 3, false, 0 },
	{ "setxattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "lsetxattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, true, 0 },
	{ "removexattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "lremovexattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, true,
	    0 },
	{ "connect", HOW_CONNECT, "connect", 0, -1, 1, -1, false, 0 },
	{ "sendto", HOW_SENDTO, "send", 0, -1, 4, -1, false, 0 },
	{ "sendmsg", HOW_SENDMSG, "send", 0, -1, 1, -1, false, 0 },
};
#define OBSERVE_NCALLS (sizeof observe_calls / sizeof *observe_calls)

enum observe_state {
	STATE_HELLO,		/* waiting for the helper's answer */
	STATE_LISTEN,		/* serving notifications */
	STATE_DONE,		/* nothing more will come */
};

struct observer {
	enum observe_state	 state;
	int			 sock;
	int			 listener;
	bool			 exact;
	bool			 network;	/* network on: no net checks */
	bool			 userns;	/* nested namespaces possible */
	char			*status;
	ino_t			 mntns;		/* the sandbox's mount ns */
	int			 rootfd;	/* its root, O_PATH */
	unsigned long		 count;
	struct seccomp_notif	*req;
	struct seccomp_notif_resp *resp;
	size_t			 req_size;
	size_t			 resp_size;
	uint32_t		 arch;
	/* For observe_attach(). */
	struct loop		*loop;
	int			 loop_fd;
	const struct sandbox	*sb;
	struct violations	*out;
};

static void	observe_loop_cb(int, short, void *);

/* Find the helper: $BWGATE_HELPER, next to our binary, LIBEXECDIR. */
static char *
observe_find_helper(void)
{
	const char	*env = getenv("BWGATE_HELPER");
	char		 self[PATH_MAX], *slash, *p;
	ssize_t		 n;

	if (env != NULL && *env != '\0')
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			p = xasprintf("%s/bwgate-helper", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	p = xstrdup(LIBEXECDIR "/bwgate-helper");
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

struct observer *
observe_prepare(struct sandbox_policy *pol, char **cause)
{
	struct observer		*obs;
	struct observe_hello	 hello;
	struct buf		 msg = BUF_INIT;
	const char		*off = getenv("BWGATE_NO_NOTIFY");
	char			*helper, *why = NULL;
	int			 sv[2];
	ssize_t			 sent;

	if ((helper = observe_find_helper()) == NULL) {
		*cause = xstrdup("cannot find bwgate-helper "
		    "(set BWGATE_HELPER)");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		*cause = xasprintf("socketpair: %s", strerror(errno));
		free(helper);
		return NULL;
	}
	memset(&hello, 0, sizeof hello);
	hello.magic = OBSERVE_MAGIC;
	hello.version = OBSERVE_VERSION;
	if (!pol->network)
		hello.flags |= OBSERVE_F_NET;
	if (off != NULL && *off != '\0' && strcmp(off, "0") != 0)
		hello.flags |= OBSERVE_F_OFF;
	/* The program travels with the hello (see observe-proto.h). */
	buf_add(&msg, &hello, sizeof hello);
	if ((hello.flags & OBSERVE_F_OFF) == 0 &&
	    observe_filter_build(hello.flags, &msg, &why) != 0) {
		LOG("%s", why);
		free(why);
		msg.len = sizeof hello;
		hello.flags |= OBSERVE_F_OFF;
	}
	hello.ninsns = (uint32_t)((msg.len - sizeof hello) / 8);
	memcpy(msg.data, &hello, sizeof hello);
	sent = send(sv[0], msg.data, msg.len, MSG_NOSIGNAL);
	if (sent != (ssize_t)msg.len) {
		*cause = xasprintf("cannot talk to the helper: %s",
		    strerror(errno));
		buf_release(&msg);
		close(sv[0]);
		close(sv[1]);
		free(helper);
		return NULL;
	}
	buf_release(&msg);

	obs = xcalloc(1, sizeof *obs);
	obs->state = STATE_HELLO;
	obs->sock = sv[0];
	obs->listener = -1;
	obs->rootfd = -1;
	obs->loop_fd = -1;
	obs->network = pol->network;
	obs->userns = pol->allow_userns;
	obs->status = xstrdup("no answer from the helper");
	free(pol->helper);
	pol->helper = helper;
	pol->helper_fd = sv[1];		/* the sandbox closes it */
	return obs;
}

int
observe_fd(const struct observer *obs)
{
	if (obs == NULL)
		return -1;
	switch (obs->state) {
	case STATE_HELLO:
		return obs->sock;
	case STATE_LISTEN:
		return obs->listener;
	default:
		return -1;
	}
}

bool
observe_exact(const struct observer *obs)
{
	return obs != NULL && obs->exact;
}

const char *
observe_status(const struct observer *obs)
{
	return obs != NULL ? obs->status : "no observer";
}

unsigned long
observe_count(const struct observer *obs)
{
	return obs != NULL ? obs->count : 0;
}

/* Set the status line. */
static void
observe_set_status(struct observer *obs, const char *s)
{
	free(obs->status);
	obs->status = xstrdup(s);
}

/* Take the helper's answer (and the listener) from the socket. */
static void
observe_hello_reply(struct observer *obs)
{
	struct observe_reply	 r;
	struct iovec		 iov = { &r, sizeof r };
	struct msghdr		 msg;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct cmsghdr		*c;
	int			 fd = -1, sizes_ok;
	struct seccomp_notif_sizes sizes;
	ssize_t			 n;

	memset(&msg, 0, sizeof msg);
	memset(&r, 0, sizeof r);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof u.buf;
	n = recvmsg(obs->sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	for (c = CMSG_FIRSTHDR(&msg); n > 0 && c != NULL;
	    c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof fd);
	}
	close(obs->sock);
	obs->sock = -1;
	obs->state = STATE_DONE;

	if (n != (ssize_t)sizeof r || r.magic != OBSERVE_MAGIC) {
		observe_set_status(obs, n == 0 ? "the helper did not run" :
		    "bad answer from the helper");
		if (fd >= 0)
			close(fd);
		return;
	}
	r.why[sizeof r.why - 1] = '\0';
	if (r.error != 0 || fd < 0) {
		observe_set_status(obs, r.why[0] != '\0' ? r.why :
		    "no listener");
		if (fd >= 0)
			close(fd);
		return;
	}

	sizes_ok = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
	if (sizes_ok != 0) {
		observe_set_status(obs, "cannot size notifications");
		close(fd);
		return;
	}
	obs->req_size = sizes.seccomp_notif > sizeof *obs->req ?
	    sizes.seccomp_notif : sizeof *obs->req;
	obs->resp_size = sizes.seccomp_notif_resp > sizeof *obs->resp ?
	    sizes.seccomp_notif_resp : sizeof *obs->resp;
	obs->req = xcalloc(1, obs->req_size);
	obs->resp = xcalloc(1, obs->resp_size);
	obs->arch = seccomp_arch_native();
	obs->listener = fd;
	obs->state = STATE_LISTEN;
	/* Fewer scheduler round trips per call where the kernel has it. */
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0) != 0)
		LOG("no synchronous wake-up: %s", strerror(errno));
	obs->exact = true;
	observe_set_status(obs, "exact");
	/* The sandbox's mount namespace; its root comes with a caller. */
	obs->mntns = (ino_t)r.mntns;
	LOG("listener %d, mount namespace %llu", fd,
	    (unsigned long long)r.mntns);
}

/* Another process's memory: process_vm_readv, else /proc/PID/mem. */
struct observe_mem {
	pid_t	pid;
	int	fd;		/* /proc/PID/mem once needed, else -1 */
};

/* Scope-bound release of a struct observe_mem. */
static void
observe_mem_release(struct observe_mem *mem)
{
	if (mem->fd >= 0)
		close(mem->fd);
}

/* Read len bytes at addr; the count read or -1. */
static ssize_t
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
static char *
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

/* The path a descriptor or the cwd of pid refers to, if it is a path. */
static char *
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

/* The next name of a path at p (slashes skipped), *end just past it;
   NULL at the end of the path. */
static const char *
path_component(const char *p, const char **end)
{
	while (*p == '/')
		p++;
	if (*p == '\0')
		return NULL;
	if ((*end = strchr(p, '/')) == NULL)
		*end = p + strlen(p);
	return p;
}

/* "." and ".." applied to an absolute path being built in b; false for
   any other name (which the caller appends). */
static bool
path_dots(struct buf *b, const char *p, size_t len)
{
	char	*slash;

	if (len == 1 && p[0] == '.')
		return true;
	if (len != 2 || p[0] != '.' || p[1] != '.')
		return false;
	if ((slash = strrchr(b->data, '/')) != NULL) {
		b->len = (size_t)(slash - b->data);
		b->data[b->len] = '\0';
	}
	return true;
}

char *
observe_normalise(const char *base, const char *path)
{
	struct buf	 out = BUF_INIT;
	_cleanup_free_ char *joined = NULL;
	const char	*p, *e;
	size_t		 len;

	if (path[0] == '/' || base == NULL)
		joined = xasprintf("/%s", path);
	else
		joined = xasprintf("%s/%s", base, path);
	buf_puts(&out, "");
	for (p = joined; (p = path_component(p, &e)) != NULL; p = e) {
		len = (size_t)(e - p);
		if (path_dots(&out, p, len))
			continue;
		buf_putc(&out, '/');
		buf_add(&out, p, len);
	}
	if (out.len == 0)
		buf_putc(&out, '/');
	return buf_detach(&out);
}

char *
observe_resolve(const char *path, bool follow, observe_readlink_cb rl,
    void *arg, bool *missing)
{
	struct buf	 done = BUF_INIT;
	char		*todo, *next, target[PATH_MAX];
	const char	*p, *e;
	size_t		 len, saved;
	int		 links = 0;
	ssize_t		 n;
	bool		 last;

	*missing = false;
	todo = xstrdup(path);
	buf_puts(&done, "");
	for (p = todo; (p = path_component(p, &e)) != NULL; p = e) {
		len = (size_t)(e - p);
		/* done never holds a symlink, so ".." is lexical. */
		if (path_dots(&done, p, len))
			continue;
		saved = done.len;
		buf_putc(&done, '/');
		buf_add(&done, p, len);
		if (*missing)
			continue;	/* nothing below a missing name */
		last = e[strspn(e, "/")] == '\0';
		if (last && !follow)
			break;
		n = rl(arg, done.data, target, sizeof target - 1);
		if (n < 0) {
			/* A missing last name is fine (it may be created). */
			if (errno != EINVAL && !last)
				*missing = true;
			continue;
		}
		if (++links > 40) {
			/* ELOOP: the call fails anyway. */
			*missing = true;
			continue;
		}
		target[n] = '\0';
		if (target[0] == '/')
			done.len = 0;
		else
			done.len = saved;
		done.data[done.len] = '\0';
		next = xasprintf("%s/%s", target, e);
		free(todo);
		todo = next;
		e = todo;
	}
	free(todo);
	if (done.len == 0)
		buf_putc(&done, '/');
	return buf_detach(&done);
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

/* readlink inside the sandbox root (observe_readlink_cb). */
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
static bool
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
static void
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

/* Judge one path of one call; record a violation if refused. */
static bool
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

	memset(&t, 0, sizeof t);
	t.writes = writes;
	res = observe_resolve(named, follow, observe_readlink_root,
	    &obs->rootfd, &missing);
	m = sandbox_mount_for(sb, res);
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
static void
observe_judge_link(struct observer *obs, const struct sandbox *sb,
    const char *old, const char *new, bool follow, struct violations *vs)
{
	const struct sandbox_mount	*mo, *mn;
	enum violation_reason		 reason;
	_cleanup_free_ char		*res = NULL;
	bool				 missing;

	res = observe_resolve(old, follow, observe_readlink_root, &obs->rootfd,
	    &missing);
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
static void
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

/* Find the table entry for a system call number. */
static const struct observe_call *
observe_lookup(int nr)
{
	static bool	resolved;

	if (!resolved) {
		for (size_t i = 0; i < OBSERVE_NCALLS; i++) {
			observe_calls[i].nr = seccomp_syscall_resolve_name(
			    observe_calls[i].name);
		}
		resolved = true;
	}
	for (size_t i = 0; i < OBSERVE_NCALLS; i++) {
		if (observe_calls[i].nr == nr &&
		    observe_calls[i].nr != __NR_SCMP_ERROR)
			return &observe_calls[i];
	}
	return NULL;
}

/* Read the path argument number i (relative to dirfd argument d). */
static char *
observe_arg_path(const struct seccomp_data *d, struct observe_mem *mem,
    int dirfd_arg, int path_arg, bool empty_ok)
{
	_cleanup_free_ char	*raw = NULL, *base = NULL;
	int			 dirfd = AT_FDCWD;

	raw = observe_read_string(mem, d->args[path_arg]);
	if (raw == NULL)
		return NULL;
	if (dirfd_arg >= 0)
		dirfd = (int)d->args[dirfd_arg];
	if (raw[0] == '\0') {
		/* AT_EMPTY_PATH: the descriptor itself. */
		if (!empty_ok || dirfd == AT_FDCWD)
			return NULL;
		return observe_base(mem->pid, dirfd);
	}
	if (raw[0] != '/') {
		base = observe_base(mem->pid, dirfd);
		if (base == NULL)
			return NULL;
	}
	return observe_normalise(base, raw);
}

/* Read and judge one notification (the caller is stopped meanwhile). */
static void
observe_judge(struct observer *obs, const struct sandbox *sb,
    const struct seccomp_notif *n, struct violations *vs)
{
	const struct seccomp_data	*d = &n->data;
	const struct observe_call	*c;
	struct observe_mem		 mem
	    __attribute__((cleanup(observe_mem_release))) = { n->pid, -1 };
	_cleanup_free_ char		*path = NULL, *path2 = NULL;
	char				 p[64];
	struct stat			 st;
	struct open_how			 how;
	uint64_t			 flags = 0, msg[2];
	enum observe_kind		 kind;
	bool				 follow, writes = false;
	const char			*op;
	int				 acc;

	if (d->arch != obs->arch || (c = observe_lookup(d->nr)) == NULL)
		return;
	/*
	 * A nested sandbox has another view of paths: not ours to judge
	 * (only possible when the policy allows user namespaces inside).
	 * The first caller in the sandbox's namespace gives us its root,
	 * shared by all (chroot and pivot_root are denied); the caller is
	 * checked to be still waiting, so its pid cannot have been reused.
	 */
	if (obs->rootfd < 0 || obs->userns) {
		snprintf(p, sizeof p, "/proc/%d/ns/mnt", (int)n->pid);
		if (stat(p, &st) != 0 ||
		    (obs->mntns != 0 && st.st_ino != obs->mntns))
			return;
		if (obs->rootfd < 0) {
			snprintf(p, sizeof p, "/proc/%d/root", (int)n->pid);
			obs->rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID,
			    &n->id) != 0 && obs->rootfd >= 0) {
				close(obs->rootfd);
				obs->rootfd = -1;
			}
			if (obs->rootfd < 0)
				return;
			obs->mntns = st.st_ino;
		}
	}

	switch (c->how) {
	case HOW_CONNECT:
		observe_judge_net(obs, &mem, d->args[1], d->args[2],
		    c->op, vs);
		return;
	case HOW_SENDTO:
		observe_judge_net(obs, &mem, d->args[4], d->args[5],
		    c->op, vs);
		return;
	case HOW_SENDMSG:
		/* struct msghdr starts with msg_name, msg_namelen. */
		if (observe_peek(&mem, msg, sizeof msg, d->args[1]) !=
		    (ssize_t)sizeof msg)
			return;
		observe_judge_net(obs, &mem, msg[0],
		    (uint32_t)msg[1], c->op, vs);
		return;
	case HOW_OPEN:
	case HOW_OPENAT2:
		if (c->how == HOW_OPENAT2) {
			memset(&how, 0, sizeof how);
			if (observe_peek(&mem, &how, sizeof how, d->args[2]) !=
			    (ssize_t)sizeof how)
				return;
			flags = how.flags;
		} else if (c->flags >= 0)
			flags = d->args[c->flags];
		else
			flags = O_CREAT | O_WRONLY | O_TRUNC;	/* creat */
		acc = (int)(flags & O_ACCMODE);
		writes = acc == O_WRONLY || acc == O_RDWR ||
		    (flags & O_TRUNC) != 0;
		if ((flags & O_CREAT) == 0 && !writes)
			return;
		if ((flags & O_CREAT) && (flags & O_EXCL))
			kind = OBSERVE_CREATE_EXCL;
		else if (flags & O_CREAT)
			kind = OBSERVE_CREATE;
		else
			kind = OBSERVE_WRITE;
		if ((flags & O_TMPFILE) == O_TMPFILE)
			kind = OBSERVE_CREATE;	/* a file in that dir */
		follow = (flags & O_NOFOLLOW) == 0 &&
		    kind != OBSERVE_CREATE_EXCL;
		op = kind == OBSERVE_WRITE ? "write" : "create";
		path = observe_arg_path(d, &mem, c->dirfd, c->path,
		    false);
		if (path != NULL && (flags & O_TMPFILE) == O_TMPFILE) {
			char *f = xasprintf("%s/%s", path, "(tmpfile)");

			free(path);
			path = f;
		}
		break;
	case HOW_LINK:
		path = observe_arg_path(d, &mem, c->dirfd, c->path,
		    false);
		path2 = observe_arg_path(d, &mem,
		    c->dirfd >= 0 ? 0 : -1, c->dirfd >= 0 ? 1 : 0,
		    c->flags >= 0 && (d->args[c->flags] & AT_EMPTY_PATH));
		kind = OBSERVE_CREATE_EXCL;
		follow = c->flags >= 0 && (d->args[c->flags] &
		    AT_SYMLINK_FOLLOW);	/* for the old name */
		op = c->op;
		break;
	case HOW_RENAME:
		path = observe_arg_path(d, &mem, c->dirfd, c->path,
		    false);
		path2 = observe_arg_path(d, &mem,
		    c->dirfd >= 0 ? 2 : -1, c->dirfd >= 0 ? 3 : 1, false);
		kind = OBSERVE_DELETE;
		follow = false;
		op = c->op;
		break;
	case HOW_PATH:
	default:
		kind = c->kind;
		op = c->op;
		follow = !c->nofollow;
		if (c->flags >= 0 &&
		    (d->args[c->flags] & AT_SYMLINK_NOFOLLOW))
			follow = false;
		path = observe_arg_path(d, &mem, c->dirfd, c->path,
		    c->flags >= 0 && (d->args[c->flags] & AT_EMPTY_PATH));
		break;
	}
	/* Everything read: is it still the same task? */
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0)
		return;
	if (path == NULL)
		return;
	if (c->how == HOW_LINK) {
		if (!observe_judge_path(obs, sb, path, kind, false, false, op,
		    vs) && path2 != NULL)
			observe_judge_link(obs, sb, path2, path, follow, vs);
		return;
	}
	if (c->how == HOW_RENAME && path2 != NULL) {
		_cleanup_free_ char *p1 = xstrdup(path), *p2 = xstrdup(path2);
		const struct sandbox_mount *m1, *m2;
		char *s1 = strrchr(p1, '/'), *s2 = strrchr(p2, '/');

		/* Different mounts: EXDEV, and mv falls back to copying
		   (which is observed on its own). */
		*s1 = '\0';
		*s2 = '\0';
		m1 = sandbox_mount_for(sb, *p1 ? p1 : "/");
		m2 = sandbox_mount_for(sb, *p2 ? p2 : "/");
		if (m1 != m2 && sandbox_mount_for(sb, path) == m1 &&
		    sandbox_mount_for(sb, path2) == m2)
			return;
		if (observe_judge_path(obs, sb, path, kind, follow, writes, op,
		    vs))
			return;
		observe_judge_path(obs, sb, path2, kind, follow, writes, op,
		    vs);
		return;
	}
	observe_judge_path(obs, sb, path, kind, follow, writes, op, vs);
}

/* Serve what is pending on the listener, at most OBSERVE_BATCH. */
static void
observe_serve(struct observer *obs, const struct sandbox *sb,
    struct violations *vs, int timeout)
{
	struct pollfd	pfd;

	for (int i = 0; i < OBSERVE_BATCH; i++) {
		pfd.fd = obs->listener;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, i == 0 ? timeout : 0) <= 0)
			return;
		if (pfd.revents & POLLIN) {
			memset(obs->req, 0, obs->req_size);
			if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_RECV,
			    obs->req) != 0)
				continue;	/* withdrawn (task died) */
			obs->count++;
			observe_judge(obs, sb, obs->req, vs);
			memset(obs->resp, 0, obs->resp_size);
			obs->resp->id = obs->req->id;
			obs->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			/* ENOENT: the task died meanwhile; nothing to do. */
			ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_SEND,
			    obs->resp);
			continue;
		}
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* No task uses the filter any more. */
			close(obs->listener);
			obs->listener = -1;
			obs->state = STATE_DONE;
			return;
		}
	}
}

void
observe_handle(struct observer *obs, const struct sandbox *sb,
    struct violations *vs)
{
	if (obs == NULL)
		return;
	if (obs->state == STATE_HELLO)
		observe_hello_reply(obs);
	if (obs->state == STATE_LISTEN)
		observe_serve(obs, sb, vs, 0);
}

/* Loop callback: handle, then follow the descriptor change. */
static void
observe_loop_cb(int fd, short revents, void *arg)
{
	struct observer	*obs = arg;
	int		 now;

	observe_handle(obs, obs->sb, obs->out);
	now = observe_fd(obs);
	if (now != obs->loop_fd) {
		loop_remove(obs->loop, obs->loop_fd);
		obs->loop_fd = now;
		if (now >= 0)
			loop_add(obs->loop, now, POLLIN, observe_loop_cb, obs);
	}
}

void
observe_attach(struct observer *obs, struct loop *l, const struct sandbox *sb,
    struct violations *vs)
{
	if (obs == NULL)
		return;
	obs->loop = l;
	obs->sb = sb;
	obs->out = vs;
	obs->loop_fd = observe_fd(obs);
	if (obs->loop_fd >= 0)
		loop_add(l, obs->loop_fd, POLLIN, observe_loop_cb, obs);
}

void
observe_finish(struct observer *obs)
{
	if (obs == NULL)
		return;
	if (obs->loop != NULL && obs->loop_fd >= 0)
		loop_remove(obs->loop, obs->loop_fd);
	obs->loop_fd = -1;
	if (obs->state == STATE_HELLO)
		observe_hello_reply(obs);
	if (obs->state == STATE_LISTEN && obs->sb != NULL && obs->out != NULL)
		observe_serve(obs, obs->sb, obs->out, 0);
	if (obs->sock >= 0)
		close(obs->sock);
	obs->sock = -1;
	if (obs->listener >= 0)
		close(obs->listener);
	obs->listener = -1;
	if (obs->rootfd >= 0)
		close(obs->rootfd);
	obs->rootfd = -1;
	obs->state = STATE_DONE;
}

void
observe_free(struct observer *obs)
{
	if (obs == NULL)
		return;
	observe_finish(obs);
	free(obs->req);
	free(obs->resp);
	free(obs->status);
	free(obs);
}

/*
 * The fallback: error output. Each table row is a phrase that names a
 * refusal; the path is found around it.
 */
enum observe_cause {
	CAUSE_EROFS,
	CAUSE_EACCES,
	CAUSE_ENOENT,
	CAUSE_EBUSY,
	CAUSE_NET,
};

static const struct {
	const char		*text;
	enum observe_cause	 cause;
} observe_causes[] = {
	{ "Read-only file system", CAUSE_EROFS },
	{ "Permission denied", CAUSE_EACCES },
	{ "Device or resource busy", CAUSE_EBUSY },
	{ "No such file or directory", CAUSE_ENOENT },
	{ "Network is unreachable", CAUSE_NET },
	{ "Temporary failure in name resolution", CAUSE_NET },
	{ "Could not resolve host", CAUSE_NET },
	{ "Could not resolve hostname", CAUSE_NET },
	{ "Name or service not known", CAUSE_NET },
	{ "No address associated with hostname", CAUSE_NET },
	{ "unable to resolve host", CAUSE_NET },
	{ "Failed to resolve", CAUSE_NET },
	{ "getaddrinfo failed", CAUSE_NET },
	{ "Connection refused", CAUSE_NET },
};

/* Phrases before the path that name the operation (first match wins). */
static const struct {
	const char	*text;
	const char	*op;
	bool		 creates;	/* ENOENT then means "not visible" */
} observe_verbs[] = {
	{ "cannot create directory", "mkdir", true },
	{ "cannot create regular file", "create", true },
	{ "cannot create symbolic link", "symlink", true },
	{ "failed to create symbolic link", "symlink", true },
	{ "failed to create hard link", "link", true },
	{ "cannot create hard link", "link", true },
	{ "cannot touch", "create", true },
	{ "cannot remove", "delete", false },
	{ "cannot move", "rename", false },
	{ "cannot rename", "rename", false },
	{ "changing permissions", "chmod", false },
	{ "changing ownership", "chown", false },
	{ "cannot create", "create", true },
	{ "unable to create", "create", true },
	{ "could not create", "create", true },
	{ "couldn't create", "create", true },
	{ "could not lock", "write", false },
	{ "cannot open", "write", false },
	{ "couldn't open", "write", false },
	{ "could not open", "write", false },
	{ "truncat", "truncate", false },
};

/* Case-insensitive strstr over [s, s + n). */
static const char *
observe_find(const char *s, size_t n, const char *what)
{
	size_t	len = strlen(what);

	for (size_t i = 0; i + len <= n; i++)
		if (strncasecmp(s + i, what, len) == 0)
			return s + i;
	return NULL;
}

/* The quoted string that ends at end (exclusive), if any. */
static char *
observe_quoted_before(const char *start, const char *end)
{
	const char	*q;

	if (end - start >= 2 && end[-1] == '\'' ) {
		for (q = end - 2; q >= start; q--)
			if (*q == '\'')
				return xstrndup(q + 1, (size_t)(end - 2 - q));
	}
	if (end - start >= 2 && end[-1] == '"') {
		for (q = end - 2; q >= start; q--)
			if (*q == '"')
				return xstrndup(q + 1, (size_t)(end - 2 - q));
	}
	/* ‘...’ (UTF-8 quotes of coreutils) */
	if (end - start >= 6 && memcmp(end - 3, "\xe2\x80\x99", 3) == 0) {
		for (q = end - 6; q >= start; q--)
			if (memcmp(q, "\xe2\x80\x98", 3) == 0)
				return xstrndup(q + 3, (size_t)(end - 3 -
				    (q + 3)));
	}
	return NULL;
}

/* Find the path named before the cause: "...'PATH': cause", "PATH: ...". */
static char *
observe_path_before(const char *line, const char *cause)
{
	const char	*end = cause, *f, *w;
	char		*q;

	/* "PATH: cause" or "PATH (cause" */
	while (end > line && (end[-1] == ' ' || end[-1] == ':' ||
	    end[-1] == '('))
		end--;
	if (end == line)
		return NULL;
	if ((q = observe_quoted_before(line, end)) != NULL)
		return q;
	/* the last ": "-separated field, then its last word */
	for (f = end; f > line && !(f[-1] == ' ' && f - 1 > line &&
	    f[-2] == ':'); f--)
		;
	for (w = end; w > f && w[-1] != ' '; w--)
		;
	if (w == end)
		return NULL;
	return xstrndup(w, (size_t)(end - w));
}

/* The path after the cause: Python's "cause: 'PATH'". */
static char *
observe_path_after(const char *after)
{
	const char	*e;
	char		 quote;

	if (after[0] != ':' || after[1] != ' ')
		return NULL;
	after += 2;
	quote = *after;
	if (quote != '\'' && quote != '"')
		return NULL;
	if ((e = strchr(after + 1, quote)) == NULL)
		return NULL;
	return xstrndup(after + 1, (size_t)(e - after - 1));
}

/* A host name named in a resolver error, if one can be found. */
static char *
observe_host_in(const char *line, const char *cause)
{
	const char	*p, *e;

	if ((p = strstr(line, "resolve host: ")) != NULL) {
		p += strlen("resolve host: ");
	} else if ((p = strstr(line, "resolve hostname ")) != NULL) {
		p += strlen("resolve hostname ");
	} else if ((p = strstr(line, "Failed to resolve '")) != NULL) {
		p += strlen("Failed to resolve '");
	} else
		return xstrdup("network");
	for (e = p; *e != '\0' && *e != ' ' && *e != ':' && *e != '\'' &&
	    *e != '"' && *e != '\n'; e++)
		;
	if (e == p)
		return xstrdup("network");
	return xstrndup(p, (size_t)(e - p));
}

int
observe_parse_line(const char *line, bool network, char **path,
    const char **operation, const char **cause)
{
	const char	*at = NULL, *verb;
	size_t		 i, len = strlen(line);
	int		 c = -1;
	bool		 creates = false;

	*path = NULL;
	*operation = NULL;
	*cause = NULL;
	for (i = 0; i < sizeof observe_causes / sizeof *observe_causes; i++) {
		if ((at = strstr(line, observe_causes[i].text)) != NULL) {
			c = (int)observe_causes[i].cause;
			*cause = observe_causes[i].text;
			break;
		}
	}
	if (c < 0)
		return 0;
	if (c == CAUSE_NET) {
		if (network)
			return 0;
		*path = observe_host_in(line, at);
		*operation = "connect";
		return 1;
	}
	*operation = "write";
	for (i = 0; i < sizeof observe_verbs / sizeof *observe_verbs; i++) {
		verb = observe_find(line, (size_t)(at - line),
		    observe_verbs[i].text);
		if (verb != NULL) {
			*operation = observe_verbs[i].op;
			creates = observe_verbs[i].creates;
			break;
		}
	}
	if (c == CAUSE_ENOENT && !creates)
		return 0;	/* reading something missing: not a refusal */
	*path = observe_path_after(at + strlen(*cause));
	if (*path == NULL)
		*path = observe_path_before(line, at);
	if (*path == NULL || (*path)[0] == '\0' || len == 0) {
		free(*path);
		*path = NULL;
		return 0;
	}
	return 1;
}

void
observe_infer(const char *text, size_t len, const struct sandbox *sb,
    const char *cwd, bool network, struct violations *vs)
{
	const char	*p = text, *end = text + len, *nl, *op, *cause;
	char		*line, *path;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		line = xstrndup(p, (size_t)(nl - p));
		p = nl + 1;
		if (!observe_parse_line(line, network, &path, &op, &cause)) {
			free(line);
			continue;
		}
		free(line);
		if (strcmp(op, "connect") == 0) {
			observe_add(vs, path, op, VIOLATION_NETWORK, false);
			free(path);
			continue;
		}
		{
			_cleanup_free_ char *abs = observe_normalise(cwd, path);
			_cleanup_free_ char *parent = xstrdup(abs);
			const struct sandbox_mount *m =
			    sandbox_mount_for(sb, abs);
			enum mount_kind k = m != NULL ? m->kind : MOUNT_HIDDEN;
			char *slash = strrchr(parent, '/');
			bool ok = false;
			enum violation_reason r = VIOLATION_READ_ONLY;

			if (slash != NULL)
				slash[slash == parent ? 1 : 0] = '\0';
			if (k == MOUNT_PROTECTED) {
				r = VIOLATION_PROTECTED;
				ok = strcmp(cause, "No such file or directory")
				    != 0;
			} else if (k == MOUNT_HIDDEN) {
				r = VIOLATION_NOT_VISIBLE;
				ok = observe_exists_host(abs) ||
				    observe_exists_host(parent);
			} else if (k == MOUNT_RO || k == MOUNT_SYMLINK) {
				ok = strcmp(cause, "Read-only file system") == 0
				    || strcmp(cause, "Permission denied") == 0;
			} else if (strcmp(cause, "Read-only file system") == 0)
				ok = true;	/* the kernel said so */
			if (ok)
				observe_add(vs, abs, op, r, false);
		}
		free(path);
	}
}
