/*
 * seccomp-deny: the deny filter every sandbox gets, built with libseccomp and
 * handed to bwrap as a BPF program in a memfd (`--seccomp FD`).
 *
 * It refuses (EPERM) what a build or a test never needs and what widens
 * the attack surface: io_uring, keyrings, bpf, perf, userfaultfd, kexec,
 * reboot, kernel modules, the mount API, namespace changes, ptrace (unless
 * debuggers are allowed), terminal input injection (TIOCSTI) and modes with
 * the setuid or setgid bit.
 */
#ifndef BWGATE_SECCOMP_DENY_H
#define BWGATE_SECCOMP_DENY_H

#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>

/* A readable descriptor holding the BPF program; -1 with cause. With
   setid_observed, calls that would set a setuid or setgid bit are left
   to the observer (SECCOMP_RET_USER_NOTIF, ENOSYS without a listener)
   instead of EPERM, so the report can name them (seccomp-deny.c). */
int	seccomp_deny_fd(bool allow_ptrace, bool allow_userns,
	    bool setid_observed, char **cause);
/* Add the rules for modes with S_ISUID or S_ISGID, with action, to a
   filter being built; 0 or -errno. */
int	seccomp_setid_rules(scmp_filter_ctx, uint32_t action);
/* Would this call (a notification's data) set a setuid or setgid bit? */
bool	seccomp_setid_call(const struct seccomp_data *);

#endif
