/*
 * observe-act: the observer decides. Every call that creates a name
 * (a unix socket's bind included: the delegate binds the caller's own
 * socket, taken with pidfd_getfd, at the name judged), renames, links,
 * removes, opens for writing or changes a mode is judged
 * against one policy (protect.h) before it runs, and where the sandbox has
 * a delegate (helper-act.c) bwgate makes the call itself.
 *
 * Why a racing writer cannot win. What the caller's memory says (the path
 * bytes), which directory its descriptor or working directory is, and
 * where each name leads, are read ONCE here, while the caller is stopped:
 * the bytes are copied, the names resolved in the sandbox's view to a path
 * with no symbolic link on the way, a descriptor named by the call is
 * pinned (opened O_PATH here). The policy judges that path, and the
 * delegate makes the call on that same copy, resolving with
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS: another thread or a process
 * sharing the memory (MAP_SHARED, memfd, clone(CLONE_VM)) may rewrite the
 * caller's bytes at any time, the kernel never reads them again, and a
 * link put on the way meanwhile makes the call fail (ELOOP), never lead
 * elsewhere. An open's descriptor is injected into the caller
 * (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND, Linux 5.14),
 * atomically with the answer. The delegate is a process of the sandbox
 * itself (its user and mount namespaces, its credentials, its root): a
 * read-only bind stays read-only, a file it makes belongs to the sandbox's
 * user, as if the caller had made it. A call from a nested sandbox's own
 * mount namespace is judged by identity (act_foreign, below). Calls the
 * kernel may keep making
 * (CONTINUE) are those that create nothing (utime, chown, xattr, exec,
 * network) and opens of existing files that only read.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdpass.h"
#include "log.h"
#include "loop.h"
#include "observe-int.h"
#include "observe-proto.h"
#include "protect.h"
#include "xalloc.h"

/* How long the delegate may take for one call (a stuck file system). */
#define ACT_TIMEOUT_MS		10000

/* The project-relative path of an absolute one in the sandbox's view, or
   NULL when it is outside the project. */
static const char *
act_rel(const struct observer *obs, const char *abs)
{
	if (obs->project == NULL || strncmp(abs, obs->project,
	    obs->project_len) != 0)
		return NULL;
	if (abs[obs->project_len] == '\0')
		return "";
	if (abs[obs->project_len] != '/')
		return NULL;
	return abs + obs->project_len + 1;
}

/* Fail the call: recorded as a refusal with its rule and reason (once:
   the mounts' judgement may have recorded it, vs is then NULL). */
static void
act_refuse(struct observer *obs, const char *abs, const char *name,
    int error, const char *rule, enum violation_reason reason,
    struct violations *vs)
{
	LOG("refused %s %s: %s", name, abs, rule);
	obs->refused++;
	if (vs != NULL)
		observe_add(vs, abs, name, reason, true);
	obs->answer = ANSWER_ERROR;
	obs->answer_error = error;
}

/* Judge abs for op; true (and the answer set) when refused. */
static bool
act_judge(struct observer *obs, const char *abs, enum protect_op op,
    const char *name, struct violations *vs)
{
	const char	*rel = act_rel(obs, abs), *rule = NULL;
	int		 e;

	if (rel == NULL || obs->protect == NULL)
		return false;
	if ((e = protect_judge(obs->protect, rel, op, &rule)) == 0)
		return false;
	act_refuse(obs, abs, name, op == PROTECT_MODE ? EPERM : e,
	    rule != NULL ? rule : "protected", VIOLATION_PROTECTED, vs);
	return true;
}

/* Pin the caller's descriptor fd (O_PATH): ours, or -1. */
static int
act_pin(pid_t pid, int fd)
{
	char	p[64];

	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)pid, fd);
	return open(p, O_PATH | O_CLOEXEC);
}

/* The caller's socket sockfd itself (a bind: the delegate binds it),
   ours, or -1 (its task cannot be reached: the call fails closed). */
