/*
 * rundir: the per-user runtime directory: $XDG_RUNTIME_DIR/bwgate, else
 * /tmp/bwgate-UID. It holds the console's sockets and the caches of the
 * probe and the compiled seccomp programs, so it
 * must be ours and private (0700, not a symlink).
 */
#ifndef BWGATE_RUNDIR_H
#define BWGATE_RUNDIR_H

#include <stdbool.h>

/* The default socket directory (created 0700 when create is true and
   checked to be ours and private either way); caller frees. */
char	*rundir_get(bool create, char **cause);
/* The directory found from the user id alone, whatever XDG_RUNTIME_DIR
   says: a console elsewhere leaves a link to its agent socket there, for
   clients whose harness filters the environment. */
char	*rundir_default(bool create, char **cause);
/* Is dir a private directory of ours (owned by us, not group/other
   accessible, not a symlink)? -1 with cause if not. */
int	 rundir_check(const char *dir, char **cause);
/* Open a socket's directory to connect through (O_PATH): a real
   directory (not a link), owned by us or root, not writable by others
   unless sticky; the descriptor, or -1 with cause (one line). */
int	 rundir_open_trusted(const char *dir, char **cause);

/* Connect to the stream socket at sock, accepted only when the process
   listening there is of our uid (SO_PEERCRED): a helper of our own (the
   git watcher, a project's pod) in our runtime directory. The socket
   (close-on-exec), or -1. */
int	 rundir_connect_own(const char *sock);

#endif
