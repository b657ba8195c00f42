/*
 * bwgate-helper: runs first inside the sandbox, installs the violation
 * observer's seccomp filter, hands its listener to bwgate, then becomes
 * the command.
 *
 *	bwgate-helper FD -- COMMAND [ARG...]
 *	bwgate-helper FD		the command comes with the go message
 *	bwgate-helper --write		a file write from stdin (helper-write.c)
 *
 * FD is one end of a SOCK_SEQPACKET pair (observe-proto.h). The filter
 * returns SECCOMP_RET_USER_NOTIF for write-intent system calls and allows
 * everything else; bwgate judges each before it runs, and makes the calls
 * that change names itself, through the delegate this helper forks first
 * (helper-act.c). If the filter cannot be installed (no user notification here),
 * the helper says why and runs the command anyway (bwgate then infers
 * refusals from the error output).
 *
 * Kept tiny: libc, and of bwgate only the door (beneath.c) and SHA-256
 * for the write mode. The seccomp program itself is built by bwgate
 * (observe-filter.c) and arrives with the hello message.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdpass.h"
#include "helper-act.h"
#include "helper-write.h"
#include "observe-proto.h"
#include "write-proto.h"

static int	helper_reply(int, int, int, int, const char *);
static int	helper_install(const void *, uint32_t, const char **);

/* Send the answer, with the listener attached when there is one: 0, or
   -1 when bwgate cannot take it (gone). */
static int
helper_reply(int sock, int listener, int delegate, int error, const char *why)
{
	struct observe_reply	 r;
	struct stat		 st;
	int			 fds[2] = { listener, delegate };

	memset(&r, 0, sizeof r);
	r.magic = OBSERVE_MAGIC;
	r.error = error;
	/* Which mount namespace is the sandbox's (bwgate checks callers). */
	if (stat("/proc/self/ns/mnt", &st) == 0)
		r.mntns = st.st_ino;
	if (why != NULL)
		snprintf(r.why, sizeof r.why, "%s", why);
	/* The listener, and the delegate's socket (helper-act.c). */
	return fdpass_send(sock, &r, sizeof r, fds,
	    listener >= 0 && delegate >= 0 ? 2 : 0);
}

/* Load the program bwgate sent; the listener or -1 with errno and *why. */
static int
helper_install(const void *insns, uint32_t ninsns, const char **why)
{
	struct sock_fprog	prog;

	prog.len = (unsigned short)ninsns;
	prog.filter = (struct sock_filter *)(uintptr_t)insns;
	/* bwrap already set it; needed when run outside bwrap. */
	*why = "no_new_privs";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	*why = "seccomp";
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

/*
 * In sanitizer builds: LeakSanitizer needs ptrace, which the sandbox's
 * filter denies, and it would turn a failed exec's status into 1.
 */
int __lsan_is_turned_off(void);
int
__lsan_is_turned_off(void)
{
	return 1;
}

/*
 * Where execvp would find name on $PATH, looked up with access(): every
 * execve is a notification to bwgate, a round trip each, and an agent's
 * PATH often lists a dozen directories before /usr/bin. NULL when name
 * has a slash, PATH is unset, or nothing fits: execvp then decides, as
 * it does when the one found cannot be run (a script without #!). Not
 * util's path_search: the helper links libc only, and an empty entry is
 * the working directory here, as for execvp.
 */
static const char *
helper_which(const char *name, char *buf, size_t size)
{
	const char	*path = getenv("PATH"), *p, *e;
	struct stat	 st;
	size_t		 nl = strlen(name), dl;

	if (path == NULL || strchr(name, '/') != NULL || nl == 0)
		return NULL;
	for (p = path; ; p = e + 1) {
		const char	*dir = p;

		e = strchrnul(p, ':');
		dl = (size_t)(e - p);
		if (dl == 0) {		/* an empty entry: the working directory */
			dir = ".";
			dl = 1;
		}
		if (dl + nl + 2 <= size) {
			memcpy(buf, dir, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, name, nl + 1);
			if (access(buf, X_OK) == 0 && stat(buf, &st) == 0 &&
			    S_ISREG(st.st_mode))
				return buf;
		}
		if (*e == '\0')
			return NULL;
	}
}

/* bwgate is gone before the command started: it cannot watch, so the
   command does not run. */
static int
helper_gone(void)
{
	fprintf(stderr, "bwgate-helper: bwgate went away before the command "
	    "started; not running it\n");
	return 125;
}

/* The go message of a prestarted sandbox: NUL-ended arguments. */
static char **
helper_argv(char *msg, ssize_t n)
{
	static char	*av[OBSERVE_MAX_ARGV / 2 + 1];
	size_t		 ac = 0;

	if (n <= 0 || msg[n - 1] != '\0')
		return NULL;
	for (char *p = msg; p < msg + n; p += strlen(p) + 1)
		av[ac++] = p;
	av[ac] = NULL;
	return av[0][0] != '\0' ? av : NULL;
}

/*
 * No namespace descriptor reaches the command: bwrap keeps those it
 * joined (--userns, --pidns: the project's pid namespace, sandbox-pod.c)
 * open in the sandbox. NS_GET_NSTYPE answers for those only.
 */
static void
helper_close_namespaces(void)
{
	DIR		*d = opendir("/proc/self/fd");
	struct dirent	*de;
	int		 fd;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		fd = atoi(de->d_name);
		if (fd > 2 && fd != dirfd(d) && ioctl(fd, NS_GET_NSTYPE) >= 0)
			close(fd);
	}
	closedir(d);
}

