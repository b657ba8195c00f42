/*
 * observe-call: the system calls the helper notifies, and how one
 * notification is read and judged: which arguments hold the directory,
 * path and flags of each call, what it does (create, write, remove,
 * connect, exec), and the verdict of observe-judge.c for it.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "log.h"
#include "observe-filter.h"
#include "observe-int.h"
#include "observe-proto.h"
#include "observe.h"
#include "pathwalk.h"
#include "xalloc.h"

/* How a notified call is read. */
enum observe_how {
	HOW_OPEN,	/* dirfd?, path, flags */
	HOW_OPENAT2,	/* dirfd, path, struct open_how * */
	HOW_PATH,	/* dirfd?, path, optional AT_* flags */
	HOW_RENAME,	/* olddirfd?, old, newdirfd?, new */
	HOW_LINK,	/* olddirfd?, old, newdirfd?, new, flags */
	HOW_CONNECT,	/* fd, sockaddr, len */
	HOW_SENDTO,	/* fd, buf, len, flags, sockaddr, len */
	HOW_SENDMSG,	/* fd, msghdr */
	HOW_FD,		/* fd (in the dirfd column): the file itself */
	HOW_BIND,	/* fd, sockaddr, len: a unix socket's file */
	HOW_EXEC,	/* dirfd?, path, argv (the next argument), flags */
	HOW_CHDIR,	/* a new working directory (recorded runs only) */
	HOW_CONTENT,	/* fd (in the dirfd column, -1: none known) whose
			   content may change anywhere (recorded runs only) */
};

/*
 * The calls the helper notifies. Argument indexes: dirfd (-1: relative to
 * the cwd), path, flags (-1: none). nofollow: the last component is not
 * followed (unless flags say otherwise).
 */
struct observe_call {
	const char		*name;
	enum observe_how	 how;
	const char		*op;
	enum observe_kind	 kind;
	int			 dirfd;
	int			 path;
	int			 flags;
	bool			 nofollow;
	int			 nr;	/* filled in at first use */
};

