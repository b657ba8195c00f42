/*
 * helper-act: the delegate (observe-proto.h). It runs in the sandbox
 * outside the observer's filter and makes, for bwgate, the calls bwgate
 * judged: with the exact names bwgate judged (its copy of them, never the
 * caller's memory again), resolved with RESOLVE_NO_SYMLINKS (the names
 * were resolved by bwgate: a link that appeared meanwhile makes the call
 * fail with ELOOP, it never leads somewhere not judged), as the sandbox's
 * user, under the sandbox's mounts (a read-only bind stays read-only).
 * It is not dumpable: the command, the same user, cannot trace it or
 * write its memory. Killed, its calls fail with EACCES in bwgate.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "helper-act.h"
#include "observe-proto.h"

#define ACT_RESOLVE	(RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/* openat2 from the root, following nothing; -1 with errno. Not the door
   (beneath.h): the delegate runs inside the sandbox and makes the call
   the observer judged, on the sandbox's own mounts and root, which the
   host-side door never sees (tests/build/resolve.sh allows this file). */
static int
act_open(const char *path, uint64_t flags, uint64_t mode)
{
	struct open_how	how;

	memset(&how, 0, sizeof how);
	how.flags = flags;
	how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode & 07777 : 0;
	how.resolve = ACT_RESOLVE;
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
}

/* The directory of path, opened following nothing, and its last name;
   -1 with errno. */
static int
act_parent(const char *path, const char **name)
{
	char		 dir[4096];
	const char	*slash = strrchr(path, '/');
	size_t		 n;

	if (path[0] != '/' || slash == NULL || slash[1] == '\0') {
		errno = EINVAL;
		return -1;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, n);
	dir[n] = '\0';
	*name = slash + 1;
	return act_open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
}

/*
 * A FIFO opened for writing with no reader yet: the caller would wait
 * until one comes. The delegate must not (it makes every call of the
 * sandbox), so a child of it waits: it opens the FIFO bwgate judged,
 * through pin (O_PATH, resolved following nothing: that FIFO and no other
 * file, whatever its name leads to by then), blocking, and sends the
 * descriptor (or its errno as 4 bytes) over a socket whose other end goes
 * back to bwgate with EINPROGRESS. bwgate answers the call when it comes
 * (observe-act.c). Nothing but a FIFO waits: another file keeps ENXIO.
 */
static int
act_fifo_wait(int pin, int flags, int *out)
{
	struct stat	 st;
	char		 proc[64];
	int		 sv[2], f, err = 0;
	pid_t		 pid;

	if (pin < 0 || fstat(pin, &st) != 0 || !S_ISFIFO(st.st_mode))
		return ENXIO;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return ENXIO;
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return ENXIO;
	}
	if (pid == 0) {
		close(sv[0]);
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", pin);
		while ((f = open(proc, (flags & ~(O_CREAT | O_EXCL |
		    O_NONBLOCK | O_TRUNC)) | O_CLOEXEC)) < 0 && errno == EINTR)
			;
		err = f < 0 ? errno : 0;
		(void)fdpass_send(sv[1], &err, sizeof err, &f, f >= 0);
		_exit(0);
	}
	close(sv[1]);
	*out = sv[0];
	return EINPROGRESS;
}

/* Would the caller have waited for a reader (a blocking O_WRONLY open)? */
static bool
act_would_wait(const struct observe_act *a, int error)
{
	return error == ENXIO && (a->flags & O_ACCMODE) == O_WRONLY &&
	    (a->flags & (O_NONBLOCK | O_PATH)) == 0;
}

/* An open: never blocks the delegate (a FIFO without a reader fails with
   ENXIO, where the caller would have waited), then the caller's flags. */