int
main(int argc, char **argv)
{
	struct observe_hello	 hello;
	static char		 msg[sizeof hello + OBSERVE_MAX_INSNS * 8];
	static char		 go[OBSERVE_MAX_ARGV];
	const char		*why = NULL;
	static char		 found[PATH_MAX];
	const char		*file;
	char			*end, whybuf[96], **cmd;
	long			 sock;
	int			 listener = -1, delegate = -1, error = 0, e;
	bool			 gated;
	ssize_t			 n;

	/* An agent's file write, as data (write-proto.h); the observer's
	   helper ran first and execs this one. */
	if (argc == 2 && strcmp(argv[1], WRITE_PROTO_ARG) == 0)
		return helper_write(0);
	helper_close_namespaces();
	if (argc != 2 && (argc < 4 || strcmp(argv[2], "--") != 0)) {
		fprintf(stderr, "usage: bwgate-helper FD [-- COMMAND [ARG...]]\n");
		return 125;
	}
	errno = 0;
	sock = strtol(argv[1], &end, 10);
	if (errno != 0 || *end != '\0' || sock < 3 || sock > INT_MAX) {
		fprintf(stderr, "bwgate-helper: bad descriptor '%s'\n", argv[1]);
		return 125;
	}

	/*
	 * The socket goes where the program does not watch sendmsg; when
	 * that number is out of reach (a low RLIMIT_NOFILE) the filter is not
	 * installed and bwgate infers refusals instead.
	 */
	if (sock != OBSERVE_SOCK_FD && dup2((int)sock, OBSERVE_SOCK_FD) ==
	    OBSERVE_SOCK_FD) {
		close((int)sock);
		sock = OBSERVE_SOCK_FD;
	}
	/* bwgate wrote the hello before bwrap started: never wait for it. */
	memset(&hello, 0, sizeof hello);
	n = recv((int)sock, msg, sizeof msg, MSG_DONTWAIT);
	if (n >= (ssize_t)sizeof hello)
		memcpy(&hello, msg, sizeof hello);
	if (n < (ssize_t)sizeof hello || hello.magic != OBSERVE_MAGIC ||
	    hello.version != OBSERVE_VERSION || hello.ninsns >
	    OBSERVE_MAX_INSNS || (size_t)n != sizeof hello +
	    (size_t)hello.ninsns * 8) {
		error = EPROTO;
		why = "no hello from bwgate";
	} else if ((argc == 2) != ((hello.flags & OBSERVE_F_ARGV) != 0)) {
		error = EPROTO;
		why = "the command comes both or neither way";
	} else if ((hello.flags & OBSERVE_F_OFF) || hello.ninsns == 0) {
		error = ENOSYS;
		why = "disabled";
	} else if (sock != OBSERVE_SOCK_FD) {
		error = EMFILE;
		why = "descriptor 900 is out of reach (RLIMIT_NOFILE)";
	} else if ((delegate = helper_act_start()) < 0) {
		error = errno;
		why = "cannot start the delegate";
	} else if ((listener = helper_install(msg + sizeof hello,
	    hello.ninsns, &why)) < 0) {
		error = errno;
		snprintf(whybuf, sizeof whybuf, "%s: %s", why, strerror(errno));
		why = whybuf;
	}
	if (helper_reply((int)sock, listener, delegate, error, why) != 0 &&
	    (hello.flags & OBSERVE_F_WAIT))
		return helper_gone();
	/*
	 * The deny filter left setuid and setgid modes to this observer: a
	 * command without it could put a listener of its own in front of
	 * them and let them through. Not when another filter already has a
	 * listener (EBUSY: a sandbox inside a sandbox): nothing can add one
	 * then, and the kernel answers ENOSYS.
	 */
	if (listener < 0 && error != EBUSY && (hello.flags & OBSERVE_F_SETID)) {
		fprintf(stderr, "bwgate-helper: cannot observe the command "
		    "(%s); not running it\n", why);
		return 125;
	}
	gated = listener >= 0;
	if (gated)
		close(listener);
	if (delegate >= 0)
		close(delegate);
	/*
	 * bwgate decides how to report changes before the command runs;
	 * gone instead (killed outright), it cannot watch: do not run. With
	 * the filter on, the command's execve is that gate (it waits for
	 * bwgate's answer, and fails once no listener is left): no byte to
	 * wait for, unless the command itself comes with it.
	 */
	if (error != EPROTO && (hello.flags & OBSERVE_F_WAIT) &&
	    (!gated || argc == 2)) {
		while ((n = recv((int)sock, go, sizeof go, 0)) < 0 &&
		    errno == EINTR)
			;
		if (n <= 0)
			return helper_gone();
	} else
		n = 0;
	if (argc == 2) {
		if (error == EPROTO || (cmd = helper_argv(go, n)) == NULL) {
			fprintf(stderr, "bwgate-helper: no command came\n");
			return 125;
		}
	} else
		cmd = argv + 3;
	close((int)sock);
	if ((file = helper_which(cmd[0], found, sizeof found)) != NULL)
		execv(file, cmd);
	execvp(cmd[0], cmd);
	e = errno;
	if (e == ENOSYS && gated)	/* the gate: see above */
		return helper_gone();
	if (e == ENOENT || e == ENOTDIR) {
		fprintf(stderr, "bwgate-helper: %s: not found\n", cmd[0]);
		return 127;
	}
	fprintf(stderr, "bwgate-helper: %s: %s\n", cmd[0], strerror(e));
	return 126;
}
