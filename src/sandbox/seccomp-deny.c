/* seccomp-deny: build the sandbox's syscall deny filter. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcache.h"
#include "seccomp-deny.h"
#include "xalloc.h"

/* Always denied. */
static const char *const seccomp_denied[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"kexec_load", "kexec_file_load", "reboot",
	"init_module", "finit_module", "delete_module",
	"swapon", "swapoff", "acct",
	"open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
	"syslog", "vhangup", "quotactl", "nfsservctl",
	/* Another process's memory or descriptors: even with debuggers
	   allowed (ptrace still can, but only with the operator's consent). */
	"process_vm_writev", "pidfd_getfd",
	NULL
};

/* Denied unless nested sandboxes are allowed (they need them inside
   their own user namespace, where they cannot reach the host). */
static const char *const seccomp_mount[] = {
	"mount", "umount", "umount2", "pivot_root", "chroot",
	"move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
	"mount_setattr", "setns", NULL
};

/* Denied unless debuggers are allowed. */
static const char *const seccomp_ptrace[] = {
	"ptrace", "process_vm_readv", "kcmp", NULL
};

static int
deny_list(scmp_filter_ctx ctx, const char *const *names)
{
	for (; *names != NULL; names++) {
		int nr = seccomp_syscall_resolve_name(*names);

		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0)
			return -1;
	}
	return 0;
}

/*
 * Namespace creation: unshare and clone with any CLONE_NEW* flag (one rule
 * per flag: libseccomp compares masked values for equality only). clone3
 * keeps its flags in memory the filter cannot read, so it gets ENOSYS and
 * libc falls back to clone.
 */
static int
deny_namespaces(scmp_filter_ctx ctx)
{
	static const scmp_datum_t flags[] = { CLONE_NEWNS, CLONE_NEWUSER,
	    CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWUTS, CLONE_NEWIPC,
	    CLONE_NEWCGROUP };

	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flags[i],
		    flags[i])) != 0)
			return -1;
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flags[i],
		    flags[i])) != 0)
			return -1;
	}
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
	    0);
}

/*
 * A working directory or descriptor table shared between processes
 * (clone with CLONE_FS or CLONE_FILES but not CLONE_THREAD): the change
 * report's observer reads a caller's directory and descriptors before
 * its call runs, and widens the report when another thread of the same
 * process could change them meanwhile; it counts threads, so sharing
 * stays within a thread group. Threads, fork, vfork and posix_spawn never
 * ask for it.
 */
static int
deny_shared_tables(scmp_filter_ctx ctx)
{
	static const scmp_datum_t shared[] = { CLONE_FS, CLONE_FILES };

	for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    shared[i] | CLONE_THREAD, shared[i])) != 0)
			return -1;
	}
	return 0;
}

/*
 * No setuid or setgid file or directory from a run: every call that
 * takes a mode is refused when the mode has S_ISUID or S_ISGID. The mode
 * is a register, so the filter reads what the kernel will use (no race).
 * open and openat count only with O_CREAT or O_TMPFILE in their flags (a
 * register too): otherwise the kernel ignores the mode, and a raw call
 * may leave anything there. A directory's setgid bit
 * goes too (chmod of such a directory that keeps the bit fails). The
 * table is {name, argument holding the mode}.
 *
 * The answer: SECCOMP_RET_ERRNO outranks the observer's notification, so
 * an EPERM here is never seen by the change report. When the observer
 * will be there (seccomp_deny_fd's setid_observed), these calls are
 * SECCOMP_RET_USER_NOTIF instead, and the observer's own program has the
 * same rules (seccomp_setid_rules): the kernel hands the call to the
 * newest filter that notifies, the observer's, which answers EPERM and
 * records it (seccomp_setid_call). Should no listener be there, the
 * kernel answers ENOSYS: still refused. A command cannot put a listener
 * of its own in front: once the observer has one the kernel refuses
 * another (EBUSY), and the helper does not run the command when it could
 * not install the observer's (bwgate-helper.c).
 *
 * openat2 carries its mode in memory (struct open_how) that another
 * thread can change after any check. With the observer, every openat2
 * is made by its delegate from the copy bwgate read (observe-act.c), and
 * the delegate makes no setuid or setgid mode (helper-act.c); the
 * delegate itself runs under this filter, so openat2 must pass here.
 * Without the observer it gets ENOSYS, as clone3 does, and callers fall
 * back to openat. glibc, musl, Go's and Rust's standard
 * libraries never call openat2 for open(); programs that do call it
 * (systemd, libpathrs) treat ENOSYS as "kernel before 5.6" and fall back.
 */
