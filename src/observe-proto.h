/*
 * observe-proto: the two messages between bwgate and bwgate-helper.
 *
 * bwgate creates a SOCK_SEQPACKET socket pair, writes one struct
 * observe_hello into its end and hands the other end to the helper, which
 * bwrap runs first inside the sandbox as
 *
 *	/run/bwgate/helper FD -- COMMAND [ARG...]
 *
 * The helper reads the hello, installs its seccomp filter (unless told
 * not to), answers with one struct observe_reply (carrying the listener
 * descriptor as SCM_RIGHTS when status is 0), closes FD and execs the
 * command (also when no listener could be made: then bwgate infers
 * refusals from the error output). Kept free of other bwgate headers:
 * the helper links nothing of bwgate but this.
 */
#ifndef BWGATE_OBSERVE_PROTO_H
#define BWGATE_OBSERVE_PROTO_H

#include <stdint.h>

#define OBSERVE_MAGIC		0x62776f62U	/* "bwob" */
#define OBSERVE_VERSION		2

enum observe_hello_flags {
	OBSERVE_F_NET = (1 << 0),	/* also notify connect/sendto/sendmsg */
	OBSERVE_F_OFF = (1 << 1),	/* install nothing: answer "disabled" */
};

struct observe_hello {
	uint32_t	magic;
	uint32_t	version;
	uint32_t	flags;
	uint32_t	reserved;
};

struct observe_reply {
	uint32_t	magic;
	int32_t		error;		/* 0: listener attached, else errno */
	uint64_t	mntns;		/* inode of the sandbox's mount ns */
	char		why[96];	/* when error != 0: what failed */
};

#endif
