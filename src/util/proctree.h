/*
 * proctree: signal a process and every descendant it has now.
 *
 * A process group is not enough to stop a whole job: a child that made its
 * own group or session (bwrap does, for the sandbox) is outside it. The
 * descendants are found from each process's parent in /proc and signalled
 * deepest first, so a parent never dies before the children it holds back
 * (bwrap's sandbox waits on a pipe its grandparent holds: the grandparent
 * dying first would release it).
 */
#ifndef BWGATE_PROCTREE_H
#define BWGATE_PROCTREE_H

#include <sys/types.h>

/* The parent of pid (from /proc/PID/stat), or -1. */
pid_t	proc_ppid(pid_t pid);
/* Signal root and its descendants, deepest first; how many were sent. */
int	proctree_kill(pid_t root, int sig);

#endif