static const struct {
	const char	*name;
	unsigned int	 arg;
	int		 flags;	/* open-style: the flags' argument (the mode
				   counts with O_CREAT or O_TMPFILE only) */
} seccomp_modes[] = {
	{ "chmod", 1, -1 }, { "fchmod", 1, -1 }, { "fchmodat", 2, -1 },
	{ "fchmodat2", 2, -1 }, { "mkdir", 1, -1 }, { "mkdirat", 2, -1 },
	{ "mknod", 1, -1 }, { "mknodat", 2, -1 }, { "open", 2, 1 },
	{ "openat", 3, 2 }, { "creat", 1, -1 },
};

/* The open flags that make open use its mode (__O_TMPFILE: the bit of
   O_TMPFILE without O_DIRECTORY). */
static const scmp_datum_t seccomp_creates[] = { O_CREAT,
	O_TMPFILE & ~O_DIRECTORY };

/* fchmodat2 (Linux 6.6) has the same number on every architecture. */
#define SECCOMP_NR_FCHMODAT2	452

int
seccomp_setid_rules(scmp_filter_ctx ctx, uint32_t action)
{
	static const scmp_datum_t bits[] = { S_ISUID, S_ISGID };
	int	nr, rc;

	for (size_t i = 0; i < sizeof seccomp_modes / sizeof seccomp_modes[0];
	    i++) {
		nr = seccomp_syscall_resolve_name(seccomp_modes[i].name);
		if (nr == __NR_SCMP_ERROR &&
		    strcmp(seccomp_modes[i].name, "fchmodat2") == 0) {
			/* Unknown to this libseccomp: all of it, ENOSYS
			   (glibc falls back to fchmodat, filtered here). */
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
			    SECCOMP_NR_FCHMODAT2, 0);
			if (rc != 0)
				return rc;
			continue;
		}
		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
			for (size_t c = 0; c < sizeof seccomp_creates /
			    sizeof seccomp_creates[0]; c++) {
				struct scmp_arg_cmp cmp[2] = {
				    { seccomp_modes[i].arg, SCMP_CMP_MASKED_EQ,
				      bits[b], bits[b] },
				    { (unsigned)seccomp_modes[i].flags,
				      SCMP_CMP_MASKED_EQ, seccomp_creates[c],
				      seccomp_creates[c] } };

				if (seccomp_modes[i].flags < 0 && c > 0)
					break;
				rc = seccomp_rule_add_array(ctx, action, nr,
				    seccomp_modes[i].flags < 0 ? 1 : 2, cmp);
				if (rc != 0)
					return rc;
			}
	}
	return 0;
}

/* Does call i of the table, with these arguments, set a bit? */
static bool
setid_args(size_t i, const __u64 *args)
{
	uint64_t	creates = O_CREAT | (O_TMPFILE & ~O_DIRECTORY);

	if (seccomp_modes[i].flags >= 0 &&
	    (args[seccomp_modes[i].flags] & creates) == 0)
		return false;
	return (args[seccomp_modes[i].arg] & (S_ISUID | S_ISGID)) != 0;
}

bool
seccomp_setid_call(const struct seccomp_data *d)
{
	/* The native numbers, resolved once (every notification asks). */
	static int	 nrs[sizeof seccomp_modes / sizeof seccomp_modes[0]];
	static uint32_t	 native;
	char		*name;
	bool		 setid = false;

	if (native == 0) {
		for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++)
			nrs[i] = seccomp_syscall_resolve_name(
			    seccomp_modes[i].name);
		native = seccomp_arch_native();
	}
	if (d->arch == native) {
		for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++)
			if (nrs[i] == d->nr)
				return setid_args(i, d->args);
		return false;
	}
	if ((name = seccomp_syscall_resolve_num_arch(d->arch, d->nr)) == NULL)
		return false;
	for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++)
		if (strcmp(seccomp_modes[i].name, name) == 0)
			setid = setid_args(i, d->args);
	free(name);
	return setid;
}

