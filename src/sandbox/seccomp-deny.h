/*
 * seccomp-deny: the deny filter every sandbox gets, built with libseccomp and
 * handed to bwrap as a BPF program in a memfd (`--seccomp FD`).
 *
 * It refuses (EPERM) what a build or a test never needs and what widens
 * the attack surface: io_uring, keyrings, bpf, perf, userfaultfd, kexec,
 * reboot, kernel modules, the mount API, namespace changes, ptrace (unless
 * debuggers are allowed) and terminal input injection (TIOCSTI).
 */
#ifndef BWGATE_SECCOMP_DENY_H
#define BWGATE_SECCOMP_DENY_H

#include <stdbool.h>

/* A readable descriptor holding the BPF program; -1 with cause. */
int	seccomp_deny_fd(bool allow_ptrace, bool allow_userns, char **cause);

#endif