static int
act_do_open(const struct observe_act *a, const char *p1, int fd, int *out)
{
	char	proc[64];
	int	flags = (int)a->flags & ~O_CLOEXEC;
	/* O_PATH never blocks, and openat2 refuses it with O_NONBLOCK. */
	int	nb = (flags & O_PATH) != 0 ? 0 : O_NONBLOCK;

	if (fd >= 0) {
		/* Reopen the file bwgate pinned (/proc/self/fd/N of the
		   caller): a magic link is followed only here. */
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		*out = open(proc, (flags | nb | O_CLOEXEC) &
		    ~(O_CREAT | O_EXCL));
	} else
		*out = act_open(p1, (uint64_t)(flags | nb | O_CLOEXEC),
		    a->mode);
	if (*out < 0) {
		int	e = errno, pin;

		if (!act_would_wait(a, e))
			return e;
		pin = fd >= 0 ? dup(fd) : act_open(p1, O_PATH | O_CLOEXEC, 0);
		e = act_fifo_wait(pin, flags, out);
		if (pin >= 0)
			close(pin);
		return e;
	}
	if ((flags & O_NONBLOCK) == 0)
		(void)fcntl(*out, F_SETFL, flags & ~O_NONBLOCK);
	return 0;
}

/* Bind the socket sock at name in the directory dir (bind takes no
   directory descriptor: the delegate goes there, and back to its root);
   -1 with errno. */
static int
act_bind(int dir, const char *name, int sock)
{
	struct sockaddr_un	sun;
	int			rc, e;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (sock < 0 || strlen(name) >= sizeof sun.sun_path) {
		errno = sock < 0 ? EACCES : ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, name, strlen(name));
	if (fchdir(dir) != 0)
		return -1;
	rc = bind(sock, (struct sockaddr *)&sun, sizeof sun);
	e = errno;
	(void)chdir("/");
	errno = e;
	return rc;
}

/* One name of a directory bwgate pinned: not empty, no '/', not . or .. */
static bool
act_name_ok(const char *n)
{
	return n != NULL && *n != '\0' && strchr(n, '/') == NULL &&
	    strcmp(n, ".") != 0 && strcmp(n, "..") != 0;
}

/*
 * A call from another mount namespace (OBSERVE_ACT_F_AT): bwgate resolved
 * it in the caller's own root and pinned the directory (fds[0]; fds[1]
 * the second directory of a rename, the existing file of a link); the
 * call is made on one name in it, following nothing, never leaving it.
 */
static int
act_at(const struct observe_act *a, const char *n1, const char *n2,
    const int fds[3], int *out)
{
	struct open_how	how;
	char		proc[64];
	int		rc, f;

	if (fds[0] < 0 || !act_name_ok(n1))
		return EACCES;
	switch (a->op) {
	case OBSERVE_ACT_OPEN:
		memset(&how, 0, sizeof how);
		how.flags = (a->flags & ~(uint64_t)O_CLOEXEC) | O_NONBLOCK |
		    O_CLOEXEC;
		how.mode = (a->flags & (O_CREAT | __O_TMPFILE)) ?
		    a->mode & 07777 : 0;
		how.resolve = RESOLVE_BENEATH | ACT_RESOLVE;
		if ((*out = (int)syscall(SYS_openat2, fds[0], n1, &how,
		    sizeof how)) < 0) {
			if (!act_would_wait(a, rc = errno))
				return rc;
			how.flags = O_PATH | O_CLOEXEC;
			how.mode = 0;
			f = (int)syscall(SYS_openat2, fds[0], n1, &how,
			    sizeof how);
			rc = act_fifo_wait(f, (int)a->flags, out);
			if (f >= 0)
				close(f);
			return rc;
		}
		if ((a->flags & O_NONBLOCK) == 0)
			(void)fcntl(*out, F_SETFL, (int)a->flags & ~O_NONBLOCK);
		return 0;
	case OBSERVE_ACT_MKDIR:
		rc = mkdirat(fds[0], n1, (mode_t)a->mode);
		break;
	case OBSERVE_ACT_MKNOD:
		rc = mknodat(fds[0], n1, (mode_t)a->mode, (dev_t)a->arg);
		break;
	case OBSERVE_ACT_SYMLINK:
		if (n2 == NULL)
			return EINVAL;
		rc = symlinkat(n2, fds[0], n1);
		break;
	case OBSERVE_ACT_UNLINK:
		rc = unlinkat(fds[0], n1, (int)a->flags & AT_REMOVEDIR);
		break;
	case OBSERVE_ACT_BIND:
		rc = act_bind(fds[0], n1, fds[1]);
		break;
	case OBSERVE_ACT_LINK:
		if (fds[1] < 0)
			return EACCES;
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fds[1]);
		rc = linkat(AT_FDCWD, proc, fds[0], n1, AT_SYMLINK_FOLLOW);
		break;
	case OBSERVE_ACT_RENAME:
		if (fds[1] < 0 || !act_name_ok(n2))
			return EACCES;
		rc = (int)syscall(SYS_renameat2, fds[0], n1, fds[1], n2,
		    (unsigned)a->flags);
		break;
	default:
		return EACCES;
	}
	return rc == 0 ? 0 : errno;
}

