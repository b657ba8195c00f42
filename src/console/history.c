/* history: the audit log read back, one project at a time; the last
   request id given out in each project (history.h). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "cleanup.h"
#include "config.h"
#include "file.h"
#include "history.h"
#include "path.h"
#include "sha256.h"
#include "xalloc.h"

/* Consoles seen so far and their projects. */
struct history_consoles {
	struct strv	 ids;
	struct strv	 projects;
};

/* One file's records; -1 when fn stopped. */
static int
history_file(const char *path, const char *project,
    struct history_consoles *hc, history_fn fn, void *arg)
{
	char		*line = NULL, *nl;
	const char	*what, *console, *p;
	size_t		 len = 0;
	FILE		*fp;
	cJSON		*r;
	int		 rc = 0;

	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (rc == 0 && getline(&line, &len, fp) > 0) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if ((r = cJSON_Parse(line)) == NULL)
			continue;	/* a torn line */
		what = cJSON_GetStringValue(cJSON_GetObjectItem(r, "record"));
		console = cJSON_GetStringValue(cJSON_GetObjectItem(r,
		    "console"));
		p = NULL;
		if (what != NULL && console != NULL &&
		    strcmp(what, "console-start") == 0 &&
		    (p = cJSON_GetStringValue(cJSON_GetObjectItem(r,
		    "project"))) != NULL) {
			strv_push(&hc->ids, console);
			strv_push(&hc->projects, p);
		} else if (console != NULL) {
			for (size_t i = hc->ids.n; i > 0; i--)
				if (strcmp(hc->ids.v[i - 1], console) == 0) {
					p = hc->projects.v[i - 1];
					break;
				}
		} else	/* a command's own record (bwgate undo, mcp) */
			p = cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "project"));
		if (project == NULL || (p != NULL && strcmp(p, project) == 0))
			rc = fn(r, p, arg);
		cJSON_Delete(r);
	}
	free(line);
	fclose(fp);
	return rc;
}

int
history_scan(const char *path, const char *project, history_fn fn,
    void *arg)
{
	_cleanup_free_ char	*def = NULL;
	struct history_consoles	 hc = { STRV_INIT, STRV_INIT };
	char			*p;
	int			 n, rc = 0;

	if (path == NULL)
		path = def = audit_default_path();
	/* Rotated files are NAME.1 (newest) ... NAME.N (oldest). */
	for (n = 1; ; n++) {
		p = xasprintf("%s.%d", path, n);
		if (access(p, F_OK) != 0) {
			free(p);
			break;
		}
		free(p);
	}
	while (rc == 0 && --n >= 1) {
		p = xasprintf("%s.%d", path, n);
		rc = history_file(p, project, &hc, fn, arg);
		free(p);
	}
	if (rc == 0)
		rc = history_file(path, project, &hc, fn, arg);
	strv_release(&hc.ids);
	strv_release(&hc.projects);
	return rc == 0 ? 0 : -1;
}

/* Where a project's last id is kept. */
static char *
history_id_path(const char *project)
{
	_cleanup_free_ char	*dir = config_state_dir();
	char			 hex[SHA256_HEX_LEN + 1], *name, *p;

	sha256_hex(project, strlen(project), hex);
	hex[16] = '\0';
	name = xasprintf("ids/%s", hex);
	p = path_join(dir, name);
	free(name);
	return p;
}

int
history_last_id(const char *project, unsigned long *last, char **cause)
{
	_cleanup_free_ char	*path = history_id_path(project);
	char			 buf[32], *end;
	FILE			*fp;
	size_t			 n;

	*last = 0;
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	*last = strtoul(buf, &end, 10);
	if (end == buf || (*end != '\n' && *end != '\0')) {
		*cause = xasprintf("'%s' does not hold a request id", path);
		return -1;
	}
	return 0;
}

int
history_set_last_id(const char *project, unsigned long id, char **cause)
{
	_cleanup_free_ char	*path = history_id_path(project);
	_cleanup_free_ char	*dir = xstrdup(path);
	char			 buf[32];
	int			 n, fd;

	n = snprintf(buf, sizeof buf, "%lu\n", id);
	/* Rewritten in place once the file is there: one write at its start
	   and fdatasync (the number and its newline fit one sector; only the
	   first line is read), not a new file, a rename and a directory to
	   sync, on the path of every request (console_commit). */
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		bool ok = pwrite(fd, buf, (size_t)n, 0) == n &&
		    fdatasync(fd) == 0;

		close(fd);
		if (ok)
			return 0;
	}
	*strrchr(dir, '/') = '\0';
	if (mkdir_p(dir, 0700, cause) != 0)
		return -1;
	return file_write_atomic(path, buf, (size_t)n, 0600, cause);
}
