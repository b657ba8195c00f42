/*
 * limiter: enforce a command's memory, process and CPU-time limits.
 *
 * A limiter owns up to two cgroup directories (one for cgroup v2; the
 * memory and pids hierarchies for v1) named bwgate-PID-NONCE under the
 * cgroup bwgate itself runs in (or the hierarchy's root), and a descriptor
 * on each one's membership file. bwrap joins them itself between fork and
 * exec (spawn.h says why that is the cheap way in cgroup v1), so the
 * sandbox and all it starts are born inside. Resource limits without a
 * cgroup, and CPU time always, are set with prlimit(2) on the sandbox's
 * first process while bwrap still holds it on --block-fd.
 *
 * The name's PID is ours as our pid namespace sees it, and one PID can be
 * two runs in two namespaces (each the first process of its own): NONCE,
 * 64 random bits, keeps their cgroups apart. The owner holds an exclusive
 * flock(2) on its directory while it uses it; a lock is the kernel's, the
 * same in every namespace, and goes with its owner however it ends. So a
 * run removes another's left-behind cgroup (cg_reap) only when it can take
 * that lock (no owner left, in any namespace) and the cgroup is empty
 * (rmdir fails with EBUSY while a process is in it); it never kills what
 * is in another run's cgroup.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "limiter.h"
#include "log.h"
#include "loop.h"
#include "proctree.h"
#include "xalloc.h"

#define CG_ROOT		"/sys/fs/cgroup"

struct limiter {
	struct limits		 lim;
	enum limits_backend	 backend;
	char			*dir[2];	/* v2: dir[0]; v1: memory, pids */
	int			 lock[2];	/* each dir, flock'd, or -1 */
	int			 join[2];	/* membership files, or -1 */
	char			*hit;
	bool			 nproc_exempt;	/* RLIMIT_NPROC does not apply */
	int			 ipcns;		/* the sandbox's IPC namespace, or -1 */
};

static const char *const limits_backend_names[] = {
	[LIMITS_CGROUP2] = "cgroup v2",
	[LIMITS_CGROUP1] = "cgroup v1",
	[LIMITS_RLIMIT] = "resource limits (prlimit)",
};

const char *
limits_backend_name(enum limits_backend b)
{
	return limits_backend_names[b];
}

char *
limits_describe(const struct limits *l)
{
	char	mem[32], pids[32], cpu[32];

	if (l->memory == 0)
		snprintf(mem, sizeof mem, "none");
	else if (l->memory % (1024 * 1024 * 1024) == 0)
		snprintf(mem, sizeof mem, "%llu GiB",
		    (unsigned long long)(l->memory >> 30));
	else
		snprintf(mem, sizeof mem, "%llu MiB",
		    (unsigned long long)(l->memory >> 20));
	if (l->pids == 0)
		snprintf(pids, sizeof pids, "none");
	else
		snprintf(pids, sizeof pids, "%d", l->pids);
	if (l->cpu_s == 0)
		snprintf(cpu, sizeof cpu, "none");
	else
		snprintf(cpu, sizeof cpu, "%d s", l->cpu_s);
	return xasprintf("memory %s, processes %s, cpu time %s", mem, pids,
	    cpu);
}

/* Our own cgroup in a hierarchy: "/a/b" from /proc/self/cgroup. */
static char *
own_cgroup(const char *controller)
{
	FILE	*f = fopen("/proc/self/cgroup", "re");
	char	 line[1024], *res = NULL;

	if (f == NULL)
		return NULL;
	while (fgets(line, sizeof line, f) != NULL) {
		char *a = strchr(line, ':'), *b;

		if (a == NULL || (b = strchr(a + 1, ':')) == NULL)
			continue;
		*b = '\0';
		b[strcspn(b + 1, "\n") + 1] = '\0';
		if (strcmp(a + 1, controller) == 0) {
			res = xstrdup(b + 1);
			break;
		}
	}
	fclose(f);
	return res;
}

static int
write_file(const char *dir, const char *name, const char *value)
{
	char	path[4096];
	int	fd, rc = -1;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	if (write(fd, value, strlen(value)) == (ssize_t)strlen(value))
		rc = 0;
	close(fd);
	return rc;
}

/* "key N" from a flat keyed file, or 0. */
static long
read_key(const char *dir, const char *name, const char *key)
{
	char	path[4096], k[64];
	long	v, res = 0;
	FILE	*f;

	if (dir == NULL)
		return 0;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fscanf(f, "%63s %ld", k, &v) == 2)
		if (strcmp(k, key) == 0)
			res = v;
	fclose(f);
	return res;
}

