/*
 * observe: the seccomp observer. It sees every call that creates,
 * renames, links, removes, writes or changes a mode, and DECIDES it
 * before it runs (issue 36); it records the rest for the change report.
 *
 * The helper (bwgate-helper.c) notifies us of write-intent system calls
 * and hands us, beside the listener, the socket of a delegate it forked
 * before installing the filter: a process of the sandbox (its user and
 * mount namespaces, its credentials, its root) that is outside the
 * filter. Each notification is handled while the caller is stopped:
 *
 *	read	the path (or socket address) with process_vm_readv (or
 *		/proc/PID/mem), ONCE: the copy is what is judged and what
 *		is made; the base directory from /proc/PID/cwd or
 *		/proc/PID/fd/N (the sandbox's own view); a descriptor the
 *		call names is pinned (O_PATH); then
 *		SECCOMP_IOCTL_NOTIF_ID_VALID: the caller was still waiting
 *		throughout, so a recycled pid cannot have fed us another
 *		process's memory;
 *	resolve	normalise, follow symlinks component by component inside
 *		/proc/PID/root, to a path with no link on the way;
 *	judge	protect_judge() (protect.h), the one policy: a protected
 *		name created, renamed onto or away, linked onto, opened
 *		for writing, truncated or given a mode is refused with
 *		EACCES (EPERM for a mode) and reported as a refusal with
 *		its hint; the covering mount (sandbox_mount_for) and
 *		observe_decide() still say why a call fails for a mount;
 *	make	the delegate makes the call on exactly the judged names,
 *		resolving with RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
 *		and an open's descriptor is injected into the caller with
 *		SECCOMP_IOCTL_NOTIF_ADDFD | SECCOMP_ADDFD_FLAG_SEND
 *		(observe-act.c says why a racing writer cannot win).
 *
 * A caller in a nested sandbox's own mount namespace is judged by
 * identity (observe-act.c, act_foreign); a FIFO opened for writing waits
 * for its reader in a child of the delegate and is answered later
 * (ANSWER_LATER); openat2's resolve flags are checked by the kernel
 * (act_resolve_check). Calls that create nothing (exec, chown, utime,
 * xattr, network, opens that only read) CONTINUE. Stand-in files at protected names are not
 * needed: the project inside is exactly as it is. Where the observer
 * cannot decide (no notification, no delegate, a kernel before 5.14),
 * observe_deciding() is false and a run that can write the project does
 * not start (the fallback: doctor, every report, bwgate(1)). The
 * listener is only read when poll(2) says it is readable, so RECV never
 * blocks (a notification withdrawn because its task died makes RECV fail
 * with ENOENT, it does not block), and every reply to a dead task just
 * fails with ENOENT: a sandbox dying mid-notification cannot stall bwgate.
 * With SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6) the kernel hands
 * the CPU straight to bwgate and back: a third of the time per call for
 * one process calling in a loop. But the answer then wakes the caller on
 * bwgate's CPU, wherever the caller ran: a call that came while bwgate
 * was busy (another task's, on another CPU) would be pulled over, and a
 * parallel build piles up on one CPU (6 % slower building bwgate, against
 * 2 % answering plainly). So it is kept for one task calling in a row
 * (observe_sync_choose).
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "fdpass.h"
#include "libexec.h"
#include "log.h"
#include "loop.h"
#include "observe-filter.h"
#include "observe-proto.h"
#include "observe-int.h"
#include "observe.h"
#include "pathwalk.h"
#include "seccomp-deny.h"
#include "protect.h"
#include "xalloc.h"

/* Linux 6.6: wake the supervisor on the notifying CPU (a direct handoff). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

/* Notifications handled per observe_handle() call. */
#define OBSERVE_BATCH		64
/* Calls in a row from one task before the CPU is handed to and fro. */
#define OBSERVE_SYNC_RUN	8
static void	observe_loop_cb(int, short, void *);

