/*
 * limiter: per-command memory, process and CPU-time limits.
 *
 * Enforcement, best first: a cgroup v2 subtree bwgate may write (a
 * delegated one, or the root's as root), cgroup v1 memory and pids
 * controllers (a root host with the legacy layout), and resource limits
 * otherwise (RLIMIT_AS for memory, RLIMIT_NPROC for processes). CPU time
 * is always RLIMIT_CPU. bwrap joins the cgroup itself before it starts,
 * so everything the command starts is inside:
 *
 *	struct limiter *l = limiter_new(&lim);
 *	n = limiter_join_fds(l, fds);	... spawn bwrap joining fds[0..n) ...
 *	limiter_attach(l, child_pid, &cause);	still blocked: prlimit
 *	... limiter_hit(l) while running: "pids limit" ...
 *	verdict = limiter_verdict(l, signal);	"memory limit", ... or NULL
 *	limiter_free(l);
 */
#ifndef BWGATE_LIMITER_H
#define BWGATE_LIMITER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct limits {
	uint64_t	memory;		/* bytes, 0: none */
	int		pids;		/* processes, 0: none */
	int		cpu_s;		/* CPU seconds per process, 0: none */
};

/* Defaults that keep a 2-core, 8 GiB laptop usable. */
#define LIMITS_DEFAULT_MEMORY	(2ULL * 1024 * 1024 * 1024)
#define LIMITS_DEFAULT_PIDS	512

enum limits_backend {
	LIMITS_CGROUP2,
	LIMITS_CGROUP1,
	LIMITS_RLIMIT,
};

struct limiter;

/* Which enforcement this host gives (tries a cgroup and removes it). */
enum limits_backend limits_probe(void);
const char	*limits_backend_name(enum limits_backend);
/* "2 GiB", for people (caller frees). */
char		*limits_describe(const struct limits *);

/* Does Linux exempt this uid (as this namespace sees it) from
   RLIMIT_NPROC (the global root user)? */
bool		 limits_nproc_exempt(uid_t);
/* What an enforcement does not cover, in words (caller frees), or NULL
   (a cgroup: memory and processes per command). Without one, memory is
   per process and processes per user, or not limited at all for root. */
char		*limits_caveat(enum limits_backend, const struct limits *,
		    bool root);

/* Prepare the enforcement; never NULL (falls back to rlimits). */
struct limiter	*limiter_new(const struct limits *);
enum limits_backend limiter_backend(const struct limiter *);
/* When bwrap could not join: was a cgroup of ours removed before it
   did (an empty cgroup is anyone's to remove who may write its parent: a
   cleaner, an older bwgate)? Then new ones are made the same way, and
   the membership files are theirs: 0, or -1 when none was lost or the
   new ones are not of the same kind. */
int		 limiter_renew(struct limiter *);
/* The membership files bwrap writes "0" into before exec (spawn.h);
   how many (0 without a cgroup). Owned by the limiter. */
size_t		 limiter_join_fds(const struct limiter *, int fds[2]);
/* The resource limits of the sandbox's only process (bwrap's child, still
   held on --block-fd) where there is no cgroup, and always its CPU time;
   -1 with cause. */
int		 limiter_attach(struct limiter *, pid_t pid, char **cause);
/* After limiter_attach: is the process limit enforced (not when the
   sandbox runs as root with resource limits only)? What is not covered
   (limits_caveat, caller frees), or NULL. */
bool		 limiter_pids_enforced(const struct limiter *);
char		*limiter_caveat(const struct limiter *);
/* A limit was reached while running ("pids limit"), or NULL. */
const char	*limiter_hit(struct limiter *);
/* Why the command died: "memory limit", "pids limit", "time limit" or
   NULL; sig is the signal that ended it (0: none). */
const char	*limiter_verdict(struct limiter *, int sig);
/* The run's processes where it has no cgroup: those of its sandbox's
   IPC namespace (proctree.h, ipcns_signal: the rule), named by nsfd
   (taken; /proc/PID/ns/ipc of bwrap's child, before the command runs).
   False (nsfd closed) where it cannot be scanned for. */
bool		 limiter_mark(struct limiter *, int nsfd);
/* Does the limiter know exactly the run's processes (its cgroup, or its
   IPC namespace)? */
bool		 limiter_knows_procs(const struct limiter *);
/* Signal every process of the run (its cgroup, else its IPC namespace)
   but except (0: none): how a run in the project's shared pid namespace
   is ended; SIGKILL until none is left. 0, or -1 when neither is known
   (or, SIGKILL, some are left: logged). */
int		 limiter_kill(struct limiter *, int sig, pid_t except);
/* A new descriptor of the cgroup's directory (no lock of ours on it;
   *kind 'k'), else of the IPC namespace (*kind 'i'), or -1 with neither:
   the project's pod ends what is left of the run when it is gone (pod.h,
   pod_watch). */
int		 limiter_open_dir(const struct limiter *, char *kind);
/* Kill what is left in the cgroup and remove it. */
/* How many processes the run has (its cgroup, else its IPC namespace)
   but those skip says (may be NULL), each sent sig unless it is 0
   (services: the command's background processes); -1 with neither. */
int		 limiter_procs(const struct limiter *, int sig,
		    bool (*skip)(pid_t, void *), void *arg);
void		 limiter_free(struct limiter *);

#endif
