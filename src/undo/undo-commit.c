/*
 * undo-commit: the end of a recorded run (undo.h). What the manifest
 * will refer to and undo cannot check is made durable first, once (the
 * pack, the clones this run made and the directories that name them; an
 * object named by its digest is checked by undo before it is used), then
 * the manifest is written (temporary file, fsync, rename), so a run killed
 * mid-save never leaves a manifest that undo would trust. The report's
 * "undo" says whether the run can be undone, how much the store holds
 * for it, and what it will not restore. A run that changed nothing
 * leaves no directory behind.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "undo-int.h"
#include "undo-rec.h"
#include "xalloc.h"

/* fsync of path (a file or a directory); -1 with errno. */
static int
undo_fsync_path(const char *path)
{
	int	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Everything the manifest will refer to, on disk: the pack, the objects
   this run made and the directories that name them. -1 with cause. */
static int
undo_rec_sync(struct undo_rec *u, const char *dir, char **cause)
{
	char	*p;
	int	 rc = 0;

	if (u->pack_fd >= 0 && (undo_pack_flush(u) != 0 ||
	    fdatasync(u->pack_fd) != 0)) {
		*cause = xasprintf("cannot write the run's pack: %s",
		    strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < u->newobjs.n && rc == 0; i++) {
		p = xasprintf("%s/objects/%s", u->store, u->newobjs.v[i]);
		rc = undo_fsync_path(p);
		free(p);
	}
	if (rc == 0 && u->newobjs.n > 0) {
		p = xasprintf("%s/objects", u->store);
		rc = undo_fsync_path(p);
		free(p);
	}
	if (rc == 0)
		rc = undo_fsync_path(dir);
	if (rc != 0)
		*cause = xasprintf("cannot sync the undo store: %s",
		    strerror(errno));
	return rc;
}

void
undo_rec_commit(struct undo_rec *u, const struct snapshot_paths *rec,
    const struct snapshot_opts *opts, struct result *r)
{
	cJSON		*unsaved, *rep;
	char		*text, *path, *cause = NULL, *dir;

	if (u == NULL)
		return;
	rep = cJSON_CreateObject();
	if (changes_count(&r->changes) == 0) {
		cJSON_AddBoolToObject(rep, "possible", false);
		cJSON_AddStringToObject(rep, "why", "nothing changed");
		if (u->id != 0) {
			static const char *const f[] = { "blobs", "pid",
			    "pack" };

			dir = undo_run_dir(u->store, u->id);
			for (size_t i = 0; i < 3; i++) {
				path = xasprintf("%s/%s", dir, f[i]);
				(void)unlink(path);
				free(path);
			}
			(void)rmdir(dir);
			free(dir);
		}
		goto out;
	}
	if (undo_rec_claim(u) != 0) {
		cJSON_AddBoolToObject(rep, "possible", false);
		cJSON_AddStringToObject(rep, "why", u->broken);
		goto out;
	}
	text = undo_manifest_text(u, r, rec, opts, &unsaved);
	/* The pack and the objects first, then the manifest that trusts
	   them. */
	dir = undo_run_dir(u->store, u->id);
	path = xasprintf("%s/manifest.json", dir);
	if (undo_rec_sync(u, dir, &cause) != 0 ||
	    file_write_atomic(path, text, strlen(text), 0600, &cause) != 0) {
		cJSON_AddBoolToObject(rep, "possible", false);
		cJSON_AddStringToObject(rep, "why", cause);
		free(cause);
		cJSON_Delete(unsaved);
	} else {
		cJSON_AddNumberToObject(rep, "id", (double)u->id);
		cJSON_AddBoolToObject(rep, "possible", true);
		cJSON_AddBoolToObject(rep, "complete",
		    cJSON_GetArraySize(unsaved) == 0);
		cJSON_AddNumberToObject(rep, "bytes", (double)u->ref_bytes);
		cJSON_AddNumberToObject(rep, "new_bytes",
		    (double)u->run_bytes);
		cJSON_AddItemToObject(rep, "unsaved", unsaved);
		free(path);
		path = xasprintf("%s/pid", dir);
		(void)unlink(path);
	}
	free(path);
	free(dir);
	free(text);
out:
	cJSON_Delete(r->undo);
	r->undo = rep;
}