/* FNV-1a over the names (and mode arguments) in the tables. */
static uint32_t
deny_tables_hash(void)
{
	const char *const	*tables[] = { seccomp_denied, seccomp_ptrace,
				    seccomp_mount };
	uint32_t		 h = 2166136261u;

	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
		for (const char *const *n = tables[t]; *n != NULL; n++)
			for (const char *c = *n; ; c++) {
				h = (h ^ (unsigned char)*c) * 16777619u;
				if (*c == '\0')
					break;
			}
	for (size_t i = 0; i < sizeof seccomp_modes / sizeof seccomp_modes[0];
	    i++) {
		for (const char *c = seccomp_modes[i].name; *c != '\0'; c++)
			h = (h ^ (unsigned char)*c) * 16777619u;
		h = (h ^ seccomp_modes[i].arg) * 16777619u;
		h = (h ^ (uint32_t)seccomp_modes[i].flags) * 16777619u;
	}
	return h;
}

struct deny_args {
	bool	allow_ptrace;
	bool	allow_userns;
	bool	setid_observed;
};

/* Compile the deny filter into prog. */
static int
deny_build(void *arg, struct buf *prog, char **cause)
{
	const struct deny_args	*a = arg;
	scmp_filter_ctx		 ctx;
	int			 rc, nr;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL) {
		*cause = xstrdup("cannot initialise seccomp");
		return -1;
	}
	/* 32-bit and x32 binaries use other syscall numbers: cover them. */
#if defined(__x86_64__)
	seccomp_arch_add(ctx, SCMP_ARCH_X86);
	seccomp_arch_add(ctx, SCMP_ARCH_X32);
#endif
	rc = deny_list(ctx, seccomp_denied);
	if (rc == 0 && !a->allow_ptrace)
		rc = deny_list(ctx, seccomp_ptrace);
	if (rc == 0 && !a->allow_userns)
		rc = deny_list(ctx, seccomp_mount);
	if (rc == 0 && !a->allow_userns)
		rc = deny_namespaces(ctx);
	if (rc == 0)
		rc = deny_shared_tables(ctx);
	if (rc == 0)
		rc = seccomp_setid_rules(ctx, a->setid_observed ?
		    SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM));
	if (rc == 0 && !a->setid_observed &&
	    (nr = seccomp_syscall_resolve_name("openat2")) != __NR_SCMP_ERROR)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffu, TIOCSTI));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ,
		    0xffffffffu, TIOCLINUX));
	if (rc != 0)
		*cause = xasprintf("cannot build the seccomp filter: %s",
		    strerror(-rc));
	else
		rc = bpf_export(ctx, prog, cause);
	seccomp_release(ctx);
	return rc == 0 ? 0 : -1;
}

int
seccomp_deny_fd(bool allow_ptrace, bool allow_userns, bool setid_observed,
    char **cause)
{
	struct deny_args	 a = { allow_ptrace, allow_userns,
				    setid_observed };
	struct buf		 prog = BUF_INIT;
	char			 name[32];
	int			 fd;

	/* Keyed by the tables too, so an edited table is never stale; the
	   version retires older programs (deny2: before pidfd_getfd, deny3:
	   before shared working directories and descriptor tables, deny4:
	   before setuid and setgid modes). */
	snprintf(name, sizeof name, "deny4-%d%d%d-%08x", allow_ptrace,
	    allow_userns, setid_observed, deny_tables_hash());
	if (bpf_cache_get(name, deny_build, &a, &prog, cause) != 0)
		return -1;
	/* bwrap reads the program from a descriptor. */
	fd = memfd_create("bwgate-seccomp", MFD_CLOEXEC);
	if (fd < 0 || write(fd, prog.data, prog.len) != (ssize_t)prog.len ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		*cause = xasprintf("cannot pass the seccomp filter: %s",
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	buf_release(&prog);
	return fd;
}
