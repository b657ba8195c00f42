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
 * A child it starts (the keeper) makes the namespaces (unshare), the
 * holder writes the child's id maps from outside (so root can map the
 * project owner beside itself), the child brings the loopback up. Then,
 * inside, a child of its own (the owner) becomes the sandboxes' user,
 * makes a nested user namespace and a pid namespace that one owns (the
 * keeper writes its maps), and starts the pod's init in it
 * (`bwgate-pod init`: pid 1, reaps orphans, not dumpable). Each dies
 * with its parent, so all of it, and every process in the pid namespace,
 * ends with the holder; the holder ends when the keeper does. Without a
 * pid namespace (it could not be made) the pod is what it was.
 *
 * Each run that connects gets the user and network namespaces, the /tmp
 * directory, and the pid namespace's user and pid namespaces when there
 * are (SCM_RIGHTS) and stays connected while it runs; a console stays
 * connected while it lives and says it owns the pod ('o'): the pod ends
 * with it.
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
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "proctree.h"

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

/* Ids of the pod: the holder's own and the sandboxes'. */
struct pod_ids {
	long	own_uid, own_gid, uid, gid;
};

/*
 * The pod's init: pid 1 of its pid namespace (bwgate-pod init, started
 * by pod_pidns_child). Orphans of every sandbox of the project come to
 * it and are reaped here; it dies with its parent (and with it, the
 * kernel ends every process of the namespace). Fd 3 is a pipe its
 * parent holds open: closed already, the parent died before the death
 * signal was set.
 */
static int
pod_init(void)
{
	struct pollfd	pfd = { .fd = 3, .events = POLLIN };
	sigset_t	chld;

	/*
	 * Not dumpable: it runs in the host's mount namespace, and the
	 * sandboxes see it as pid 1; /proc/1/root, /cwd and /fd of a
	 * dumpable process of their uid would be the host's files to them.
	 * Not dumpable, its /proc entries need CAP_SYS_PTRACE in its user
	 * namespace, which no sandbox has.
	 */
	if (getpid() != 1 || prctl(PR_SET_DUMPABLE, 0) != 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || poll(&pfd, 1, 0) != 0)
		return 1;
	close(3);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		(void)sigwaitinfo(&chld, NULL);
	}
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

/* Write pid's uid and gid maps (setgroups off for an ordinary user, who
   may map a group only so; root keeps it: setpriv --clear-groups). */
static int
pod_maps(pid_t pid, const struct pod_ids *ids)
{
	char	path[64];
	int	fd, rc = 0;

	if (pod_map(pid, "uid_map", ids->own_uid, ids->uid) != 0)
		return -1;
	if (ids->own_uid != 0) {
		snprintf(path, sizeof path, "/proc/%ld/setgroups", (long)pid);
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
			return -1;
		rc = write(fd, "deny", 4) == 4 ? 0 : -1;
		close(fd);
	}
	if (rc != 0 || pod_map(pid, "gid_map", ids->own_gid, ids->gid) != 0)
		return -1;
	return 0;
}

/*
 * No user namespace can be made in U2 or below it (its
 * max_user_namespaces is 0; Linux checks the limit of every ancestor).
 * bwrap's --disable-userns does the same for a user namespace of the
 * sandbox's own, which a sandbox in U2 does not have: this keeps that
 * layer beside the deny filter's. 0, or -1 (then no pid namespace).
 */