/* Can the helper install the observer's filter here? The kernel hands
   notifications on, and the helper's socket can sit at OBSERVE_SOCK_FD. */
static bool
observe_setid_possible(void)
{
	unsigned int	action = SECCOMP_RET_USER_NOTIF;
	struct rlimit	rl;

	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) ==
	    0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur > OBSERVE_SOCK_FD;
}
static void	observe_hello_reply(struct observer *);

struct observer *
observe_prepare(struct sandbox_policy *pol, int flags, char **cause)
{
	struct observer		*obs;
	struct observe_hello	 hello;
	struct buf		 msg = BUF_INIT;
	const char		*off = getenv("BWGATE_NO_NOTIFY");
	char			*helper, *why = NULL, *pcause = NULL;
	int			 sv[2];
	ssize_t			 sent;

	if ((helper = libexec_find("bwgate-helper", "BWGATE_HELPER")) == NULL) {
		*cause = xstrdup("cannot find bwgate-helper "
		    "(set BWGATE_HELPER)");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		*cause = xasprintf("socketpair: %s", strerror(errno));
		free(helper);
		return NULL;
	}
	memset(&hello, 0, sizeof hello);
	hello.magic = OBSERVE_MAGIC;
	hello.version = OBSERVE_VERSION;
	if (!pol->network)
		hello.flags |= OBSERVE_F_NET;
	if (off != NULL && *off != '\0' && strcmp(off, "0") != 0)
		hello.flags |= OBSERVE_F_OFF;
	/* Always held until observe_go(): killed before it, we close the
	   socket and the helper does not run the command. */
	hello.flags |= OBSERVE_F_WAIT;
	if (flags & OBSERVE_RECORD)
		hello.flags |= OBSERVE_F_RECORD;
	if (flags & OBSERVE_ARGV)
		hello.flags |= OBSERVE_F_ARGV;
	/* Setuid and setgid modes to the observer (answered EPERM and
	   named in the report) where it will be there: notifications, and
	   its socket's descriptor within reach (else the deny filter
	   refuses them unseen). */
	if ((hello.flags & OBSERVE_F_OFF) == 0 && observe_setid_possible())
		hello.flags |= OBSERVE_F_SETID;
	/* The program travels with the hello (see observe-proto.h). */
	buf_add(&msg, &hello, sizeof hello);
	if ((hello.flags & OBSERVE_F_OFF) == 0 &&
	    observe_filter_build(hello.flags, &msg, &why) != 0) {
		LOG("%s", why);
		free(why);
		msg.len = sizeof hello;
		hello.flags |= OBSERVE_F_OFF;
		hello.flags &= ~(uint32_t)OBSERVE_F_SETID;
	}
	hello.ninsns = (uint32_t)((msg.len - sizeof hello) / 8);
	memcpy(msg.data, &hello, sizeof hello);
	sent = send(sv[0], msg.data, msg.len, MSG_NOSIGNAL);
	if (sent != (ssize_t)msg.len) {
		*cause = xasprintf("cannot talk to the helper: %s",
		    strerror(errno));
		buf_release(&msg);
		close(sv[0]);
		close(sv[1]);
		free(helper);
		return NULL;
	}
	buf_release(&msg);

	obs = xcalloc(1, sizeof *obs);
	obs->state = STATE_HELLO;
	obs->sock = sv[0];
	obs->listener = -1;
	obs->rootfd = -1;
	obs->loop_fd = -1;
	obs->delegate = -1;
	obs->answer_fd = -1;
	obs->project = xstrdup(pol->project);
	obs->project_len = strlen(pol->project);
	if ((obs->protect = protect_new(pol, &pcause)) == NULL) {
		/* Fail closed: no policy, nothing may be made. */
		*cause = xasprintf("cannot load the protection policy: %s",
		    pcause);
		free(pcause);
		observe_free(obs);
		free(helper);
		close(sv[1]);
		return NULL;
	}
	obs->network = pol->network;
	obs->userns = pol->allow_userns;
	obs->status = xstrdup("no answer from the helper");
	obs->armed = (hello.flags & OBSERVE_F_OFF) == 0;
	obs->wait = (hello.flags & OBSERVE_F_WAIT) != 0;
	obs->argv_later = (hello.flags & OBSERVE_F_ARGV) != 0;
	free(pol->helper);
	pol->helper = helper;
	pol->helper_fd = sv[1];		/* the sandbox closes it */
	pol->helper_argv_later = (flags & OBSERVE_ARGV) != 0;
	pol->setid_observed = (hello.flags & OBSERVE_F_SETID) &&
	    (hello.flags & OBSERVE_F_OFF) == 0;
	return obs;
}