/*
 * Remove the cgroups of bwgate runs that were killed outright (SIGKILL
 * leaves no chance to clean up): a bwgate-* directory whose lock we can
 * take has no owner left, whatever its pid namespace, and rmdir removes
 * it only when it is empty. The lock is let go after: an owner that meets
 * a directory gone under its lock (cg_claim) takes another name.
 */
static void
cg_reap(const char *base)
{
	DIR		*d = opendir(base);
	struct dirent	*de;
	char		 path[4096];
	int		 fd;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "bwgate-", 7) != 0 ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		snprintf(path, sizeof path, "%s/%s", base, de->d_name);
		if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && rmdir(path) == 0)
			LOG("removed the stale cgroup '%s'", path);
		close(fd);
	}
	closedir(d);
}

/* Make a new cgroup base/bwgate-PID-NONCE and lock it (*lock); NULL
   when it cannot be made, or was removed before it was locked (by
   another run's cg_reap: try another name). */
static char *
cg_claim(const char *base, int *lock)
{
	unsigned long long	 nonce;
	struct stat		 a, b;
	char			*dir;
	int			 fd = -1;

	if (getrandom(&nonce, sizeof nonce, 0) != sizeof nonce)
		return NULL;
	dir = xasprintf("%s/bwgate-%d-%016llx", base, (int)getpid(), nonce);
	if (mkdir(dir, 0700) != 0) {
		free(dir);
		return NULL;
	}
	/* Still the directory made above once it is locked: a reaper
	   that locked it first has removed it, and ours is then a lock
	   on a directory without a name. */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &a) != 0 ||
	    stat(dir, &b) != 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		if (fd >= 0)
			close(fd);
		rmdir(dir);
		free(dir);
		return NULL;
	}
	*lock = fd;
	return dir;
}

/* A fresh cgroup under the hierarchy at root, locked (*lock). */
static char *
cg_make(const char *root, const char *controller, const char *probe_file,
    int *lock)
{
	char		*own = own_cgroup(controller), *base, *dir = NULL;
	struct stat	 st;

	/* Under our own cgroup when we can see it, so the limits of an
	   enclosing container still apply; else the hierarchy's root. */
	base = own != NULL ? xasprintf("%s%s", root, strcmp(own, "/") == 0 ?
	    "" : own) : xstrdup(root);
	free(own);
	if (stat(base, &st) != 0) {
		free(base);
		base = xstrdup(root);
	}
	cg_reap(base);
	for (int i = 0; i < 4 && dir == NULL; i++)
		dir = cg_claim(base, lock);
	free(base);
	if (dir == NULL)
		return NULL;
	base = xasprintf("%s/%s", dir, probe_file);
	if (stat(base, &st) != 0) {
		rmdir(dir);
		free(dir);
		dir = NULL;
		close(*lock);
		*lock = -1;
	}
	free(base);
	return dir;
}

/* Give up cgroup i (it holds nothing yet). */
static void
cg_drop(struct limiter *l, int i)
{
	if (l->dir[i] != NULL)
		rmdir(l->dir[i]);
	free(l->dir[i]);
	l->dir[i] = NULL;
	if (l->lock[i] >= 0)
		close(l->lock[i]);
	l->lock[i] = -1;
}

/* Try cgroup v2, then v1; fill l->dir. */
static void
limiter_cgroups(struct limiter *l)
{
	struct stat	st;
	char		v[32];

	if (stat(CG_ROOT "/cgroup.controllers", &st) == 0) {
		/* Pure v2: one directory, memory and pids enabled in it. */
		l->dir[0] = cg_make(CG_ROOT, "", "memory.max", &l->lock[0]);
		if (l->dir[0] != NULL) {
			char *p = xasprintf("%s/pids.max", l->dir[0]);

			if (stat(p, &st) == 0)
				l->backend = LIMITS_CGROUP2;
			free(p);
		}
		if (l->backend == LIMITS_CGROUP2) {
			if (l->lim.memory > 0) {
				snprintf(v, sizeof v, "%llu",
				    (unsigned long long)l->lim.memory);
				write_file(l->dir[0], "memory.max", v);
				write_file(l->dir[0], "memory.swap.max", "0");
			}
			if (l->lim.pids > 0) {
				snprintf(v, sizeof v, "%d", l->lim.pids);
				write_file(l->dir[0], "pids.max", v);
			}
			return;
		}
		cg_drop(l, 0);
		return;
	}
	l->dir[0] = cg_make(CG_ROOT "/memory", "memory",
	    "memory.limit_in_bytes", &l->lock[0]);
	l->dir[1] = cg_make(CG_ROOT "/pids", "pids", "pids.max", &l->lock[1]);
	if (l->dir[0] == NULL || l->dir[1] == NULL) {
		for (int i = 0; i < 2; i++)
			cg_drop(l, i);
		return;
	}
	l->backend = LIMITS_CGROUP1;
	if (l->lim.memory > 0) {
		snprintf(v, sizeof v, "%llu",
		    (unsigned long long)l->lim.memory);
		write_file(l->dir[0], "memory.limit_in_bytes", v);
		/* Present only with swap accounting. */
		write_file(l->dir[0], "memory.memsw.limit_in_bytes", v);
	}
	if (l->lim.pids > 0) {
		snprintf(v, sizeof v, "%d", l->lim.pids);
		write_file(l->dir[1], "pids.max", v);
	}
}

