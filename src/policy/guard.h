/*
 * guard: bwgate's own files stay out of every sandbox's reach.
 *
 * A command may write the project; so the project must not be $HOME or
 * hold bwgate's configuration, state (audit log, trust records) or
 * runtime directory (sockets), and a console socket must not lie where a
 * sandbox can see it (the project, the configured extra paths).
 */
#ifndef BWGATE_GUARD_H
#define BWGATE_GUARD_H

#include "strv.h"

/* 0 when project (canonical) may be a project; -1 with cause. */
int	guard_project(const char *project, char **cause);
/* 0 when a console socket at path is out of every sandbox's reach. */
int	guard_socket(const char *path, const char *project,
	    const struct strv *extra, char **cause);

#endif