int
observe_fd(const struct observer *obs)
{
	if (obs == NULL)
		return -1;
	switch (obs->state) {
	case STATE_HELLO:
		return obs->sock;
	case STATE_LISTEN:
		return obs->listener;
	default:
		return -1;
	}
}

bool
observe_exact(const struct observer *obs)
{
	return obs != NULL && obs->exact;
}

bool
observe_deciding(struct observer *obs, int timeout_ms)
{
	if (obs == NULL)
		return false;
	(void)observe_wait_ready(obs, timeout_ms);
	return obs->exact && obs->decides;
}

const char *
observe_raced(const struct observer *obs)
{
	return obs != NULL ? obs->raced : NULL;
}

const char *
observe_status(const struct observer *obs)
{
	return obs != NULL ? obs->status : "no observer";
}

bool
observe_armed(const struct observer *obs)
{
	return obs != NULL && obs->armed;
}

bool
observe_wait_ready(struct observer *obs, int timeout_ms)
{
	struct pollfd	pfd;
	int64_t		end = loop_now_ms() + timeout_ms, left;

	if (obs == NULL)
		return false;
	while (obs->state == STATE_HELLO) {
		left = end - loop_now_ms();
		if (left < 0)
			left = 0;
		pfd.fd = obs->sock;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			break;
		if (pfd.revents != 0)
			observe_hello_reply(obs);
		else if (left == 0)
			break;
	}
	return obs->exact;
}

/*
 * Send the go message (the helper reads it once it asks). Before its
 * answer it is not known whether the helper waits for one: a byte it
 * never reads would reset the connection when it closes its end, and the
 * answer queued before it would be lost. So the plain go is kept until
 * the answer says (observe_hello_reply).
 */
static void
observe_send_go(struct observer *obs, const void *msg, size_t len)
{
	if (obs == NULL || !obs->wait)
		return;
	if (obs->state == STATE_HELLO && !obs->argv_later) {
		obs->go_pending = true;
		return;
	}
	obs->wait = false;
	(void)send(obs->sock, msg, len, MSG_NOSIGNAL);
	/* After the answer the socket has no more use. */
	if (obs->state != STATE_HELLO && obs->sock >= 0) {
		close(obs->sock);
		obs->sock = -1;
	}
}

void
observe_go(struct observer *obs)
{
	observe_send_go(obs, "g", 1);
}

bool
observe_argv_fits(const struct strv *argv)
{
	size_t	n = 0;

	for (size_t i = 0; i < argv->n; i++)
		n += strlen(argv->v[i]) + 1;
	return argv->n > 0 && n <= OBSERVE_MAX_ARGV;
}

int
observe_go_argv(struct observer *obs, const struct strv *argv)
{
	struct buf	msg = BUF_INIT;

	if (obs == NULL || !observe_argv_fits(argv))
		return -1;
	for (size_t i = 0; i < argv->n; i++)
		buf_add(&msg, argv->v[i], strlen(argv->v[i]) + 1);
	observe_send_go(obs, msg.data, msg.len);
	buf_release(&msg);
	return 0;
}

void
observe_record(struct observer *obs, struct snapshot_paths *sp,
    const char *root)
{
	if (obs == NULL)
		return;
	obs->rec = sp;
	free(obs->rec_root);
	obs->rec_root = xstrdup(root);
	obs->rec_len = strlen(root);
}

