/*
 * monitor-watcher: what the watcher process's two files share: its state,
 * the timing constants, the records it writes (monitor-child.c) and its
 * watch table and tree walk (monitor-watch.c). Internal to src/run.
 */
#ifndef BWGATE_MONITOR_WATCHER_H
#define BWGATE_MONITOR_WATCHER_H

#include <sys/queue.h>

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "monitor-int.h"
#include "strv.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
	IN_MODIFY | IN_ATTRIB | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

#define COALESCE_QUIET_MS	150
#define COALESCE_MAX_MS		1000
#define MOVE_GRACE_MS		5
#define DUP_KEEP_MS		10000
#define SWEEP_EVERY_MS		1000
#define STOP_DRAIN_MAX_MS	3000
#define BATCH_EVENTS		4096
#define READ_INTERVAL_MS	10
#define OUT_FLUSH_BYTES		(64 * 1024)
#define MAX_PENDING_MOVES	64

/*
 * What we know about one path we reported recently: when we said created
 * (monotonic ms, 0: not recently), until when one IN_CREATE is swallowed
 * (reported from a listing), and a modification being coalesced (count,
 * first and latest monotonic ms, wall ms of the first).
 */
struct entry {
	struct entry		*next;
	TAILQ_ENTRY(entry)	 pentry;
	uint32_t		 hash;
	int64_t			 created;
	int64_t			 dup_until;
	bool			 pending;
	bool			 is_dir;
	unsigned		 count;
	int64_t			 first;
	int64_t			 last;
	int64_t			 wall;
	char			 path[];
};
TAILQ_HEAD(entries, entry);

/* An IN_MOVED_FROM waiting for its IN_MOVED_TO. */
struct pmove {
	uint32_t	 cookie;
	char		*path;
	bool		 is_dir;
	int64_t		 mono;
	int64_t		 wall;
};

struct watcher {
	const struct monitor_child_opts *o;
	int		 inofd;		/* inotify, non-blocking */
	char		*evbuf;		/* events read, not yet handled */
	size_t		 evlen;
	size_t		 evoff;
	int		 outfd;
	int		 ctlfd;
	size_t		 rootlen;
	struct buf	 abs;		/* scratch: absolute path */
	struct buf	 out;		/* records not yet written */

	struct strv	 ex_names;	/* excluded component names */
	struct strv	 ex_paths;	/* excluded relative paths */

	char		**wdpath;	/* wd -> relative path or NULL */
	size_t		 nwdpath;
	int		 nwatches;
	bool		 watch_full;	/* limit reached: add no more */
	bool		 warned_watch;

	struct entry	**buckets;
	size_t		 nbuckets;
	size_t		 nentries;
	struct entries	 pending;

	struct pmove	 moves[MAX_PENDING_MOVES];
	size_t		 nmoves;

	bool		 paused;
	int64_t		 next_read;	/* mono ms of the next read */
	int64_t		 next_sweep;
};

int64_t	 now_mono(void);
int64_t	 now_wall(void);
void	 out_record(struct watcher *, enum mrec_type, int, unsigned,
		     int64_t, const char *, const char *);
void	 mwarn(struct watcher *, bool, const char *, ...)
		     __attribute__((format(printf, 3, 4)));
void	 exclude_init(struct watcher *);
bool	 excluded(struct watcher *, const char *);
char	*rel_join(const char *, const char *);
const char *abs_path(struct watcher *, const char *);
bool	 has_prefix_dir(const char *, const char *, size_t);
int	 read_int(const char *);
int	 watch_add(struct watcher *, const char *);
void	 watch_tree(struct watcher *, const char *, bool);
void	 watch_remove_under(struct watcher *, const char *);
void	 watch_rename_under(struct watcher *, const char *,
		     const char *);
struct entry *ent_get(struct watcher *, const char *);

#endif
