/*
 * helper-write: `bwgate-helper --write`, a file write from the message on
 * fd (write-proto.h), beneath the working directory. Returns the exit
 * status (0 written, WRITE_EXIT_*).
 */
#ifndef BWGATE_HELPER_WRITE_H
#define BWGATE_HELPER_WRITE_H

int	helper_write(int fd);

#endif
