/*
 * monitor: live filesystem events in the project while a command runs.
 *
 * libinotifytools keeps global state and its descriptor cannot be polled,
 * so the watcher runs in a child process that writes fixed records to a
 * pipe; the caller polls monitor_fd() in its own loop and calls
 * monitor_read(). Events are coalesced (a file written 1,000 times is one
 * "modified" event with count 1000). Directories created during the run are
 * watched, then listed, and what is already inside is reported as created.
 *
 *	struct monitor *m = monitor_start(project, &exclude, &cause);
 *	loop: if (poll says monitor_fd(m) readable) monitor_read(m, cb, arg);
 *	monitor_stop(m, cb, arg);	drains the rest, reaps the child
 *	monitor_lossy(m), monitor_warnings(m)
 *	monitor_free(m);
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
/* {"event":"created","path":..,"to":..,"count":..,"time_ms":..,"dir":..} */
cJSON		*fs_event_json(const struct fs_event *);

#endif
