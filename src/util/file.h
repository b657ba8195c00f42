/*
 * file: writing files that must survive a crash, and making directories.
 *
 *	if (mkdir_p(dir, 0700, &cause) != 0) ...
 *	if (file_write_atomic(path, text, len, 0600, &cause) != 0) ...
 *
 * file_write_atomic writes a temporary file beside the target (created
 * exclusively, never through a symlink), fsyncs it, renames it over the
 * target and fsyncs the directory: a reader sees the old contents or the
 * new, never half, and after it returns 0 the new contents survive a
 * crash. file_write_replace does the same without the syncs, for caches:
 * a reader still never sees half, but a crash may lose the new contents.
 * All return -1 with *cause (one line naming the path) on error.
 */
#ifndef BWGATE_FILE_H
#define BWGATE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* mkdir -p: create dir and its missing parents with mode. */
int	mkdir_p(const char *dir, mode_t mode, char **cause);
/* Replace path with len bytes of data (mode for the new file). */
int	file_write_atomic(const char *path, const void *data, size_t len,
	    mode_t mode, char **cause);
int	file_write_replace(const char *path, const void *data, size_t len,
	    mode_t mode, char **cause);
/* Is path (not followed) still the file we made, st (device, inode)?
   For removing our own socket without removing a successor's. */
bool	file_is_still(const char *path, const struct stat *st);

#endif