/* Make the cgroups (when there are limits to enforce) and open their
   membership files. */
static void
limiter_make(struct limiter *l)
{
	l->backend = LIMITS_RLIMIT;
	if (l->lim.memory > 0 || l->lim.pids > 0)
		limiter_cgroups(l);
	for (int i = 0; i < 2; i++) {
		char *p;

		if (l->dir[i] == NULL)
			continue;
		/* v1 "tasks": one thread (the caller, with "0"); v2 has no
		   such file and moves the whole process. */
		p = xasprintf("%s/%s", l->dir[i], l->backend ==
		    LIMITS_CGROUP1 ? "tasks" : "cgroup.procs");
		l->join[i] = open(p, O_WRONLY | O_CLOEXEC);
		free(p);
		if (l->join[i] < 0)
			l->backend = LIMITS_RLIMIT;
	}
	LOG("limits by %s", limits_backend_name(l->backend));
}

struct limiter *
limiter_new(const struct limits *lim)
{
	struct limiter	*l = xcalloc(1, sizeof *l);

	l->lim = *lim;
	l->join[0] = l->join[1] = -1;
	l->lock[0] = l->lock[1] = -1;
	l->ipcns = -1;
	limiter_make(l);
	return l;
}

int
limiter_renew(struct limiter *l)
{
	enum limits_backend	 was = l->backend;
	struct stat		 a, b;
	bool			 lost = false;

	for (int i = 0; i < 2; i++)
		if (l->dir[i] != NULL && (fstat(l->lock[i], &a) != 0 ||
		    stat(l->dir[i], &b) != 0 || a.st_dev != b.st_dev ||
		    a.st_ino != b.st_ino))
			lost = true;
	if (!lost)
		return -1;
	LOG("a cgroup of ours was removed before bwrap joined it");
	for (int i = 0; i < 2; i++) {
		if (l->join[i] >= 0)
			close(l->join[i]);
		l->join[i] = -1;
		cg_drop(l, i);
	}
	limiter_make(l);
	return l->backend == was ? 0 : -1;
}

enum limits_backend
limiter_backend(const struct limiter *l)
{
	return l->backend;
}

enum limits_backend
limits_probe(void)
{
	struct limits		 lim = { 1ULL << 40, 1 << 20, 0 };
	struct limiter		*l = limiter_new(&lim);
	enum limits_backend	 b = l->backend;

	limiter_free(l);
	return b;
}

/* prlimit(2) on the blocked process; -1 with cause. */
static int
limiter_prlimit(pid_t pid, int resource, rlim_t cur, rlim_t max,
    char **cause)
{
	struct rlimit	rl = { cur, max };

	if (prlimit(pid, resource, &rl, NULL) != 0) {
		*cause = xasprintf("cannot set the sandbox's resource limits: "
		    "%s", strerror(errno));
		return -1;
	}
	return 0;
}

size_t
limiter_join_fds(const struct limiter *l, int fds[2])
{
	size_t	n = 0;

	if (l->backend == LIMITS_RLIMIT)
		return 0;
	for (int i = 0; i < 2; i++)
		if (l->join[i] >= 0)
			fds[n++] = l->join[i];
	return n;
}

