/*
 * pathwalk: lexical path normalising and symlink resolution through a
 * caller-supplied readlink (the observer resolves inside /proc/PID/root).
 * Both return a new absolute path (caller frees).
 *
 * For the observer only (src/run/observe*.c): it resolves a traced
 * process's paths as that process sees them (its root, its working
 * directory, links followed as the kernel will), which is not the
 * project's view, so it cannot be the door (beneath.h), which follows no
 * link. Every other path inside the project goes through the door
 * (tests/build/resolve.sh).
 */
#ifndef BWGATE_PATHWALK_H
#define BWGATE_PATHWALK_H

#include <stdbool.h>
#include <sys/types.h>

/* Join base and path (if relative) and remove ".", ".." and "//". */
char		*pathwalk_normalise(const char *base, const char *path);

/* The same join, keeping "..": it can only be applied once the names
   before it are resolved (after a symbolic link, ".." goes up from where
   the link leads, not from where it is). pathwalk_resolve() does that. */
char		*pathwalk_join(const char *base, const char *path);

/* Read a link inside some view of the file system: like readlink(2), -1
   with errno (EINVAL: not a link, ENOENT: missing). */
typedef ssize_t	(*pathwalk_readlink_cb)(void *, const char *, char *, size_t);
/* Resolve symlinks in an absolute path (normalised or joined; ".." is
   applied after the names before it are resolved) (the last component
   only when follow); *missing when some component does not exist. */
char		*pathwalk_resolve(const char *path, bool follow,
		    pathwalk_readlink_cb, void *, bool *missing);

#endif
