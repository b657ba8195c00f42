/*
 * proctree: signal a process and every descendant it has now.
 *
 * A process group is not enough to stop a whole job: a child that made its
 * own group or session (bwrap does, for the sandbox) is outside it. The
 * descendants are found from each process's parent in /proc and signalled
 * deepest first, so a parent never dies before the children it holds back
 * (bwrap's sandbox waits on a pipe its grandparent holds: the grandparent
 * dying first would release it). What a killed process leaves behind in
 * its session (its children are then init's) is found by session.
 */
#ifndef BWGATE_PROCTREE_H
#define BWGATE_PROCTREE_H

#include <stdbool.h>
#include <sys/types.h>

/* The parent of pid (from /proc/PID/stat), or -1. */
pid_t	proc_ppid(pid_t pid);
/* When pid started (ticks after boot): with the pid, who a process is
   (a pid alone is reused); 0 when it is gone. */
unsigned long long proc_start_time(pid_t pid);
/* Signal root and its descendants, deepest first; how many were sent. */
int	proctree_kill(pid_t root, int sig);
/* Signal every process of session sid; how many were sent. */
int	session_kill(pid_t sid, int sig);
/*
 * Reap pid (a session leader) once it has ended (block: wait for that):
 * pid when reaped, 0 when it runs on, -1 on error. When it was killed, what is left of its
 * session is killed first, while the zombie still holds the number: a
 * child caught halfway by the kill (bwrap's sandbox waits on an eventfd
 * for bwrap before it sets its own parent-death signal) would never end.
 */
pid_t	reap_session(pid_t pid, int *status, bool block);

#endif
