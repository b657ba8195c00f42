/*
 * beneath: open paths an untrusted party names, without leaving a
 * directory. A path is first checked as text (beneath_relative: no "..",
 * absolute only inside the directory), then opened beneath the directory's
 * descriptor with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so
 * neither a symbolic link nor a rename race leads out. Where openat2 is
 * missing (ENOSYS, Linux before 5.6, or a seccomp filter that refuses it)
 * each component is opened in turn with O_NOFOLLOW and checked to be a
 * directory. Symbolic links are never followed, even inside.
 *
 *	char *rel = beneath_relative("/home/u/proj", agent_path, &cause);
 *	int dfd = open("/home/u/proj", O_PATH | O_DIRECTORY | O_CLOEXEC);
 *	int fd = beneath_open(dfd, rel, O_RDONLY, 0, &cause);
 */
#ifndef BWGATE_BENEATH_H
#define BWGATE_BENEATH_H

#include <stdbool.h>
#include <sys/types.h>

/* path relative to root, normalised ("." for root itself; caller frees);
   NULL with cause for "", "..", or an absolute path elsewhere. */
char	*beneath_relative(const char *root, const char *path, char **cause);
/* Open rel beneath dirfd (flags as for openat); -1 with cause and errno
   (ENOENT, ELOOP for a symbolic link, EXDEV for a way out, ...). */
int	 beneath_open(int dirfd, const char *rel, int flags, mode_t mode,
	    char **cause);
/* Open the directory holding rel (creating missing ones when mkdirs);
   *name is rel's last component (points into rel). -1 with cause. */
int	 beneath_parent(int dirfd, const char *rel, bool mkdirs,
	    const char **name, char **cause);

#endif