unsigned long
observe_count(const struct observer *obs)
{
	return obs != NULL ? obs->count : 0;
}

/* Set the status line. */
static void
observe_set_status(struct observer *obs, const char *s)
{
	free(obs->status);
	obs->status = xstrdup(s);
}

/* Take the helper's answer (and the listener) from the socket. */
static void
observe_hello_reply(struct observer *obs)
{
	struct observe_reply	 r;
	int			 fd = -1, sizes_ok, fds[2];
	struct seccomp_notif_sizes sizes;
	ssize_t			 n;

	memset(&r, 0, sizeof r);
	/* The listener, and the delegate's socket (bwgate-helper.c). */
	n = fdpass_recv(obs->sock, &r, sizeof r, fds, 2, MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		return;
	fd = fds[0];
	obs->delegate = fds[1];
	/* With a listener the helper does not wait: the command's execve
	   waits for us instead (observe-proto.h). */
	if (n == (ssize_t)sizeof r && r.error == 0 && fd >= 0 &&
	    !obs->argv_later)
		obs->wait = false;
	if (obs->go_pending && obs->wait && n > 0) {
		(void)send(obs->sock, "g", 1, MSG_NOSIGNAL);
		obs->wait = false;
	}
	obs->go_pending = false;
	/* A waiting helper keeps the socket until observe_go(). */
	if (!obs->wait || n <= 0) {
		close(obs->sock);
		obs->sock = -1;
	}
	obs->state = STATE_DONE;

	if (n != (ssize_t)sizeof r || r.magic != OBSERVE_MAGIC) {
		observe_set_status(obs, n == 0 ? "the helper did not run" :
		    "bad answer from the helper");
		if (fd >= 0)
			close(fd);
		return;
	}
	r.why[sizeof r.why - 1] = '\0';
	if (r.error != 0 || fd < 0) {
		observe_set_status(obs, r.why[0] != '\0' ? r.why :
		    "no listener");
		if (fd >= 0)
			close(fd);
		return;
	}

	sizes_ok = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
	if (sizes_ok != 0) {
		observe_set_status(obs, "cannot size notifications");
		close(fd);
		return;
	}
	obs->req_size = sizes.seccomp_notif > sizeof *obs->req ?
	    sizes.seccomp_notif : sizeof *obs->req;
	obs->resp_size = sizes.seccomp_notif_resp > sizeof *obs->resp ?
	    sizes.seccomp_notif_resp : sizeof *obs->resp;
	obs->req = xcalloc(1, obs->req_size);
	obs->resp = xcalloc(1, obs->resp_size);
	obs->arch = seccomp_arch_native();
	obs->listener = fd;
	obs->state = STATE_LISTEN;
	/* Fewer scheduler round trips per call where the kernel has it. */
	obs->sync_ok = obs->sync_on = ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0) == 0;
	if (!obs->sync_ok)
		LOG("no synchronous wake-up: %s", strerror(errno));
	obs->exact = true;
	observe_set_status(obs, "exact");
	/* Deciding needs the delegate and descriptor injection with the
	   answer (SECCOMP_ADDFD_FLAG_SEND, Linux 5.14): a probe for a call
	   that is not there says ENOENT where the kernel has it. */
	{
		struct seccomp_notif_addfd	add;

		memset(&add, 0, sizeof add);
		add.id = ~(uint64_t)0;
		add.flags = SECCOMP_ADDFD_FLAG_SEND;
		add.srcfd = (uint32_t)fd;
		obs->addfd_ok = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 &&
		    errno == ENOENT;
	}
	obs->decides = obs->delegate >= 0 && obs->addfd_ok;
	if (!obs->decides)
		observe_set_status(obs, obs->delegate < 0 ? "exact, but no "
		    "delegate to make the calls" : "exact, but the kernel "
		    "cannot inject descriptors (SECCOMP_ADDFD_FLAG_SEND, "
		    "Linux 5.14)");
	/* The sandbox's mount namespace; its root comes with a caller. */
	obs->mntns = (ino_t)r.mntns;
	LOG("listener %d, mount namespace %llu", fd,
	    (unsigned long long)r.mntns);
}