static int
act_socket(pid_t pid, uint64_t sockfd)
{
	int	pidfd, fd;

	if (sockfd > INT_MAX ||
	    (pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
		return -1;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, (int)sockfd, 0);
	close(pidfd);
	return fd;
}

/* The path of a descriptor we hold, in the sandbox's view, or NULL (no
   name: a pipe, a file removed). */
static char *
act_pin_path(int fd)
{
	bool	 deleted;
	char	*p = observe_base(getpid(), fd, &deleted);

	if (p != NULL && deleted) {
		free(p);
		p = NULL;
	}
	return p;
}

/* /proc/self/fd/N or /proc/thread-self/fd/N: N, else -1. */
static int
act_proc_fd(const char *abs)
{
	const char	*s = NULL;
	char		*end;
	long		 n;

	if (strncmp(abs, "/proc/self/fd/", 14) == 0)
		s = abs + 14;
	else if (strncmp(abs, "/proc/thread-self/fd/", 21) == 0)
		s = abs + 21;
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	n = strtol(s, &end, 10);
	return *end == '\0' && n < INT_MAX ? (int)n : -1;
}

/* /proc/self and /proc/thread-self name the reader: the delegate would
   read its own. The caller's, as the sandbox's /proc numbers it. */
static char *
act_proc_self(pid_t pid, char *abs)
{
	char		 p[64], line[256];
	FILE		*f;
	const char	*rest;
	char		*out = NULL, *s;
	long		 tgid = -1, tid = -1;
	bool		 thread = false;

	if (strncmp(abs, "/proc/self", 10) == 0 && (abs[10] == '/' ||
	    abs[10] == '\0'))
		rest = abs + 10;
	else if (strncmp(abs, "/proc/thread-self", 17) == 0 &&
	    (abs[17] == '/' || abs[17] == '\0')) {
		rest = abs + 17;
		thread = true;
	} else
		return abs;
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	if ((f = fopen(p, "re")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL) {
			long	*to = strncmp(line, "NStgid:", 7) == 0 ? &tgid :
			    strncmp(line, "NSpid:", 6) == 0 ? &tid : NULL;

			/* The last number: the innermost namespace. */
			if (to != NULL && (s = strrchr(line, '\t')) != NULL)
				*to = strtol(s + 1, NULL, 10);
		}
		fclose(f);
	}
	if (tgid > 0 && tid > 0)
		out = thread ? xasprintf("/proc/%ld/task/%ld%s", tgid, tid,
		    rest) : xasprintf("/proc/%ld%s", tgid, rest);
	free(abs);
	return out;
}

/* The caller's umask, for a call that makes a mode (else 0: reading
   /proc/PID/status is the dearest part of a call that only writes). */
static uint32_t
act_umask(pid_t pid, const struct observe_req *q)
{
	char		 p[64], line[128];
	FILE		*f;
	unsigned	 u = 022;

	if (q->op != OBSERVE_ACT_MKDIR && q->op != OBSERVE_ACT_MKNOD &&
	    q->op != OBSERVE_ACT_BIND && (q->op != OBSERVE_ACT_OPEN || (q->flags & (O_CREAT |
	    __O_TMPFILE)) == 0))
		return 0;
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	if ((f = fopen(p, "re")) == NULL)
		return u;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "Umask: %o", &u) == 1)
			break;
	fclose(f);
	return u;
}

/* Send one request to the delegate and take its answer: 0 or an errno;
   *out the descriptor it opened, or -1. */
static int
act_send2(struct observer *obs, const struct observe_act *a, const char *p1,
    const char *p2, const int fds[3], int *out)
{
	char			 msg[sizeof *a + OBSERVE_ACT_MAX];
	struct observe_act_reply r;
	struct pollfd		 pfd = { obs->delegate, POLLIN, 0 };
	size_t			 nfd = 0;
	ssize_t			 n;

	*out = -1;
	if (a->len1 > 4096 || a->len2 > 4096 + 8)
		return ENAMETOOLONG;
	memcpy(msg, a, sizeof *a);
	memcpy(msg + sizeof *a, p1, a->len1);
	if (a->len2 > 0)
		memcpy(msg + sizeof *a + a->len1, p2, a->len2);
	/* The descriptors up to the first absent one. */
	while (nfd < 3 && fds[nfd] >= 0)
		nfd++;
	if (fdpass_send(obs->delegate, msg, sizeof *a + a->len1 + a->len2,
	    fds, nfd) != 0)
		goto gone;
	if (poll(&pfd, 1, ACT_TIMEOUT_MS) != 1)
		goto gone;
	memset(&r, 0, sizeof r);
	n = fdpass_recv(obs->delegate, &r, sizeof r, out, 1, 0);
	if (n != (ssize_t)sizeof r) {
		if (*out >= 0)
			close(*out);
		*out = -1;
		goto gone;
	}
	obs->decided++;
	return r.error;
gone:
	/* Fail closed: no delegate, no call. */
	LOG("the delegate is gone: %s", strerror(errno));
	close(obs->delegate);
	obs->delegate = -1;
	return EACCES;
}

/* One descriptor (or none) along. */
static int
act_send(struct observer *obs, const struct observe_act *a, const char *p1,
    const char *p2, int fd, int *out)
{
	int	fds[3] = { fd, -1, -1 };

	return act_send2(obs, a, p1, p2, fds, out);
}

