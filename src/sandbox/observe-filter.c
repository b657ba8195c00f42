/*
 * observe-filter: build (or load from the cache) the observer's program.
 *
 * The rule table lists the write-intent system calls; open-style calls are
 * notified only when their flags can write. The helper's own reply socket
 * sits at OBSERVE_SOCK_FD, so its sendmsg is not notified (it would wait
 * for a listener that is still on its way to bwgate).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/fs.h>
#include <unistd.h>

#include "bpfcache.h"
#include "observe-filter.h"
#include "observe-proto.h"
#include "seccomp-deny.h"
#include "xalloc.h"

/* linux/falloc.h's, missing from older headers: fallocate by ioctl. */
struct filter_space_resv {
	int16_t		l_type, l_whence;
	int64_t		l_start, l_len;
	int32_t		l_sysid;
	uint32_t	l_pid;
	int32_t		l_pad[4];
};
#ifndef FS_IOC_UNRESVSP
#define FS_IOC_UNRESVSP		_IOW('X', 41, struct filter_space_resv)
#endif
#ifndef FS_IOC_UNRESVSP64
#define FS_IOC_UNRESVSP64	_IOW('X', 43, struct filter_space_resv)
#endif
#ifndef FS_IOC_ZERO_RANGE
#define FS_IOC_ZERO_RANGE	_IOW('X', 57, struct filter_space_resv)
#endif
#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND	0x00000020	/* Linux 6.9 */
#endif

/* A system call to notify on, with at most one argument condition. */
struct filter_rule {
	const char		*name;
	int			 net;	/* only with OBSERVE_F_NET (1) or
					   OBSERVE_F_RECORD (2) */
	int			 arg;	/* -1: always */
	enum scmp_compare	 op;
	scmp_datum_t		 a;
	scmp_datum_t		 b;
};

#define ALWAYS(n)		{ n, 0, -1, 0, 0, 0 }
#define RECORD(n)		{ n, 2, -1, 0, 0, 0 }
#define MASKED(n, i, m, v)	{ n, 0, i, SCMP_CMP_MASKED_EQ, m, v }
/*
 * An address bwgate judges (IPv4, IPv6) by its length: sockaddr_in,
 * sockaddr_in6 or sockaddr_storage. A unix socket's address (every
 * getpwnam asking nscd, hundreds in a build) is not notified; a short
 * path that happens to have one of these lengths is, and is let be.
 */
#define INETLEN(n, net, i)						\
	{ n, net, i, SCMP_CMP_EQ, sizeof(struct sockaddr_in), 0 },	\
	{ n, net, i, SCMP_CMP_EQ, sizeof(struct sockaddr_in6), 0 },	\
	{ n, net, i, SCMP_CMP_EQ, sizeof(struct sockaddr_storage), 0 }
/* open-style flags that mean "may write": one rule per test (OR). */
#define OPENFLAGS(n, i)							\
	MASKED(n, i, O_ACCMODE, O_WRONLY),				\
	MASKED(n, i, O_ACCMODE, O_RDWR),				\
	MASKED(n, i, O_CREAT, O_CREAT),					\
	MASKED(n, i, O_TRUNC, O_TRUNC)

