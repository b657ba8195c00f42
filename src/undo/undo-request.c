/*
 * undo-request: which request a run of the undo store belongs to (undo.h).
 *
 * The store names its runs by its own ids (claimed lazily, only by runs
 * that keep something); the operator and the agent know a run by its
 * request number. The console writes runs/<id>/request when the request
 * ends, so `bwgate undo N` finds request N's run, and `--list` names it.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "file.h"
#include "undo-int.h"
#include "undo.h"
#include "xalloc.h"

int
undo_set_request(const char *project, unsigned long id, unsigned long req,
    char **cause)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	_cleanup_free_ char	*dir = undo_run_dir(store, id);
	_cleanup_free_ char	*path = xasprintf("%s/request", dir);
	char			 buf[32];
	int			 n;

	n = snprintf(buf, sizeof buf, "%lu\n", req);
	return file_write_atomic(path, buf, (size_t)n, 0600, cause);
}

unsigned long
undo_request_of(const char *project, unsigned long id)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	_cleanup_free_ char	*path = xasprintf("%s/runs/%lu/request", store,
				    id);
	_cleanup_free_ char	*text = undo_read_small(path, 64, NULL);
	char			*end;
	unsigned long		 req;

	if (text == NULL)
		return 0;
	req = strtoul(text, &end, 10);
	return end != text && (*end == '\n' || *end == '\0') ? req : 0;
}

unsigned long
undo_run_of_request(const char *project, unsigned long req)
{
	_cleanup_free_ char	*store = undo_store_dir(project);
	struct strv		 ids = STRV_INIT;
	unsigned long		 id = 0, r;

	undo_run_dirs(store, &ids);
	for (size_t i = 0; i < ids.n && id == 0; i++) {
		r = strtoul(ids.v[i], NULL, 10);
		if (undo_request_of(project, r) == req)
			id = r;
	}
	strv_release(&ids);
	return id;
}