/*
 * Does Linux exempt uid (as this namespace sees it) from RLIMIT_NPROC? It
 * never counts the processes of the global root user (nor of one with
 * CAP_SYS_RESOURCE or CAP_SYS_ADMIN, which a sandbox does not keep): uid
 * 0 here, mapped to 0 by this namespace (the usual "nested as root": an
 * outer bwrap started by root). One level of mapping is what can be read;
 * a namespace whose 0 is an ordinary uid outside is counted.
 */
bool
limits_nproc_exempt(uid_t uid)
{
	unsigned long	 in, out, count;
	FILE		*f;
	bool		 exempt = false;

	if (uid != 0)
		return false;
	if ((f = fopen("/proc/self/uid_map", "re")) == NULL)
		return true;	/* no user namespaces: the real root */
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
		if (in == 0 && count > 0)
			exempt = out == 0;
	fclose(f);
	return exempt;
}

/* The real uid of process pid, as this namespace sees it, or -1. */
static long
proc_real_uid(pid_t pid)
{
	char	 path[64], line[256];
	long	 uid = -1;
	FILE	*f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

char *
limits_caveat(enum limits_backend b, const struct limits *lim, bool root)
{
	const char	*mem = NULL, *pids = NULL;

	if (b != LIMITS_RLIMIT)
		return NULL;
	if (lim->memory > 0)
		mem = "memory is limited per process (address space: each of "
		    "the command's processes may use that much), not per "
		    "command";
	if (lim->pids > 0)
		pids = root ? "no process limit applies (Linux does not count "
		    "root's processes)" : "processes are counted per user "
		    "(the user's other processes outside the sandbox too)";
	if (mem == NULL && pids == NULL)
		return NULL;
	return xasprintf("without a cgroup, %s%s%s", mem != NULL ? mem : "",
	    mem != NULL && pids != NULL ? "; " : "", pids != NULL ? pids : "");
}

bool
limiter_pids_enforced(const struct limiter *l)
{
	return l->lim.pids > 0 && !l->nproc_exempt;
}

char *
limiter_caveat(const struct limiter *l)
{
	return limits_caveat(l->backend, &l->lim, l->nproc_exempt);
}

int
limiter_attach(struct limiter *l, pid_t pid, char **cause)
{
	long	uid;

	/* SIGXCPU at the CPU limit, SIGKILL two seconds later. */
	if (l->lim.cpu_s > 0 && limiter_prlimit(pid, RLIMIT_CPU,
	    (rlim_t)l->lim.cpu_s, (rlim_t)l->lim.cpu_s + 2, cause) != 0)
		return -1;
	if (l->backend != LIMITS_RLIMIT)
		return 0;	/* bwrap joined the cgroup before it started */
	if (l->lim.memory > 0 && limiter_prlimit(pid, RLIMIT_AS,
	    l->lim.memory, l->lim.memory, cause) != 0)
		return -1;
	uid = proc_real_uid(pid);
	l->nproc_exempt = uid >= 0 && limits_nproc_exempt((uid_t)uid);
	if (l->lim.pids > 0 && limiter_prlimit(pid, RLIMIT_NPROC,
	    (rlim_t)l->lim.pids, (rlim_t)l->lim.pids, cause) != 0)
		return -1;
	return 0;
}

const char *
limiter_hit(struct limiter *l)
{
	const char *pids = l->backend == LIMITS_CGROUP2 ? l->dir[0] :
	    l->dir[1];

	if (l->hit == NULL && l->backend != LIMITS_RLIMIT &&
	    read_key(pids, "pids.events", "max") > 0)
		l->hit = "pids limit";
	return l->hit;
}

const char *
limiter_verdict(struct limiter *l, int sig)
{
	if (l->backend == LIMITS_CGROUP2 &&
	    read_key(l->dir[0], "memory.events", "oom_kill") > 0)
		return "memory limit";
	if (l->backend == LIMITS_CGROUP1 &&
	    read_key(l->dir[0], "memory.oom_control", "oom_kill") > 0)
		return "memory limit";
	if (limiter_hit(l) != NULL)
		return l->hit;
	if (l->lim.cpu_s > 0 && sig == SIGXCPU)
		return "time limit";
	return NULL;
}

/* SIGKILL whatever is still in a cgroup. */
static void
cg_kill(const char *dir)
{
	char	path[4096];
	FILE	*f;
	int	pid;

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fscanf(f, "%d", &pid) == 1)
		if (pid > 0)
			kill(pid, SIGKILL);
	fclose(f);
}