static int
pod_no_userns(void)
{
	int	fd, rc;

	if ((fd = open("/proc/sys/user/max_user_namespaces",
	    O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = write(fd, "0\n", 2) == 2 ? 0 : -1;
	close(fd);
	return rc;
}

/*
 * In the pod's user namespace U1: become the sandboxes' user (root
 * running a user's project: the user's bwrap, which has no capability in
 * U1, then owns the namespace it joins), make a nested user namespace U2
 * (its maps, the same ids, written by our parent, which has the
 * capabilities in U1) and a pid namespace it owns, and start the pod's
 * init in it. Fd 3 writes to the parent, 4 reads from it; the init's pid
 * goes to 3. Lives as long as the init does.
 */
static int
pod_pidns_child(void *arg)
{
	const struct pod_ids *ids = arg;
	char		 c, *argv[] = { "bwgate-pod", "init", NULL };
	char		 self[PATH_MAX];
	int		 alive[2], fds[4];
	struct spawn	 sp = SPAWN_INIT;
	char		*cause = NULL;
	ssize_t		 n;
	pid_t		 parent = getppid();

	/* A change of ids clears the parent-death signal: set again, and
	   the parent checked to be still there. */
	if (ids->uid != ids->own_uid &&
	    (setgroups(0, NULL) != 0 || setresgid((gid_t)ids->gid,
	    (gid_t)ids->gid, (gid_t)ids->gid) != 0 ||
	    setresuid((uid_t)ids->uid, (uid_t)ids->uid,
	    (uid_t)ids->uid) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    getppid() != parent))
		return 1;
	/* The init is started from our own program, read before the new
	   user namespace changes who may read it. */
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		return 1;
	self[n] = '\0';
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0 ||
	    write(3, "u", 1) != 1 || read(4, &c, 1) != 1 ||
	    pod_no_userns() != 0 || pipe2(alive, O_CLOEXEC) != 0)
		return 1;
	fds[0] = fds[1] = fds[2] = SPAWN_DEVNULL;
	fds[3] = alive[0];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 4;
	argv[0] = self;
	if (spawn_start(&sp, &cause) != 0)
		return 1;
	argv[0] = "bwgate-pod";
	close(alive[0]);
	if (write(3, &sp.pid, sizeof sp.pid) != sizeof sp.pid)
		return 1;
	close(3);
	close(4);
	spawn_wait(&sp);
	return 0;
}

/*
 * Start fn(arg) as a child that talks to us over two pipes: it writes to
 * its fd 3 (our up[0]) and reads its fd 4 (our go[1]), and dies with us.
 * 0, or -1 (nothing started, no pipe left open).
 */
static int
pod_spawn_piped(int (*fn)(void *), void *arg, char **argv, int up[2],
    int go[2], struct spawn *sp)
{
	int	 fds[5];
	char	*cause = NULL;

	if (pipe2(up, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(go, O_CLOEXEC) != 0) {
		close(up[0]);
		close(up[1]);
		return -1;
	}
	fds[0] = fds[1] = fds[2] = SPAWN_DEVNULL;
	fds[3] = up[1];
	fds[4] = go[0];
	sp->argv = argv;
	sp->fds = fds;
	sp->nfds = 5;
	sp->fn = fn;
	sp->fn_arg = arg;
	sp->deathsig = SIGKILL;
	if (spawn_start(sp, &cause) != 0) {
		free(cause);
		for (int i = 0; i < 2; i++) {
			close(up[i]);
			close(go[i]);
		}
		return -1;
	}
	close(up[1]);
	close(go[0]);
	return 0;
}

/*
 * The child: make the namespaces, wait for the maps, bring lo up; then
 * the pid namespace (pod_pidns_child), whose maps it writes. Writes 'u'
 * once it has the namespaces, then the init's pid (0: no pid namespace)
 * and stays while the init lives.
 */
static int
pod_child(void *arg)
{
	const struct pod_ids *ids = arg;
	struct ifreq	ifr;
	char		c;
	int		s, up[2], go[2];
	pid_t		init = 0;
	struct spawn	sp = SPAWN_INIT;
	char		*argv[] = { "bwgate-pod: pid namespace", NULL };

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
	close(s);
	/* Without a pid namespace the pod still works (init 0). */
	if (pod_spawn_piped(pod_pidns_child, (void *)ids, argv, up, go,
	    &sp) != 0 ||
	    read(up[0], &c, 1) != 1 || pod_maps(sp.pid, ids) != 0 ||
	    write(go[1], "g", 1) != 1 ||
	    read(up[0], &init, sizeof init) != sizeof init)
		init = 0;
	if (write(3, &init, sizeof init) != sizeof init || init <= 0)
		return init <= 0 ? 0 : 1;
	close(3);
	close(4);
	close(up[0]);
	close(go[1]);
	spawn_wait(&sp);
	return 0;
}

/*
 * Make the namespaces: their descriptors in ns[0] (user), ns[1] (net),
 * and when the pid namespace could be made ns[2] (its user namespace)
 * and ns[3] (the pid namespace), else -1 there. *keeper: the child that
 * holds them (it ends when the pod's init does), still running.
 */
static int
pod_namespaces(long uid, long gid, int ns[4], struct spawn *keeper)
{
	static struct pod_ids ids;
	int		 up[2], go[2];
	char		*argv[] = { "bwgate-pod: namespaces", NULL };
	char		 path[64], c;
	struct spawn	 sp = SPAWN_INIT;
	pid_t		 init = 0;
	int		 rc = -1;

	ids = (struct pod_ids){ (long)geteuid(), (long)getegid(), uid, gid };
	ns[0] = ns[1] = ns[2] = ns[3] = -1;
	if (pod_spawn_piped(pod_child, &ids, argv, up, go, &sp) != 0)
		return -1;
	if (read(up[0], &c, 1) != 1)
		goto out;
	snprintf(path, sizeof path, "/proc/%ld/ns/user", (long)sp.pid);
	ns[0] = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof path, "/proc/%ld/ns/net", (long)sp.pid);
	ns[1] = open(path, O_RDONLY | O_CLOEXEC);
	if (ns[0] < 0 || ns[1] < 0 || pod_maps(sp.pid, &ids) != 0 ||
	    write(go[1], "g", 1) != 1 ||
	    read(up[0], &init, sizeof init) != sizeof init)
		goto out;
	rc = 0;
	if (init > 0) {
		snprintf(path, sizeof path, "/proc/%ld/ns/user", (long)init);
		ns[2] = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)init);
		ns[3] = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (ns[2] < 0 || ns[3] < 0) {
		for (int i = 2; i < 4; i++)
			if (ns[i] >= 0)
				close(ns[i]);
		ns[2] = ns[3] = -1;
	}
out:
	close(up[0]);
	close(go[1]);
	if (rc != 0 || ns[3] < 0) {
		/* Nothing to hold: the child leaves (or is told to). */
		kill(sp.pid, SIGKILL);
		spawn_wait(&sp);
		spawn_release(&sp);
	} else
		*keeper = sp;
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

/* Send the descriptors with one byte: user, net, /tmp, and the pid
   namespace's user and pid namespaces when there is one. */
static int
pod_send(int conn, const int fds[5])
{
	return fdpass_send(conn, "P", 1, fds, fds[4] >= 0 ? 5 : 3);
}

/*
 * A run left (its connection closed): kill what is left in its cgroup
 * (dirfd, which it sent with 'k'), or where it had none, in its IPC
 * namespace (sent with 'i': ipcns_kill, proctree.h), as a pid namespace
 * of its own would have died with it. A run that ended its own processes
 * leaves none (or a cgroup already removed); one killed outright leaves
 * its background processes in the pod's pid namespace.
 */
static void
pod_end_run(char kind, int dirfd)
{
	char	buf[4096], *p, *end;
	ssize_t	n;
	int	fd, k;

	if (dirfd < 0)
		return;
	if (kind == 'i') {
		if (ipcns_kill(dirfd, 0) != 0)
			fprintf(stderr, "bwgate-pod: processes of a run that "
			    "ended are left (its IPC namespace cannot be "
			    "scanned, or they do not die)\n");
		close(dirfd);
		return;
	}
	if ((fd = openat(dirfd, "cgroup.kill", O_WRONLY | O_CLOEXEC)) >= 0) {
		k = write(fd, "1", 1) == 1;
		close(fd);
		if (k)
			goto out;
	}
	for (int round = 0; round < 20; round++) {
		if ((fd = openat(dirfd, "cgroup.procs", O_RDONLY |
		    O_CLOEXEC)) < 0)
			break;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			break;
		buf[n] = '\0';
		for (p = buf; *p != '\0'; p = end) {
			long	pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 1)
				kill((pid_t)pid, SIGKILL);
		}
		usleep(1000);
	}
out:
	close(dirfd);
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
pod_serve(long idle_ms, const char *sockname, const int give[5], int keeper)
{
	struct pollfd	 pfd[2 + POD_MAX_CONN];
	bool		 owner[2 + POD_MAX_CONN], owner_left = false;
	int		 cg[2 + POD_MAX_CONN];	/* each run's cgroup, or -1 */
	char		 kind[2 + POD_MAX_CONN];	/* of cg: 'k', 'i' */
	struct stat	 sock;
	size_t		 n = 2;
	long		 last = pod_now_ms();

	if (fstatat(5, sockname, &sock, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	pfd[0].fd = 4;
	pfd[0].events = POLLIN;
	/* The pid namespace's keeper (-1: none, ignored by poll): gone, the
	   namespace is (its init died), and so is the pod. */
	pfd[1].fd = keeper;
	pfd[1].events = POLLIN;
	for (;;) {
		long	left = idle_ms - (pod_now_ms() - last);
		int	wait = n > 2 || left > 1000 ? 1000 : (int)left;

		if (n == 2 && (left <= 0 || owner_left))
			break;
		if (poll(pfd, n, wait < 0 ? 0 : wait) < 0 && errno != EINTR)
			break;
		if (!pod_sock_here(sockname, &sock) || pfd[1].revents != 0)
			return;
		for (size_t i = n; i-- > 2;) {
			char	c;
			int	fd;

			if (pfd[i].revents == 0)
				continue;
			if ((pfd[i].revents & POLLIN) &&
			    fdpass_recv(pfd[i].fd, &c, 1, &fd, 1,
			    MSG_DONTWAIT) > 0) {
				owner[i] = owner[i] || c == 'o';
				if ((c == 'k' || c == 'i') && fd >= 0 &&
				    cg[i] < 0) {
					cg[i] = fd;
					kind[i] = c;
				} else if (fd >= 0)
					close(fd);
				continue;
			}
			close(pfd[i].fd);	/* the run ended */
			pod_end_run(kind[i], cg[i]);
			owner_left = owner_left || owner[i];
			owner[i] = owner[n - 1];
			cg[i] = cg[n - 1];
			kind[i] = kind[n - 1];
			pfd[i] = pfd[--n];
			last = pod_now_ms();
		}
		if (pfd[0].revents & POLLIN) {
			int	c = accept4(4, NULL, NULL, SOCK_CLOEXEC);

			if (c < 0)
				continue;
			if (pod_send(c, give) != 0 || n == 2 + POD_MAX_CONN)
				close(c);
			else {
				pfd[n].fd = c;
				pfd[n].events = POLLIN;
				pfd[n].revents = 0;
				cg[n] = -1;
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
	int		 give[5], ns[4];
	struct spawn	 keeper = SPAWN_INIT;

	if (argc == 2 && strcmp(argv[1], "init") == 0)
		return pod_init();
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
	if (pod_namespaces(uid, gid, ns, &keeper) != 0)
		goto out;
	give[0] = ns[0];
	give[1] = ns[1];
	give[3] = ns[2];
	give[4] = ns[3];
	if (ftruncate(3, 0) == 0)
		dprintf(3, "%ld\n", (long)getpid());
	pod_serve(idle * 1000, argv[2], give, keeper.pidfd);
	/* The keeper, its child and the init die with us (their death
	   signals), and with the init every process of the namespace. */
out:
	pod_remove(6, argv[3], 0);
	return 0;
}
