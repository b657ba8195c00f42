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
#define OBSERVE_VERSION		9
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

/*
 * The delegate (helper-act.c). Before installing the filter the helper
 * forks a process that stays in the sandbox (its user and mount
 * namespaces, its credentials, its root) outside the filter, and sends
 * its socket to bwgate beside the listener (the reply's second
 * descriptor). For a call that creates, renames, links, removes, writes
 * or changes a mode, bwgate sends one struct observe_act followed by
 * len1 + len2 bytes (two NUL-ended paths, absolute in the sandbox's view,
 * with no symbolic link on the way: what bwgate judged), and optionally
 * one descriptor (OBSERVE_ACT_F_FD: the file itself, pinned by bwgate;
 * for a bind, the caller's socket, taken with pidfd_getfd).
 * The delegate makes the call on exactly those names, refusing to follow
 * any link (so a name changed meanwhile fails, it never leads elsewhere),
 * and answers one struct observe_act_reply, with the opened descriptor
 * for an open.
 */
enum observe_act_op {
	OBSERVE_ACT_OPEN = 1,	/* path1, flags, mode: a descriptor back */
	OBSERVE_ACT_MKDIR,	/* path1, mode */
	OBSERVE_ACT_MKNOD,	/* path1, mode, arg = dev */
	OBSERVE_ACT_SYMLINK,	/* path1 the new name, path2 the target text */
	OBSERVE_ACT_LINK,	/* path1 the new name, path2 (or the fd) the
				   existing file */
	OBSERVE_ACT_RENAME,	/* path1 from, path2 to, flags (renameat2) */
	OBSERVE_ACT_UNLINK,	/* path1, flags (AT_REMOVEDIR) */
	OBSERVE_ACT_TRUNCATE,	/* path1, arg = length */
	OBSERVE_ACT_CHMOD,	/* path1 (or the fd), mode */
	OBSERVE_ACT_BIND,	/* path1, the caller's socket (the fd; with
				   OBSERVE_ACT_F_AT the second): bound there */
};

#define OBSERVE_ACT_F_FD	(1U << 0)	/* a descriptor comes along */
/* A call from another mount namespace (a nested sandbox): the first
   descriptor is the directory of path1, which is then one name; for a
   rename the second is the directory of path2 (one name), for a link the
   second is the existing file (path2 unused). */
#define OBSERVE_ACT_F_AT	(1U << 1)

struct observe_act {
	uint32_t	op;
	uint32_t	flags;		/* the call's own flags */
	uint32_t	aflags;		/* OBSERVE_ACT_F_* */
	uint32_t	umask;		/* the caller's */
	uint64_t	mode;
	uint64_t	arg;
	uint32_t	len1;		/* with the NUL */
	uint32_t	len2;
};

/* At most this much follows a struct observe_act. */
#define OBSERVE_ACT_MAX		(2 * 4096 + 8)

struct observe_act_reply {
	int32_t		error;		/* 0, or the errno of the call */
	int32_t		pad;
};

#endif
