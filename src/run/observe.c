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
#include <stddef.h>
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
#include "observe-int.h"
#include "observe.h"
#include "pathwalk.h"
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
	HOW_FD,		/* fd (in the dirfd column): the file itself */
	HOW_BIND,	/* fd, sockaddr, len: a unix socket's file */
	HOW_EXEC,	/* dirfd?, path, argv (the next argument), flags */
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
	/* Descriptor calls that change a file opened for reading (only
	   notified with OBSERVE_RECORD; writing needs a write open). */
	{ "fchmod", HOW_FD, "chmod", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	{ "fchown", HOW_FD, "chown", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	{ "fsetxattr", HOW_FD, "xattr", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	{ "fremovexattr", HOW_FD, "xattr", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	/* A unix socket bound to a path creates a file there. */
	{ "bind", HOW_BIND, "create", OBSERVE_CREATE_EXCL, -1, 1, -1, true, 0 },
	{ "execve", HOW_EXEC, "exec", 0, -1, 0, -1, false, 0 },
	{ "execveat", HOW_EXEC, "exec", 0, 0, 1, 4, false, 0 },
	{ "connect", HOW_CONNECT, "connect", 0, -1, 1, -1, false, 0 },
	{ "sendto", HOW_SENDTO, "send", 0, -1, 4, -1, false, 0 },
	{ "sendmsg", HOW_SENDMSG, "send", 0, -1, 1, -1, false, 0 },
};
#define OBSERVE_NCALLS (sizeof observe_calls / sizeof *observe_calls)

static void	observe_loop_cb(int, short, void *);
static void	observe_hello_reply(struct observer *);

/* Find the helper: $BWGATE_HELPER, next to our binary, ../libexec/bwgate
   from it, LIBEXECDIR. */
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
			/* Installed under another prefix than configured
			   (make install prefix=DIR): DIR/libexec/bwgate. */
			p = xasprintf("%s/../libexec/bwgate/bwgate-helper",
			    self);
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
observe_prepare(struct sandbox_policy *pol, int flags, char **cause)
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
	/* Always held until observe_go(): killed before it, we close the
	   socket and the helper does not run the command. */
	hello.flags |= OBSERVE_F_WAIT;
	if (flags & OBSERVE_RECORD)
		hello.flags |= OBSERVE_F_RECORD;
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
	obs->armed = (hello.flags & OBSERVE_F_OFF) == 0;
	obs->wait = (hello.flags & OBSERVE_F_WAIT) != 0;
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

bool
observe_armed(const struct observer *obs)
{
	return obs != NULL && obs->armed;
}

bool
observe_wait_ready(struct observer *obs, int timeout_ms)
{
	struct pollfd	pfd;
	int64_t		end = loop_now_ms() + timeout_ms, left;

	if (obs == NULL)
		return false;
	while (obs->state == STATE_HELLO) {
		left = end - loop_now_ms();
		if (left < 0)
			left = 0;
		pfd.fd = obs->sock;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			break;
		if (pfd.revents != 0)
			observe_hello_reply(obs);
		else if (left == 0)
			break;
	}
	return obs->exact;
}

void
observe_go(struct observer *obs)
{
	if (obs == NULL || !obs->wait)
		return;
	obs->wait = false;
	/* Before the answer came: the helper reads the byte once it asks. */
	if (obs->state == STATE_HELLO)
		(void)send(obs->sock, "g", 1, MSG_NOSIGNAL);
	else if (obs->sock >= 0) {
		(void)send(obs->sock, "g", 1, MSG_NOSIGNAL);
		close(obs->sock);
		obs->sock = -1;
	}
}

void
observe_record(struct observer *obs, struct snapshot_paths *sp,
    const char *root)
{
	if (obs == NULL)
		return;
	obs->rec = sp;
	free(obs->rec_root);
	obs->rec_root = xstrdup(root);
	obs->rec_len = strlen(root);
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
	/* A waiting helper keeps the socket until observe_go(). */
	if (!obs->wait || n <= 0) {
		close(obs->sock);
		obs->sock = -1;
	}
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

	if (dirfd_arg >= 0)
		dirfd = (int)d->args[dirfd_arg];
	/* utimensat(fd, NULL, ...): the descriptor itself. */
	if (d->args[path_arg] == 0 && dirfd != AT_FDCWD)
		return observe_base(mem->pid, dirfd);
	raw = observe_read_string(mem, d->args[path_arg]);
	if (raw == NULL)
		return NULL;
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
	return pathwalk_normalise(base, raw);
}

/*
 * Is there a program at path, as the caller sees it? A shell's or
 * execvp's search of PATH tries names that do not exist: those failed
 * calls are not what ran.
 */
static bool
observe_exec_exists(pid_t pid, const char *path)
{
	struct open_how	how = { .flags = O_PATH | O_CLOEXEC,
			    .resolve = RESOLVE_IN_ROOT };
	struct stat	st;
	char		p[64];
	int		root, fd;
	bool		ok;

	snprintf(p, sizeof p, "/proc/%d/root", (int)pid);
	if ((root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return true;	/* cannot tell: keep it */
	fd = (int)syscall(SYS_openat2, root, path, &how, sizeof how);
	close(root);
	if (fd < 0)
		return errno != ENOENT && errno != ENOTDIR;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
	close(fd);
	return ok;
}

/*
 * Record an exec: the program as named (resolved against the caller's cwd
 * or dirfd) and its first EXECUTION_MAX_ARGS arguments. Read while the
 * caller is stopped, kept only if it is still the same task.
 */
static void
observe_exec(struct observer *obs, const struct seccomp_data *d,
    struct observe_mem *mem, const struct observe_call *c, uint64_t id)
{
	_cleanup_free_ char	*path = NULL;
	struct strv		 argv = STRV_INIT;
	uint64_t		 ptr, at = d->args[c->path + 1];
	char			*s;
	bool			 empty;

	empty = c->flags >= 0 && (d->args[c->flags] & AT_EMPTY_PATH);
	path = observe_arg_path(d, mem, c->dirfd, c->path, empty);
	if (path != NULL && !empty && !observe_exec_exists(mem->pid, path))
		return;
	for (int i = 0; at != 0 && i < EXECUTION_MAX_ARGS; i++) {
		if (observe_peek(mem, &ptr, sizeof ptr, at + 8 * (uint64_t)i) !=
		    (ssize_t)sizeof ptr || ptr == 0)
			break;
		s = observe_read_string(mem, ptr);
		strv_push_owned(&argv, s != NULL ? s : xstrdup("?"));
	}
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
		executions_add(obs->exec_out, path != NULL ? path : "?",
		    &argv);
	strv_release(&argv);
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
	if (c->how == HOW_EXEC) {
		if (obs->exec_out != NULL)
			observe_exec(obs, d, &mem, c, n->id);
		return;
	}
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
	case HOW_BIND: {
		struct sockaddr_un	 sun;
		size_t			 len = (size_t)d->args[2];

		if (len <= offsetof(struct sockaddr_un, sun_path) ||
		    len > sizeof sun)
			return;
		memset(&sun, 0, sizeof sun);
		if (observe_peek(&mem, &sun, len, d->args[1]) != (ssize_t)len ||
		    sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
			return;		/* not a path (abstract, IP) */
		sun.sun_path[sizeof sun.sun_path - 1] = '\0';
		kind = c->kind;
		op = c->op;
		follow = false;
		if (sun.sun_path[0] == '/')
			path = pathwalk_normalise(NULL, sun.sun_path);
		else {
			_cleanup_free_ char *base = observe_base(mem.pid,
			    AT_FDCWD);

			if (base != NULL)
				path = pathwalk_normalise(base, sun.sun_path);
		}
		break;
	}
	case HOW_FD:
		kind = c->kind;
		op = c->op;
		follow = false;
		path = observe_base(mem.pid, (int)d->args[c->dirfd]);
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
		observe_record_rename(obs, sb, path, path2);
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
observe_record_exec(struct observer *obs, struct executions *es)
{
	if (obs != NULL)
		obs->exec_out = es;
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
	free(obs->rec_root);
	free(obs);
}
