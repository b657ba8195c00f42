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
