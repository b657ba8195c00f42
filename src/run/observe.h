/*
 * observe: what the sandbox refused, exactly (seccomp user notification).
 *
 * bwrap runs bwgate-helper first inside the sandbox; the helper installs a
 * seccomp filter that notifies bwgate of write-intent system calls (open
 * for writing, create, mkdir, unlink, rename, link, symlink, truncate,
 * chmod, chown, mknod, utime, xattr; connect/sendto/sendmsg when the
 * network is off) and hands the listener back over a socket. For each
 * notification bwgate reads the path from /proc/PID/mem, resolves it as
 * the command sees it (cwd, dirfd, "..", symlinks through /proc/PID/root),
 * looks up the covering mount in the sandbox's table, records a violation
 * when the call fails (or is discarded) for a sandbox reason, and ALWAYS
 * answers CONTINUE: the mounts enforce, the notifications only observe.
 *
 * Where user notification is unavailable (old kernel, a container's
 * seccomp policy, or BWGATE_NO_NOTIFY=1 in the environment), the helper
 * says so and runs the command unobserved; observe_infer() then reads the
 * command's error output instead and marks what it finds inferred.
 *
 * With OBSERVE_RECORD the observer also feeds the change report: each path
 * a file-changing call names (the same calls, plus fchmod, fchown and the
 * fd xattr calls) is resolved the same way and, when it lies under the
 * project on a writable mount, handed to snapshot_paths_add() while the
 * caller is still stopped (so its state before the call is recorded). The
 * helper then waits after answering until observe_go(), so the engine can
 * fall back to a snapshot before the command runs when no listener came.
 *
 * Lifecycle (the engine):
 *	obs = observe_prepare(&pol, 0, &cause);	sets pol.helper, pol.helper_fd
 *	sandbox_build(&pol, ...);		the sandbox owns helper_fd now
 *	runner_spawn(...);
 *	observe_attach(obs, loop, &sb, &r->violations);
 *	... loop until the sandbox is gone ...
 *	observe_finish(obs);			drain, close
 *	if (!observe_exact(obs))
 *		observe_infer(err, len, &sb, pol.cwd, pol.network,
 *		    &r->violations);
 *	observe_free(obs);
 *
 * Without a struct loop: poll observe_fd() for POLLIN and call
 * observe_handle() when it is readable; the descriptor changes once (the
 * socket first, then the listener), so ask again after each call.
 */
#ifndef BWGATE_OBSERVE_H
#define BWGATE_OBSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "report.h"
#include "sandbox.h"
#include "snapshot.h"

struct loop;
struct observer;

/* What the observer is asked for, besides violations. */
enum observe_flags {
	OBSERVE_RECORD = (1 << 0),	/* file-changing calls, for the report */
	OBSERVE_ARGV = (1 << 1),	/* the command comes with the go
					   (observe_go_argv: prestarted) */
};

/* Create the socket pair and point the policy at the helper; NULL with
   cause when no helper binary can be found (the engine then infers). */
struct observer	*observe_prepare(struct sandbox_policy *, int flags,
		    char **cause);
/* Was the notification program built and sent (notification asked for)? */
bool		 observe_armed(const struct observer *);
/* OBSERVE_RECORD: wait up to timeout_ms for the helper's answer; true
   when the listener is attached (the calls will be recorded). */
bool		 observe_wait_ready(struct observer *, int timeout_ms);
/* Let the command start (it waits for this, whatever the flags). */
void		 observe_go(struct observer *);
/* Does argv fit one go message (OBSERVE_MAX_ARGV)? */
bool		 observe_argv_fits(const struct strv *argv);
/* OBSERVE_ARGV: let it start as argv; -1 when that cannot be sent
   (!observe_argv_fits), and nothing starts. */
int		 observe_go_argv(struct observer *, const struct strv *argv);
/* Record every path under root that a file-changing call names on a
   writable mount into sp, before the call runs (snapshot.h). */
void		 observe_record(struct observer *, struct snapshot_paths *,
		    const char *root);
/* Descriptor to poll for POLLIN now, or -1 when there is nothing more. */
int		 observe_fd(const struct observer *);
/* Handle what is readable (bounded work; never blocks). */
void		 observe_handle(struct observer *, const struct sandbox *,
		    struct violations *);
/* Register with a loop: handles readiness and the descriptor change. */
void		 observe_attach(struct observer *, struct loop *,
		    const struct sandbox *, struct violations *);
/* Record every execve/execveat of the sandbox into es (report
   "executed"); recording only, the call always continues. */
void		 observe_record_exec(struct observer *, struct executions *);
/* Record into ports each port of the sandbox's loopback (the project's
   pod: pod.h) that a connection reached with a server listening (report
   "project_ports"), and into names what listens on each, "" when unknown
   (report "project_services"). */
void		 observe_record_ports(struct observer *, struct strv *ports,
		    struct strv *names);
/* Handle what is still pending, then close the listener and socket. */
void		 observe_finish(struct observer *);
void		 observe_free(struct observer *);
/* Does the observer decide (issue 36): a listener, the delegate and
   descriptor injection? Waits for the helper's answer (at most timeout_ms).
   Without it a run that can write the project does not start: nothing
   else keeps a protected name from being created (bwgate(1), Fallback). */
bool		 observe_deciding(struct observer *, int timeout_ms);
/* Did the helper attach a listener (so the violations are exact)? */
bool		 observe_exact(const struct observer *);
/* "exact", or why not ("disabled", "seccomp_load: Invalid argument"). */
const char	*observe_status(const struct observer *);
/* Why the sandbox's mounts were not what bwgate opened (the command was
   kept from running), or NULL. */
const char	*observe_raced(const struct observer *);
/* Notifications handled so far. */
unsigned long	 observe_count(const struct observer *);

/* The fallback: find refusals in the command's error output. */
void		 observe_infer(const char *text, size_t len,
		    const struct sandbox *, const char *cwd, bool network,
		    struct violations *);

/*
 * Pure parts, exported for the unit tests.
 */

/* How a call touches its path. */
enum observe_kind {
	OBSERVE_CREATE,		/* create if missing (open O_CREAT) */
	OBSERVE_CREATE_EXCL,	/* fails if present (mkdir, link, ...) */
	OBSERVE_WRITE,		/* change something that must exist */
	OBSERVE_DELETE,		/* unlink, rmdir, rename (either side) */
};

/* What is known about the target when the call is made. */
struct observe_target {
	bool	exists;		/* in the sandbox */
	bool	parent_exists;	/* in the sandbox */
	bool	writes;		/* open O_CREAT on an existing file writes */
};

/* Paths are normalised and resolved by pathwalk.h. */

/* Would this call fail (or be discarded) for a sandbox reason? 1 and the
   reason if so; m is the mount covering the resolved path (or NULL). */
int		 observe_decide(const struct sandbox_mount *m,
		    enum observe_kind, const struct observe_target *,
		    enum violation_reason *);

/* A network address: 1 with "host:port" in *what when it is an IP one
   (AF_INET, AF_INET6), *loopback and *port set; 0 otherwise. */
int		 observe_sockaddr(const struct sockaddr *, socklen_t,
		    char **what, bool *loopback, unsigned *port);

/* Find one refusal in one line of error output; 1 if found. */
int		 observe_parse_line(const char *line, bool network,
		    char **path, const char **operation, const char **cause);

#endif
