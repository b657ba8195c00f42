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
	/* Root running a user's project: the user could not reach the
	   pod's /tmp in root's state directory. Nested sandboxes allowed:
	   their calls are judged by device, and the pod's /tmp may share
	   the project's (observe-act.c refuses those); a tmpfs has its own. */
	sb->pod_tmp = sb->run_as == NULL && !b->pol->allow_userns &&
	    !build_pod_tmp_paths(b->pol);
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
