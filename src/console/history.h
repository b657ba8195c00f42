/*
 * history: the audit log read back, one project at a time.
 *
 * One audit log (audit.h) serves every console of the user; each record
 * names its console, and the console's "console-start" record names its
 * project. history_scan() reads the rotated files oldest first, then the
 * current one, and hands over the records of one project's consoles (all
 * records when project is NULL). A torn line is skipped.
 *
 *	history_scan(audit_path, "/home/u/proj", fn, arg);
 *
 * Request ids are unique per project (history_set_last_id keeps the last
 * one given out in the state directory); in logs written before that,
 * ids restart with each console, so readers take the newest.
 */
#ifndef BWGATE_HISTORY_H
#define BWGATE_HISTORY_H

#include <cjson/cJSON.h>

/* fn gets each record and the project of its console (NULL when not
   known); returning non-zero stops. The records are freed afterwards. */
typedef int (*history_fn)(const cJSON *rec, const char *project, void *arg);

/* Scan path (NULL: audit_default_path()) and its rotated files; -1 when
   fn stopped, 0 otherwise (a missing log is an empty one). */
int	 history_scan(const char *path, const char *project, history_fn fn,
	    void *arg);

/* The last request id given out for a project, from the state directory
   (0 when none), and the record of a new one: ids go on from where the
   project's last console stopped. -1 with cause when the state cannot be
   read or written. */
int	 history_last_id(const char *project, unsigned long *last,
	    char **cause);
int	 history_set_last_id(const char *project, unsigned long id,
	    char **cause);

#endif
