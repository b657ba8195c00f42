/*
 * bwgate-helper: runs first inside the sandbox, installs the violation
 * observer's seccomp filter, hands its listener to bwgate, then becomes
 * the command.
 *
 *	bwgate-helper FD -- COMMAND [ARG...]
 *
 * FD is one end of a SOCK_SEQPACKET pair (observe-proto.h). The filter
 * returns SECCOMP_RET_USER_NOTIF for write-intent system calls and allows
 * everything else; bwgate answers every notification with CONTINUE, so
 * the filter only lets bwgate see what the command tries. The mounts
 * enforce. If the filter cannot be installed (no user notification here),
 * the helper says why and runs the command anyway (bwgate then infers
 * refusals from the error output).
 *
 * Kept tiny: libc and libseccomp only, both visible in every sandbox.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "observe-proto.h"

/* A system call to notify on, with at most one argument condition. */
struct helper_rule {
	const char		*name;
	int			 net;	/* only with OBSERVE_F_NET */
	int			 arg;	/* -1: always */
	enum scmp_compare	 op;
	scmp_datum_t		 a;
	scmp_datum_t		 b;
};

#define ALWAYS(n)		{ n, 0, -1, 0, 0, 0 }
#define MASKED(n, i, m, v)	{ n, 0, i, SCMP_CMP_MASKED_EQ, m, v }
/* open-style flags that mean "may write": one rule per test (OR). */
#define OPENFLAGS(n, i)							\
	MASKED(n, i, O_ACCMODE, O_WRONLY),				\
	MASKED(n, i, O_ACCMODE, O_RDWR),				\
	MASKED(n, i, O_CREAT, O_CREAT),					\
	MASKED(n, i, O_TRUNC, O_TRUNC)

static const struct helper_rule helper_rules[] = {
	OPENFLAGS("open", 1),
	OPENFLAGS("openat", 2),
	ALWAYS("openat2"),	/* flags are in a struct: bwgate reads them */
	ALWAYS("creat"),
	ALWAYS("mkdir"), ALWAYS("mkdirat"),
	ALWAYS("mknod"), ALWAYS("mknodat"),
	ALWAYS("unlink"), ALWAYS("unlinkat"), ALWAYS("rmdir"),
	ALWAYS("rename"), ALWAYS("renameat"), ALWAYS("renameat2"),
	ALWAYS("link"), ALWAYS("linkat"),
	ALWAYS("symlink"), ALWAYS("symlinkat"),
	ALWAYS("truncate"),
	ALWAYS("chmod"), ALWAYS("fchmodat"), ALWAYS("fchmodat2"),
	ALWAYS("chown"), ALWAYS("lchown"), ALWAYS("fchownat"),
	ALWAYS("utime"), ALWAYS("utimes"), ALWAYS("futimesat"),
	ALWAYS("utimensat"),
	ALWAYS("setxattr"), ALWAYS("lsetxattr"),
	ALWAYS("removexattr"), ALWAYS("lremovexattr"),
	{ "connect", 1, -1, 0, 0, 0 },
	/* sendto with a destination address (not connected sockets). */
	{ "sendto", 1, 4, SCMP_CMP_NE, 0, 0 },
	/* sendmsg except on our own socket (filled in at run time). */
	{ "sendmsg", 1, 0, SCMP_CMP_NE, 0, 0 },
};

static void	helper_reply(int, int, int, const char *);
static int	helper_install(int, uint32_t, const char **);

