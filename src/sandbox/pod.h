/*
 * pod: the world a project's sandboxes share (issue 41).
 *
 * Like the pause container of a Kubernetes pod, a small process per
 * project (bwgate-pod, pod-main.c) holds a user namespace, a network
 * namespace whose loopback is up, and a private /tmp (a directory under
 * $XDG_STATE_HOME/bwgate/pods/). Every sandbox of the project whose
 * access is the project profile's (sandbox_pod_peer: writable project,
 * nothing more) and that has no network of its own (no --network, no
 * --domain) enters that user and network namespace before bwrap starts
 * (spawn.h, setns) and runs with --share-net, so a server one request
 * starts on 127.0.0.1:PORT is reached by another request's
 * `curl localhost:PORT`; the host's loopback is another namespace and
 * stays out of reach. A read-only or wider sandbox keeps a loopback of
 * its own: reaching a service is acting with the service's access.
 * Every sandbox that may write the project, networked ones too, gets the
 * pod's /tmp bound at /tmp, so a scratch file one command writes is read
 * by the next; a read-only one has a private tmpfs (sandbox-pod.c says
 * why). The pod also holds a pid namespace (its init, pid 1, reaps
 * orphans): a sandbox that shares its network, hides nothing and has a
 * cgroup of its own (sandbox-pod.c, build_pod_pids) runs in it (bwrap
 * --userns --pidns), so `ps`, `pkill` and `lsof` see the project's other
 * requests; such a run is ended by its cgroup (engine-loop.c), never by
 * the pid namespace. Two projects have two pods and share nothing.
 *
 * The first run of a project starts the holder (keyed, like the git
 * watcher, by the project directory's device and inode, and by the uid
 * the sandboxes run as; its socket in the runtime directory); later runs connect and receive its namespaces and
 * /tmp as descriptors. A run stays connected while it runs; the holder
 * leaves (and removes its /tmp) when nobody was connected for
 * BWGATE_POD_IDLE seconds (default POD_IDLE_SEC), or when its socket is
 * gone. The console holds its project's pod while it lives (pod_own);
 * the pod ends with the console. BWGATE_POD=0 turns pods off: each sandbox has its own network
 * namespace and a private tmpfs at /tmp, as before.
 *
 *	struct pod pod = POD_INIT;
 *	if (pod_join(&root_st, uid, gid, &pod, &cause) != 0) ... (none)
 *	... spawn bwrap with setns = { pod.userns, pod.netns }, and
 *	    --userns pod.pid_userns --pidns pod.pidns when it shares pids ...
 *	pod_leave(&pod);	after the run
 */
#ifndef BWGATE_POD_H
#define BWGATE_POD_H

#include <stdbool.h>
#include <sys/stat.h>

#define POD_IDLE_SEC	600

struct pod {
	bool	held;		/* the descriptors below are ours (a zeroed
				   struct holds nothing) */
	int	conn;		/* to the holder, open while the run lasts */
	int	userns;		/* the pod's user namespace */
	int	netns;		/* its network namespace */
	int	tmp;		/* its /tmp (a directory) */
	/* Its pid namespace (-1: none here) and the user namespace that
	   owns it, a child of userns: bwrap joins both (--userns, --pidns)
	   from userns. */
	int	pid_userns;
	int	pidns;
};
#define POD_INIT { false, -1, -1, -1, -1, -1, -1 }

/* Are pods on (BWGATE_POD not "0")? */
bool	pod_enabled(void);
/* Join (or start) the pod of the project whose root is st; the sandbox
   runs as kernel uid/gid. 0, or -1 with *cause (nothing held). */
int	pod_join(const struct stat *st, long uid, long gid, struct pod *,
	    char **cause);
/* The console: join as the pod's owner, for the project whose root is
   st, mapping the ids its runs may have (the project owner's too when
   root runs a user's project); the pod lives while it is held and ends
   when the owner leaves and no run is connected. 0, or -1 with *cause. */
int	pod_own(const struct stat *st, struct pod *, char **cause);
/* A run in the pod's pid namespace: the holder kills what is left of it
   once the run's connection closes (the run ended, or was killed before
   it could end its own processes: they would otherwise live on in the
   pod): kind 'k', the cgroup whose directory is fd; 'i', every process
   of the IPC namespace fd (proctree.h, ipcns_signal: the rule). 0 or
   -1. */
int	pod_watch(const struct pod *, char kind, int fd);
/* Close what pod_join gave. */
void	pod_leave(struct pod *);

#endif
