/*
 * audit: the console's append-only audit log (JSON lines).
 *
 * Every record is one JSON object on one line, written with a single
 * write(2) on a descriptor opened O_APPEND and fsync'd before
 * audit_write() returns, so the console can reply to an agent knowing
 * the record is on disk. The file is created 0600 (its directory 0700).
 * If a crash ever left a partial last line, audit_open() ends it with a
 * newline so the next record starts on a line of its own and readers
 * skip one bad line instead of losing the rest.
 *
 * A busy console appends several records per loop pass and syncs once
 * (audit_append + audit_sync) before any reply leaves the process.
 *
 * When the file cannot be written (ENOSPC, EIO), records are kept in
 * memory in order, up to a bound, and written by the next audit_sync()
 * that succeeds; audit_sync() fails until then. A record is only lost
 * when the bound is reached, and an "audit-lost" record then says how many.
 *
 * Each record gets "time" (ISO 8601, UTC), "time_ms" and "seq" members.
 *
 * Rotation (audit_set_rotation): a record that would take the file past
 * max_bytes first moves it to NAME.1 (NAME.1 to NAME.2 ..., keeping keep
 * files) and starts a new NAME whose first record, "audit-rotated", names
 * the file before it; records are never split across files, and NAME is
 * never missing or partial while this happens.
 *
 *	struct audit *a = audit_open(NULL, &cause);	default path
 *	cJSON *rec = cJSON_CreateObject(); ... "record": "decision" ...
 *	audit_write(a, rec, &cause);			takes rec
 *	audit_close(a);
 */
#ifndef BWGATE_AUDIT_H
#define BWGATE_AUDIT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

struct audit;

/* The default path: $XDG_STATE_HOME/bwgate/audit.jsonl (caller frees). */
char		*audit_default_path(void);
/* Open (creating 0600) path, or the default when NULL. */
struct audit	*audit_open(const char *path, char **cause);
const char	*audit_path(const struct audit *);
/* Rotate past max_bytes (0: never), keeping keep rotated files. */
void		 audit_set_rotation(struct audit *, size_t max_bytes, int keep);
/* Append one record (frees rec); -1 with cause if it is not on disk. */
int		 audit_write(struct audit *, cJSON *rec, char **cause);
/* Group commit: append with one write(2) but no fsync, then make every
   appended record durable with one audit_sync() before replying. */
int		 audit_append(struct audit *, cJSON *rec, char **cause);
int		 audit_sync(struct audit *, char **cause);
/* Are records waiting in memory (the file could not be written)? */
bool		 audit_behind(const struct audit *);
void		 audit_close(struct audit *);

#endif