/* One request: 0 or the errno of the call; *out an opened descriptor. */
static int
act_one(const struct observe_act *a, const char *p1, const char *p2,
    const int fds[3], int *out)
{
	const char	*n1, *n2;
	char		 proc[64];
	int		 d1 = -1, d2 = -1, rc = 0, f;
	int		 fd = (a->aflags & OBSERVE_ACT_F_FD) ? fds[0] : -1;
	bool		 at = (a->aflags & OBSERVE_ACT_F_AT) != 0;

	umask((mode_t)a->umask & 0777);
	/* Never a setuid or setgid mode, whoever asks (the observer refuses
	   them before it asks: seccomp_setid_call). */
	if ((a->mode & (S_ISUID | S_ISGID)) != 0 &&
	    (a->op == OBSERVE_ACT_CHMOD || a->op == OBSERVE_ACT_MKDIR ||
	    a->op == OBSERVE_ACT_MKNOD || (a->op == OBSERVE_ACT_OPEN &&
	    (a->flags & (O_CREAT | __O_TMPFILE)) != 0)))
		return EPERM;
	if (at)
		return act_at(a, p1, p2, fds, out);
	switch (a->op) {
	case OBSERVE_ACT_OPEN:
		return act_do_open(a, p1, fd, out);
	case OBSERVE_ACT_TRUNCATE:
	case OBSERVE_ACT_CHMOD:
		if (fd < 0 && (fd = act_open(p1, O_PATH | O_CLOEXEC |
		    (a->flags ? O_NOFOLLOW : 0), 0)) < 0)
			return errno;
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		if (a->op == OBSERVE_ACT_CHMOD)
			rc = chmod(proc, (mode_t)a->mode) == 0 ? 0 : errno;
		else if ((f = open(proc, O_WRONLY | O_NONBLOCK |
		    O_CLOEXEC)) < 0)
			rc = errno;
		else {
			rc = ftruncate(f, (off_t)a->arg) == 0 ? 0 : errno;
			close(f);
		}
		return rc;
	default:
		break;
	}
	if ((d1 = act_parent(p1, &n1)) < 0)
		return errno;
	switch (a->op) {
	case OBSERVE_ACT_MKDIR:
		rc = mkdirat(d1, n1, (mode_t)a->mode);
		break;
	case OBSERVE_ACT_MKNOD:
		rc = mknodat(d1, n1, (mode_t)a->mode, (dev_t)a->arg);
		break;
	case OBSERVE_ACT_SYMLINK:
		rc = symlinkat(p2, d1, n1);
		break;
	case OBSERVE_ACT_UNLINK:
		rc = unlinkat(d1, n1, (int)a->flags & AT_REMOVEDIR);
		break;
	case OBSERVE_ACT_BIND:
		rc = act_bind(d1, n1, fd);
		break;
	case OBSERVE_ACT_LINK:
		if (fd >= 0) {
			snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
			rc = linkat(AT_FDCWD, proc, d1, n1, AT_SYMLINK_FOLLOW);
			break;
		}
		/* FALLTHROUGH */
	case OBSERVE_ACT_RENAME:
		if ((d2 = act_parent(p2, &n2)) < 0) {
			rc = -1;
			break;
		}
		if (a->op == OBSERVE_ACT_LINK)
			rc = linkat(d2, n2, d1, n1, 0);
		else
			rc = (int)syscall(SYS_renameat2, d1, n1, d2, n2,
			    (unsigned)a->flags);
		break;
	default:
		errno = ENOSYS;
		rc = -1;
	}
	rc = rc == 0 ? 0 : errno;
	close(d1);
	if (d2 >= 0)
		close(d2);
	return rc;
}

