/*
 * helper-write: `bwgate-helper --write`, a file write from the message on
 * fd (write-proto.h), beneath the working directory.
 *
 *	rc = helper_write(0);	the exit status: 0 written, WRITE_EXIT_*
 */
#ifndef BWGATE_HELPER_WRITE_H
#define BWGATE_HELPER_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"
#include "write-proto.h"

/* What a message says. */
struct write_msg {
	char		 path[WRITE_PROTO_MAX_PATH + 1];
	bool		 created;		/* "was new" */
	char		 was[SHA256_HEX_LEN + 1];	/* or "" */
	const char	*content;		/* points into the message */
	size_t		 len;
};

int	helper_write(int fd);
/* Parse a whole message of n bytes: 0, or -1 when it is not exactly one
   message in the one way to write it (write-proto.h). */
int	helper_write_parse(const char *b, size_t n, struct write_msg *);

#endif
