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
/* Is pid on its way out (PF_EXITING), or gone? */
bool	proc_exiting(pid_t pid);
/* One line of /proc/PID/net/{tcp,tcp6,udp,udp6}: its local port, state
   (0x0A: listening, TCP) and socket inode (0 when the line has none);
   false for the header or a line that is not one. */
bool	proc_net_listener(const char *line, unsigned *port, unsigned *state,
	    unsigned long *inode);
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

/*
 * A request's processes where it has no cgroup of its own: every process
 * in its sandbox's IPC namespace. The rule that makes this exact: each
 * sandbox has an IPC namespace of its own (bwrap --unshare-ipc), and the
 * deny filter (seccomp-deny.c) refuses setns, unshare, and clone with any
 * CLONE_NEW* (clone3 altogether), so no process of the request can leave
 * it and none of another request (or of another namespace) can enter it;
 * sandbox-pod.c puts a sandbox in the project's shared pid namespace only
 * with that filter on. The namespace is named by an open descriptor of it
 * (nsfd: /proc/PID/ns/ipc of bwrap's child, opened while bwrap holds it
 * before the command runs, engine.c): held open, the namespace lives and
 * its inode number is not given to another one. A process whose main
 * thread has exited has no namespaces of its own left in /proc/PID/ns:
 * its threads' are read instead.
 *
 * Can this process scan for them: /proc is its own pid namespace's (else
 * the numbers it reads are not the ones it signals), and nsfd is an IPC
 * namespace that is not its own (which would be every process it has)?
 */
bool	ipcns_usable(int nsfd);
/* A descriptor of pid's IPC namespace if its inode is ino (0: never),
   else -1. */
int	ipcns_open(pid_t pid, unsigned long long ino);
/* Is /proc this process's pid namespace's (/proc/self is getpid())? */
bool	proc_is_own(void);
/* Signal every process of the IPC namespace nsfd but except (0: none)
   and those skip says (may be NULL), sig 0 to count only; how many, or
   -1 when not usable. */
int	ipcns_signal(int nsfd, int sig, pid_t except,
	    bool (*skip)(pid_t, void *), void *arg);
/* SIGKILL every process of it (except, 0: none) until none is left: a
   killed process cannot fork any more, children forked before are found
   by the next scan. 0 when none is left, -1 when not usable or when some
   remain after the bound (the caller says so). */
int	ipcns_kill(int nsfd, pid_t except);

#endif
