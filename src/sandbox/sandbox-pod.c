/*
 * sandbox-pod: the project's shared world in the argv (pod.h). A sandbox
 * whose access is the project profile's (sandbox_pod_peer) and that has
 * no network of its own runs in the pod's network namespace (--share-net;
 * the runner enters it before bwrap starts); a sandbox that may write the
 * project gets the pod's /tmp. A pod that cannot be joined leaves the
 * sandbox as it was (its own namespace, a private tmpfs), with a warning:
 * a sandbox is never given more than its own world.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path.h"
#include "pod.h"
#include "probe.h"
#include "proctree.h"
#include "sandbox-int.h"
#include "xalloc.h"

/*
 * Does the policy give more than the project profile (git metadata, the
 * agents' configuration, host paths, debuggers)?
 */
static bool
build_pod_wider(const struct sandbox_policy *pol)
{
	return pol->git_writable || pol->agent_config_writable ||
	    pol->rw_paths.n > 0 || pol->ro_paths.n > 0 || pol->allow_ptrace;
}

/*
 * Who joins the project's shared world (its loopback, and every namespace
 * the pod shares beyond it): only a sandbox whose access is exactly what
 * the project's services run with, the writable project profile. The
 * world is a channel between its members: a command that connects to a
 * service (or signals it, or opens its /proc entries: a process sees only
 * the processes of its own pid namespace) acts with the service's access.
 * So a read-only sandbox, which the default mode runs at once for an
 * allowlisted command, keeps a loopback of its own where nothing listens
 * (a service reached from it would lend it the project's write access,
 * such as a dev server that deletes files on a POST), and a wider one
 * (git-write, extra paths) keeps its own so that no command of the
 * project drives a server that has more than the project profile. This is
 * decided by the sandbox's access, never by what the command's words
 * seem to do (python3 -c can connect as well as curl can).
 */
bool
sandbox_pod_peer(const struct sandbox_policy *pol)
{
	return !pol->project_readonly && !build_pod_wider(pol);
}

/*
 * Is an extra path of the policy under /tmp? bwrap makes its mount point
 * in the /tmp it bound first, and in the pod's /tmp that directory would
 * stay for every later sandbox (where a write to the path would then land
 * instead of being refused): such a sandbox keeps a private tmpfs.
 */
static bool
build_pod_tmp_paths(const struct sandbox_policy *pol)
{
	const struct strv	*lists[] = { &pol->rw_paths, &pol->ro_paths,
				    &pol->hide_paths };

	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < lists[k]->n; i++)
			if (path_is_under(lists[k]->v[i], "/tmp"))
				return true;
	return false;
}

/*
 * Does the sandbox run in the pod's pid namespace, where `ps`, `pkill`
 * and `lsof` see the project's other requests (and nothing of the
 * host's)? The rule, in one place:
 *  - only a sandbox that already shares the pod's network (pod_net:
 *    sandbox_pod_peer, exactly the project profile, no network, no
 *    hosts): a wider one must not reach (signal) what narrower commands
 *    started, nor be reached by them; and a read-only one, which is no
 *    peer, could otherwise signal (or, through /proc/PID/root and /fd,
 *    reach the files of) a request that writes the project;
 *  - not one that hides paths (--hide): through another request's
 *    /proc/PID/root it would see what it hides (the sandboxes that share
 *    see each other's roots, cwd and descriptors, all the same view of
 *    the same project);
 *  - only with the deny filter on and no debugger or nested namespaces
 *    allowed: ptrace, process_vm_writev and pidfd_getfd stay refused
 *    between requests, and /proc stays read-only (a nested-namespace
 *    profile has a writable /proc: /proc/PID/mem of the others);
 *  - only with a fresh /proc (a bound one is not the pod's);
 *  - only with the observer's helper, which closes the namespace
 *    descriptors bwrap leaves open before the command runs (a dry build
 *    has no helper: it answers as a run with one);
 *  - only where the request's processes can be told apart: a request is
 *    ended by its cgroup, or where it has none (an ordinary user on
 *    cgroup v1, limits off) by its IPC namespace, which is its own
 *    (build_pod_pid_namespaces) and which the deny filter keeps every
 *    process of the request in and every other one out (proctree.h,
 *    ipcns_signal); never by its pid namespace, which now holds the whole
 *    project. That needs our /proc to be our own pid namespace's
 *    (proc_is_own); the run checks the rest when the namespace exists
 *    (engine.c, engine_mark) and does not start where it fails.
 * A dry build answers as the run would where the pod has a pid namespace.
 */
static bool
build_pod_pids(const struct build *b)
{
	const struct sandbox_policy	*pol = b->pol;

	return b->sb->pod_net && pol->hide_paths.n == 0 &&
	    pol->seccomp && !pol->allow_ptrace &&
	    !pol->allow_userns && b->probe->proc_fresh && proc_is_own() &&
	    (b->dry || (pol->helper != NULL && b->sb->pod.pidns >= 0));
}

