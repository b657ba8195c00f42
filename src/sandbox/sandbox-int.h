/*
 * sandbox-int: what the parts of the argv builder share (sandbox.c builds
 * the layout; sandbox-project.c the project and what is protected in it;
 * sandbox-env.c the environment; sandbox-proc.c the kernel
 * interfaces; sandbox-user.c the
 * identity the sandbox runs as; sandbox-git.c git metadata at any depth).
 * Not for use outside src/sandbox.
 */
#ifndef BWGATE_SANDBOX_INT_H
#define BWGATE_SANDBOX_INT_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "aside.h"
#include "sandbox.h"
#include "strv.h"


struct build {
	const struct sandbox_policy	*pol;
	const struct probe		*probe;
	struct sandbox			*sb;
	bool				 dry;
	const char			*home;	/* $HOME inside (hidden) */
	int				 root;	/* the project (sb->root_fd) */
	/* build_secrets_start() to build_secrets(): the list of secret
	   files, read while the rest is built. */
	struct aside			 secrets_aside;
	struct strv			 secrets;
};

/* sandbox.c */
void	build_arg(struct build *, const char *);
void	build_arg2(struct build *, const char *, const char *);
void	build_arg3(struct build *, const char *, const char *, const char *);
void	build_mount(struct build *, enum mount_kind, const char *,
	    const char *);
int	build_bind_fd(struct build *, const char *, bool, enum mount_kind,
	    const char *, char **);
/* The same for a project-relative path, opened through the door. */
int	build_bind_rel(struct build *, const char *, bool, enum mount_kind,
	    const char *, char **);
int	build_protect(struct build *, const char *, bool, char **);
/* Record what the last mount was opened as (sandbox_verify checks). */
void	build_mount_id(struct build *, int);
/* Hand fd to bwrap; the number it will have there. */
int	build_fd(struct build *, int);
/* Cover a path with something empty and read-only (file or directory). */
void	build_mask(struct build *, const char *, bool, enum mount_kind,
	    const char *);


/* sandbox-project.c: the project and its protected paths. */
int	build_project(struct build *, char **);

/* sandbox-env.c: --clearenv and the --setenv list, inserted at pos. */
void	build_env(struct build *, size_t pos);

/* sandbox-proc.c */
void	build_proc(struct build *);
int	build_sys(struct build *, char **);

/* sandbox-user.c */
int	build_identity(struct build *, char **);
void	build_secrets_start(struct build *);
void	build_secrets(struct build *);
void	build_secrets_end(struct build *);

/* sandbox-reach.c: can uid (gid, no other groups) reach the working
   directory, the extra paths and the helper? 0, or -1 with *cause: the
   refusal, naming the first directory it cannot search and the fix. */
int	build_reach(struct build *, uid_t, gid_t, char **);

/* sandbox-pod.c: join the project's pod (st: the project root) and
   bind its /tmp (pod.h). */
void	build_pod(struct build *, const struct stat *);
bool	build_pod_tmp(struct build *);
/* Its pid namespace, when sb->pod_pid: bwrap's namespace options. */
void	build_pod_pid_namespaces(struct build *);

/* sandbox-git.c */
int	build_git(struct build *, char **);

/* sandbox-agents.c: the agents' configuration at the root, and where it
   exists deeper (from the git scan's directories). */
struct gitscan;
int	build_agent_config(struct build *, char **);
int	build_agent_nested(struct build *, const struct gitscan *, char **);

#endif
