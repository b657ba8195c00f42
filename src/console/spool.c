/*
 * spool: a finished request's output lives on disk, not in the console's
 * memory (issue 37: a console that served 1,000 requests of 300 KB each
 * held 725 MB). When a request ends, the tail the output pane shows and
 * the report's streams (what `bwgate show N --output` prints) go to
 * files in the project's state directory, output/<project id>/<console>/
 * (0700, files 0600, bwgate's own: never the project), and are read back
 * when someone looks. A request's files go when the console forgets it,
 * the directory when the console stops; a console that starts removes
 * those of consoles that are gone (crashed): each holds a lock on its
 * directory's .lock while it lives (flock: right across pid namespaces).
 */
#include "autoconf.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "config.h"
#include "console-int.h"
#include "file.h"
#include "log.h"
#include "path.h"
#include "sha256.h"
#include "xalloc.h"

static const char *const spool_streams[] = { "stdout", "stderr" };

/* A request's file: <dir>/<id>.<what>. */
static char *
spool_path(const struct console *c, uint32_t id, const char *what)
{
	return xasprintf("%s/%u.%s", c->spool, id, what);
}

/* Remove every file of the directory (its own, flat). */
static void
spool_empty(const char *dir)
{
	DIR		*d;
	struct dirent	*de;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

/* Remove a console's directory: its files, its lock, itself. */
static void
spool_remove(const char *dir)
{
	char	*lock = xasprintf("%s/.lock", dir);

	spool_empty(dir);
	(void)unlink(lock);
	(void)rmdir(dir);
	free(lock);
}

/* Remove the directories of consoles that are gone (nobody holds their
   lock). */
static void
spool_sweep(const char *parent)
{
	DIR		*d;
	struct dirent	*de;
	char		*p, *lock;
	int		 fd;

	if ((d = opendir(parent)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", parent, de->d_name);
		lock = xasprintf("%s/.lock", p);
		fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) == 0)
			spool_remove(p);
		if (fd >= 0)
			close(fd);
		free(lock);
		free(p);
	}
	closedir(d);
}

void
spool_init(struct console *c)
{
	_cleanup_free_ char	*state = config_state_dir();
	_cleanup_free_ char	*parent = NULL;
	char			 hex[SHA256_HEX_LEN + 1], *name, *cause = NULL;
	char			*lock;

	c->spool_lock = -1;
	sha256_hex(c->project, strlen(c->project), hex);
	hex[16] = '\0';
	name = xasprintf("output/%s", hex);
	parent = path_join(state, name);
	free(name);
	spool_sweep(parent);
	c->spool = path_join(parent, c->console_id);
	if (mkdir_p(c->spool, 0700, &cause) == 0) {
		lock = xasprintf("%s/.lock", c->spool);
		c->spool_lock = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (c->spool_lock < 0 || flock(c->spool_lock, LOCK_EX |
		    LOCK_NB) != 0)
			cause = xasprintf("cannot lock '%s': %s", lock,
			    strerror(errno));
		free(lock);
	}
	if (cause != NULL) {
		if (c->spool_lock >= 0)
			close(c->spool_lock);
		c->spool_lock = -1;
		/* Output then stays in memory, as before. */
		LOG("output spool: %s", cause);
		free(cause);
		free(c->spool);
		c->spool = NULL;
		return;
	}
	spool_empty(c->spool);
	c->out_cache = (struct buf)BUF_INIT;
	c->out_cache_id = 0;
}

void
spool_release(struct console *c)
{
	if (c->spool != NULL) {
		spool_remove(c->spool);
		free(c->spool);
		c->spool = NULL;
	}
	if (c->spool_lock >= 0) {
		close(c->spool_lock);
		c->spool_lock = -1;
	}
	buf_release(&c->out_cache);
}

/* Write one file whole; -1 when it cannot be. */
static int
spool_write(const char *path, const char *data, size_t len)
{
	int	fd, rc;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	rc = write_full(fd, data, len);
	if (close(fd) != 0)
		rc = -1;
	if (rc != 0)
		(void)unlink(path);
	return rc;
}

/* Read one file whole into b; -1 when it cannot be. */
static int
spool_read(const char *path, struct buf *b)
{
	_cleanup_close_ int	 fd = open(path, O_RDONLY | O_NOFOLLOW |
				    O_CLOEXEC);
	char			 chunk[65536];
	ssize_t			 n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(b, chunk, (size_t)n);
	return n < 0 ? -1 : 0;
}

void
spool_job(struct console *c, struct job *jb)
{
	cJSON		*rep = jb->r->report, *s;
	char		*p;

	if (c->spool == NULL)
		return;
	p = spool_path(c, jb->r->id, "log");
	if (jb->log.len > 0 && spool_write(p, jb->log.data, jb->log.len) ==
	    0) {
		jb->log_len = jb->log.len;
		jb->log_spooled = true;
		buf_release(&jb->log);
	}
	free(p);
	for (size_t i = 0; i < 2 && rep != NULL; i++) {
		s = cJSON_GetObjectItem(rep, spool_streams[i]);
		/* An empty one stays in the report (spool_report uses what
		   is there): no file to make per request for nothing. */
		if (!cJSON_IsString(s) || s->valuestring[0] == '\0')
			continue;
		p = spool_path(c, jb->r->id, spool_streams[i]);
		/* One that cannot be written stays in memory. */
		if (spool_write(p, s->valuestring, strlen(s->valuestring)) ==
		    0) {
			cJSON_DeleteItemFromObject(rep, spool_streams[i]);
			jb->streams_spooled = true;
		}
		free(p);
	}
}

const struct buf *
spool_output(struct console *c, const struct job *jb)
{
	char	*p;

	if (c->out_cache_id == jb->r->id)
		return &c->out_cache;
	buf_reset(&c->out_cache);
	c->out_cache_id = jb->r->id;
	p = spool_path(c, jb->r->id, "log");
	if (spool_read(p, &c->out_cache) != 0)
		LOG("request %u: output spool: %s", jb->r->id,
		    strerror(errno));
	free(p);
	return &c->out_cache;
}

cJSON *
spool_report(struct console *c, const struct request *r)
{
	const struct job	*jb = r->owner;
	struct buf		 b = BUF_INIT;
	cJSON			*rep;
	char			*p;

	if (r->report == NULL || jb == NULL || !jb->streams_spooled)
		return NULL;
	rep = cJSON_Duplicate(r->report, true);
	for (size_t i = 0; i < 2; i++) {
		p = spool_path(c, r->id, spool_streams[i]);
		buf_reset(&b);
		if (cJSON_GetObjectItem(rep, spool_streams[i]) == NULL &&
		    spool_read(p, &b) == 0) {
			buf_add(&b, "", 1);
			cJSON_AddStringToObject(rep, spool_streams[i], b.data);
		}
		free(p);
	}
	buf_release(&b);
	return rep;
}

void
spool_drop(struct console *c, uint32_t id)
{
	char	*p;

	if (c->spool == NULL)
		return;
	if (c->out_cache_id == id) {
		buf_release(&c->out_cache);
		c->out_cache_id = 0;
	}
	p = spool_path(c, id, "log");
	(void)unlink(p);
	free(p);
	for (size_t i = 0; i < 2; i++) {
		p = spool_path(c, id, spool_streams[i]);
		(void)unlink(p);
		free(p);
	}
}
