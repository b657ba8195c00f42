/*
 * probe: what this host lets bwrap do, found once and cached.
 *
 * Outside any sandbox on a normal host everything works and probing costs
 * nothing. Inside bwrap, flatpak or a container bwgate runs bwrap a few
 * times to learn which variant works (fresh /proc or a bind of the existing
 * one, --disable-userns or not) and caches the answer in
 * $XDG_RUNTIME_DIR/bwgate/probe-*.json keyed by bwrap and namespace ids.
 */
#ifndef BWGATE_PROBE_H
#define BWGATE_PROBE_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "strv.h"

/* Drops root to the project's owner before bwrap (util-linux). */
#define PROBE_SETPRIV	"/usr/bin/setpriv"

struct probe {
	char		*bwrap;		/* absolute path */
	char		*bwrap_version;
	bool		 bwrap_ok;	/* exists and runs */
	bool		 userns_ok;	/* bwrap can build a sandbox at all */
	bool		 nested;	/* we run inside a sandbox/container */
	char		*nested_in;	/* "bwrap", "flatpak", "container", ... */
	bool		 proc_fresh;	/* a fresh /proc can be mounted */
	bool		 disable_userns; /* --disable-userns works */
	bool		 seccomp_notify; /* SECCOMP_RET_USER_NOTIF usable */
	bool		 userns_unpriv;	/* a non-root uid can build one too
					   (root then runs as the project's
					   owner, sandbox-user.c) */
	char		*error;		/* why no sandbox is possible */
	char		*fix;		/* what the user can do */
	struct strv	 notes;
};

void	 probe_init(struct probe *);
void	 probe_release(struct probe *);
/* Probe (or load the cache); 0 even when no sandbox is possible:
   check p->userns_ok and p->error. */
int	 probe_host(struct probe *, bool use_cache);
/* A probe that claims everything works, for dry runs and unit tests. */
void	 probe_assume_ok(struct probe *);
cJSON	*probe_json(const struct probe *);

#endif