int
limiter_procs(const struct limiter *l, int sig,
    bool (*skip)(pid_t, void *), void *arg)
{
	char	path[4096];
	FILE	*f;
	int	pid, n = 0;

	if (l == NULL)
		return -1;
	if (l->backend == LIMITS_RLIMIT || l->dir[0] == NULL)
		return l->ipcns >= 0 ? ipcns_signal(l->ipcns, sig, 0, skip,
		    arg) : -1;
	/* v1: every controller's cgroup holds them all; one is enough. */
	snprintf(path, sizeof path, "%s/cgroup.procs", l->dir[0]);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fscanf(f, "%d", &pid) == 1) {
		if (pid <= 0 || (skip != NULL && skip(pid, arg)))
			continue;
		n++;
		if (sig != 0)
			kill(pid, sig);
	}
	fclose(f);
	return n;
}

bool
limiter_mark(struct limiter *l, int nsfd)
{
	if (l->ipcns >= 0)
		close(l->ipcns);
	l->ipcns = -1;
	if (!ipcns_usable(nsfd)) {
		if (nsfd >= 0)
			close(nsfd);
		return false;
	}
	l->ipcns = nsfd;
	return true;
}

bool
limiter_knows_procs(const struct limiter *l)
{
	return l != NULL && ((l->backend != LIMITS_RLIMIT && l->dir[0] !=
	    NULL) || l->ipcns >= 0);
}

int
limiter_open_dir(const struct limiter *l, char *kind)
{
	if (l == NULL)
		return -1;
	if (l->backend == LIMITS_RLIMIT || l->dir[0] == NULL) {
		*kind = 'i';
		return l->ipcns >= 0 ? fcntl(l->ipcns, F_DUPFD_CLOEXEC, 3) :
		    -1;
	}
	*kind = 'k';
	return open(l->dir[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int
limiter_kill(struct limiter *l, int sig, pid_t except)
{
	char	path[4096];
	FILE	*f;
	int	pid, n;

	if (l == NULL)
		return -1;
	if ((l->backend == LIMITS_RLIMIT || l->dir[0] == NULL) &&
	    l->ipcns >= 0) {
		if (sig != SIGKILL)
			return ipcns_signal(l->ipcns, sig, except, NULL,
			    NULL) < 0 ? -1 : 0;
		if (ipcns_kill(l->ipcns, except) == 0)
			return 0;
		LOG("processes of the run's IPC namespace are left after "
		    "SIGKILL rounds (stopped in the kernel?)");
		return -1;
	}
	if (l->backend == LIMITS_RLIMIT || l->dir[0] == NULL)
		return -1;
	/* All of it at once where the kernel can (v2, Linux 5.14). */
	if (sig == SIGKILL && except == 0 && l->backend == LIMITS_CGROUP2 &&
	    write_file(l->dir[0], "cgroup.kill", "1") == 0)
		return 0;
	/* Else by the list: a process that forks meanwhile has its child
	   born in the cgroup, found by the next reading (SIGKILL: until
	   none is left; a SIGTERM is followed by a SIGKILL anyway). */
	snprintf(path, sizeof path, "%s/cgroup.procs", l->dir[0]);
	for (int round = 0; round < 20; round++) {
		if ((f = fopen(path, "re")) == NULL)
			return -1;
		n = 0;
		while (fscanf(f, "%d", &pid) == 1)
			if (pid > 0 && pid != except && kill(pid, sig) == 0)
				n++;
		fclose(f);
		if (n == 0 || sig != SIGKILL)
			break;
		usleep(1000);
	}
	return 0;
}

void
limiter_free(struct limiter *l)
{
	if (l == NULL)
		return;
	if (l->ipcns >= 0)
		close(l->ipcns);
	for (int i = 0; i < 2; i++) {
		int64_t deadline = loop_now_ms() + 2000;
		long	wait_us = 50;

		if (l->join[i] >= 0)
			close(l->join[i]);
		if (l->dir[i] == NULL)
			continue;
		/* Removal fails while dying processes are still in it: they
		   are gone within a millisecond or so, so look again soon
		   (one run in six met it), then less often. */
		while (rmdir(l->dir[i]) != 0 && errno == EBUSY &&
		    loop_now_ms() < deadline) {
			cg_kill(l->dir[i]);
			usleep((useconds_t)wait_us);
			if (wait_us < 10000)
				wait_us *= 2;
		}
		free(l->dir[i]);
		/* Only now: a cgroup still busy is left to a later run's
		   cg_reap, which may take it once nobody holds the lock. */
		if (l->lock[i] >= 0)
			close(l->lock[i]);
	}
	LOG("limits released");
	free(l);
}
