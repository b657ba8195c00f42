/*
 * pod: join the project's shared world, starting its holder when none
 * runs (pod.h; the holder is pod-main.c).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdpass.h"
#include "file.h"
#include "gitscan.h"
#include "libexec.h"
#include "log.h"
#include "pod.h"
#include "rundir.h"
#include "spawn.h"
#include "xalloc.h"

/* How long a run waits for the holder's answer. */
#define POD_ANSWER_MS	10000

bool
pod_enabled(void)
{
	const char	*v = getenv("BWGATE_POD");

	return v == NULL || strcmp(v, "0") != 0;
}

int
pod_own(const struct stat *st, struct pod *p, char **cause)
{
	struct passwd	*pw;
	long		 uid = (long)geteuid(), gid = (long)getegid();

	/* As build_identity (sandbox-user.c) decides who runs: root runs
	   a user's project as its owner. */
	if (getuid() == 0 && st->st_uid != 0) {
		pw = getpwuid(st->st_uid);
		uid = (long)st->st_uid;
		gid = pw != NULL ? (long)pw->pw_gid : (long)st->st_gid;
	}
	if (pod_join(st, uid, gid, p, cause) != 0)
		return -1;
	if (send(p->conn, "o", 1, MSG_NOSIGNAL) != 1) {
		*cause = xasprintf("cannot hold the project's pod: %s",
		    strerror(errno));
		pod_leave(p);
		return -1;
	}
	return 0;
}

int
pod_watch(const struct pod *p, char kind, int fd)
{
	if (!p->held || fd < 0 || (kind != 'k' && kind != 'i'))
		return -1;
	return fdpass_send(p->conn, &kind, 1, &fd, 1);
}

void
pod_leave(struct pod *p)
{
	int	*fds[] = { &p->conn, &p->userns, &p->netns, &p->tmp,
		    &p->pid_userns, &p->pidns };

	if (!p->held)
		return;
	p->held = false;
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Receive the holder's descriptors on fd (three, or five with a pid
   namespace); 0 or -1. */
static int
pod_receive(int fd, struct pod *p)
{
	char		 byte;
	struct pollfd	 pfd = { .fd = fd, .events = POLLIN };
	int		 got[5];

	if (poll(&pfd, 1, POD_ANSWER_MS) != 1 ||
	    fdpass_recv(fd, &byte, 1, got, 5, 0) != 1)
		return -1;
	if (got[0] < 0 || got[1] < 0 || got[2] < 0 ||
	    (got[3] < 0) != (got[4] < 0)) {
		/* Not the holder's: none kept. */
		for (size_t i = 0; i < 5; i++)
			if (got[i] >= 0)
				close(got[i]);
		return -1;
	}
	p->userns = got[0];
	p->netns = got[1];
	p->tmp = got[2];
	p->pid_userns = got[3];
	p->pidns = got[4];
	return 0;
}

/* Connect to the holder at sock (ours) and receive; 0 or -1. */
static int
pod_connect(const char *sock, struct pod *p)
{
	int	fd;

	if ((fd = rundir_connect_own(sock)) < 0)
		return -1;
	if (pod_receive(fd, p) != 0) {
		close(fd);
		return -1;
	}
	p->conn = fd;
	p->held = true;
	return 0;
}

