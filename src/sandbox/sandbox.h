/*
 * sandbox: turn a policy into the exact bwrap argv (the pure heart of bwgate).
 *
 * A struct sandbox_policy says what the command may see and write; a
 * struct probe (probe.h) says what this host supports. sandbox_build()
 * turns the two into a bwrap argv, a table of mounts for people to read,
 * and the descriptors the argv refers to.
 *
 * Descriptor numbers in the argv are fixed by position: the i-th entry of
 * sb->fds is named as fd SANDBOX_FD_BASE + i, and the runner moves each
 * descriptor to that number in the child before exec. So the argv printed
 * by `bwgate check` (built with SANDBOX_DRY, which opens nothing) is the
 * argv that runs.
 *
 * Lifecycle:
 *	struct sandbox_policy pol;  sandbox_policy_init(&pol); ...
 *	struct sandbox sb = SANDBOX_INIT;
 *	if (sandbox_build(&pol, &probe, 0, &sb, &cause) != 0) ...
 *	... run sb.argv + "--" + command (runner.h) ...
 *	sandbox_finish(&sb);	closes descriptors
 *	sandbox_release(&sb);
 */
#ifndef BWGATE_SANDBOX_H
#define BWGATE_SANDBOX_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <time.h>

#include "pod.h"
#include "strv.h"

struct probe;
struct gitscan;

#define SANDBOX_FD_BASE		3
/* Where bwgate 0.3 moved git metadata it could not prove a command made
   (at the project's root; read-only inside every sandbox, a project may
   still hold one). */
#define SANDBOX_QUARANTINE	".bwgate-quarantine"
/* Where the in-sandbox helper (violation observer) is mounted. */
#define SANDBOX_HELPER_PATH	"/run/bwgate/helper"

struct sandbox_policy {
	char		*project;	/* canonical absolute project root */
	char		*cwd;		/* canonical absolute working dir */
	char		*profile;	/* profile name, for reports */
	bool		 project_readonly; /* profile "readonly" */
	bool		 git_writable;	/* profile "git-write": .git rw */
	bool		 agent_config_writable; /* profile agent_config_writable:
					   agent_config below writable */
	bool		 network;	/* any host (slirp4netns) */
	struct strv	 domains;	/* else these hosts only, through the
					   proxy (domains.h); groups expanded */
	bool		 allow_userns;	/* nested sandboxes inside */
	bool		 allow_ptrace;	/* debuggers inside */
	bool		 seccomp;	/* install the deny filter (default on) */
	struct strv	 rw_paths;	/* extra writable host paths */
	struct strv	 ro_paths;	/* extra read-only host paths */
	struct strv	 hide_paths;	/* paths replaced by an empty dir/file */
	struct strv	 protected;	/* project-relative, read-only inside */
	struct strv	 agent_config;	/* the same for the agents' and editors'
					   configuration (policy/agentcfg.h):
					   "path", "dir/", with a leading
					   "**" "/" also where it exists deeper */
	struct strv	 git_hooks;	/* what the repository's git config
					   runs from the project: its
					   core.hooksPath ("dir/"), the files
					   it includes (protect.h,
					   protect_git_read), read where the
					   policy is built */
	struct strv	 env_pass;	/* names passed even if secret-looking */
	struct strv	 env_set;	/* NAME=VALUE set inside */
	bool		 env_agent;	/* env_in replaces our own environ */
	struct strv	 env_in;	/* the agent's NAME=VALUE */
	char		*helper;	/* host path of helper run first, or NULL */
	int		 helper_fd;	/* descriptor handed to the helper, or -1 */
	bool		 helper_argv_later; /* the helper gets the command
					   later (a prestarted sandbox): the
					   argv ends before it */
	bool		 setid_observed; /* the helper's observer answers
					   setuid/setgid modes (seccomp-deny.h) */
};

enum mount_kind {
	MOUNT_RO,		/* read-only bind of a host path */
	MOUNT_RW,		/* writable bind of a host path */
	MOUNT_PROTECTED,	/* read-only inside the writable project */
	MOUNT_HIDDEN,		/* replaced by something empty */
	MOUNT_TMPFS,		/* private, empty, writable, discarded */
	MOUNT_PROC,
	MOUNT_DEV,
	MOUNT_SYMLINK,		/* a usr-merge symlink */
};

struct sandbox_mount {
	enum mount_kind	 kind;
	char		*path;		/* path inside the sandbox */
	char		*why;		/* short reason for people */
	bool		 has_id;	/* mounted from a descriptor: */
	dev_t		 dev;		/* what it was opened as, to check */
	ino_t		 ino;		/* it landed there (sandbox_verify) */
};

/* The why of the private, empty home: a write there works inside and is
   thrown away (reported as discarded, not refused). */
#define SANDBOX_HOME_WHY	"home, empty and private"