/* Turn the synchronous wake-up on or off (see the top of the file). */
static void
observe_sync_wake(struct observer *obs, bool on)
{
	if (!obs->sync_ok || obs->sync_on == on || obs->listener < 0)
		return;
	if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    on ? SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP : 0, 0) != 0)
		return;
	obs->sync_on = on;
	LOG("synchronous wake-up %s", on ? "on" : "off");
}

/*
 * How to answer a call from pid: the first call, and one task calling
 * again and again (OBSERVE_SYNC_RUN in a row: a loop writing files),
 * hand the CPU to and fro; calls from several tasks (a parallel build)
 * are answered plainly, so each wakes where the scheduler puts it.
 */
static void
observe_sync_choose(struct observer *obs, uint32_t pid)
{
	bool	first = obs->last_pid == 0;

	if (pid != obs->last_pid)
		obs->same_run = 0;
	else if (obs->same_run < OBSERVE_SYNC_RUN)
		obs->same_run++;
	obs->last_pid = pid;
	observe_sync_wake(obs, first || obs->same_run >= OBSERVE_SYNC_RUN);
}

/*
 * Answer with the descriptor the delegate opened, put into the caller at
 * the lowest free number, as the open would have: the kernel answers the
 * call with its number (SECCOMP_ADDFD_FLAG_SEND). False when it could not
 * (the answer is then an error, sent by the caller).
 */
static bool
observe_inject(struct observer *obs)
{
	struct seccomp_notif_addfd	add;
	int				r;

	memset(&add, 0, sizeof add);
	add.id = obs->req->id;
	add.flags = SECCOMP_ADDFD_FLAG_SEND;
	add.srcfd = (uint32_t)obs->answer_fd;
	add.newfd_flags = obs->answer_cloexec ? O_CLOEXEC : 0;
	r = ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	close(obs->answer_fd);
	obs->answer_fd = -1;
	if (r >= 0 || errno == ENOENT)
		return true;	/* answered, or the task is gone */
	obs->answer = ANSWER_ERROR;
	obs->answer_error = errno == EMFILE ? EMFILE : EACCES;
	return false;
}

/* Serve what is pending on the listener, at most OBSERVE_BATCH. */
static void
observe_serve(struct observer *obs, const struct sandbox *sb,
    struct violations *vs, int timeout)
{
	struct pollfd	pfd;

	for (int i = 0; i < OBSERVE_BATCH; i++) {
		pfd.fd = obs->listener;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, i == 0 ? timeout : 0) <= 0)
			return;
		if (pfd.revents & POLLIN) {
			memset(obs->req, 0, obs->req_size);
			if (ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_RECV,
			    obs->req) != 0)
				continue;	/* withdrawn (task died) */
			obs->count++;
			obs->answer = ANSWER_CONTINUE;
			if (seccomp_setid_call(&obs->req->data)) {
				/* A setuid or setgid mode: refused and named
				   before anything is judged, so the delegate
				   never makes it. */
				observe_setid(obs, obs->req, vs);
				obs->answer = ANSWER_ERROR;
				obs->answer_error = EPERM;
			} else
				observe_judge(obs, sb, obs->req, vs);
			observe_sync_choose(obs, obs->req->pid);
			if (obs->answer == ANSWER_FD && obs->raced == NULL &&
			    observe_inject(obs))
				continue;
			if (obs->answer == ANSWER_LATER) {
				if (obs->raced == NULL &&
				    observe_act_later(obs, obs->req->id))
					continue;	/* answered later */
				if (obs->answer_fd >= 0)
					close(obs->answer_fd);
				obs->answer_fd = -1;
				obs->answer = ANSWER_ERROR;
				obs->answer_error = ENXIO;
			}
			memset(obs->resp, 0, obs->resp_size);
			obs->resp->id = obs->req->id;
			obs->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			if (obs->answer == ANSWER_ERROR) {
				obs->resp->flags = 0;
				obs->resp->error = -obs->answer_error;
			} else if (obs->answer == ANSWER_DONE) {
				obs->resp->flags = 0;
				obs->resp->val = 0;
			}
			/* Mounts not what was opened: nothing it tries,
			   its execve first, may happen. */
			if (obs->raced != NULL) {
				obs->resp->flags = 0;
				obs->resp->error = -EACCES;
			}
			/* ENOENT: the task died meanwhile; nothing to do. */
			ioctl(obs->listener, SECCOMP_IOCTL_NOTIF_SEND,
			    obs->resp);
			continue;
		}
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* No task uses the filter any more. */
			close(obs->listener);
			obs->listener = -1;
			obs->state = STATE_DONE;
			return;
		}
	}
}