/* Answer one request; -1 when bwgate is gone. */
static int
act_serve(int sock)
{
	static char		 msg[sizeof(struct observe_act) +
				    OBSERVE_ACT_MAX];
	struct observe_act	 a;
	struct observe_act_reply r;
	int			 fds[3], out = -1;
	pid_t			 child = -1;
	ssize_t			 n;

	if ((n = fdpass_recv(sock, msg, sizeof msg, fds, 3, 0)) <= 0) {
		for (size_t i = 0; i < 3; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return -1;
	}
	memset(&r, 0, sizeof r);
	memcpy(&a, msg, n >= (ssize_t)sizeof a ? sizeof a : 0);
	if (n < (ssize_t)sizeof a || a.len1 == 0 || a.len1 > 4096 ||
	    a.len2 > 4096 + 8 || (size_t)n != sizeof a + a.len1 + a.len2 ||
	    msg[sizeof a + a.len1 - 1] != '\0' || (a.len2 > 0 &&
	    msg[sizeof a + a.len1 + a.len2 - 1] != '\0'))
		r.error = EPROTO;
	else if ((a.aflags & OBSERVE_ACT_F_AT) && fds[2] >= 0 &&
	    (child = fork()) != 0) {
		/* The call is made, and answered, by the child. */
		for (size_t i = 0; i < 3; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		if (child < 0)
			r.error = EAGAIN;
		else {
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
			return 0;
		}
	} else {
		/* A nested sandbox's call: made as its user namespace (what
		   the kernel lets a process do, e.g. write its own uid_map,
		   depends on who opened the file). The delegate, its
		   ancestor's owner, may enter it. */
		if (child == 0 && setns(fds[2], CLONE_NEWUSER) != 0 &&
		    errno != EINVAL)
			r.error = errno;
		else
			r.error = act_one(&a, msg + sizeof a, a.len2 > 0 ?
			    msg + sizeof a + a.len1 : NULL, fds, &out);
	}
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	n = fdpass_send(sock, &r, sizeof r, &out, out >= 0);
	if (out >= 0)
		close(out);
	if (child == 0)
		_exit(0);
	return n < 0 ? -1 : 0;
}

/*
 * Start the delegate so that the command does not find a child it did
 * not make: as the helper's sibling (CLONE_PARENT: a child of the
 * sandbox's init, bwrap's, which reaps it), one process. Only an init
 * cannot do that (EINVAL): then a fork twice, the middle one ending at
 * once. Like fork(): 0 in the delegate, else its pid or -1.
 */
static pid_t
delegate_fork(void)
{
	pid_t	pid;
	int	st;

	pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL,
	    NULL, NULL);
	if (pid >= 0 || errno != EINVAL)
		return pid;
	if ((pid = fork()) == 0)
		return fork() != 0 ? (_exit(0), 0) : 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	return pid;
}

int
helper_act_start(void)
{
	int	sv[2], st;
	pid_t	pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	if ((pid = delegate_fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		(void)signal(SIGPIPE, SIG_IGN);
		/* Its children (a FIFO's wait) reap themselves. */
		(void)signal(SIGCHLD, SIG_IGN);
		/* Nothing of the command's or the helper's stays open here
		   (bwgate sees the helper's socket close when it should). */
		if (dup2(sv[1], 3) != 3)
			_exit(1);
		(void)syscall(SYS_close_range, 4U, ~0U, 0U);
		if ((st = open("/dev/null", O_RDWR)) >= 0) {
			dup2(st, 0);
			dup2(st, 1);
			dup2(st, 2);
			if (st > 3)
				close(st);
		}
		(void)chdir("/");
		while (act_serve(3) == 0)
			;
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}
