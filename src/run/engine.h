/*
 * engine: run one command in the sandbox, from policy to report.
 *
 * engine_run() is what `bwgate exec` is: probe the host, build the sandbox,
 * snapshot the project, start the live monitor and the violation observer,
 * run bwrap (runner.h), enforce the timeout and output caps, then build
 * the change report and fill a struct result (report.h). The change report
 * comes from the file-changing calls the observer recorded ("syscalls")
 * where seccomp notification works, else from two snapshots of the whole
 * project ("snapshot"); a profile that cannot write the project takes
 * neither ("none", changes_possible false). It blocks until the command
 * and everything it started are gone. The console runs each approved
 * command as a `bwgate exec` child process, so engine state never mixes
 * between commands.
 */
#ifndef BWGATE_ENGINE_H
#define BWGATE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "limiter.h"
#include "report.h"
#include "sandbox.h"
#include "strv.h"

struct netproxy_ask;

struct engine_opts {
	struct sandbox_policy	 policy;
	struct strv		 argv;		/* the command */
	char			*command;	/* original string, or NULL */
	int			 timeout_ms;	/* 0: none */
	int			 grace_ms;	/* SIGTERM -> SIGKILL */
	size_t			 output_limit;	/* per stream, bytes */
	bool			 passthrough;	/* copy output to our 1 and 2 */
	int			 stdin_fd;	/* the command's stdin */
	bool			 merge_output;	/* one pipe for stdout+stderr (exec
					   derives it from its 1 and 2) */
	int			 events_fd;	/* JSON lines of live events, or -1 */
	bool			 monitor;	/* live events (default on) */
	bool			 observe;	/* seccomp violation observer */
	bool			 snapshot;	/* change report (default on) */
	bool			 force_snapshot; /* scan even when the calls
						   could be recorded */
	bool			 track_cwd;	/* argv is SHELL [OPT...] -c STRING
						   [ARG...]: report where STRING
						   ended (cwd_after, engine-cwd.c) */
	struct strv		 exclude;	/* project-relative trees not reported */
	struct strv		 attention;	/* auto-run paths (attention.h) */
	struct limits		 limits;	/* memory, processes, CPU time */
	/*
	 * A prestarted sandbox (read-only profiles; the console's warm
	 * exec): these options are a prediction without a command. The
	 * sandbox is made and its helper answers; then await gives the
	 * request's own options and the digest of the argv its operator was
	 * shown (0), or nothing (-1). The prestart runs the request only
	 * when that argv is this sandbox's (engine-prestart.c); else it is
	 * dropped unused. What is awaited is the caller's.
	 */
	/*
	 * Services (issue 41; engine-service.c): when the command ends and
	 * processes it started remain in its cgroup, a sandbox in the
	 * project's shared world (its pod's network and pid namespace) keeps
	 * them: the report is handed to report_ready at once (the caller
	 * sends it; the run is over for its agent), then engine_run goes on
	 * serving them (observer, limits, output passed through) until none
	 * is left or a signal stops them (SIGTERM to the cgroup, SIGKILL
	 * after grace_ms). Elsewhere what remains is killed and the report
	 * says so. report_ready is taken from the options engine_run is
	 * given (not a prestart's awaited ones).
	 */
	bool			 keep_services;
	void			(*report_ready)(void *arg, struct result *r);
	void			*report_arg;
	/* A host the domains do not allow (netproxy.h), or NULL: refused. */
	const struct netproxy_ask *net_ask;
	int			(*await)(void *arg, struct engine_opts **real,
				    char **shown);
	void			*await_arg;
};

/* engine_run: the prestarted sandbox was not used (nothing ran; run the
   awaited request as usual). */
#define ENGINE_UNUSED	1

void	engine_opts_init(struct engine_opts *);
void	engine_opts_release(struct engine_opts *);
/* 0 when the command ran (whatever its status); -1 with r->error set when
   bwgate could not run it (exit 125); ENGINE_UNUSED (await). */
int	engine_run(const struct engine_opts *, struct result *r);

#endif
