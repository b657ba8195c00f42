/*
 * sandbox-pod: the project's shared world in the argv (pod.h). A sandbox
 * without network of its own runs in the pod's network namespace
 * (--share-net; the runner enters it before bwrap starts); every sandbox
 * gets the pod's /tmp. A pod that cannot be joined leaves the sandbox as
 * it was (its own namespace, a private tmpfs), with a warning: a
 * sandbox is never given more than its own world.
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
 * agents' configuration, host paths)? Such a sandbox keeps a loopback of
 * its own: a server it runs is not one a narrower command of the project
 * could drive (a command that reaches a project service gains at most
 * what the project profile gives).
 */
static bool
build_pod_wider(const struct sandbox_policy *pol)
{
	return pol->git_writable || pol->agent_config_writable ||
	    pol->rw_paths.n > 0 || pol->ro_paths.n > 0;
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
 *  - only a sandbox that already shares the pod's network (pod_net: the
 *    project profile, no network, no hosts, nothing wider): a wider one
 *    must not reach (signal) what narrower commands started, nor be
 *    reached by them; and not a read-only one, whose processes could
 *    otherwise signal (or, through /proc/PID/root and /fd, reach the
 *    files of) a request that writes the project;
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

	return b->sb->pod_net && !pol->project_readonly &&
	    pol->hide_paths.n == 0 && pol->seccomp && !pol->allow_ptrace &&
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
	sb->pod_net = !b->pol->network && !sandbox_policy_proxied(b->pol) &&
	    !build_pod_wider(b->pol);
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
	/* Root running a user's project: the user could not reach the
	   pod's /tmp in root's state directory. Nested sandboxes allowed:
	   their calls are judged by device, and the pod's /tmp may share
	   the project's (observe-act.c refuses those); a tmpfs has its own. */
	sb->pod_tmp = sb->run_as == NULL && !b->pol->allow_userns &&
	    !build_pod_tmp_paths(b->pol);
}

/*
 * The pod's pid namespace (build_pod_pids): bwrap joins its user
 * namespace U2 (a child of the pod's U1, which the runner entered: bwrap
 * may join it, and owns it when it runs as the project's owner) and the
 * pid namespace U2 owns, so its fresh /proc is the pod's. Every other
 * namespace is still its own, spelled out (--unshare-all would make a
 * pid namespace of its own). bwrap's --disable-userns needs a user
 * namespace of the sandbox's own: here nested namespaces are refused by
 * the deny filter (build_pod_pids requires it).
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
	strv_push(&b->sb->warnings, "nested user namespaces rest on the "
	    "seccomp filter alone: the sandbox shares the project's pid "
	    "namespace, where bwrap's --disable-userns does not apply");
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
