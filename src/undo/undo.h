/*
 * undo: what a run replaced, kept so the run can be put back.
 *
 * Folder src/undo (libundo.a), the undo layer: owns the store, the save
 * while the recorder holds each call, the manifest, the plan and its
 * apply, rollback and the requests for them. May call report (the
 * snapshot and the change count), policy and util; the engine (run) and
 * the console call it, never the other way (tests/build/layers.sh).
 *
 * The mechanism is the recorder's (observe.h, OBSERVE_RECORD): the
 * supervisor is told of every file-changing call while the caller is
 * stopped, resolves the path itself beneath the project's descriptor, and
 * before it lets the call go on, keeps what the file was: its content (a
 * reflink where the file system can, a copy otherwise), the first time any
 * call names an inode. Names, modes and symbolic link targets come from
 * the recorder's before-snapshot; created files need only their names.
 * At the end the before and after states of every recorded path and the
 * saved contents go to a manifest, written last (temporary file, fsync,
 * rename), so an interrupted save is never trusted.
 *
 * The store, per project, under $XDG_STATE_HOME/bwgate/undo/<project id>/:
 *	objects/<sha256>	content, shared by every run (repeats are free)
 *	runs/<id>/manifest.json	the run, committed last
 *	runs/<id>/blobs		the objects the run refers to (appended while
 *				it saves, so a pruning neighbour keeps them)
 *	runs/<id>/pid		the saving process, for an interrupted run
 * Bounded: bytes per file, per run and in total, and age; the oldest runs
 * are pruned first, then the objects no run refers to.
 *
 *	struct undo_rec *u = undo_rec_new(project, command);
 *	snapshot_paths_hook(rec, undo_rec_save_hook, u);
 *	... run; snapshot_paths_diff(rec, &r->changes) ...
 *	undo_rec_commit(u, rec, &opts, r);		fills r->undo
 *	undo_rec_free(u);
 *
 * Before-states: a path's state when a call first named it, except that
 * an inode's state at its first sight under any name wins (a change
 * through one hard link is a change to all), and a name born during the
 * run is no before-state. A kept file's other hard links that no call
 * named are found by one scan at the end (only then).
 *
 * undo_plan()/undo_apply() (undo-apply.c) put a run back.
 */
#ifndef BWGATE_UNDO_H
#define BWGATE_UNDO_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "snapshot.h"
#include "strv.h"

struct undo_limits {
	uint64_t	file_max;	/* bytes of one file kept */
	uint64_t	run_max;	/* bytes kept per run */
	uint64_t	total_max;	/* bytes of the whole store */
	int64_t		age_s;		/* runs older than this are pruned */
};

/* The limits: defaults, BWGATE_UNDO_FILE_MAX, _RUN_MAX, _TOTAL_MAX (bytes,
   K/M/G suffix) and BWGATE_UNDO_DAYS override. */
void	 undo_limits_get(struct undo_limits *);
/* Is undo on (BWGATE_UNDO=0 turns it off)? */
bool	 undo_enabled(void);
/* The store of a project (caller frees). */
char	*undo_store_dir(const char *project);

/* Recording one run. */
struct undo_rec;
struct undo_rec	*undo_rec_new(const char *project, const char *command);
/* snapshot_paths_hook() callback: keep rel (beneath rootfd) if it is a
   file whose inode is not kept yet. */
void		 undo_rec_save_hook(void *arg, int rootfd, const char *rel,
		    unsigned how);
/* Write the manifest from the recorded paths' states before and after
   (snapshot_paths_before/after, after snapshot_paths_diff); fill r's
   "undo" (report.h). */
void		 undo_rec_commit(struct undo_rec *,
		    const struct snapshot_paths *rec,
		    const struct snapshot_opts *, struct result *r);
void		 undo_rec_free(struct undo_rec *);

/* Store access (undo-store.c). */
/* Is m a manifest whose every field the readers use is there, of its
   type and in range (undo-check.c)? 0, or -1 with cause naming the first
   field that is not ("before[3].mode: missing"). */
int	 undo_manifest_check(const cJSON *m, char **cause);
/* Read a committed manifest, checked (undo_manifest_check); NULL with
   cause ("no run N", "not a valid manifest") otherwise. */
cJSON	*undo_manifest_read(const char *project, unsigned long id,
	    char **cause);
/* The ids of committed runs, newest first. */
void	 undo_runs(const char *project, struct strv *ids);
/* Bytes of the objects one manifest refers to. */
uint64_t undo_manifest_bytes(const char *project, const cJSON *m);
/* Was run id undone already? */
bool	 undo_is_undone(const char *project, unsigned long id);
/* Mark a run undone (kept for the record, no longer undoable). */
int	 undo_mark_undone(const char *project, unsigned long id,
	    char **cause);

/* The request a run belongs to (undo-request.c): the console records it
   when the request ends; 0 when none is recorded (a run of `bwgate exec`
   without a console, or one recorded before bwgate 0.4). */
int	 undo_set_request(const char *project, unsigned long id,
	    unsigned long request, char **cause);
unsigned long undo_request_of(const char *project, unsigned long id);
/* The run of request number request, 0 when the store has none. */
unsigned long undo_run_of_request(const char *project, unsigned long request);

/* Putting back (undo-apply.c). */
struct undo_plan;
/* What undoing run m would do now; conflicts are named in it. */
struct undo_plan *undo_plan_new(const char *project, const cJSON *m,
	    char **cause);
/* Lines of text (restore PATH, remove PATH, rename A -> B, conflict:
   PATH why, cannot: PATH why), and their counts. */
const struct strv *undo_plan_lines(const struct undo_plan *);
size_t	 undo_plan_conflicts(const struct undo_plan *);
size_t	 undo_plan_actions(const struct undo_plan *);
/* Do it: -1 with cause on the first failure. Conflicts stop it unless
   force. */
int	 undo_plan_apply(struct undo_plan *, bool force, char **cause);
void	 undo_plan_free(struct undo_plan *);

#endif
