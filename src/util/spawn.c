/*
 * spawn: fork and exec with a descriptor map, an exec-error pipe, default
 * signal dispositions, an empty mask and optionally a new process group.
 *
 * All signals are blocked in the parent across fork, so none of the
 * parent's handlers can run in the child before its dispositions are
 * reset; the child unblocks them just before exec.
 *
 * A child that only execs is started the way posix_spawn does it:
 * clone(CLONE_VM | CLONE_VFORK) on a stack of its own. It shares our
 * memory until exec (no page tables copied: a plain fork of bwgate costs
 * a fraction of a millisecond more) and the caller waits until it has
 * exec'd or exited. That is safe because the child writes nothing of
 * ours: it reads the spawn description, keeps its own variables on its
 * own stack, and makes raw system calls only (errno, in the caller's
 * thread storage, is the one thing it may change). Its signal handlers
 * are its own table (no CLONE_SIGHAND), reset before signals are let in.
 * A child that runs a function (fn) or forks again (SPAWN_DETACH) would
 * touch shared state (malloc, glibc's fork): it gets a plain fork.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "spawn.h"
#include "xalloc.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

/* Most descriptors a map may name (the child's stack holds the copies). */
#define SPAWN_MAX_FDS	128
/* The stack of a child that shares our memory until exec (it needs a few
   KiB; a guard page below). */
#define SPAWN_STACK	(64 * 1024)
/* Not under AddressSanitizer, whose shadow of that stack the child would
   leave poisoned (it never returns to unpoison its frames). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPAWN_NO_VFORK
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#define SPAWN_NO_VFORK
#endif

/* What the child failed at, with its errno, through the error pipe. */
enum spawn_stage { SPAWN_AT_EXEC, SPAWN_AT_JOIN, SPAWN_AT_SETNS };
struct spawn_error {
	int	stage;
	int	err;
};

static void __attribute__((noreturn))
spawn_fail_at(int errpipe, enum spawn_stage stage, int err)
{
	struct spawn_error e = { stage, err };

	(void)!write(errpipe, &e, sizeof e);
	_exit(127);
}

static void __attribute__((noreturn))
spawn_fail(int errpipe, int err)
{
	spawn_fail_at(errpipe, SPAWN_AT_EXEC, err);
}

/*
 * Mark every descriptor from lowfd up close-on-exec. close_range does it
 * in one call; without it (before Linux 5.11) every number below the
 * descriptor limit is marked one by one.
 */
static int
spawn_cloexec_from(int lowfd)
{
	struct rlimit	rl;
	int		max;

	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U,
	    CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	max = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1 << 20) ?
	    (1 << 20) : (int)rl.rlim_cur;
	for (int fd = lowfd; fd < max; fd++) {
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF)
			return -1;
	}
	return 0;
}