/* Join the pod (a dry build: as a run would, without joining). */
void
build_pod(struct build *b, const struct stat *st)
{
	struct sandbox	*sb = b->sb;
	char		*cause = NULL;

	if (!pod_enabled())
		return;
	/* Where a filter of the host's refuses setns (we inherit it, as the
	   runner's child would), no pod: a bad descriptor is EBADF where the
	   call is allowed. */
	if (syscall(SYS_setns, -1, CLONE_NEWNET) == 0 || errno != EBADF) {
		strv_pushf(&sb->warnings, "no shared world for the project "
		    "(cannot enter a namespace here: %s): this sandbox has its "
		    "own loopback and /tmp", strerror(errno));
		return;
	}
	if (!b->dry && pod_join(st, sb->kernel_uid, sb->kernel_gid, &sb->pod,
	    &cause) != 0) {
		strv_pushf(&sb->warnings, "no shared world for the project "
		    "(%s): this sandbox has its own loopback and /tmp", cause);
		free(cause);
		return;
	}
	sb->pod_peer = sandbox_pod_peer(b->pol);
	sb->pod_net = sb->pod_peer && !b->pol->network &&
	    !sandbox_policy_proxied(b->pol);
	sb->pod_pid = build_pod_pids(b);
	if (sb->pod_net && !sb->pod_pid && !proc_is_own())
		strv_push(&sb->warnings, "this sandbox does not see the "
		    "project's other processes: /proc here is not this pid "
		    "namespace's, so its processes could not be told apart");
	else if (sb->pod_net && !sb->pod_pid && !b->dry &&
	    sb->pod.pidns < 0 && b->probe->proc_fresh)
		strv_push(&sb->warnings, "this sandbox does not see the "
		    "project's other processes: the project's pod has no pid "
		    "namespace here");
	/*
	 * The pod's /tmp is where the project's writable commands and its
	 * services put scratch files, sockets and what they read next. A
	 * read-only sandbox gets a private tmpfs instead: with the pod's
	 * /tmp writable it could plant data a running service or a later
	 * command reads (a read-only command would then steer one that
	 * writes), and a read-only view would still let it connect to a
	 * service's Unix socket there (a read-only mount does not stop
	 * connect(2)); bwrap 0.8 has no overlay to give it both a view and
	 * scratch space of its own. It loses what earlier commands left in
	 * /tmp, which it could only have read. A networked or wider sandbox
	 * writes the project anyway: it shares the /tmp (a download read by
	 * the next command, a commit message for git commit -F).
	 *
	 * Root running a user's project: the user could not reach the
	 * pod's /tmp in root's state directory. Nested sandboxes allowed:
	 * their calls are judged by device, and the pod's /tmp may share
	 * the project's (observe-act.c refuses those); a tmpfs has its own.
	 */
	sb->pod_tmp = !b->pol->project_readonly && sb->run_as == NULL &&
	    !b->pol->allow_userns && !build_pod_tmp_paths(b->pol);
}

/*
 * The pod's pid namespace (build_pod_pids): bwrap joins its user
 * namespace U2 (a child of the pod's U1, which the runner entered: bwrap
 * may join it, and owns it when it runs as the project's owner) and the
 * pid namespace U2 owns, so its fresh /proc is the pod's. Every other
 * namespace is still its own, spelled out (--unshare-all would make a
 * pid namespace of its own). bwrap's --disable-userns needs a user
 * namespace of the sandbox's own: here the pod made U2 with a limit of
 * no user namespaces (pod-main.c, pod_no_userns), and the deny filter
 * refuses them too (build_pod_pids requires it).
 */
void
build_pod_pid_namespaces(struct build *b)
{
	char	num[16];
	int	n;

	n = build_fd(b, b->dry ? -1 :
	    fcntl(b->sb->pod.pid_userns, F_DUPFD_CLOEXEC, 3));
	snprintf(num, sizeof num, "%d", n);
	build_arg2(b, "--userns", num);
	n = build_fd(b, b->dry ? -1 :
	    fcntl(b->sb->pod.pidns, F_DUPFD_CLOEXEC, 3));
	snprintf(num, sizeof num, "%d", n);
	build_arg2(b, "--pidns", num);
	build_arg(b, "--unshare-ipc");
	build_arg(b, "--unshare-uts");
	build_arg(b, "--unshare-cgroup-try");
	build_arg(b, "--share-net");
}

/* Bind the pod's /tmp at /tmp; false when the sandbox has none. */
bool
build_pod_tmp(struct build *b)
{
	char	num[16];
	int	n;

	if (!b->sb->pod_tmp)
		return false;
	n = build_fd(b, b->dry ? -1 :
	    fcntl(b->sb->pod.tmp, F_DUPFD_CLOEXEC, 3));
	snprintf(num, sizeof num, "%d", n);
	build_arg3(b, "--bind-fd", num, "/tmp");
	build_mount(b, MOUNT_TMPFS, "/tmp", "the project's own /tmp, shared by "
	    "its sandboxes");
	return true;
}
