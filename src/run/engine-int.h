/*
 * engine-int: what engine.c (start, report) and engine-loop.c (the run)
 * share. Not for use outside src/run.
 */
#ifndef BWGATE_ENGINE_INT_H
#define BWGATE_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "engine.h"
#include "runner.h"

struct fs_event;
struct probe;
struct sandbox;
struct sandbox_policy;
struct strv;

/* Ports of a service listed (engine-service.c). */
#define SERVICE_MAX_PORTS	16

/* How long the helper may take to answer (bwrap's setup included). */
#define ENGINE_HELLO_MS	30000

struct engine {
	const struct engine_opts *opts;
	struct result		*r;
	struct loop		*loop;
	struct runner		 run;
	struct monitor		*mon;
	bool			 lossy_told;	/* "lossy" event written */
	struct observer		*obs;		/* violation observer */
	struct snapshot_paths	*rec;		/* recorded calls, or NULL */
	bool			 cmd_may_run;	/* the command was let start */
	int			 status_fd;
	struct buf		 status;
	uint64_t		 pidns;
	uint64_t		 ipcns;		/* bwrap's report, or 0 */
	/* In the project's pid namespace (sandbox.h pod_pid): the run is
	   ended by its cgroup (else its IPC namespace: engine_mark), never
	   by the pid namespace. */
	bool			 pod_pid;
	pid_t			 child_pid;	/* sandbox's first process */
	struct netstack		*net;		/* user-mode network, or NULL */
	struct netproxy		*proxy;		/* named hosts only, or NULL */
	struct limiter		*lim;		/* memory, processes, CPU */
	int			 lim_timer;
	bool			 have_exit;
	int			 exit_code;
	bool			 bwrap_done;
	bool			 out_open;
	bool			 err_open;
	bool			 killing;
	int			 grace_timer;
	int64_t			 start_ms;
	int64_t			 drain_deadline;
	struct buf		 bwrap_err;	/* "bwrap: ..." lines */
	struct engine_opts	*taken;		/* a prestart's request (await) */
	/* Services (engine-service.c). */
	bool			 may_keep;	/* its leftovers may be kept */
	bool			 serving;	/* reported; serving them */
	bool			 served;	/* none left: the run ends */
	bool			 stopping;	/* SIGTERM sent to the service */
	int			 timeout_timer;
	int			 serve_timer;
	int			 serve_grace;
	unsigned		 serve_ticks;
	int			 ports[SERVICE_MAX_PORTS]; /* listened on */
	size_t			 nports;
	dev_t			 helper_dev;	/* bwgate-helper's file */
	ino_t			 helper_ino;
	int			 cwd_rd;	/* where the shell ended: our end */
	int			 cwd_num;	/* its descriptor in the sandbox */
};

/* engine-loop.c */
void	engine_output(int fd, short revents, void *arg);
void	engine_status(int fd, short revents, void *arg);
void	engine_bwrap_exited(int fd, short revents, void *arg);
/* Signal the run's processes, only its own (engine-loop.c). */
void	engine_signal_run(struct engine *, int sig);
void	engine_timeout(void *arg);
void	engine_limits_tick(void *arg);
void	engine_signal(int signo, void *arg);
void	engine_event(const struct fs_event *ev, void *arg);
void	engine_lossy_event(struct engine *e);
void	engine_monitor(int fd, short revents, void *arg);
void	engine_fail(struct result *r, char *cause);
void	engine_exit_status(struct engine *e);
void	engine_loop(struct engine *e);

/* engine-service.c: the command's background processes kept as the
   project's service, or killed. */
bool	engine_service_possible(struct engine *e,
	    const struct sandbox *sb);
int	engine_service_keep(struct engine *e);
void	engine_service_leftovers(struct engine *e);
void	engine_serve(struct engine *e, struct sandbox_policy *pol);
void	engine_service_stop(struct engine *e);
/* engine-cwd.c: the command's final working directory (track_cwd). */
int	engine_cwd_open(struct engine *e, struct sandbox *sb, char **cause);
void	engine_cwd_wrap(const struct engine *e, struct strv *argv);
void	engine_cwd_read(struct engine *e, const char *project);
/* engine-prestart.c */
bool	engine_prestart_possible(const struct engine_opts *o, bool writes,
	    const struct observer *obs);
int	engine_prestart_take(struct engine *e, const struct sandbox *sb,
	    char **cause);
void	engine_argv_digests(struct engine *e, const struct sandbox *sb,
	    const struct strv *argv);

#endif
