/*
 * gitwatch: a process per large project that keeps its .git entries known
 * between runs, so a run asks instead of checking every directory.
 *
 * The first writable run in a project of GITWATCH_MIN_DIRS directories or
 * more (on a file system gitscan trusts, with nothing mounted inside)
 * starts it in the background. It watches every directory of the project
 * with inotify (watch first, then read, as the live monitor does) and
 * follows names: a directory made, moved in or out, removed, a .git made
 * or removed. A run connects to its socket in the runtime directory and
 * asks; the watcher first reads every event the kernel has queued, then
 * answers. inotify queues an event inside the system call that changes
 * the directory, so every change made before the question is in the
 * answer: no clock, no settling time.
 *
 * It gives up (exits, and runs fall back to gitscan) when it cannot be
 * exact: its share of the watches (all watchers together take at most a
 * quarter of the user's inotify watches), a directory seen under two
 * names, a mount appearing inside the project, a directory deeper than
 * GITSCAN_MAX_DEPTH; after an event queue overflow it reads
 * the project again. It leaves when no run asked for GITWATCH_IDLE_SEC,
 * or when the project is removed or moved. BWGATE_GITWATCH=0 turns it
 * off; =1 starts it for a project of any size (tests).
 *
 *	struct gitscan *gs = gitwatch_ask(rootfd, &root_st);	// or NULL
 *	gitwatch_start(project, rootfd, &root_st, scan);	// after a scan
 *
 * Only for src/sandbox (gitscan-cache.c, sandbox-git.c).
 */
#ifndef BWGATE_GITWATCH_H
#define BWGATE_GITWATCH_H

#include <stdbool.h>
#include <sys/stat.h>

#include "gitscan.h"

#define GITWATCH_MIN_DIRS	1024
#define GITWATCH_IDLE_SEC	600
/* Watchers of one user at once (each holds an inotify instance; the
   kernel allows 128 by default, live monitors need theirs). */
#define GITWATCH_MAX		8

/* Is it on (BWGATE_GITWATCH not "0")? */
bool		 gitwatch_enabled(void);
/* The project whose root is st, as its watcher sees it now (the .git
   entries and the directories it may not read; watched is set); NULL
   when no watcher answers. */
struct gitscan	*gitwatch_ask(const struct stat *st);
/* Start a watcher for the project when scan (just made) says it is worth
   one and none runs. */
void		 gitwatch_start(const char *project, const struct stat *st,
		    const struct gitscan *scan);

/* gitwatch-daemon.c: the watcher itself; never returns. */
void		 gitwatch_daemon(const char *project, const struct stat *st,
		    size_t budget, int lockfd, const char *sock)
		    __attribute__((noreturn));

#endif
