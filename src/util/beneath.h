/*
 * beneath: the one door through which bwgate touches the project (and any
 * directory an untrusted party can write) on the host side.
 *
 * The project's root is opened once per run (beneath_root: O_PATH, its
 * device and inode kept), and every lookup, open, creation, removal and
 * rename below it goes through this module, relative to that descriptor:
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
 * with RESOLVE_NO_XDEV for what removes or moves (BENEATH_NO_XDEV). So
 * neither a symbolic link nor a directory swapped for one by a racing
 * sandbox of the same project leads outside, and no mount inside is
 * crossed by a removal. Symbolic links are never followed, even inside.
 * tests/build/door.sh checks that no other object of bwgate imports the
 * calls that name files relative to a directory or remove them (openat,
 * unlinkat, renameat, mkdirat, statx, ...), but for a short list of
 * objects that handle only bwgate's own directories or /proc.
 *
 * Where openat2 is missing (ENOSYS, Linux before 5.6, or a seccomp filter
 * that refuses it) each component is opened in turn with O_NOFOLLOW and
 * checked to be a directory (and on the root's device for NO_XDEV).
 *
 * Walking a tree (gitscan) holds a directory's descriptor
 * and opens one name below it (beneath_child: O_NOFOLLOW, never "..", "."
 * or a name with '/'), and climbs back with beneath_up, which checks the
 * parent is the one it left (device and inode), so a tree of any depth is
 * walked with two descriptors.
 *
 * Removal is proof-based (beneath_dispose): an entry goes only when its
 * birth time (statx) is after a given instant, the start of the command
 * (undo); what cannot be proven new is left.
 *
 *	int root = beneath_root("/home/u/proj", &st, &cause);
 *	char *rel = beneath_relative("/home/u/proj", agent_path, &cause);
 *	int fd = beneath_open(root, rel, O_RDONLY, 0, &cause);
 */
#ifndef BWGATE_BENEATH_H
#define BWGATE_BENEATH_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* For beneath_open_how(): */
#define BENEATH_NO_XDEV		(1 << 0)	/* never cross a mount */

/* path relative to root, normalised ("." for root itself; caller frees);
   NULL with cause for "", "..", or an absolute path elsewhere. */
char	*beneath_relative(const char *root, const char *path, char **cause);
/* Open a project's root (O_PATH | O_DIRECTORY) by its absolute path, the
   one open by path string; st gets its identity. -1 with cause and
   errno. */
int	 beneath_root(const char *path, struct stat *st, char **cause);
/* Open rel beneath dirfd (flags as for openat; O_PATH | O_NOFOLLOW opens
   a symbolic link itself); -1 with cause and errno (ENOENT, ELOOP for a
   symbolic link on the way, EXDEV for a way out, ...). */
int	 beneath_open(int dirfd, const char *rel, int flags, mode_t mode,
	    char **cause);
int	 beneath_open_how(int dirfd, const char *rel, int flags, mode_t mode,
	    int how, char **cause);
/* Open rel to read (O_NONBLOCK: a FIFO or a device never blocks; no
   link followed) when it is a regular file of at most max bytes; st gets
   its fstat. -1 with cause and errno (EINVAL: not a regular file, EFBIG:
   larger than max). Every project file bwgate reads is opened so. */
int	 beneath_open_regular(int dirfd, const char *rel, off_t max,
	    struct stat *st, char **cause);
/* Open the directory holding rel (creating missing ones when mkdirs);
   *name is rel's last component (points into rel). -1 with cause. */
int	 beneath_parent(int dirfd, const char *rel, bool mkdirs,
	    const char **name, char **cause);
/* lstat of rel beneath dirfd; -1 with errno. */
int	 beneath_lstat(int dirfd, const char *rel, struct stat *st);
/* readlink of the symbolic link rel beneath dirfd (the link itself is
   opened, nothing followed): its length, or -1 with errno (EINVAL: not a
   link). No NUL is added. */
ssize_t	 beneath_readlink(int dirfd, const char *rel, char *buf, size_t size);
/* Make rel a new directory (never an existing one); -1 with cause and
   errno. */
int	 beneath_mkdir(int dirfd, const char *rel, mode_t mode, char **cause);
/* Remove rel (a file of any size, a symbolic link, or an empty
   directory) if it is still id (device and inode); 0 when removed, -1
   with errno otherwise (ESTALE: another file is there now). Never
   crosses a mount. For undo, which removes what a run made. */
int	 beneath_remove(int dirfd, const char *rel, const struct stat *id);
/* Make rel a symbolic link to target, or a hard link to the file open
   at fd (never replacing a name); -1 with errno. */
int	 beneath_symlink(int dirfd, const char *rel, const char *target);
int	 beneath_link(int dirfd, const char *rel, int fd);
/* chmod of rel, never through a symbolic link (the inode opened beneath
   dirfd is the one changed); -1 with errno (ELOOP for a link). */
int	 beneath_chmod(int dirfd, const char *rel, mode_t mode);
/* Give rel (not followed) to uid:gid; -1 with errno. */
int	 beneath_lchown(int dirfd, const char *rel, uid_t uid, gid_t gid);
/* Rename rel to the new name to (RENAME_NOREPLACE), both beneath dirfd,
   without crossing a mount. -1 with cause and errno. */
int	 beneath_rename(int dirfd, const char *rel, const char *to,
	    char **cause);

/* Walking: one name below an open directory (O_NOFOLLOW | O_CLOEXEC
   added; name must be one component); -1 with errno (EINVAL for ".",
   ".." or a name with '/'). */
int	 beneath_child(int dfd, const char *name, int flags);
int	 beneath_child_stat(int dfd, const char *name, struct stat *st);
/* statx of one name below dfd (AT_SYMLINK_NOFOLLOW added). */
struct statx;
int	 beneath_child_statx(int dfd, const char *name, int flags,
	    unsigned int mask, struct statx *stx);
/* The parent of the directory open at fd, read-only, if it is still the
   directory parent (device and inode); -1 with errno (ESTALE when it is
   another one: the directory moved). */
int	 beneath_up(int fd, const struct stat *parent);

/* Remove the entry name of the directory open at dfd, and everything
   below it, when each one was born after since (statx birth time) and
   sits on dfd's file system; what cannot be proven so is left in place.
   0 when it is all gone, 1 when something was left (not proven new), -1
   with errno on an error. */
int	 beneath_dispose(int dfd, const char *name,
	    const struct timespec *since);

/* Move the entry name of the directory open at from to the new name to of
   the directory open at dir (RENAME_NOREPLACE; the same file system). */
int	 beneath_move(int from, const char *name, int dir, const char *to);
/* Rename name over to (replacing it), both in the directory open at dir;
   remove the file name of dir. -1 with errno (EINVAL: not one name). */
int	 beneath_replace(int dir, const char *name, const char *to);
int	 beneath_drop(int dir, const char *name);
#endif