/* The child: only async-signal-safe calls from here to exec. */
static void __attribute__((noreturn))
spawn_child(const struct spawn *sp, const char *path, int devnull,
    int errpipe, pid_t parent)
{
	unsigned long	dfl[8] = { 0 };	/* a kernel sigaction: SIG_DFL */
	sigset_t	none;
	int		parked[SPAWN_MAX_FDS], n = (int)sp->nfds;

	/*
	 * The raw call: libc's sigaction refuses the signals it keeps for
	 * itself (32 and 33 with glibc), which an ignoring ancestor may have
	 * handed down too. An all-zero kernel sigaction is SIG_DFL with no
	 * flags and an empty mask on every architecture.
	 */
	for (int sig = 1; sig < NSIG; sig++)	/* KILL, STOP: EINVAL */
		(void)syscall(SYS_rt_sigaction, sig, dfl, NULL, NSIG / 8);
	/* "0": this process, which has one thread (see spawn.h). */
	for (size_t i = 0; i < sp->njoin; i++)
		if (write(sp->join[i], "0", 1) != 1)
			spawn_fail_at(errpipe, SPAWN_AT_JOIN, errno);
	for (size_t i = 0; i < sp->nsetns; i++)
		if (setns(sp->setns[i], 0) != 0)
			spawn_fail_at(errpipe, SPAWN_AT_SETNS, errno);
	if ((sp->flags & (SPAWN_SETSID | SPAWN_DETACH)) && setsid() < 0)
		spawn_fail(errpipe, errno);
	if (sp->flags & SPAWN_DETACH) {
		pid_t	grandchild = fork();

		if (grandchild < 0)
			spawn_fail(errpipe, errno);
		if (grandchild > 0)
			_exit(0);	/* the grandchild reports through
					   errpipe */
	}
	if ((sp->flags & SPAWN_PGROUP) && !(sp->flags & SPAWN_SETSID) &&
	    setpgid(0, 0) != 0)
		spawn_fail(errpipe, errno);
	if (sp->deathsig != 0) {
		if (prctl(PR_SET_PDEATHSIG, sp->deathsig) != 0)
			spawn_fail(errpipe, errno);
		if (getppid() != parent)
			_exit(127);	/* the parent is already gone */
	}

	/* Park everything above the targets, then move it into place. */
	if ((errpipe = fcntl(errpipe, F_DUPFD_CLOEXEC, n)) < 0)
		_exit(127);
	for (int i = 0; i < n; i++) {
		int src = sp->fds[i] == SPAWN_DEVNULL ? devnull : sp->fds[i];

		parked[i] = -1;
		if (src >= 0 &&
		    (parked[i] = fcntl(src, F_DUPFD_CLOEXEC, n)) < 0)
			spawn_fail(errpipe, errno);
	}
	for (int i = 0; i < n; i++) {
		if (parked[i] < 0)
			close(i);
		else if (dup2(parked[i], i) < 0)
			spawn_fail(errpipe, errno);
	}
	if (spawn_cloexec_from(n) != 0)
		spawn_fail(errpipe, errno);

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (sp->fn != NULL) {
		/* No exec to close them: close every other descriptor (the
		   error pipe too, which tells the parent it started). */
		if (syscall(SYS_close_range, (unsigned)n, ~0U, 0) != 0)
			for (int fd = n; fd < 65536; fd++)
				close(fd);
		_exit(sp->fn(sp->fn_arg));
	}
	if (sp->envp != NULL)
		execve(path, sp->argv, sp->envp);
	else
		execv(path, sp->argv);
	spawn_fail(errpipe, errno);
}

/* What a child sharing our memory needs to start (spawn_vfork). */
struct spawn_args {
	const struct spawn	*sp;
	const char		*path;
	int			 devnull;
	int			 errpipe;
	pid_t			 parent;
};

#ifndef SPAWN_NO_VFORK
static int
spawn_vfork_child(void *arg)
{
	const struct spawn_args *a = arg;

	spawn_child(a->sp, a->path, a->devnull, a->errpipe, a->parent);
}
#endif

/* Start the child: without copying our memory when it only execs (see
   the top of this file); a pid, or -1 with errno. */
