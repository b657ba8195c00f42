/*
 * observe-proto: the two messages between bwgate and bwgate-helper.
 *
 * bwgate creates a SOCK_SEQPACKET socket pair, writes one struct
 * observe_hello followed by the seccomp program (ninsns struct
 * sock_filter, built by observe-filter.c) as one message into its end and
 * hands the other end to the helper, which bwrap runs first inside the
 * sandbox as
 *
 *	/run/bwgate/helper FD -- COMMAND [ARG...]
 *
 * The helper reads the hello, moves its socket to OBSERVE_SOCK_FD (the
 * program does not notify sendmsg there), installs the program (unless
 * told not to), answers with one struct observe_reply (carrying the listener
 * descriptor as SCM_RIGHTS when status is 0), with OBSERVE_F_WAIT and no
 * listener waits for one byte from bwgate (which then knows that the
 * change report cannot come from the notifications, and takes its
 * snapshot first), closes FD and execs the command (also when no listener
 * could be made: then bwgate infers refusals from the error output). End
 * of file instead of the byte, or an answer that cannot be sent, means
 * bwgate is gone: the helper exits without running the command, so a
 * sandbox whose supervisor was killed outright never runs unwatched
 * (bwrap's first process has no parent-death signal until it is
 * released). With a listener nothing is waited for: the command's execve
 * is notified, so it starts only when bwgate answers it, and it fails
 * (ENOSYS) when no listener is left. A prestarted sandbox (OBSERVE_F_ARGV) is made
 * before the request it will run is known: its helper gets the command
 * in the go message, after the request was approved. Kept free of other
 * bwgate headers:
 * the helper links nothing of bwgate but this.
 */
#ifndef BWGATE_OBSERVE_PROTO_H
#define BWGATE_OBSERVE_PROTO_H

#include <stdint.h>

#define OBSERVE_MAGIC		0x62776f62U	/* "bwob" */
#define OBSERVE_VERSION		7
/* Where the helper keeps its socket while the filter is on. */
#define OBSERVE_SOCK_FD		900
/* The largest program the helper accepts (instructions). */
#define OBSERVE_MAX_INSNS	4096

enum observe_hello_flags {
	OBSERVE_F_NET = (1 << 0),	/* also notify connect/sendto/sendmsg */
	OBSERVE_F_OFF = (1 << 1),	/* install nothing: answer "disabled" */
	OBSERVE_F_WAIT = (1 << 2),	/* after answering without a listener
					   (or with OBSERVE_F_ARGV), wait for
					   one byte */
	OBSERVE_F_RECORD = (1 << 3),	/* also notify what only the change
					   report needs (fchmod, ...) */
	OBSERVE_F_ARGV = (1 << 4),	/* the command comes with the go
					   message (a prestarted sandbox) */
	OBSERVE_F_SETID = (1 << 5),	/* the deny filter leaves setuid and
					   setgid modes to the observer: no
					   command without it (seccomp-deny.c) */
};

/* With OBSERVE_F_ARGV the go message is the command's arguments, each
   ended by a NUL, at most this long; the helper then runs as
   "HELPER FD" with no command of its own. */
#define OBSERVE_MAX_ARGV	(128 * 1024)

struct observe_hello {
	uint32_t	magic;
	uint32_t	version;
	uint32_t	flags;
	uint32_t	ninsns;		/* instructions following */
};

struct observe_reply {
	uint32_t	magic;
	int32_t		error;		/* 0: listener attached, else errno */
	uint64_t	mntns;		/* inode of the sandbox's mount ns */
	char		why[96];	/* when error != 0: what failed */
};

#endif