struct sandbox {
	struct strv		 argv;	/* bwrap path ... up to and including "--" */
	size_t			 bwrap_at; /* argv's index of bwrap */
	size_t			 opts_end; /* argv's index of that "--" */
	int			*fds;	/* fds[i] is named SANDBOX_FD_BASE + i */
	size_t			 nfds;
	struct sandbox_mount	*mounts;
	size_t			 nmounts;
	struct strv		 warnings;
	char			*proc_mode;	/* "fresh" or "bind" */
	bool			 nested;
	bool			 network;
	bool			 proxied;	/* domains through the proxy */
	/* Who the sandbox is to the host kernel (sandbox-user.c). */
	long			 kernel_uid;
	long			 kernel_gid;
	char			*run_as;	/* user dropped to, or NULL */
	char			*run_home;	/* that user's home (hidden) */
	size_t			 secrets_hidden; /* unreadable files hidden */
	/* /proc and /sys (sandbox-proc.c). */
	bool			 proc_readonly;	/* all of /proc read-only */
	struct strv		 proc_masked;	/* entries masked */
	size_t			 git_nested;	/* .git below the top level */
	/* Where the helper's mount and its place before the command are
	   in argv (0: no helper), for sandbox_shown_argv. */
	size_t			 helper_mount_at;
	size_t			 helper_run_at;
	size_t			 helper_run_len;
	/* The project directory bound (a prestarted sandbox is used only
	   while the path still names it). */
	dev_t			 project_dev;
	ino_t			 project_ino;
	/* The project, opened once (beneath.h): every host-side operation
	   on it, from the build on, goes through this. */
	int			 root_fd;
	bool			 root_open;
	/* The project's shared world (pod.h): its network namespace
	   (entered before bwrap starts, --share-net) and its /tmp.
	   pod_peer: the sandbox's access is the project profile's
	   (sandbox_pod_peer), the one test for every namespace the pod
	   shares; pod_net: it is, and has no network of its own. */
	struct pod		 pod;
	bool			 pod_peer;
	bool			 pod_net;
	bool			 pod_tmp;
	/* Its pid namespace too (sandbox-pod.c, build_pod_pids): the
	   run is ended by its cgroup, never by the pid namespace. */
	bool			 pod_pid;
};
#define SANDBOX_INIT { .argv = STRV_INIT, .warnings = STRV_INIT, \
	.pod = POD_INIT }

enum sandbox_flags {
	SANDBOX_DRY = (1 << 0),	/* open nothing, create nothing */
};

void	 sandbox_policy_init(struct sandbox_policy *);
/* Does a sandbox of this policy join the project's shared world (pod.h):
   is its access exactly the project profile's, what the project's
   services run with? */
bool	 sandbox_pod_peer(const struct sandbox_policy *);
/* Does the command reach named hosts through the proxy (domains, and
   not any host)? */
static inline bool
sandbox_policy_proxied(const struct sandbox_policy *pol)
{
	return !pol->network && pol->domains.n > 0;
}
void	 sandbox_policy_copy(struct sandbox_policy *dst,
	    const struct sandbox_policy *src);
void	 sandbox_policy_release(struct sandbox_policy *);
/* Fill project/cwd from possibly relative paths; -1 with cause. */
int	 sandbox_policy_set_dirs(struct sandbox_policy *, const char *project,
	    const char *cwd, char **cause);

/* Is every mount made from a descriptor where it was put, and what was
   opened? rootfd: the sandbox's root (/proc/PID/root). -1 with cause.
   (sandbox-verify.c) */
int	 sandbox_verify(const struct sandbox *, int rootfd, char **cause);
int	 sandbox_build(const struct sandbox_policy *, const struct probe *,
	    int flags, struct sandbox *, char **cause);
/*
 * The argv as a dry build of the same policy without the helper gives it
 * (what a console shows): this argv without the helper's mount and its
 * place before the command. The helper's descriptors are numbered after
 * every other, so no number changes. Appends to out; the command
 * follows (for a prestarted sandbox it goes to the helper instead).
 */
void	 sandbox_shown_argv(const struct sandbox *, struct strv *out);
/* Does the helper get the command later (argv ends before it)? */
static inline bool
sandbox_command_later(const struct sandbox *sb)
{
	return sb->helper_run_at != 0 && sb->helper_run_len == 2;
}
/* Append a descriptor for the argv; returns the number it will have. */
int	 sandbox_add_fd(struct sandbox *, int fd);
/* Index in sb->fds of the descriptor an option names (-1: none): the
   engine supplies the pipes for --block-fd and --json-status-fd. */
int	 sandbox_fd_slot(const struct sandbox *, const char *option);
int	 sandbox_status_slot(const struct sandbox *);
/* Add kernel_uid, run_as, proc_readonly, proc_masked, ... to j. */
void	 sandbox_facts_json(const struct sandbox *, cJSON *j);
void	 sandbox_gitscan_free(struct gitscan *);
/* After the run: close descriptors. */
void	 sandbox_finish(struct sandbox *);
void	 sandbox_release(struct sandbox *);

/* Does this variable name look like a secret? (table in sandbox.c) */
bool	 sandbox_env_is_secret(const char *name);
/* The environment inside, as sorted NAME=VALUE. With sb (built), PATH
   entries of an agent's environment that are not visible are dropped. */
void	 sandbox_env_list(const struct sandbox_policy *,
	    const struct sandbox *sb, struct strv *out);
const char *mount_kind_name(enum mount_kind);
/* The mount table as JSON: [{"path","mode","why"}]. */
cJSON	*sandbox_mounts_json(const struct sandbox *);
/* Which mount covers path (deepest match), or NULL. */
const struct sandbox_mount *sandbox_mount_for(const struct sandbox *,
	    const char *path);

#endif