void
observe_handle(struct observer *obs, const struct sandbox *sb,
    struct violations *vs)
{
	if (obs == NULL)
		return;
	if (obs->state == STATE_HELLO)
		observe_hello_reply(obs);
	if (obs->state == STATE_LISTEN)
		observe_serve(obs, sb, vs, 0);
}

/* Loop callback: handle, then follow the descriptor change. */
static void
observe_loop_cb(int fd, short revents, void *arg)
{
	struct observer	*obs = arg;
	int		 now;

	observe_handle(obs, obs->sb, obs->out);
	now = observe_fd(obs);
	if (now != obs->loop_fd) {
		loop_remove(obs->loop, obs->loop_fd);
		obs->loop_fd = now;
		if (now >= 0)
			loop_add(obs->loop, now, POLLIN, observe_loop_cb, obs);
	}
}

void
observe_record_exec(struct observer *obs, struct executions *es)
{
	if (obs != NULL)
		obs->exec_out = es;
}

void
observe_record_ports(struct observer *obs, struct strv *ports,
    struct strv *names)
{
	if (obs != NULL) {
		obs->ports_out = ports;
		obs->names_out = names;
	}
}

void
observe_attach(struct observer *obs, struct loop *l, const struct sandbox *sb,
    struct violations *vs)
{
	if (obs == NULL)
		return;
	obs->loop = l;
	obs->sb = sb;
	obs->out = vs;
	obs->loop_fd = observe_fd(obs);
	if (obs->loop_fd >= 0)
		loop_add(l, obs->loop_fd, POLLIN, observe_loop_cb, obs);
}

void
observe_finish(struct observer *obs)
{
	if (obs == NULL)
		return;
	if (obs->loop != NULL && obs->loop_fd >= 0)
		loop_remove(obs->loop, obs->loop_fd);
	obs->loop_fd = -1;
	observe_act_waits_end(obs);
	if (obs->state == STATE_HELLO)
		observe_hello_reply(obs);
	if (obs->state == STATE_LISTEN && obs->sb != NULL && obs->out != NULL)
		observe_serve(obs, obs->sb, obs->out, 0);
	if (obs->sock >= 0)
		close(obs->sock);
	obs->sock = -1;
	if (obs->listener >= 0)
		close(obs->listener);
	obs->listener = -1;
	if (obs->rootfd >= 0)
		close(obs->rootfd);
	obs->rootfd = -1;
	/* Its end of file ends the delegate. */
	if (obs->delegate >= 0)
		close(obs->delegate);
	obs->delegate = -1;
	obs->state = STATE_DONE;
}

void
observe_free(struct observer *obs)
{
	if (obs == NULL)
		return;
	observe_finish(obs);
	free(obs->raced);
	free(obs->req);
	free(obs->resp);
	free(obs->status);
	free(obs->rec_root);
	free(obs->project);
	protect_free(obs->protect);
	strv_release(&obs->res_why);
	free(obs);
}
