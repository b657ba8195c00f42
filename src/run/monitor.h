/*
 * monitor: live filesystem events in the project while a command runs.
 *
 * The watcher runs in a child process (its own inotify instance, read
 * while the caller is busy elsewhere) that writes fixed records to a pipe; the caller polls monitor_fd() in its own loop and calls
 * monitor_read(). Events are coalesced (a file written 1,000 times is one
 * "modified" event with count 1000). Directories created during the run are
 * watched, then listed, and what is already inside is reported as created.
 *
 *	struct monitor *m = monitor_start(project, &exclude, &cause);
 *	loop: if (poll says monitor_fd(m) readable) monitor_read(m, cb, arg);
 *	monitor_stop(m, cb, arg);	drains the rest, reaps the child
 *	monitor_lossy(m), monitor_warnings(m)
 *	monitor_free(m);
 *
 * monitor_start() forks (call it before starting threads that hold locks
 * the child could need; glibc's malloc and stdio are safe) and returns once
 * every directory of the project is watched, so nothing the command does
 * afterwards is missed; NULL with *cause when inotify cannot be started
 * (the change report does not depend on it). The child dies with the
 * thread that called monitor_start() (PR_SET_PDEATHSIG).
 *
 * Events, in the order they happened for any one path (a held
 * modification is written before a later event on the same path):
 * - created, deleted; moved {path, to} when both ends are in the project,
 *   a move out is deleted, a move in is created (a directory moved in is
 *   listed: its contents are created events too);
 * - modified: IN_MODIFY or IN_ATTRIB, repeats within 150 ms coalesced
 *   into one event with count (at most 1 s per event); modifications within
 *   150 ms of the created event fold into it. Kernel-merged repeats (the
 *   same event queued back to back) count once;
 * - time_ms is when the watcher read the event (wall clock).
 * Excluded trees (".git" always, plus the exclude list: a name without '/'
 * matches a path component at any depth, one with '/' a project-relative
 * path) are not watched: the entry itself is reported, nothing inside it.
 *
 * Lossy: the kernel queue overflowed, the inotify watch limit was reached,
 * or a directory could not be watched. monitor_lossy() turns true and
 * monitor_warnings() says why in one line each ("live events incomplete:
 * ...; the change report is still exact"). The snapshot diff stays the
 * authority either way.
 *
 * Paths in struct fs_event and in the callback are valid only during the
 * callback. Test knobs (environment, read by monitor_start):
 * BWGATE_MONITOR_MAX_WATCHES=N behaves as if the watch limit were N;
 * BWGATE_MONITOR_PAUSE=1 reads no event until monitor_stop (to force a
 * real queue overflow).
 */
#ifndef BWGATE_MONITOR_H
#define BWGATE_MONITOR_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "strv.h"

enum fs_event_kind {
	FS_CREATED,
	FS_MODIFIED,
	FS_DELETED,
	FS_MOVED,
};

struct fs_event {
	enum fs_event_kind	 kind;
	const char		*path;	/* relative to the project */
	const char		*to;	/* FS_MOVED: destination, else NULL */
	unsigned		 count;	/* coalesced repeats (>= 1) */
	int64_t			 time_ms; /* wall clock, ms since the epoch */
	bool			 is_dir;
};

typedef void (*monitor_cb)(const struct fs_event *, void *arg);

struct monitor;

struct monitor	*monitor_start(const char *project, const struct strv *exclude,
		    char **cause);
int		 monitor_fd(const struct monitor *);
/* Dispatch what is readable now; -1 once the stream has ended. */
int		 monitor_read(struct monitor *, monitor_cb, void *arg);
/* Stop watching, dispatch the remaining events, reap the child. */
void		 monitor_stop(struct monitor *, monitor_cb, void *arg);
bool		 monitor_lossy(const struct monitor *);
const struct strv *monitor_warnings(const struct monitor *);
void		 monitor_free(struct monitor *);

const char	*fs_event_kind_name(enum fs_event_kind);
/*
 * {"event":"created","path":..,"to":..,"count":..,"time_ms":..,"dir":..}
 * "to" only for moved. A path that is not valid UTF-8 is written with each
 * invalid byte as \xNN and each backslash doubled, and the object gains
 * "escaped":true. Caller frees with cJSON_Delete.
 */
cJSON		*fs_event_json(const struct fs_event *);

#endif