/* The delegate's answer e (and descriptor out) as the call's. */
static void
act_answer(struct observer *obs, const struct observe_req *q, int e, int out)
{
	if (e == EINPROGRESS && out >= 0 && q->op == OBSERVE_ACT_OPEN) {
		obs->answer = ANSWER_LATER;
		obs->answer_fd = out;
		obs->answer_cloexec = (q->flags & O_CLOEXEC) != 0;
	} else if (e != 0) {
		if (out >= 0)
			close(out);
		obs->answer = ANSWER_ERROR;
		obs->answer_error = e;
	} else if (q->op == OBSERVE_ACT_OPEN) {
		if (out < 0) {
			obs->answer = ANSWER_ERROR;
			obs->answer_error = EIO;
		} else {
			obs->answer = ANSWER_FD;
			obs->answer_fd = out;
			obs->answer_cloexec = (q->flags & O_CLOEXEC) != 0;
		}
	} else {
		if (out >= 0)
			close(out);
		obs->answer = ANSWER_DONE;
	}
}

/* Resolve one name of a request: the absolute path with no link on the
   way (NULL: none, e.g. a pipe) and, for a descriptor, the pin. */
static char *
act_resolve(struct observer *obs, pid_t pid, const char *path, bool follow,
    int callerfd, int *pin)
{
	char	*abs;
	int	 n;
	bool	 missing;

	*pin = -1;
	if (path != NULL && callerfd < 0) {
		abs = observe_resolve(obs, path, follow, &missing);
		if ((n = act_proc_fd(abs)) < 0)
			return act_proc_self(pid, abs);
		free(abs);
		callerfd = n;
	}
	if (callerfd < 0 || (*pin = act_pin(pid, callerfd)) < 0)
		return NULL;
	return act_pin_path(*pin);
}

/*
 * openat2's own resolve flags (RESOLVE_BENEATH, RESOLVE_IN_ROOT,
 * RESOLVE_NO_XDEV, RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS,
 * RESOLVE_CACHED) keep their meaning: the kernel resolves the caller's
 * name as the caller asked, from the caller's own directory (pinned) --
 * or from the sandbox's root for an absolute name without a scope, or for
 * a relative one that names no mount rule (its absolute links must lead
 * in the sandbox's view, not bwgate's) -- and its error (EXDEV, ELOOP,
 * EAGAIN, ...) is the call's. What it reaches must be what was judged
 * (the file, or for a name to create its directory): a scope that makes
 * the name mean another file (RESOLVE_IN_ROOT with an absolute name) is
 * refused with EACCES, as nothing else was judged. The delegate then
 * opens the judged name, following nothing, as for every open: a
 * directory renamed in between can make the check and the open see
 * different trees only where no link is followed (ELOOP otherwise); the
 * policy holds either way, as the judged name is what is opened.
 */
