/*
 * bwgate-pod: the holder of a project's shared world (pod.h), started by
 * the project's first run with
 *
 *	bwgate-pod IDLE_SEC SOCKNAME TMPNAME UID GID
 *	  3: its lock, held for life	4: its listening socket
 *	  5: the runtime directory	6: the pods directory
 *
 * SOCKNAME names the socket in 5, TMPNAME the pod's /tmp made in 6; UID
 * and GID are who the sandboxes run as (mapped in the pod's user
 * namespace beside the holder's own ids). No path of the caller's is in
 * its arguments or environment: a test's leftovers check does not take
 * it for a process of the test, and it leaves when its socket is gone.
 *
 * A child it starts makes the namespaces (unshare), the holder writes the
 * child's id maps from outside (so root can map the project owner beside
 * itself), the child brings the loopback up and exits; the holder keeps
 * the namespaces by descriptor. Each run that connects gets the user and
 * network namespaces and the /tmp directory (SCM_RIGHTS) and stays
 * connected while it runs; a console stays connected while it lives and
 * says it owns the pod ('o'): the pod ends with it.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"

#include "spawn.h"

#define POD_MAX_CONN	256
#define POD_TREE_DEPTH	256

/* A non-negative number argument, or -1. */
static long
pod_num(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > INT_MAX)
		return -1;
	return v;
}

static long
pod_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child: make the namespaces, wait for the maps, bring lo up. */
static int
pod_child(void *arg)
{
	struct ifreq	ifr;
	char		c;
	int		s;

	(void)arg;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0 ||
	    write(3, "u", 1) != 1 || read(4, &c, 1) != 1)
		return 1;
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 1;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		return 1;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
		return 1;
	return 0;
}

/* Write one map file of pid: own id, and id when it differs. */
static int
pod_map(pid_t pid, const char *file, long own, long id)
{
	char	path[64], map[96];
	int	fd, n, rc;

	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, file);
	if (id == own)
		n = snprintf(map, sizeof map, "%ld %ld 1\n", own, own);
	else
		n = snprintf(map, sizeof map, "%ld %ld 1\n%ld %ld 1\n",
		    own < id ? own : id, own < id ? own : id,
		    own < id ? id : own, own < id ? id : own);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = write(fd, map, (size_t)n) == n ? 0 : -1;
	close(fd);
	return rc;
}

/* Make the namespaces; their descriptors in ns[0] (user), ns[1] (net). */
static int
pod_namespaces(long uid, long gid, int ns[2])
{
	int		 up[2], go[2], fds[5];
	char		*argv[] = { "bwgate-pod: namespaces", NULL };
	char		 path[64], c;
	struct spawn	 sp = SPAWN_INIT;
	char		*cause = NULL;
	int		 fd, rc = -1;

	if (pipe2(up, O_CLOEXEC) != 0 || pipe2(go, O_CLOEXEC) != 0)
		return -1;
	fds[0] = fds[1] = fds[2] = SPAWN_DEVNULL;
	fds[3] = up[1];
	fds[4] = go[0];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 5;
	sp.fn = pod_child;
	if (spawn_start(&sp, &cause) != 0) {
		free(cause);
		return -1;
	}
	close(up[1]);
	close(go[0]);
	if (read(up[0], &c, 1) != 1)
		goto out;
	snprintf(path, sizeof path, "/proc/%ld/ns/user", (long)sp.pid);
	ns[0] = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof path, "/proc/%ld/ns/net", (long)sp.pid);
	ns[1] = open(path, O_RDONLY | O_CLOEXEC);
	if (ns[0] < 0 || ns[1] < 0 ||
	    pod_map(sp.pid, "uid_map", (long)geteuid(), uid) != 0)
		goto out;
	/* An ordinary user may map a group only with setgroups off; root
	   keeps it (setpriv --clear-groups needs it). */
	if (geteuid() != 0) {
		snprintf(path, sizeof path, "/proc/%ld/setgroups",
		    (long)sp.pid);
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 ||
		    write(fd, "deny", 4) != 4)
			goto out;
		close(fd);
	}
	if (pod_map(sp.pid, "gid_map", (long)getegid(), gid) != 0 ||
	    write(go[1], "g", 1) != 1)
		goto out;
	rc = 0;
out:
	close(up[0]);
	close(go[1]);
	if (spawn_wait(&sp) != 0)
		rc = -1;
	spawn_release(&sp);
	return rc;
}