/* A listening socket bound at sock (a stale one removed first). */
static int
pod_listen(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int		 fd;

	if (strlen(sock) >= sizeof sa.sun_path ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	strcpy(sa.sun_path, sock);
	(void)unlink(sock);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(fd, 64) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* $XDG_STATE_HOME/bwgate/pods, or $HOME/.local/state/bwgate/pods, as
   config_state_dir() says (the policy layer's, which tests of this layer
   do not link). */
static char *
pod_dir(void)
{
	const char	*v = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (v != NULL && v[0] == '/')
		return xasprintf("%s/bwgate/pods", v);
	if (home == NULL || home[0] != '/' || strcmp(home, "/") == 0)
		home = "";
	return xasprintf("%s/.local/state/bwgate/pods", home);
}

/* The idle limit's argument (BWGATE_POD_IDLE, seconds). */
static void
pod_idle(char *out, size_t size)
{
	const char	*v = getenv("BWGATE_POD_IDLE");
	char		*end;
	long		 n;

	n = v != NULL ? strtol(v, &end, 10) : -1;
	if (v == NULL || *end != '\0' || n < 1 || n > 86400)
		n = POD_IDLE_SEC;
	snprintf(out, size, "%ld", n);
}

/*
 * Start the holder: our lock (held) on 3, a socket bound at sock on 4,
 * the runtime and pods directories on 5 and 6. 0 or -1 with *cause.
 */
static int
pod_start(int lockfd, const char *sock, const char *tmpname, long uid,
    long gid, char **cause)
{
	_cleanup_free_ char *prog = libexec_find("bwgate-pod", NULL);
	_cleanup_free_ char *pods = pod_dir(), *rundir = xstrdup(sock);
	char		 idle[16], u[24], g[24];
	char		*argv[] = { prog, idle, strrchr(sock, '/') + 1,
			    (char *)tmpname, u, g, NULL };
	char		*envp[] = { NULL };
	int		 fds[7] = { SPAWN_DEVNULL, SPAWN_DEVNULL, SPAWN_DEVNULL,
			    lockfd, -1, -1, -1 };
	struct spawn	 sp = SPAWN_INIT;
	int		 rc = -1;

	if (prog == NULL) {
		*cause = xstrdup("bwgate-pod is not installed");
		return -1;
	}
	if (mkdir_p(pods, 0700, cause) != 0)
		return -1;
	*strrchr(rundir, '/') = '\0';
	pod_idle(idle, sizeof idle);
	snprintf(u, sizeof u, "%ld", uid);
	snprintf(g, sizeof g, "%ld", gid);
	if ((fds[4] = pod_listen(sock)) < 0 ||
	    (fds[5] = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (fds[6] = open(pods, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot prepare the project's pod: %s",
		    strerror(errno));
		goto out;
	}
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 7;
	sp.envp = envp;
	sp.flags = SPAWN_DETACH;
	if (spawn_start(&sp, cause) != 0)
		goto out;
	spawn_wait(&sp);	/* the child in between */
	spawn_release(&sp);
	rc = 0;
out:
	for (int i = 4; i < 7; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return rc;
}

int
pod_join(const struct stat *st, long uid, long gid, struct pod *p,
    char **cause)
{
	/* One pod per project, sandbox identity and our own user and pid
	   namespaces: a project that changed owners gets a pod that maps
	   the new one, a bwgate nested in another user namespace (an outer
	   sandbox) one it may enter, not the outer bwgate's, and one in
	   another pid namespace a pod whose pid namespace it may join
	   (Linux joins only one below the caller's). */
	char		 usock[64], ulock[64], tmpname[96];
	bool		 started = false;
	_cleanup_free_ char *sock = NULL, *lock = NULL;
	struct stat	 ns;
	unsigned long	 nsid = 0, pidid = 0;
	int		 lfd;

	*p = (struct pod)POD_INIT;
	if (stat("/proc/self/ns/user", &ns) == 0)
		nsid = (unsigned long)ns.st_ino;
	if (stat("/proc/self/ns/pid", &ns) == 0)
		pidid = (unsigned long)ns.st_ino;
	snprintf(usock, sizeof usock, "-u%ld-n%lu-p%lu.sock", uid, nsid,
	    pidid);
	snprintf(ulock, sizeof ulock, "-u%ld-n%lu-p%lu.lock", uid, nsid,
	    pidid);
	sock = gitscan_rundir_file(st, "pod", usock);
	lock = gitscan_rundir_file(st, "pod", ulock);
	if (sock == NULL || lock == NULL) {
		*cause = xstrdup("no runtime directory for the project's pod");
		return -1;
	}
	for (int tries = 0; tries < 50; tries++) {
		if (pod_connect(sock, p) == 0)
			return 0;
		lfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		    0600);
		if (lfd < 0) {
			*cause = xasprintf("cannot open '%s': %s", lock,
			    strerror(errno));
			return -1;
		}
		if (flock(lfd, LOCK_EX | LOCK_NB) == 0) {
			/* Nobody holds the pod. When the holder we started
			   is gone already, it could not make the namespaces
			   here (no user namespaces for it, say). */
			if (started) {
				close(lfd);
				*cause = xstrdup("the project's pod could not "
				    "be made here");
				return -1;
			}
			/* Start its holder, which takes the lock over. */
			started = true;
			snprintf(tmpname, sizeof tmpname, "%s",
			    strrchr(sock, '/') + 1);
			*strrchr(tmpname, '.') = '\0';
			if (pod_start(lfd, sock, tmpname, uid, gid,
			    cause) != 0) {
				close(lfd);
				return -1;
			}
			LOG("started the project's pod");
		}
		close(lfd);
		/* Starting, or leaving as we came: again in a moment. */
		nanosleep(&(struct timespec){ 0, 40 * 1000000 }, NULL);
	}
	*cause = xstrdup("the project's pod does not answer");
	return -1;
}