static const struct filter_rule filter_rules[] = {
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
	/* A unix socket bound to a path makes a name: judged as a create
	   (its family is in memory: every bind). */
	ALWAYS("bind"),
	/* Recording changes: calls on a descriptor open for reading. */
	RECORD("fchmod"), RECORD("fchown"),
	RECORD("fsetxattr"), RECORD("fremovexattr"),
	/* What can change a file opened to append anywhere (undo keeps
	   only its old length; write only, so it cannot be mapped):
	   ftruncate, fallocate and its ioctls (hole punching and zeroing),
	   O_APPEND cleared (F_SETFL), pwritev2's RWF_NOAPPEND, asynchronous
	   writes (their flags are in memory). Commands are ints: the kernel
	   ignores the register's upper half, so the rule does too. */
	RECORD("ftruncate"), RECORD("fallocate"),
	{ "fcntl", 2, 1, SCMP_CMP_MASKED_EQ, 0xffffffff, F_SETFL },
	{ "ioctl", 2, 1, SCMP_CMP_MASKED_EQ, 0xffffffff, FS_IOC_UNRESVSP },
	{ "ioctl", 2, 1, SCMP_CMP_MASKED_EQ, 0xffffffff, FS_IOC_UNRESVSP64 },
	{ "ioctl", 2, 1, SCMP_CMP_MASKED_EQ, 0xffffffff, FS_IOC_ZERO_RANGE },
	{ "pwritev2", 2, 5, SCMP_CMP_MASKED_EQ, RWF_NOAPPEND, RWF_NOAPPEND },
	RECORD("io_submit"),
	/* Where a thread's relative paths lead: another thread of the same
	   process may be resolving one (the change report widens). */
	RECORD("chdir"), RECORD("fchdir"),
	/* What actually runs: recorded, never refused (report "executed"). */
	ALWAYS("execve"), ALWAYS("execveat"),
	INETLEN("connect", 1, 2),
	/* sendto with a destination address (not connected sockets). */
	INETLEN("sendto", 1, 5),
	/* sendmsg except on the helper's own socket. */
	{ "sendmsg", 1, 0, SCMP_CMP_NE, OBSERVE_SOCK_FD, 0 },
};

/* Compile the table with libseccomp into prog. */
static int
filter_compile(uint32_t flags, struct buf *prog, char **cause)
{
	scmp_filter_ctx	 ctx;
	const char	*what = "seccomp_init";
	int		 rc = 0, nr;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		*cause = xstrdup("cannot build the observer filter: "
		    "seccomp_init failed");
		return -1;
	}
	/* Other architectures run unobserved (the deny filter still holds). */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	for (size_t i = 0; rc == 0 &&
	    i < sizeof filter_rules / sizeof filter_rules[0]; i++) {
		const struct filter_rule *r = &filter_rules[i];
		struct scmp_arg_cmp	 cmp;

		if (r->net == 1 && (flags & OBSERVE_F_NET) == 0)
			continue;
		if (r->net == 2 && (flags & OBSERVE_F_RECORD) == 0)
			continue;
		nr = seccomp_syscall_resolve_name(r->name);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* unknown to this libseccomp */
		what = r->name;
		if (r->arg < 0) {
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
			continue;
		}
		cmp.arg = (unsigned)r->arg;
		cmp.op = r->op;
		cmp.datum_a = r->a;
		cmp.datum_b = r->b;
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
	}
	/* Setuid and setgid modes: refused by the observer, which must be
	   the filter the kernel hands them to (seccomp-deny.c). */
	if (rc == 0 && (flags & OBSERVE_F_SETID)) {
		what = "setid modes";
		rc = seccomp_setid_rules(ctx, SCMP_ACT_NOTIFY);
	}
	if (rc != 0) {
		*cause = xasprintf("cannot build the observer filter (%s): %s",
		    what, strerror(rc < 0 ? -rc : rc));
		seccomp_release(ctx);
		return -1;
	}
	rc = bpf_export(ctx, prog, cause);
	seccomp_release(ctx);
	return rc;
}

static int
filter_build(void *arg, struct buf *prog, char **cause)
{
	return filter_compile(*(uint32_t *)arg, prog, cause);
}

int
observe_filter_build(uint32_t flags, struct buf *prog, char **cause)
{
	uint32_t	h = 2166136261u;
	char		name[64];

	/* Keyed by the rule table too, so an edited table is never stale. */
	for (size_t i = 0; i < sizeof filter_rules / sizeof filter_rules[0];
	    i++) {
		const unsigned char *p = (const void *)&filter_rules[i];

		for (const char *c = filter_rules[i].name; *c != '\0'; c++)
			h = (h ^ (unsigned char)*c) * 16777619u;
		for (size_t k = sizeof(const char *); k < sizeof filter_rules[0];
		    k++)
			h = (h ^ p[k]) * 16777619u;
	}
	snprintf(name, sizeof name, "observe-%u-v%d-%08x", flags,
	    OBSERVE_VERSION, h);
	return bpf_cache_get(name, filter_build, &flags, prog, cause);
}
