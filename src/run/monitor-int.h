/*
 * monitor-int: what the monitor's parent side (monitor.c) and its watcher
 * process (monitor-child.c) share: the record format on the pipe and the
 * child's entry point. Not part of the public API.
 *
 * Every record is a fixed header followed by len bytes of path and len2
 * bytes of destination, each including its terminating NUL (len2 is 0
 * when there is no destination). For MREC_WARNING the path is the warning
 * text. Both ends run on the same machine, so the header is in host order.
 */
#ifndef BWGATE_MONITOR_INT_H
#define BWGATE_MONITOR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "strv.h"

enum mrec_type {
	MREC_CREATED,		/* same order as enum fs_event_kind */
	MREC_MODIFIED,
	MREC_DELETED,
	MREC_MOVED,
	MREC_READY,		/* initial watches are in place */
	MREC_WARNING,		/* path: one-line text; flag MREC_LOSSY */
	MREC_FATAL,		/* path: why the watcher could not start */
	MREC_DONE,		/* stop request served: nothing follows */
};

#define MREC_DIR	(1 << 0)
#define MREC_LOSSY	(1 << 1)

struct mrec {
	uint8_t		type;
	uint8_t		flags;
	uint16_t	pad;
	uint32_t	count;
	int64_t		time_ms;
	uint32_t	len;
	uint32_t	len2;
};

/* Longest record payload the parent accepts (two paths of 64 KiB). */
#define MREC_MAX_PAYLOAD	(128 * 1024)

/* Control bytes sent by the parent on the control socket. */
#define MCTL_STOP	'S'

struct monitor_child_opts {
	const char		*project;	/* absolute, canonical */
	const struct strv	*exclude;
	int			 max_watches;	/* cap, 0: none */
	int			 budget;	/* the uid's budget, when the
						   cap is a share of it */
	bool			 pause;		/* test: no reading until stop */
};

/* Run the watcher in the forked child; never returns. */
void	monitor_child_main(int outfd, int ctlfd,
	    const struct monitor_child_opts *) __attribute__((noreturn));

#endif