static int
act_resolve_check(struct observer *obs, pid_t pid, const struct observe_req *q,
    const char *abs1)
{
	const uint64_t	 scope = RESOLVE_BENEATH | RESOLVE_IN_ROOT;
	struct open_how	 how;
	struct stat	 a, b;
	const char	*raw = q->raw1, *name = NULL, *slash;
	char		 p[64], *dir = NULL;
	int		 start = -1, fd, e = 0;
	bool		 own = false;

	if (q->resolve == 0 || raw == NULL || abs1 == NULL)
		return 0;
	if ((raw[0] == '/' && !(q->resolve & scope)) || (raw[0] != '/' &&
	    !(q->resolve & (scope | RESOLVE_NO_XDEV)))) {
		start = obs->rootfd;	/* the name as joined, in the root */
		raw = q->path1 != NULL ? q->path1 : raw;
		while (*raw == '/')
			raw++;
		if (*raw == '\0')
			raw = ".";
	} else {
		if (q->rawfd1 == AT_FDCWD)
			snprintf(p, sizeof p, "/proc/%d/cwd", (int)pid);
		else
			snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)pid,
			    q->rawfd1);
		if ((start = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return EBADF;
		own = true;
	}
	memset(&how, 0, sizeof how);
	how.resolve = q->resolve | (start == obs->rootfd ? RESOLVE_IN_ROOT :
	    0);
	how.flags = O_PATH | O_CLOEXEC | ((q->flags & O_NOFOLLOW) ||
	    ((q->flags & O_CREAT) && (q->flags & O_EXCL)) ? O_NOFOLLOW : 0);
	fd = (int)syscall(SYS_openat2, start, raw, &how, sizeof how);
	if (fd < 0 && errno == ENOENT && (q->flags & O_CREAT)) {
		/* To be made: its directory. */
		slash = strrchr(raw, '/');
		dir = slash != NULL ? xstrndup(raw, (size_t)(slash - raw)) :
		    xstrdup(".");
		how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		fd = (int)syscall(SYS_openat2, start, *dir != '\0' ? dir : "/",
		    &how, sizeof how);
		name = abs1;
	}
	if (fd < 0)
		e = errno;
	else {
		/* The same file (or directory) as judged? */
		char	*j = name != NULL ? xstrdup(name) : NULL, *s;
		const char *r = name != NULL ? j : abs1;

		if (j != NULL && (s = strrchr(j, '/')) != NULL)
			*(s == j ? s + 1 : s) = '\0';
		while (*r == '/')
			r++;
		if (fstat(fd, &a) != 0 || fstatat(obs->rootfd, *r != '\0' ?
		    r : ".", &b, AT_SYMLINK_NOFOLLOW) != 0 ||
		    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
			e = EACCES;
		free(j);
		close(fd);
	}
	free(dir);
	if (own)
		close(start);
	return e;
}

/* What the policy says of one request; true when refused. */
static bool
act_policy(struct observer *obs, const struct observe_req *q,
    const char *abs1, const char *abs2, struct violations *vs)
{
	struct stat	 st;
	const char	*r1;

	switch (q->op) {
	case OBSERVE_ACT_OPEN:
		if (abs1 == NULL || (q->flags & __O_TMPFILE) == __O_TMPFILE)
			return false;	/* no name made (a link names it) */
		r1 = abs1;
		while (*r1 == '/')
			r1++;
		if (*r1 != '\0' && fstatat(obs->rootfd, r1, &st,
		    AT_SYMLINK_NOFOLLOW) == 0)
			return q->writes && act_judge(obs, abs1, PROTECT_WRITE,
			    "write", vs);
		return (q->flags & O_CREAT) && act_judge(obs, abs1,
		    PROTECT_CREATE, "create", vs);
	case OBSERVE_ACT_MKDIR:
		return act_judge(obs, abs1, PROTECT_MKDIR, "mkdir", vs);
	case OBSERVE_ACT_MKNOD:
		return act_judge(obs, abs1, PROTECT_CREATE, "mknod", vs);
	case OBSERVE_ACT_BIND:	/* a unix socket's name */
		return act_judge(obs, abs1, PROTECT_CREATE, "create", vs);
	case OBSERVE_ACT_SYMLINK:
		return act_judge(obs, abs1, PROTECT_SYMLINK, "symlink", vs);
	case OBSERVE_ACT_LINK:
		return act_judge(obs, abs1, PROTECT_LINK, "link", vs);
	case OBSERVE_ACT_UNLINK:
		return act_judge(obs, abs1, PROTECT_REMOVE, "delete", vs);
	case OBSERVE_ACT_TRUNCATE:
		return abs1 != NULL && act_judge(obs, abs1, PROTECT_WRITE,
		    "truncate", vs);
	case OBSERVE_ACT_CHMOD:
		return abs1 != NULL && act_judge(obs, abs1, PROTECT_MODE,
		    "chmod", vs);
	case OBSERVE_ACT_RENAME:
		if (act_judge(obs, abs1, PROTECT_RENAME_FROM, "rename", vs) ||
		    act_judge(obs, abs2, PROTECT_RENAME_TO, "rename", vs))
			return true;
		/* An exchange moves the other way too. A directory moved
		   brings what is below it: protect_judge refuses a rename
		   onto an ancestor of a protected path of several names
		   (one name is protected wherever it lands). */
		return (q->flags & 2 /* RENAME_EXCHANGE */) &&
		    (act_judge(obs, abs2, PROTECT_RENAME_FROM, "rename", vs) ||
		    act_judge(obs, abs1, PROTECT_RENAME_TO, "rename", vs));
	}
	return false;
}

/*
 * A call from another mount namespace (a nested sandbox, possible only
 * when the policy allows user namespaces) sees another tree: its paths
 * cannot be placed in the project by name. It is judged by identity. Its
 * names are resolved in the caller's own root (/proc/PID/root, set as
 * obs->rootfd by observe_foreign) to paths with no link on the way, the
 * directory each call is made in is pinned (or the file itself, for a
 * mode, a length, a link's source, a descriptor the call names), and a
 * call whose directory or file is on the project's file system (the
 * device of the project as the sandbox sees it; a bind mount keeps the
 * device, an overlay writes elsewhere) is refused with EACCES: its place
 * in the project cannot be known, so it fails closed. The rest (the
 * nested sandbox's own tmpfs, its /dev) is made by the delegate on the
 * pinned descriptors, following nothing (OBSERVE_ACT_F_AT), and an open's
 * result is checked again (a name in a tmpfs may be a mount of a project
 * file). Nothing is made where it was not judged.
 */
static bool
act_foreign_ours(const struct observer *obs, int fd)
{
	struct stat	st;

	return fd < 0 || fstat(fd, &st) != 0 || st.st_dev == obs->project_dev;
}

/* abs (resolved, in the caller's root) pinned: O_PATH, the file itself
   (dir false, not following a last link unless follow) or its directory
   (*name its last name); -1. */
static int
act_foreign_pin(const struct observer *obs, const char *abs, bool dir,
    bool follow, const char **name)
{
	struct open_how	 how;
	const char	*slash = abs != NULL ? strrchr(abs, '/') : NULL;
	char		*p;
	int		 fd;

	if (slash == NULL || abs[0] != '/')
		return -1;
	memset(&how, 0, sizeof how);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS;
	how.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
	if (!dir)
		return (int)syscall(SYS_openat2, obs->rootfd, abs, &how,
		    sizeof how);
	if (slash[1] == '\0')
		return -1;
	*name = slash + 1;
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	p = slash == abs ? xstrdup("/") : xstrndup(abs, (size_t)(slash - abs));
	fd = (int)syscall(SYS_openat2, obs->rootfd, p, &how, sizeof how);
	free(p);
	return fd;
}

/* A copy of a last name that lives until the next request (one
   request at a time; two names at most). */
static const char *
act_keep(const char *name)
{
	static char	buf[2][256];
	static int	next;
	char		*b = buf[next++ & 1];

	snprintf(b, sizeof buf[0], "%s", name);
	return strlen(name) < sizeof buf[0] ? b : "";
}

/* A relative name of a foreign call, from the caller's own descriptor
   or working directory (pinned: the directory it is, whatever its name
   in any view), staying beneath it: the file itself (dir false) or its
   directory and last name; -1 (then by name, act_foreign_pin). A name
   below /proc's self is the caller's, as its /proc numbers it. */
static int
act_foreign_rel(pid_t pid, const char *raw, int rawfd, bool dir, bool follow,
    const char **name)
{
	struct open_how	 how;
	struct stat	 st;
	struct statfs	 sf;
	char		 p[64], *d, *own = NULL;
	const char	*slash, *last;
	int		 base, fd;

	if (raw == NULL || raw[0] == '/' || raw[0] == '\0')
		return -1;
	if (rawfd == AT_FDCWD)
		snprintf(p, sizeof p, "/proc/%d/cwd", (int)pid);
	else
		snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)pid, rawfd);
	if ((base = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if ((strncmp(raw, "self", 4) == 0 || strncmp(raw, "thread-self",
	    11) == 0) && fstatfs(base, &sf) == 0 &&
	    sf.f_type == PROC_SUPER_MAGIC) {
		own = act_proc_self(pid, xasprintf("/proc/%s", raw));
		if (own == NULL || strncmp(own, "/proc/", 6) != 0) {
			free(own);
			close(base);
			return -1;
		}
		raw = own + 6;
	}
	memset(&how, 0, sizeof how);
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	slash = strrchr(raw, '/');
	last = slash != NULL ? slash + 1 : raw;
	if (!dir) {
		how.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
		fd = (int)syscall(SYS_openat2, base, raw, &how, sizeof how);
	} else if (*last == '\0' || strcmp(last, ".") == 0 ||
	    strcmp(last, "..") == 0)
		fd = -1;
	else {
		how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		d = slash != NULL ? xstrndup(raw, (size_t)(slash - raw)) :
		    xstrdup(".");
		fd = (int)syscall(SYS_openat2, base, *d != '\0' ? d : "/",
		    &how, sizeof how);
		free(d);
		/* A last name that is a link to follow: by name. */
		if (fd >= 0 && follow && fstatat(fd, last, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			fd = -1;
		}
		/* The name must outlive own: it is in the request. */
		if (fd >= 0)
			*name = own != NULL ? act_keep(last) : last;
	}
	free(own);
	close(base);
	return fd;
}

/* What a refused request is called in the report. */
static const char *
act_op_name(const struct observe_req *q)
{
	switch (q->op) {
	case OBSERVE_ACT_MKDIR:
		return "mkdir";
	case OBSERVE_ACT_MKNOD:
		return "mknod";
	case OBSERVE_ACT_SYMLINK:
		return "symlink";
	case OBSERVE_ACT_LINK:
		return "link";
	case OBSERVE_ACT_RENAME:
		return "rename";
	case OBSERVE_ACT_UNLINK:
		return "delete";
	case OBSERVE_ACT_TRUNCATE:
		return "truncate";
	case OBSERVE_ACT_CHMOD:
		return "chmod";
	case OBSERVE_ACT_BIND:
		return "create";
	}
	return "write";
}

/* Resolve a name of a foreign call in the caller's root. */
static char *
act_foreign_abs(struct observer *obs, pid_t pid, const char *path,
    bool follow)
{
	char	*p;
	bool	 missing;

	if (path == NULL || (p = act_proc_self(pid, xstrdup(path))) == NULL)
		return NULL;
	path = observe_resolve(obs, p, follow, &missing);
	free(p);
	return (char *)path;
}

static void
act_foreign(struct observer *obs, const struct seccomp_notif *n,
    const struct observe_req *q, struct violations *vs)
{
	_cleanup_free_ char	*abs1 = NULL, *abs2 = NULL;
	struct observe_act	 a;
	const char		*n1 = NULL, *n2 = NULL, *p2 = NULL;
	int			 fds[3] = { -1, -1, -1 }, out = -1, e, k;
	pid_t			 pid = (pid_t)n->pid;
	struct stat		 st;
	char			 ns[64];

	memset(&a, 0, sizeof a);
	a.op = (uint32_t)q->op;
	a.flags = q->op == OBSERVE_ACT_OPEN ? q->flags & ~(uint32_t)O_TRUNC :
	    q->flags;
	a.mode = q->mode;
	a.arg = q->arg;
	abs1 = act_foreign_abs(obs, pid, q->path1, q->follow1);
	k = q->fd1 >= 0 ? q->fd1 : abs1 != NULL ? act_proc_fd(abs1) : -1;
	if (k >= 0 && (q->op == OBSERVE_ACT_OPEN || q->op ==
	    OBSERVE_ACT_CHMOD || q->op == OBSERVE_ACT_TRUNCATE)) {
		fds[0] = act_pin(pid, k);	/* the file the call names */
		a.aflags = OBSERVE_ACT_F_FD;
	} else if (q->op == OBSERVE_ACT_CHMOD ||
	    q->op == OBSERVE_ACT_TRUNCATE) {
		if ((fds[0] = act_foreign_rel(pid, q->raw1, q->rawfd1, false,
		    q->follow1, NULL)) < 0)
			fds[0] = act_foreign_pin(obs, abs1, false, q->follow1,
			    NULL);
		a.aflags = OBSERVE_ACT_F_FD;
	} else {
		if ((fds[0] = act_foreign_rel(pid, q->raw1, q->rawfd1, true,
		    q->op == OBSERVE_ACT_OPEN && q->follow1, &n1)) < 0)
			fds[0] = act_foreign_pin(obs, abs1, true, false, &n1);
		a.aflags = OBSERVE_ACT_F_AT;
		if (q->op == OBSERVE_ACT_SYMLINK)
			p2 = q->path2;
		else if (q->op == OBSERVE_ACT_RENAME) {
			abs2 = act_foreign_abs(obs, pid, q->path2, false);
			if ((fds[1] = act_foreign_rel(pid, q->raw2, q->rawfd2,
			    true, false, &n2)) < 0)
				fds[1] = act_foreign_pin(obs, abs2, true,
				    false, &n2);
			p2 = n2;
		} else if (q->op == OBSERVE_ACT_LINK) {
			if (q->fd2 >= 0)
				fds[1] = act_pin(pid, q->fd2);
			else if ((fds[1] = act_foreign_rel(pid, q->raw2,
			    q->rawfd2, false, q->follow2, NULL)) < 0) {
				abs2 = act_foreign_abs(obs, pid,
				    q->path2, q->follow2);
				fds[1] = act_foreign_pin(obs, abs2, false,
				    q->follow2, NULL);
			}
		}
		if ((q->op == OBSERVE_ACT_RENAME || q->op ==
		    OBSERVE_ACT_LINK) && fds[1] < 0 && fds[0] >= 0) {
			close(fds[0]);
			fds[0] = -1;
		}
	}
	if (fds[0] < 0 || act_foreign_ours(obs, fds[0]) || (fds[1] >= 0 &&
	    act_foreign_ours(obs, fds[1]))) {
		/* Not placed outside the project: refused. */
		act_refuse(obs, abs1 != NULL ? abs1 : "?", act_op_name(q),
		    EACCES, "a call from a nested namespace on the project's "
		    "file system", VIOLATION_NESTED, vs);
		goto out;
	}
	if (q->op == OBSERVE_ACT_BIND)
		fds[1] = act_socket(pid, q->arg);
	if (obs->delegate < 0 || (q->op == OBSERVE_ACT_BIND && fds[1] < 0) ||
	    ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0) {
		obs->answer = ANSWER_ERROR;
		obs->answer_error = EACCES;
		goto out;
	}
	a.umask = act_umask(pid, q);
	/* Made as the caller's user namespace (helper-act.c): a third
	   descriptor after the two (the second may be absent). */
	snprintf(ns, sizeof ns, "/proc/%d/ns/user", (int)pid);
	if ((a.aflags & OBSERVE_ACT_F_AT) && fds[1] < 0 &&
	    (fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		obs->answer = ANSWER_ERROR;
		obs->answer_error = EACCES;
		goto out;
	}
	if ((a.aflags & OBSERVE_ACT_F_AT) &&
	    ((fds[2] = open(ns, O_RDONLY | O_CLOEXEC)) < 0 ||
	    ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0)) {
		obs->answer = ANSWER_ERROR;
		obs->answer_error = EACCES;
		goto out;
	}
	a.len1 = n1 != NULL ? (uint32_t)strlen(n1) + 1 : 2;
	a.len2 = p2 != NULL ? (uint32_t)strlen(p2) + 1 : 0;
	e = act_send2(obs, &a, n1 != NULL ? n1 : "/", p2, fds, &out);
	/* What an open reached may be a mount of a project file: checked
	   before it is truncated (the delegate opened it without O_TRUNC). */
	if (e == 0 && out >= 0 && (fstat(out, &st) != 0 ||
	    st.st_dev == obs->project_dev)) {
		close(out);
		act_refuse(obs, abs1 != NULL ? abs1 : "?", "write", EACCES,
		    "a call from a nested namespace on the project's file "
		    "system", VIOLATION_NESTED, vs);
		goto out;
	}
	if (e == 0 && out >= 0 && (q->flags & O_TRUNC) &&
	    S_ISREG(st.st_mode) && ftruncate(out, 0) != 0) {
		e = errno;
		close(out);
		out = -1;
	}
	act_answer(obs, q, e, out);
out:
	for (size_t i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

void
observe_act(struct observer *obs, const struct seccomp_notif *n,
    const struct observe_req *q, struct violations *vs)
{
	_cleanup_free_ char	*abs1 = NULL, *abs2 = NULL;
	struct observe_act	 a;
	const char		*p2;
	int			 pin1 = -1, pin2 = -1, fd = -1, out = -1, e;
	pid_t			 pid = (pid_t)n->pid;

	obs->answer = ANSWER_CONTINUE;
	if (obs->foreign) {
		act_foreign(obs, n, q, vs);
		return;
	}
	abs1 = act_resolve(obs, pid, q->path1, q->follow1, q->fd1, &pin1);
	if (q->op == OBSERVE_ACT_RENAME || (q->op == OBSERVE_ACT_LINK &&
	    q->fd2 < 0 && q->path2 != NULL))
		abs2 = act_resolve(obs, pid, q->path2, q->follow2, -1, &pin2);
	else if (q->op == OBSERVE_ACT_LINK && q->fd2 >= 0)
		pin2 = act_pin(pid, q->fd2);
	/* A name this cannot resolve is not made blind: fail it. */
	if ((abs1 == NULL && pin1 < 0) || (q->op == OBSERVE_ACT_RENAME &&
	    abs2 == NULL) || (q->op == OBSERVE_ACT_LINK && abs2 == NULL &&
	    pin2 < 0)) {
		obs->answer = ANSWER_ERROR;
		obs->answer_error = q->op == OBSERVE_ACT_OPEN ? ENXIO : EACCES;
		goto out;
	}
	if (act_policy(obs, q, abs1, abs2, q->noted ? NULL : vs))
		goto out;
	if (q->op == OBSERVE_ACT_OPEN && (e = act_resolve_check(obs, pid, q,
	    abs1)) != 0) {
		obs->answer = ANSWER_ERROR;
		obs->answer_error = e;
		goto out;
	}
	/* Still the same task, stopped: what was read is its call. */
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0) {
		obs->answer = ANSWER_CONTINUE;	/* gone: nothing to answer */
		goto out;
	}
	if (obs->delegate < 0)
		goto out;	/* no delegate: judged, the kernel makes it */
	memset(&a, 0, sizeof a);
	a.op = (uint32_t)q->op;
	a.flags = q->flags;
	a.mode = q->mode;
	a.arg = q->arg;
	a.umask = act_umask(pid, q);
	p2 = q->op == OBSERVE_ACT_SYMLINK ? q->path2 : abs2;
	if (pin1 >= 0 && (q->op == OBSERVE_ACT_OPEN ||
	    q->op == OBSERVE_ACT_CHMOD || q->op == OBSERVE_ACT_TRUNCATE)) {
		fd = pin1;
		a.aflags |= OBSERVE_ACT_F_FD;
	} else if (pin2 >= 0 && q->op == OBSERVE_ACT_LINK && abs2 == NULL) {
		fd = pin2;
		a.aflags |= OBSERVE_ACT_F_FD;
	} else if (q->op == OBSERVE_ACT_BIND) {
		/* The delegate binds the caller's socket at the name judged
		   (the address in the caller's memory is never read again). */
		if ((pin2 = act_socket(pid, q->arg)) < 0) {
			obs->answer = ANSWER_ERROR;
			obs->answer_error = EACCES;
			goto out;
		}
		fd = pin2;
		a.aflags |= OBSERVE_ACT_F_FD;
	}
	if (abs1 == NULL)
		abs1 = xstrdup("/");	/* the descriptor says it all */
	a.len1 = (uint32_t)strlen(abs1) + 1;
	a.len2 = p2 != NULL ? (uint32_t)strlen(p2) + 1 : 0;
	e = act_send(obs, &a, abs1, p2, fd, &out);
	act_answer(obs, q, e, out);
out:
	if (pin1 >= 0)
		close(pin1);
	if (pin2 >= 0)
		close(pin2);
}

/* The waiting child has the FIFO open (or failed): answer the call. */
static void
act_wait_cb(int fd, short revents, void *arg)
{
	struct observe_wait		*w = arg;
	struct observer			*obs = w->obs;
	struct seccomp_notif_addfd	 add;
	struct seccomp_notif_resp	 resp;
	int				 err = EIO, got = -1;

	(void)revents;
	if (fdpass_recv(fd, &err, sizeof err, &got, 1, MSG_DONTWAIT) <= 0)
		err = EIO;	/* the child died: the sandbox is ending */
	if (got >= 0 && obs->listener >= 0) {
		memset(&add, 0, sizeof add);
		add.id = w->id;
		add.flags = SECCOMP_ADDFD_FLAG_SEND;
		add.srcfd = (uint32_t)got;
		add.newfd_flags = w->cloexec ? O_CLOEXEC : 0;
		if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 &&
		    errno != ENOENT)
			err = errno == EMFILE ? EMFILE : EACCES;
		else
			err = 0;
	} else if (err == 0)
		err = EIO;
	if (got >= 0)
		close(got);
	if (err != 0 && obs->listener >= 0) {
		/* ENOENT: the task is gone (a signal, the run's end). */
		memset(&resp, 0, sizeof resp);
		resp.id = w->id;
		resp.error = -err;
		(void)ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	loop_remove(obs->loop, fd);
	close(fd);
	w->sock = -1;
}

bool
observe_act_later(struct observer *obs, uint64_t id)
{
	struct observe_wait	*w = NULL;

	for (size_t i = 0; i < OBSERVE_WAITS_MAX && w == NULL; i++)
		if (obs->waits[i].obs == NULL || obs->waits[i].sock < 0)
			w = &obs->waits[i];
	if (w == NULL || obs->loop == NULL) {
		close(obs->answer_fd);
		obs->answer_fd = -1;
		return false;
	}
	w->obs = obs;
	w->id = id;
	w->sock = obs->answer_fd;
	w->cloexec = obs->answer_cloexec;
	obs->answer_fd = -1;
	loop_add(obs->loop, w->sock, POLLIN, act_wait_cb, w);
	return true;
}

void
observe_act_waits_end(struct observer *obs)
{
	for (size_t i = 0; i < OBSERVE_WAITS_MAX; i++) {
		struct observe_wait *w = &obs->waits[i];

		if (w->obs == NULL || w->sock < 0)
			continue;
		if (obs->loop != NULL)
			loop_remove(obs->loop, w->sock);
		close(w->sock);
		w->sock = -1;
	}
}

void
observe_act_project_dev(struct observer *obs)
{
	struct stat	 st;
	const char	*rel;

	if (obs->project_dev_ok || obs->rootfd < 0 || obs->project == NULL)
		return;
	rel = obs->project + strspn(obs->project, "/");
	if (fstatat(obs->rootfd, *rel != '\0' ? rel : ".", &st, 0) == 0) {
		obs->project_dev = st.st_dev;
		obs->project_dev_ok = true;
	}
}