static struct observe_call observe_calls[] = {
	{ "open", HOW_OPEN, NULL, 0, -1, 0, 1, false, 0 },
	{ "openat", HOW_OPEN, NULL, 0, 0, 1, 2, false, 0 },
	{ "openat2", HOW_OPENAT2, NULL, 0, 0, 1, 2, false, 0 },
	{ "creat", HOW_OPEN, NULL, 0, -1, 0, -1, false, 0 },
	{ "mkdir", HOW_PATH, "mkdir", OBSERVE_CREATE_EXCL, -1, 0, -1, true, 0 },
	{ "mkdirat", HOW_PATH, "mkdir", OBSERVE_CREATE_EXCL, 0, 1, -1, true, 0 },
	{ "mknod", HOW_PATH, "mknod", OBSERVE_CREATE_EXCL, -1, 0, -1, true, 0 },
	{ "mknodat", HOW_PATH, "mknod", OBSERVE_CREATE_EXCL, 0, 1, -1, true, 0 },
	{ "unlink", HOW_PATH, "delete", OBSERVE_DELETE, -1, 0, -1, true, 0 },
	{ "unlinkat", HOW_PATH, "delete", OBSERVE_DELETE, 0, 1, -1, true, 0 },
	{ "rmdir", HOW_PATH, "delete", OBSERVE_DELETE, -1, 0, -1, true, 0 },
	{ "rename", HOW_RENAME, "rename", OBSERVE_DELETE, -1, 0, -1, true, 0 },
	{ "renameat", HOW_RENAME, "rename", OBSERVE_DELETE, 0, 1, -1, true, 0 },
	{ "renameat2", HOW_RENAME, "rename", OBSERVE_DELETE, 0, 1, -1, true, 0 },
	/* link: the new name, then the old one (a link across mounts). */
	{ "link", HOW_LINK, "link", OBSERVE_CREATE_EXCL, -1, 1, -1, true, 0 },
	{ "linkat", HOW_LINK, "link", OBSERVE_CREATE_EXCL, 2, 3, 4, true, 0 },
	/* symlink: only the new name matters (the target is just text). */
	{ "symlink", HOW_PATH, "symlink", OBSERVE_CREATE_EXCL, -1, 1, -1, true,
	    0 },
	{ "symlinkat", HOW_PATH, "symlink", OBSERVE_CREATE_EXCL, 1, 2, -1,
	    true, 0 },
	{ "truncate", HOW_PATH, "truncate", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "chmod", HOW_PATH, "chmod", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "fchmodat", HOW_PATH, "chmod", OBSERVE_WRITE, 0, 1, -1, false, 0 },
	{ "fchmodat2", HOW_PATH, "chmod", OBSERVE_WRITE, 0, 1, 3, false, 0 },
	{ "chown", HOW_PATH, "chown", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "lchown", HOW_PATH, "chown", OBSERVE_WRITE, -1, 0, -1, true, 0 },
	{ "fchownat", HOW_PATH, "chown", OBSERVE_WRITE, 0, 1, 4, false, 0 },
	{ "utime", HOW_PATH, "utime", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "utimes", HOW_PATH, "utime", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "futimesat", HOW_PATH, "utime", OBSERVE_WRITE, 0, 1, -1, false, 0 },
	{ "utimensat", HOW_PATH, "utime", OBSERVE_WRITE, 0, 1, 3, false, 0 },
	{ "setxattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "lsetxattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, true, 0 },
	{ "removexattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, false, 0 },
	{ "lremovexattr", HOW_PATH, "xattr", OBSERVE_WRITE, -1, 0, -1, true,
	    0 },
	/* Descriptor calls that change a file opened for reading (only
	   notified with OBSERVE_RECORD; writing needs a write open). */
	{ "fchmod", HOW_FD, "chmod", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	{ "fchown", HOW_FD, "chown", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	{ "fsetxattr", HOW_FD, "xattr", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	{ "fremovexattr", HOW_FD, "xattr", OBSERVE_WRITE, 0, -1, -1, true, 0 },
	/* A unix socket bound to a path creates a file there. */
	{ "bind", HOW_BIND, "create", OBSERVE_CREATE_EXCL, -1, 1, -1, true, 0 },
	/* What can change an appended file's start through a descriptor
	   (undo keeps only the old length of a file opened to append, write
	   only, so never mapped): notified for recorded runs only, under
	   the filter's conditions (observe-filter.c). io_submit: its
	   requests are not read. */
	{ "ftruncate", HOW_CONTENT, "write", 0, 0, -1, -1, false, 0 },
	{ "fallocate", HOW_CONTENT, "write", 0, 0, -1, -1, false, 0 },
	{ "fcntl", HOW_CONTENT, "write", 0, 0, -1, -1, false, 0 },
	{ "ioctl", HOW_CONTENT, "write", 0, 0, -1, -1, false, 0 },
	{ "pwritev2", HOW_CONTENT, "write", 0, 0, -1, -1, false, 0 },
	{ "io_submit", HOW_CONTENT, "write", 0, -1, -1, -1, false, 0 },
	{ "chdir", HOW_CHDIR, "chdir", 0, -1, 0, -1, false, 0 },
	{ "fchdir", HOW_CHDIR, "chdir", 0, 0, -1, -1, false, 0 },
	{ "execve", HOW_EXEC, "exec", 0, -1, 0, -1, false, 0 },
	{ "execveat", HOW_EXEC, "exec", 0, 0, 1, 4, false, 0 },
	{ "connect", HOW_CONNECT, "connect", 0, -1, 1, -1, false, 0 },
	{ "sendto", HOW_SENDTO, "send", 0, -1, 4, -1, false, 0 },
	{ "sendmsg", HOW_SENDMSG, "send", 0, -1, 1, -1, false, 0 },
};
#define OBSERVE_NCALLS (sizeof observe_calls / sizeof *observe_calls)

/* Find the table entry for a system call number. */
static const struct observe_call *
observe_lookup(int nr)
{
	static bool	resolved;

	if (!resolved) {
		for (size_t i = 0; i < OBSERVE_NCALLS; i++) {
			observe_calls[i].nr = seccomp_syscall_resolve_name(
			    observe_calls[i].name);
		}
		resolved = true;
	}
	for (size_t i = 0; i < OBSERVE_NCALLS; i++) {
		if (observe_calls[i].nr == nr &&
		    observe_calls[i].nr != __NR_SCMP_ERROR)
			return &observe_calls[i];
	}
	return NULL;
}

bool
observe_notified_nr(int nr)
{
	return observe_lookup(nr) != NULL;
}

/* Read the path argument number i (relative to dirfd argument d). */
/* N when path is /proc/self/fd/N or /proc/thread-self/fd/N, else -1. */
static int
observe_proc_fd(const char *path)
{
	static const char *const pre[] = { "/proc/self/fd/",
	    "/proc/thread-self/fd/" };
	const char	*s = NULL;
	char		*end;
	long		 n;

	for (size_t i = 0; i < 2 && s == NULL; i++)
		if (strncmp(path, pre[i], strlen(pre[i])) == 0)
			s = path + strlen(pre[i]);
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	n = strtol(s, &end, 10);
	return *end == '\0' && n < 1 << 20 ? (int)n : -1;
}

static char	*observe_arg_path_fd(const struct seccomp_data *,
		    struct observe_mem *, int, int, bool, bool *, int *);

static char *
observe_arg_path(const struct seccomp_data *d, struct observe_mem *mem,
    int dirfd_arg, int path_arg, bool empty_ok, bool *deleted)
{
	return observe_arg_path_fd(d, mem, dirfd_arg, path_arg, empty_ok,
	    deleted, NULL);
}

/* The same; *fdnum (when not NULL): the caller's descriptor the call
   names instead of a path (AT_EMPTY_PATH, /proc/self/fd/N), else -1. */
static char *
observe_arg_path_fd(const struct seccomp_data *d, struct observe_mem *mem,
    int dirfd_arg, int path_arg, bool empty_ok, bool *deleted, int *fdnum)
{
	_cleanup_free_ char	*raw = NULL, *base = NULL;
	int			 dirfd = AT_FDCWD, fd, nofd;

	if (fdnum == NULL)
		fdnum = &nofd;
	*fdnum = -1;
	if (dirfd_arg >= 0)
		dirfd = (int)d->args[dirfd_arg];
	/* utimensat(fd, NULL, ...): the descriptor itself. */
	if (deleted != NULL)
		*deleted = false;
	if (d->args[path_arg] == 0 && dirfd != AT_FDCWD) {
		*fdnum = dirfd;
		return observe_base(mem->pid, dirfd, deleted);
	}
	errno = 0;
	raw = observe_read_string(mem, d->args[path_arg]);
	if (raw == NULL) {
		if (errno == 0)
			errno = ENAMETOOLONG;
		return NULL;
	}
	if (raw[0] == '\0') {
		/* AT_EMPTY_PATH: the descriptor itself. */
		errno = 0;	/* ENOENT without it: nothing happens */
		if (!empty_ok || dirfd == AT_FDCWD)
			return NULL;
		*fdnum = dirfd;
		return observe_base(mem->pid, dirfd, deleted);
	}
	/* glibc's fchmodat(AT_SYMLINK_NOFOLLOW) and others name a file by
	   its descriptor: /proc/self/fd/N is the file open at N. */
	free(mem->raw);
	mem->raw = xstrdup(raw);
	mem->raw_dirfd = dirfd;
	if ((fd = observe_proc_fd(raw)) >= 0) {
		*fdnum = fd;
		return observe_base(mem->pid, fd, deleted);
	}
	if (raw[0] != '/') {
		base = observe_base(mem->pid, dirfd, NULL);
		if (base == NULL)
			return NULL;
	}
	/* ".." stays until the names before it are resolved. */
	return pathwalk_join(base, raw);
}

/*
 * Is there a program at path, as the caller sees it? A shell's or
 * execvp's search of PATH tries names that do not exist: those failed
 * calls are not what ran.
 */
static bool
observe_exec_exists(int shared, pid_t pid, const char *path)
{
	struct open_how	how = { .flags = O_PATH | O_CLOEXEC,
			    .resolve = RESOLVE_IN_ROOT };
	struct stat	st;
	char		p[64];
	int		root = -1, fd;
	bool		ok;

	if (shared < 0) {
		snprintf(p, sizeof p, "/proc/%d/root", (int)pid);
		if ((root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return true;	/* cannot tell: keep it */
	}
	fd = (int)syscall(SYS_openat2, root >= 0 ? root : shared, path,
	    &how, sizeof how);
	if (root >= 0)
		close(root);
	if (fd < 0)
		return errno != ENOENT && errno != ENOTDIR;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
	close(fd);
	return ok;
}

/*
 * Record an exec: the program as named (resolved against the caller's cwd
 * or dirfd) and its first EXECUTION_MAX_ARGS arguments. Read while the
 * caller is stopped, kept only if it is still the same task. root is the
 * sandbox's root when it is the caller's, else -1 (its own is opened).
 */
static void
observe_exec(struct observer *obs, const struct seccomp_data *d,
    struct observe_mem *mem, const struct observe_call *c, uint64_t id,
    int root)
{
	_cleanup_free_ char	*path = NULL;
	struct strv		 argv = STRV_INIT;
	bool			 empty;

	empty = c->flags >= 0 && (d->args[c->flags] & AT_EMPTY_PATH);
	path = observe_arg_path(d, mem, c->dirfd, c->path, empty, NULL);
	if (path != NULL) {
		char *n = pathwalk_normalise(NULL, path);

		free(path);
		path = n;
	}
	if (path != NULL && !empty && !observe_exec_exists(root, mem->pid,
	    path))
		return;
	observe_read_strv(mem, d->args[c->path + 1], EXECUTION_MAX_ARGS,
	    &argv);
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
		executions_add(obs->exec_out, path != NULL ? path : "?",
		    &argv);
	strv_release(&argv);
}

/*
 * Is the caller in the sandbox's mount namespace, with its root known?
 * A nested sandbox has another view of paths (only possible when the
 * policy allows user namespaces inside): observe_foreign judges its calls
 * by identity instead. The first
 * caller in the sandbox's namespace gives us its root, shared by all
 * (chroot and pivot_root are denied); the caller is checked to be still
 * waiting, so its pid cannot have been reused.
 */
static bool
observe_root(struct observer *obs, const struct seccomp_notif *n)
{
	struct stat	st;
	char		p[64];

	if (obs->rootfd >= 0 && !obs->userns)
		return true;
	snprintf(p, sizeof p, "/proc/%d/ns/mnt", (int)n->pid);
	if (stat(p, &st) != 0 || (obs->mntns != 0 && st.st_ino != obs->mntns))
		return false;
	if (obs->rootfd >= 0)
		return true;
	snprintf(p, sizeof p, "/proc/%d/root", (int)n->pid);
	obs->rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0 &&
	    obs->rootfd >= 0) {
		close(obs->rootfd);
		obs->rootfd = -1;
	}
	if (obs->rootfd < 0)
		return false;
	obs->mntns = st.st_ino;
	return true;
}

/* Does the caller's process have other threads (which share its working
   directory and descriptors: clone shares them with no other process,
   the deny filter refuses CLONE_FS and CLONE_FILES without
   CLONE_THREAD)? A task directory's link count is 2 plus its threads.
   Unknown counts as yes. */
static bool
observe_threaded(pid_t pid)
{
	struct stat	st;
	char		p[64];

	snprintf(p, sizeof p, "/proc/%d/task", (int)pid);
	return stat(p, &st) != 0 || st.st_nlink != 3;
}

/*
 * What the observer reads before a call runs, another thread of the same
 * process can change before the kernel reads it: the path in memory, the
 * descriptor it is relative to (dup2, close and open), the working
 * directory. None of that is notified cheaply (close and memory writes are
 * every program's), so a file-changing call or a change of directory in
 * a process with several threads widens the report. (Other processes
 * cannot share the directory or descriptors: the deny filter refuses it;
 * /proc/PID/mem is read-only; see bwgate(1) for memory mapped shared.)
 */
static void
observe_widen_threads(struct observer *obs, const struct observe_call *c)
{
	char	why[200];

	if (obs->rec == NULL || snapshot_paths_widened(obs->rec))
		return;
	if (c->how == HOW_CONNECT || c->how == HOW_SENDTO ||
	    c->how == HOW_SENDMSG || c->how == HOW_CONTENT)
		return;
	if (!observe_threaded(obs->cur_pid))
		return;
	if (c->how == HOW_CHDIR)
		snprintf(why, sizeof why, "a change of directory (%s) in a "
		    "process with several threads", c->name);
	else
		snprintf(why, sizeof why, "a file-changing call (%s) in a "
		    "process with several threads (another may change its "
		    "path or descriptor before the kernel reads it)", c->name);
	snapshot_paths_widen(obs->rec, why);
}

static void	observe_judge_call(struct observer *, const struct sandbox *,
		    const struct seccomp_notif *, struct violations *,
		    const struct observe_call *);
static bool	observe_judge_paths(struct observer *,
		    const struct sandbox *, const struct observe_call *,
		    const char *, const char *, enum observe_kind, bool, bool,
		    const char *, struct violations *);

/*
 * What a path call asks the delegate for (observe-act.c): mkdir, mknod,
 * unlink/rmdir, symlink (its target text read here), truncate, chmod.
 * Other path calls (chown, utime, xattr) create nothing: q->op stays 0.
 */
static void
observe_req_path(const struct observe_call *c, const struct seccomp_data *d,
    struct observe_mem *mem, bool follow, const char *path,
    struct observe_req *q, char **target)
{
	int	i = c->path;

	q->path1 = path;
	q->follow1 = follow;
	if (strcmp(c->op, "mkdir") == 0) {
		q->op = OBSERVE_ACT_MKDIR;
		q->mode = d->args[i + 1];
	} else if (strcmp(c->op, "mknod") == 0) {
		q->op = OBSERVE_ACT_MKNOD;
		q->mode = d->args[i + 1];
		q->arg = d->args[i + 2];
	} else if (strcmp(c->op, "delete") == 0) {
		q->op = OBSERVE_ACT_UNLINK;
		if (strcmp(c->name, "rmdir") == 0)
			q->flags = AT_REMOVEDIR;
		else if (strcmp(c->name, "unlinkat") == 0)
			q->flags = (uint32_t)d->args[2] & AT_REMOVEDIR;
	} else if (strcmp(c->op, "symlink") == 0) {
		/* The target is text, never resolved: copied once. */
		q->op = OBSERVE_ACT_SYMLINK;
		*target = observe_read_string(mem, d->args[0]);
		q->path2 = *target;
		if (q->path2 == NULL)
			q->op = 0;	/* unreadable: the kernel says EFAULT */
	} else if (strcmp(c->op, "truncate") == 0) {
		q->op = OBSERVE_ACT_TRUNCATE;
		q->arg = d->args[1];
	} else if (strcmp(c->op, "chmod") == 0) {
		q->op = OBSERVE_ACT_CHMOD;
		q->mode = d->args[i + 1];
		q->flags = follow ? 0 : 1;
	}
}

/* A call that may change an open file's content anywhere (HOW_CONTENT):
   undo is told of its file, nothing is judged. */
static void
observe_judge_content(struct observer *obs, const struct sandbox *sb,
    const struct seccomp_notif *n, const struct observe_call *c)
{
	_cleanup_free_ char	*path = NULL;
	bool			 deleted = false;
	int			 fd = c->dirfd >= 0 ?
				    (int)n->data.args[c->dirfd] : -1;

	errno = EIO;
	if (fd >= 0)
		path = observe_base((pid_t)n->pid, fd, &deleted);
	if (path == NULL && errno == 0)
		return;		/* a pipe, a socket: no file */
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0)
		return;		/* gone: its call will not run */
	observe_record_content(obs, sb, (pid_t)n->pid, fd, path,
	    path == NULL || deleted);
}

/*
 * A caller in another mount namespace (a nested sandbox: only with user
 * namespaces allowed): its names are resolved in its own root, and what
 * creates, binds a unix socket to a name, renames, links, removes, writes
 * or changes a mode is judged by
 * identity and made by the delegate (observe-act.c, act_foreign), or
 * refused. Nothing is recorded for the change report: nothing it makes is
 * on the project's file system. Network calls are judged as any other.
 */
static void
observe_foreign(struct observer *obs, const struct seccomp_notif *n,
    struct violations *vs, const struct observe_call *c)
{
	struct snapshot_paths	*rec = obs->rec;
	char			 p[64];
	int			 saved = obs->rootfd, rootc;

	switch (c->how) {
	case HOW_OPEN:
	case HOW_OPENAT2:
	case HOW_PATH:
	case HOW_LINK:
	case HOW_RENAME:
	case HOW_CONNECT:
	case HOW_SENDTO:
	case HOW_SENDMSG:
	case HOW_BIND:
		break;
	default:
		return;		/* creates no name */
	}
	observe_act_project_dev(obs);
	if (obs->project == NULL)
		return;		/* no project to keep */
	snprintf(p, sizeof p, "/proc/%d/root", (int)n->pid);
	rootc = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!obs->project_dev_ok || rootc < 0 ||
	    ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0) {
		/* Fail closed: nothing to judge by. */
		if (rootc >= 0)
			close(rootc);
		obs->answer = ANSWER_ERROR;
		obs->answer_error = EACCES;
		return;
	}
	obs->rootfd = rootc;
	obs->rec = NULL;
	obs->foreign = true;
	obs->cur_pid = (pid_t)n->pid;
	observe_judge_call(obs, NULL, n, vs, c);
	obs->foreign = false;
	obs->rec = rec;
	obs->rootfd = saved;
	close(rootc);
}

/* Read and judge one notification (the caller is stopped meanwhile). */
void
observe_judge(struct observer *obs, const struct sandbox *sb,
    const struct seccomp_notif *n, struct violations *vs)
{
	const struct seccomp_data	*d = &n->data;
	const struct observe_call	*c;
	struct observe_mem		 mem
	    __attribute__((cleanup(observe_mem_release))) =
	    { n->pid, -1, NULL, 0 };

	if (d->arch != obs->arch || (c = observe_lookup(d->nr)) == NULL)
		return;
	/* The first notification comes before the command runs (its execve
	   is one): are the mounts what bwgate opened? */
	if (!obs->mounts_checked && sb != NULL) {
		obs->mounts_checked = true;
		if (!observe_root(obs, n))
			obs->raced = xstrdup("cannot look at the sandbox's "
			    "mounts before the command runs; refusing to run");
		else if (sandbox_verify(sb, obs->rootfd, &obs->raced) != 0)
			LOG("%s", obs->raced);
	}
	if (obs->raced != NULL)
		return;
	if (c->how == HOW_EXEC) {
		/* The sandbox's root, once known, is every caller's (no
		   namespace of their own without user namespaces; chroot
		   is denied). */
		if (obs->exec_out != NULL)
			observe_exec(obs, d, &mem, c, n->id,
			    observe_root(obs, n) && !obs->userns ?
			    obs->rootfd : -1);
		return;
	}
	if (!observe_root(obs, n)) {
		observe_foreign(obs, n, vs, c);
		return;
	}
	obs->cur_pid = (pid_t)n->pid;
	observe_widen_threads(obs, c);
	if (c->how == HOW_CHDIR)
		return;
	if (obs->rec != NULL && c->how != HOW_CONNECT && c->how != HOW_SENDTO &&
	    c->how != HOW_SENDMSG && c->how != HOW_CONTENT) {
		/* A link change that may not have happened yet: this path
		   may be resolved differently by the kernel. */
		if (observe_flight_begin(obs, obs->cur_pid))
			snapshot_paths_widen(obs->rec, "a call resolved while "
			    "another task's change of a symbolic link in the "
			    "project may not have happened yet");
		observe_judge_call(obs, sb, n, vs, c);
		obs->rec_append = false;
		observe_flight_end(obs, obs->cur_pid);
		return;
	}
	observe_judge_call(obs, sb, n, vs, c);
	obs->rec_append = false;
}

/*
 * Read an open-style call into q: false when it neither creates nor
 * writes (the kernel makes it). openat2's flags are in the caller's
 * memory, which another thread may rewrite after we read it: every
 * openat2 is made by the delegate, reading ones too, so the flags the
 * kernel acts on are the ones read here.
 */
static bool
observe_read_open(const struct observe_call *c, const struct seccomp_data *d,
    struct observe_mem *mem, struct observe_req *q, char **path, int *lost)
{
	struct open_how	how;
	uint64_t	flags;
	int		acc;

	memset(&how, 0, sizeof how);
	if (c->how == HOW_OPENAT2) {
		if (observe_peek(mem, &how, sizeof how, d->args[2]) !=
		    (ssize_t)sizeof how)
			return false;	/* the kernel says EFAULT */
		flags = how.flags;
		/* An O_PATH descriptor cannot be handed in (ADDFD refuses
		   one), and the flags cannot be left to the kernel: ENOSYS,
		   as on a kernel without openat2. Callers fall back to
		   openat, whose flags are a register (beneath.c does). */
		if ((flags & O_PATH) != 0) {
			q->op = OBSERVE_ACT_OPEN;
			*path = NULL;
			*lost = ENOSYS;
			return true;
		}
		q->resolve = how.resolve;
	} else if (c->flags >= 0)
		flags = d->args[c->flags];
	else
		flags = O_CREAT | O_WRONLY | O_TRUNC;	/* creat */
	acc = (int)(flags & O_ACCMODE);
	q->writes = acc == O_WRONLY || acc == O_RDWR || (flags & O_TRUNC) != 0;
	if ((flags & O_CREAT) == 0 && !q->writes && c->how != HOW_OPENAT2)
		return false;
	if ((flags & O_CREAT) && (flags & O_EXCL))
		q->kind = OBSERVE_CREATE_EXCL;
	else if (flags & O_CREAT)
		q->kind = OBSERVE_CREATE;
	else
		q->kind = OBSERVE_WRITE;
	if ((flags & O_TMPFILE) == O_TMPFILE)
		q->kind = OBSERVE_CREATE;	/* a file in that dir */
	q->follow1 = (flags & O_NOFOLLOW) == 0 &&
	    q->kind != OBSERVE_CREATE_EXCL;
	*path = observe_arg_path_fd(d, mem, c->dirfd, c->path, false, NULL,
	    &q->fd1);
	*lost = *path == NULL ? errno : 0;
	q->op = OBSERVE_ACT_OPEN;
	q->flags = (uint32_t)flags;
	q->mode = c->how == HOW_OPENAT2 ? how.mode :
	    c->flags < 0 ? d->args[1] : d->args[c->flags + 1];
	q->path1 = *path != NULL ? xstrdup(*path) : NULL;
	if (*path != NULL && (flags & O_TMPFILE) == O_TMPFILE) {
		char *f = xasprintf("%s/%s", *path, "(tmpfile)");

		free(*path);
		*path = f;
	}
	return true;
}

/* A unix socket bound to a path: the path (joined; *raw as written)
   into q for the delegate, false when the address is not one (abstract,
   IP). */
static bool
observe_read_bind(const struct seccomp_data *d, struct observe_mem *mem,
    struct observe_req *q, char **path, char **raw, int *lost)
{
	/* A name may fill sun_path with no NUL (the kernel takes it):
	   the byte after it ends it. */
	struct {
		struct sockaddr_un	sun;
		char			end;
	}			 a;
	struct sockaddr_un	*sun = &a.sun;
	size_t			 len = (size_t)d->args[2];
	_cleanup_free_ char	*base = NULL;

	if (len <= offsetof(struct sockaddr_un, sun_path) ||
	    len > sizeof a.sun)
		return false;
	memset(&a, 0, sizeof a);
	if (observe_peek(mem, sun, len, d->args[1]) != (ssize_t)len ||
	    sun->sun_family != AF_UNIX || sun->sun_path[0] == '\0')
		return false;
	q->op = OBSERVE_ACT_BIND;
	q->arg = d->args[0];		/* the socket */
	*raw = xstrdup(sun->sun_path);
	q->rawfd1 = AT_FDCWD;
	if (sun->sun_path[0] == '/')
		*path = pathwalk_join(NULL, sun->sun_path);
	else if ((base = observe_base(mem->pid, AT_FDCWD, NULL)) != NULL)
		*path = pathwalk_join(base, sun->sun_path);
	else
		*lost = errno;
	q->path1 = *path;
	return true;
}

/* Take the last path argument as written (mem->raw) into *raw. */
static void
observe_take_raw(struct observe_mem *mem, char **raw, int *dirfd)
{
	free(*raw);
	*raw = mem->raw;
	*dirfd = mem->raw_dirfd;
	mem->raw = NULL;
}

/* A link or a rename: its two names into q (joined, as written, a
   descriptor named); *lost the first error. */
static void
observe_read_two(const struct observe_call *c, const struct seccomp_data *d,
    struct observe_mem *mem, struct observe_req *q, char **path,
    char **path2, char **raw1, char **raw2, bool *deleted, int *lost)
{
	bool	link = c->how == HOW_LINK;

	*path = observe_arg_path(d, mem, c->dirfd, c->path, false, NULL);
	*lost = *path == NULL ? errno : 0;
	observe_take_raw(mem, raw1, &q->rawfd1);
	if (link)
		*path2 = observe_arg_path_fd(d, mem,
		    c->dirfd >= 0 ? 0 : -1, c->dirfd >= 0 ? 1 : 0,
		    c->flags >= 0 && (d->args[c->flags] & AT_EMPTY_PATH),
		    deleted, &q->fd2);
	else
		*path2 = observe_arg_path(d, mem,
		    c->dirfd >= 0 ? 2 : -1, c->dirfd >= 0 ? 3 : 1, false,
		    NULL);
	if (*path2 == NULL && *lost == 0)
		*lost = errno;
	observe_take_raw(mem, raw2, &q->rawfd2);
	q->path1 = *path;
	if (link) {
		q->op = OBSERVE_ACT_LINK;
		q->follow2 = c->flags >= 0 && (d->args[c->flags] &
		    AT_SYMLINK_FOLLOW);
		q->path2 = q->fd2 < 0 ? *path2 : NULL;
	} else {
		q->op = OBSERVE_ACT_RENAME;
		q->path2 = *path2;
		if (strcmp(c->name, "renameat2") == 0)
			q->flags = (uint32_t)d->args[4];
	}
}

/* A network call: the address it names (connect, sendto, sendmsg). */
static void
observe_judge_address(struct observer *obs, const struct seccomp_data *d,
    struct observe_mem *mem, const struct observe_call *c,
    struct violations *vs)
{
	uint64_t	msg[2];

	switch (c->how) {
	case HOW_CONNECT:
		observe_judge_net(obs, mem, d->args[1], d->args[2], c->op, vs);
		break;
	case HOW_SENDTO:
		observe_judge_net(obs, mem, d->args[4], d->args[5], c->op, vs);
		break;
	default:
		/* struct msghdr starts with msg_name, msg_namelen. */
		if (observe_peek(mem, msg, sizeof msg, d->args[1]) ==
		    (ssize_t)sizeof msg)
			observe_judge_net(obs, mem, msg[0], (uint32_t)msg[1],
			    c->op, vs);
		break;
	}
}

/* The rest of observe_judge: one file-changing or network call. */
static void
observe_judge_call(struct observer *obs, const struct sandbox *sb,
    const struct seccomp_notif *n, struct violations *vs,
    const struct observe_call *c)
{
	const struct seccomp_data	*d = &n->data;
	struct observe_mem		 mem
	    __attribute__((cleanup(observe_mem_release))) =
	    { n->pid, -1, NULL, 0 };
	_cleanup_free_ char		*path = NULL, *path2 = NULL;
	enum observe_kind		 kind;
	bool				 follow, writes = false;
	bool				 deleted = false;
	const char			*op;
	int				 lost = 0;
	struct observe_req		 q;
	_cleanup_free_ char		*target = NULL;
	_cleanup_free_ char		*raw1 = NULL, *raw2 = NULL;

	memset(&q, 0, sizeof q);
	q.fd1 = q.fd2 = -1;
	q.rawfd1 = q.rawfd2 = AT_FDCWD;

	switch (c->how) {
	case HOW_CONNECT:
	case HOW_SENDTO:
	case HOW_SENDMSG:
		observe_judge_address(obs, d, &mem, c, vs);
		return;
	case HOW_CONTENT:
		observe_judge_content(obs, sb, n, c);
		return;
	case HOW_OPEN:
	case HOW_OPENAT2:
		if (!observe_read_open(c, d, &mem, &q, &path, &lost))
			return;
		observe_take_raw(&mem, &raw1, &q.rawfd1);
		kind = q.kind;
		follow = q.follow1;
		writes = q.writes;
		op = kind == OBSERVE_WRITE ? "write" : "create";
		/* Appending keeps the start as it is (undo keeps the old
		   length only; observe_record_content for the rest). Write
		   only: a descriptor that can read can be mapped, and a
		   mapping written is no call. */
		obs->rec_append = (q.flags & O_APPEND) != 0 &&
		    (q.flags & O_TRUNC) == 0 &&
		    (q.flags & O_ACCMODE) == O_WRONLY;
		break;
	case HOW_LINK:
	case HOW_RENAME:
		observe_read_two(c, d, &mem, &q, &path, &path2, &raw1, &raw2,
		    &deleted, &lost);
		kind = c->how == HOW_LINK ? OBSERVE_CREATE_EXCL :
		    OBSERVE_DELETE;
		follow = c->how == HOW_LINK && q.follow2; /* the old name */
		op = c->op;
		break;
	case HOW_BIND:
		kind = c->kind;
		op = c->op;
		follow = false;
		if (!observe_read_bind(d, &mem, &q, &path, &raw1, &lost))
			return;
		break;
	case HOW_FD:
		kind = c->kind;
		op = c->op;
		follow = false;
		path = observe_base(mem.pid, (int)d->args[c->dirfd],
		    &deleted);
		lost = path == NULL ? errno : 0;
		break;
	case HOW_PATH:
	default:
		kind = c->kind;
		op = c->op;
		follow = !c->nofollow;
		if (c->flags >= 0 &&
		    (d->args[c->flags] & AT_SYMLINK_NOFOLLOW))
			follow = false;
		path = observe_arg_path_fd(d, &mem, c->dirfd, c->path,
		    c->flags >= 0 && (d->args[c->flags] & AT_EMPTY_PATH),
		    &deleted, &q.fd1);
		lost = path == NULL ? errno : 0;
		observe_take_raw(&mem, &raw1, &q.rawfd1);
		observe_req_path(c, d, &mem, follow, path, &q, &target);
		break;
	}
	/* Everything read: is it still the same task? */
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0) {
		free((char *)(q.op == OBSERVE_ACT_OPEN ? q.path1 : NULL));
		return;
	}
	/* Decided (observe-act.c): a name that could not be read is not
	   made blind. */
	if (q.op != 0 && lost != 0 && q.fd1 < 0) {
		obs->answer = ANSWER_ERROR;
		obs->answer_error = lost == ENOENT ? EACCES : lost;
	}
	/* What cannot be resolved widens the change report (never
	   dropped): a path that could not be read, a descriptor whose
	   file lost its name (another hard link may show the change). */
	if (lost != 0 && lost != ENOSYS)	/* ENOSYS: nothing happens */
		observe_widen_lost(obs, op, lost);
	if (deleted && path != NULL && obs->rec_root != NULL &&
	    strncmp(path, obs->rec_root, obs->rec_len) == 0 &&
	    (path[obs->rec_len] == '/' || path[obs->rec_len] == '\0'))
		observe_widen_lost(obs, op, ENOENT);
	if (path == NULL) {
		free((char *)(q.op == OBSERVE_ACT_OPEN ? q.path1 : NULL));
		return;
	}
	/* An openat2 that only reads is made by the delegate, not judged. */
	if (!obs->foreign && (q.op != OBSERVE_ACT_OPEN || q.writes ||
	    (q.flags & O_CREAT)))
		q.noted = observe_judge_paths(obs, sb, c, path, path2, kind,
		    follow, writes, op, vs);
	q.raw1 = raw1;
	q.raw2 = raw2;
	if (q.op != 0 && (q.path1 != NULL || q.fd1 >= 0))
		observe_act(obs, n, &q, vs);
	free((char *)(q.op == OBSERVE_ACT_OPEN ? q.path1 : NULL));
}

/* The recording and mount judgement of one call's paths: true when a
   refusal was recorded. */
static bool
observe_judge_paths(struct observer *obs, const struct sandbox *sb,
    const struct observe_call *c, const char *path, const char *path2,
    enum observe_kind kind, bool follow, bool writes, const char *op,
    struct violations *vs)
{
	size_t	before = vs->n;

	if (c->how == HOW_LINK) {
		if (observe_judge_path(obs, sb, path, kind, false, false, op,
		    vs))
			return true;
		if (path2 != NULL)
			observe_judge_link(obs, sb, path2, path, follow, vs);
		return vs->n != before;
	}
	if (c->how == HOW_RENAME && path2 != NULL) {
		observe_record_rename(obs, sb, path, path2);
		_cleanup_free_ char *p1 = xstrdup(path), *p2 = xstrdup(path2);
		const struct sandbox_mount *m1, *m2;
		char *s1 = strrchr(p1, '/'), *s2 = strrchr(p2, '/');

		/* Different mounts: EXDEV, and mv falls back to copying
		   (which is observed on its own). */
		*s1 = '\0';
		*s2 = '\0';
		m1 = sandbox_mount_for(sb, *p1 ? p1 : "/");
		m2 = sandbox_mount_for(sb, *p2 ? p2 : "/");
		if (m1 != m2 && sandbox_mount_for(sb, path) == m1 &&
		    sandbox_mount_for(sb, path2) == m2)
			return false;
		if (observe_judge_path(obs, sb, path, kind, follow, writes, op,
		    vs))
			return true;
		return observe_judge_path(obs, sb, path2, kind, follow, writes,
		    op, vs);
	}
	return observe_judge_path(obs, sb, path, kind, follow, writes, op,
	    vs);
}