static pid_t
spawn_fork(const struct spawn *sp, const char *path, int devnull,
    int errpipe, pid_t parent)
{
	struct spawn_args	 a = { sp, path, devnull, errpipe, parent };
	char			*stack;
	long			 page = sysconf(_SC_PAGESIZE);
	pid_t			 pid;
	int			 saved;

#ifndef SPAWN_NO_VFORK
	if (sp->fn == NULL && !(sp->flags & SPAWN_DETACH) && page > 0 &&
	    (stack = mmap(NULL, SPAWN_STACK + (size_t)page, PROT_READ |
	    PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0)) !=
	    MAP_FAILED) {
		/* The stack grows down: the page at its bottom is a guard. */
		if (mprotect(stack, (size_t)page, PROT_NONE) == 0) {
			pid = clone(spawn_vfork_child, stack + page +
			    SPAWN_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
			saved = errno;
			munmap(stack, SPAWN_STACK + (size_t)page);
			errno = saved;
			return pid;
		}
		munmap(stack, SPAWN_STACK + (size_t)page);
	}
#else
	(void)a;
	(void)page;
	(void)saved;
	(void)stack;
#endif
	pid = fork();
	if (pid == 0)
		spawn_child(sp, path, devnull, errpipe, parent);
	return pid;
}

/* Start the program described by sp. */
int
spawn_start(struct spawn *sp, char **cause)
{
	sigset_t	 all, old;
	char		*path = NULL;
	struct spawn_error err = { 0, 0 };
	int		 ep[2], devnull = -1, saved;
	ssize_t		 n;
	pid_t		 parent = getpid();

	sp->pid = -1;
	sp->pidfd = -1;
	sp->status = 0;
	sp->reaped = false;
	if (sp->nfds > SPAWN_MAX_FDS) {
		*cause = xasprintf("cannot run '%s': %zu descriptors (at most "
		    "%d)", sp->argv[0], sp->nfds, SPAWN_MAX_FDS);
		return -1;
	}
	if (sp->flags & SPAWN_SEARCH) {
		if ((path = spawn_which(sp->argv[0])) == NULL) {
			*cause = xasprintf("cannot run '%s': not found on "
			    "$PATH", sp->argv[0]);
			return -1;
		}
	} else
		path = xstrdup(sp->argv[0]);	/* fn: only a name */
	for (size_t i = 0; i < sp->nfds && devnull < 0; i++) {
		if (sp->fds[i] == SPAWN_DEVNULL &&
		    (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
			*cause = xasprintf("cannot open /dev/null: %s",
			    strerror(errno));
			free(path);
			return -1;
		}
	}
	if (pipe2(ep, O_CLOEXEC) != 0) {
		*cause = xasprintf("cannot run '%s': cannot make a pipe: %s",
		    sp->argv[0], strerror(errno));
		if (devnull >= 0)
			close(devnull);
		free(path);
		return -1;
	}

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	sp->pid = spawn_fork(sp, path, devnull, ep[1], parent);
	saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ep[1]);
	if (devnull >= 0)
		close(devnull);
	if (sp->pid < 0) {
		close(ep[0]);
		*cause = xasprintf("cannot run '%s': cannot fork: %s",
		    sp->argv[0], strerror(saved));
		free(path);
		return -1;
	}
	while ((n = read(ep[0], &err, sizeof err)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (n > 0) {
		spawn_wait(sp);
		*cause = err.stage == SPAWN_AT_JOIN ? xasprintf("cannot run "
		    "'%s': cannot join its cgroup: %s", path,
		    strerror(err.err)) : err.stage == SPAWN_AT_SETNS ?
		    xasprintf("cannot run '%s': cannot enter the project's "
		    "namespaces: %s", path, strerror(err.err)) :
		    xasprintf("cannot run '%s': %s", path, strerror(err.err));
		free(path);
		sp->pid = -1;
		return -1;
	}
	free(path);
	sp->pidfd = (int)syscall(SYS_pidfd_open, sp->pid, 0);
	if (sp->pidfd >= 0)
		(void)fcntl(sp->pidfd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/* Reap the child. */
int
spawn_wait(struct spawn *sp)
{
	if (!sp->reaped && sp->pid > 0) {
		while (waitpid(sp->pid, &sp->status, 0) < 0 && errno == EINTR)
			;
		sp->reaped = true;
	}
	return sp->status;
}

/*
 * Signal the child's process group, or the child alone when it has none.
 * A group outlives its leader's reaping while members remain, and its id
 * is not reused meanwhile, so a group may be signalled after the wait.
 */
int
spawn_kill(const struct spawn *sp, int sig)
{
	if (sp->pid <= 0)
		return -1;
	if (sp->flags & (SPAWN_PGROUP | SPAWN_SETSID))
		return kill(-sp->pid, sig);
	if (sp->reaped)
		return -1;
	return kill(sp->pid, sig);
}

/* Close the pidfd. */
void
spawn_release(struct spawn *sp)
{
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	sp->pidfd = -1;
}

/* Run a program to completion, capturing its stdout or stderr. */
int
spawn_capture(char *const *argv, int flags, int which, struct buf *out,
    size_t max, char **cause)
{
	struct spawn	sp = SPAWN_INIT;
	int		fds[3] = { SPAWN_DEVNULL, 1, 2 };
	int		p[2];

	if (pipe2(p, O_CLOEXEC) != 0) {
		*cause = xasprintf("cannot run '%s': cannot make a pipe: %s",
		    argv[0], strerror(errno));
		return -1;
	}
	fds[which == 2 ? 2 : 1] = p[1];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 3;
	sp.flags = flags;
	if (spawn_start(&sp, cause) != 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	(void)buf_read_fd(out, p[0], max);
	close(p[0]);
	spawn_wait(&sp);
	spawn_release(&sp);
	return sp.status;
}

/* Look a program up on $PATH. */
char *
spawn_which(const char *name)
{
	const char	*path = getenv("PATH"), *s, *e;
	char		*p;

	if (strchr(name, '/') != NULL)
		return xstrdup(name);
	if (path == NULL)
		path = "/usr/bin:/bin";
	for (s = path;; s = e + 1) {
		e = strchrnul(s, ':');
		if (e == s)
			p = xasprintf("./%s", name);
		else
			p = xasprintf("%.*s/%s", (int)(e - s), s, name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
		if (*e == '\0')
			return NULL;
	}
}
