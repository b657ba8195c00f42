/*
 * write-proto: a file write as data, from the console to the helper's
 * write mode inside the sandbox (bwgate-helper --write, helper-write.c).
 *
 * The console (console/filereq.c) never turns an agent's path or content
 * into shell text: the request runs the fixed argv
 *
 *	/run/bwgate/helper --write
 *
 * and this message arrives on its stdin, then the end of input:
 *
 *	bwgate-write 1\n
 *	path LEN\n	LEN bytes: project-relative, no NUL, then \n
 *	was new\n	the file must not exist yet, or
 *	was sha256 HEX\n	its SHA-256 must still be HEX (what the diff the
 *			operator saw was made from)
 *	content LEN\n	LEN bytes exactly (NUL and any byte kept), then EOF
 *
 * The helper opens the path beneath its working directory, the project
 * root (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, util/beneath.c),
 * checks what "was" says (a mismatch: exit WRITE_EXIT_CONFLICT, nothing
 * written), writes a temporary file beside it and renames it into place
 * (a new file: never over one that appeared meanwhile). Exit 0: written;
 * WRITE_EXIT_REFUSED: the path cannot be written (a protected, read-only
 * mount; a symbolic link; a directory); WRITE_EXIT_BAD: no valid message.
 * What went wrong is one line on stderr.
 */
#ifndef BWGATE_WRITE_PROTO_H
#define BWGATE_WRITE_PROTO_H

#define WRITE_PROTO_MAGIC	"bwgate-write 1\n"
#define WRITE_PROTO_ARG		"--write"
/* The largest content (the console refuses more before asking). */
#define WRITE_PROTO_MAX		(512 * 1024)
#define WRITE_PROTO_MAX_PATH	4096

#define WRITE_EXIT_CONFLICT	3
#define WRITE_EXIT_REFUSED	4
#define WRITE_EXIT_BAD		125

#endif
