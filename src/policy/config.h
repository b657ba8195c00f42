/*
 * config: bwgate's settings, layered from the shipped defaults
 * ($(pkgdatadir)/config.json), the user's $XDG_CONFIG_HOME/bwgate/config.json
 * and an explicit --config FILE, later layers overriding earlier ones.
 *
 * Sandbox settings extend the built-in policy (sandbox.c); they cannot
 * remove the built-in protections.
 */
#ifndef BWGATE_CONFIG_H
#define BWGATE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sandbox.h"
#include "strv.h"

struct config {
	struct strv	 protected;	/* extra protected project paths */
	struct strv	 env_pass;	/* extra environment names passed */
	struct strv	 rw_paths;	/* extra writable host paths */
	struct strv	 ro_paths;	/* extra read-only host paths */
	struct strv	 hide_paths;
	struct strv	 exclude;	/* trees left out of reports/watching */
	struct strv	 attention;	/* auto-run paths called out in reports */
	struct strv	 agent_config;	/* agentcfg.h, as the policy takes it */
	bool		 network;
	bool		 allow_userns;
	bool		 allow_ptrace;
	size_t		 output_limit;
	int		 timeout_s;	/* default command timeout, 0: none */
	int		 headless_timeout_s; /* the same for headless consoles */
	size_t		 limit_memory;	/* bytes per command, 0: none */
	int		 limit_pids;	/* processes per command, 0: none */
	int		 limit_cpu_s;	/* CPU seconds per process, 0: none */
	struct cJSON	*profile_limits; /* { "profile": { "memory": ... } } */
	int		 grace_ms;
	size_t		 audit_max_bytes; /* rotate the audit log past this */
	int		 audit_keep;	/* rotated audit files kept */
	bool		 bell;		/* console: ring when one waits */
	bool		 mouse;		/* console: clicks and the wheel */
	bool		 warm_exec;	/* console: one exec started ahead */
	bool		 prestart;	/* ... with the last read-only
					   request's sandbox made ahead */
	int		 max_services;	/* console: services at once (a
					   request's background processes
					   kept), 0: none */
	bool		 follow_resume;	/* console: a request that waits
					   ends a pause of follow */
	uid_t		*allowed_uids;	/* besides our own */
	size_t		 nallowed_uids;
	struct strv	 files;		/* the files that were read */
};

void	 config_init(struct config *);
void	 config_release(struct config *);
/* Load the layers; explicit may be NULL. -1 with cause naming file and key. */
int	 config_load(struct config *, const char *explicit, char **cause);
/* Load one file over what is there. */
int	 config_load_file(struct config *, const char *path, char **cause);
/* Apply to a policy (after sandbox_policy_init). */
void	 config_apply(const struct config *, struct sandbox_policy *);
/* The limits for a profile ("a+b": later names override); 0: none. */
void	 config_limits(const struct config *, const char *profile,
	    size_t *memory, int *pids, int *cpu_s);
/* Directory of shipped data (BWGATE_DATADIR overrides, for tests). */
const char *config_datadir(void);
/* $XDG_CONFIG_HOME/bwgate, $XDG_STATE_HOME/bwgate (caller frees). */
char	*config_user_dir(void);
char	*config_state_dir(void);

#endif