/* Remove name in dirfd and everything below it, never following a link. */
static void
pod_remove(int dirfd, const char *name, int depth)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	char		 self[64];
	int		 pin;

	if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR &&
	    errno != EPERM) || depth > POD_TREE_DEPTH)
		return;
	/* A directory the sandbox made unreadable: its mode changed on the
	   directory itself, pinned first (a name swapped for a link in
	   between changes nothing of the host's). */
	if ((pin = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	snprintf(self, sizeof self, "/proc/self/fd/%d", pin);
	(void)chmod(self, 0700);
	fd = openat(pin, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pin);
	if (fd < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			pod_remove(fd, de->d_name, depth + 1);
	closedir(d);
	(void)unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Send the three descriptors with one byte. */
static int
pod_send(int conn, const int fds[3])
{
	return fdpass_send(conn, "P", 1, fds, 3);
}

/* Is our socket still at its name (not removed, not replaced)? */
static int
pod_sock_here(const char *name, const struct stat *was)
{
	struct stat	st;

	return fstatat(5, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == was->st_dev && st.st_ino == was->st_ino;
}

/*
 * Serve runs until idle (or the socket is gone). A run that sends 'o'
 * owns the pod (the console): once an owner left and nobody is
 * connected, the pod ends at once instead of after the idle limit.
 */
static void
pod_serve(long idle_ms, const char *sockname, const int give[3])
{
	struct pollfd	 pfd[1 + POD_MAX_CONN];
	bool		 owner[1 + POD_MAX_CONN], owner_left = false;
	struct stat	 sock;
	size_t		 n = 1;
	long		 last = pod_now_ms();

	if (fstatat(5, sockname, &sock, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	pfd[0].fd = 4;
	pfd[0].events = POLLIN;
	for (;;) {
		long	left = idle_ms - (pod_now_ms() - last);
		int	wait = n > 1 || left > 1000 ? 1000 : (int)left;

		if (n == 1 && (left <= 0 || owner_left))
			break;
		if (poll(pfd, n, wait < 0 ? 0 : wait) < 0 && errno != EINTR)
			break;
		if (!pod_sock_here(sockname, &sock))
			return;
		for (size_t i = n; i-- > 1;) {
			char	c;

			if (pfd[i].revents == 0)
				continue;
			if ((pfd[i].revents & POLLIN) &&
			    recv(pfd[i].fd, &c, 1, MSG_DONTWAIT) > 0) {
				owner[i] = owner[i] || c == 'o';
				continue;
			}
			close(pfd[i].fd);	/* the run ended */
			owner_left = owner_left || owner[i];
			owner[i] = owner[n - 1];
			pfd[i] = pfd[--n];
			last = pod_now_ms();
		}
		if (pfd[0].revents & POLLIN) {
			int	c = accept4(4, NULL, NULL, SOCK_CLOEXEC);

			if (c < 0)
				continue;
			if (pod_send(c, give) != 0 || n == 1 + POD_MAX_CONN)
				close(c);
			else {
				pfd[n].fd = c;
				pfd[n].events = POLLIN;
				pfd[n].revents = 0;
				owner[n++] = false;
			}
			last = pod_now_ms();
		}
	}
	unlinkat(5, sockname, 0);
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	long		 idle, uid, gid;
	int		 give[3];

	if (argc != 6 || (idle = pod_num(argv[1])) < 0 ||
	    (uid = pod_num(argv[4])) < 0 || (gid = pod_num(argv[5])) < 0 ||
	    strchr(argv[2], '/') != NULL || strchr(argv[3], '/') != NULL) {
		fprintf(stderr, "usage: bwgate-pod IDLE_SEC SOCKNAME TMPNAME "
		    "UID GID (started by bwgate)\n");
		return 2;
	}
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (chdir("/") != 0)
		return 1;
	/* A /tmp left by a holder that was killed goes first. */
	pod_remove(6, argv[3], 0);
	if (mkdirat(6, argv[3], 0700) != 0 ||
	    (give[2] = openat(6, argv[3], O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 1;
	if (geteuid() == 0 && (uid != 0 || gid != 0) &&
	    fchown(give[2], (uid_t)uid, (gid_t)gid) != 0)
		goto out;
	if (pod_namespaces(uid, gid, give) != 0)
		goto out;
	if (ftruncate(3, 0) == 0)
		dprintf(3, "%ld\n", (long)getpid());
	pod_serve(idle * 1000, argv[2], give);
out:
	pod_remove(6, argv[3], 0);
	return 0;
}