/* Send the answer, with the listener attached when there is one. */
static void
helper_reply(int sock, int listener, int error, const char *why)
{
	struct observe_reply	 r;
	struct iovec		 iov = { &r, sizeof r };
	struct msghdr		 msg;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct cmsghdr		*c;
	struct stat		 st;

	memset(&r, 0, sizeof r);
	memset(&msg, 0, sizeof msg);
	memset(&u, 0, sizeof u);
	r.magic = OBSERVE_MAGIC;
	r.error = error;
	/* Which mount namespace is the sandbox's (bwgate checks callers). */
	if (stat("/proc/self/ns/mnt", &st) == 0)
		r.mntns = st.st_ino;
	if (why != NULL)
		snprintf(r.why, sizeof r.why, "%s", why);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (listener >= 0) {
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof u.buf;
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &listener, sizeof(int));
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Build and load the filter; the listener or -1 with errno and *why. */
static int
helper_install(int sock, uint32_t flags, const char **why)
{
	scmp_filter_ctx	 ctx;
	int		 rc, fd, nr;
	size_t		 i;

	*why = "seccomp_init";
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	/* Other architectures run unobserved (the deny filter still holds). */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	for (i = 0; rc == 0 && i < sizeof helper_rules / sizeof *helper_rules;
	    i++) {
		const struct helper_rule *h = &helper_rules[i];
		struct scmp_arg_cmp	 cmp;

		if (h->net && (flags & OBSERVE_F_NET) == 0)
			continue;
		nr = seccomp_syscall_resolve_name(h->name);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* unknown to this libseccomp */
		*why = h->name;
		if (h->arg < 0) {
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
			continue;
		}
		cmp.arg = (unsigned)h->arg;
		cmp.op = h->op;
		cmp.datum_a = h->a;
		cmp.datum_b = h->b;
		if (strcmp(h->name, "sendmsg") == 0)
			cmp.datum_a = (scmp_datum_t)sock;
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
	}
	if (rc == 0) {
		*why = "seccomp_load";
		/* bwrap already set it; needed when run outside bwrap. */
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		rc = seccomp_load(ctx);
	}
	if (rc == 0) {
		*why = "seccomp_notify_fd";
		fd = seccomp_notify_fd(ctx);
		rc = fd >= 0 ? 0 : fd;
	}
	seccomp_release(ctx);
	if (rc != 0) {
		errno = rc < 0 ? -rc : EINVAL;
		return -1;
	}
	return fd;
}

/*
 * In sanitizer builds: LeakSanitizer needs ptrace, which the sandbox's
 * filter denies, and it would turn a failed exec's status into 1.
 */
int __lsan_is_turned_off(void);
int
__lsan_is_turned_off(void)
{
	return 1;
}

int
main(int argc, char **argv)
{
	struct observe_hello	 hello;
	const char		*why = NULL;
	char			*end, whybuf[96];
	long			 sock;
	int			 listener = -1, error = 0, e;
	ssize_t			 n;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: bwgate-helper FD -- COMMAND [ARG...]\n");
		return 125;
	}
	errno = 0;
	sock = strtol(argv[1], &end, 10);
	if (errno != 0 || *end != '\0' || sock < 3 || sock > INT_MAX) {
		fprintf(stderr, "bwgate-helper: bad descriptor '%s'\n", argv[1]);
		return 125;
	}

	/* bwgate wrote the hello before bwrap started: never wait for it. */
	memset(&hello, 0, sizeof hello);
	n = recv((int)sock, &hello, sizeof hello, MSG_DONTWAIT);
	if (n != (ssize_t)sizeof hello || hello.magic != OBSERVE_MAGIC ||
	    hello.version != OBSERVE_VERSION) {
		error = EPROTO;
		why = "no hello from bwgate";
	} else if (hello.flags & OBSERVE_F_OFF) {
		error = ENOSYS;
		why = "disabled";
	} else if ((listener = helper_install((int)sock, hello.flags,
	    &why)) < 0) {
		error = errno;
		snprintf(whybuf, sizeof whybuf, "%s: %s", why, strerror(errno));
		why = whybuf;
	}
	helper_reply((int)sock, listener, error, why);
	if (listener >= 0)
		close(listener);
	close((int)sock);
	execvp(argv[3], argv + 3);
	e = errno;
	if (e == ENOENT || e == ENOTDIR) {
		fprintf(stderr, "bwgate-helper: %s: not found\n", argv[3]);
		return 127;
	}
	fprintf(stderr, "bwgate-helper: %s: %s\n", argv[3], strerror(e));
	return 126;
}
