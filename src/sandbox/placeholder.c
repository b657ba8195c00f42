/*
 * placeholder: a per-project registry of placeholders and their users.
 *
 * In the runtime directory, per project (a hash of its path):
 *	placeholders-HASH.lock	flock()ed for every read-modify-write; never
 *				removed (removing a lock file races its
 *				next taker)
 *	placeholders-HASH	the registry, replaced whole (a temporary
 *				file renamed over it: a reader or a crash
 *				never sees half), removed when empty:
 *
 *	bwgate-placeholders 2
 *	user PID START		a process using them (START: its start
 *				time, /proc/PID/stat)
 *	path DEV INO REL	a placeholder, REL to the end of the line
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "file.h"
#include "log.h"
#include "placeholder.h"
#include "proctree.h"
#include "rundir.h"
#include "sha256.h"
#include "strv.h"
#include "xalloc.h"

#define REGISTRY_MAGIC	"bwgate-placeholders 2\n"

struct ph_entry {
	char		*rel;
	dev_t		 dev;
	ino_t		 ino;
};

struct placeholders {
	int		 lockfd;
	int		 root;		/* the project (not ours) */
	char		*path;		/* the registry file */
	struct strv	 users;		/* "PID START", live ones only */
	struct ph_entry	*ents;
	size_t		 nents;
};

/* The registry file of a project (and its lock: PATH.lock). */
static char *
registry_path(const char *project, char **cause)
{
	char	 hex[SHA256_HEX_LEN + 1];
	char	*dir, *path;

	if ((dir = rundir_get(true, cause)) == NULL)
		return NULL;
	sha256_hex(project, strlen(project), hex);
	hex[16] = '\0';
	path = xasprintf("%s/placeholders-%s", dir, hex);
	free(dir);
	return path;
}

/* This process as a user: "PID START". */
static char *
user_self(void)
{
	return xasprintf("%ld %llu", (long)getpid(),
	    proc_start_time(getpid()));
}

/* Is the user "PID START" still that process? */
static bool
user_alive(const char *user)
{
	unsigned long long	 start;
	long			 pid;

	if (sscanf(user, "%ld %llu", &pid, &start) != 2 || pid <= 0 ||
	    start == 0)
		return false;
	return proc_start_time((pid_t)pid) == start;
}

static void
ent_add(struct placeholders *ph, const char *rel, dev_t dev, ino_t ino)
{
	ph->ents = xreallocarray(ph->ents, ph->nents + 1, sizeof *ph->ents);
	ph->ents[ph->nents++] = (struct ph_entry){ xstrdup(rel), dev, ino };
}

static void
registry_read(struct placeholders *ph)
{
	struct buf	 b = BUF_INIT;
	char		*line, *save = NULL;
	int		 fd;

	if ((fd = open(ph->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	if (buf_read_fd(&b, fd, 1 << 20) != 0 || b.data == NULL ||
	    b.len < strlen(REGISTRY_MAGIC) || memcmp(b.data, REGISTRY_MAGIC,
	    strlen(REGISTRY_MAGIC)) != 0) {
		/* Another version's, or torn: its placeholders stay (never
		   removed unproven); its users are forgotten. */
		LOG("'%s' is not a registry this bwgate wrote", ph->path);
		close(fd);
		buf_release(&b);
		return;
	}
	close(fd);
	for (line = strtok_r(b.data + strlen(REGISTRY_MAGIC), "\n", &save);
	    line != NULL; line = strtok_r(NULL, "\n", &save)) {
		uintmax_t	dev, ino;
		int		n = 0;

		if (strncmp(line, "user ", 5) == 0) {
			if (user_alive(line + 5) &&
			    !strv_contains(&ph->users, line + 5))
				strv_push(&ph->users, line + 5);
		} else if (sscanf(line, "path %ju %ju %n", &dev, &ino, &n) ==
		    2 && n > 0 && line[n] != '\0')
			ent_add(ph, line + n, (dev_t)dev, (ino_t)ino);
	}
	buf_release(&b);
}

/* Write the registry back whole; an empty one is removed. */
static void
registry_write(struct placeholders *ph)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL;

	if (ph->users.n == 0 && ph->nents == 0) {
		(void)unlink(ph->path);
		return;
	}
	buf_puts(&b, REGISTRY_MAGIC);
	for (size_t i = 0; i < ph->users.n; i++)
		buf_printf(&b, "user %s\n", ph->users.v[i]);
	for (size_t i = 0; i < ph->nents; i++)
		buf_printf(&b, "path %ju %ju %s\n", (uintmax_t)ph->ents[i].dev,
		    (uintmax_t)ph->ents[i].ino, ph->ents[i].rel);
	if (file_write_replace(ph->path, b.data, b.len, 0600, &cause) != 0) {
		LOG("%s", cause);
		free(cause);
	}
	buf_release(&b);
}

static void
registry_free(struct placeholders *ph)
{
	flock(ph->lockfd, LOCK_UN);
	close(ph->lockfd);
	free(ph->path);
	strv_release(&ph->users);
	for (size_t i = 0; i < ph->nents; i++)
		free(ph->ents[i].rel);
	free(ph->ents);
	free(ph);
}

/* Lock the registry at path (taken) and read it. */
static struct placeholders *
registry_open(char *path, int root, char **cause)
{
	struct placeholders	*ph;
	char			*lock = xasprintf("%s.lock", path);
	int			 fd;

	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		*cause = xasprintf("cannot lock '%s': %s", lock,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		free(lock);
		free(path);
		return NULL;
	}
	free(lock);
	ph = xcalloc(1, sizeof *ph);
	ph->lockfd = fd;
	ph->root = root;
	ph->path = path;
	registry_read(ph);
	return ph;
}

struct placeholders *
placeholders_open(const char *project, int root, char **cause)
{
	char	*path = registry_path(project, cause);

	return path != NULL ? registry_open(path, root, cause) : NULL;
}

bool
placeholders_known(const struct placeholders *ph, const char *rel,
    const struct stat *st)
{
	for (size_t i = 0; i < ph->nents; i++)
		if (strcmp(ph->ents[i].rel, rel) == 0 &&
		    ph->ents[i].dev == st->st_dev &&
		    ph->ents[i].ino == st->st_ino)
			return true;
	return false;
}

int
placeholders_make(struct placeholders *ph, const char *rel, bool dir,
    char **cause)
{
	struct stat	st;
	int		rc;

	if (strchr(rel, '\n') != NULL) {
		*cause = xasprintf("cannot protect a path with a newline in "
		    "its name");
		return -1;
	}
	if (beneath_lstat(ph->root, rel, &st) == 0 &&
	    placeholders_known(ph, rel, &st))
		return 0;	/* another sandbox's: shared */
	rc = dir ? beneath_mkdir(ph->root, rel, 0755, cause) :
	    beneath_mkfile(ph->root, rel, 0644, cause);
	if (rc != 0 || beneath_lstat(ph->root, rel, &st) != 0) {
		free(*cause);
		*cause = xasprintf("cannot create placeholder '%s': %s", rel,
		    strerror(errno));
		return -1;
	}
	ent_add(ph, rel, st.st_dev, st.st_ino);
	return 0;
}

void
placeholders_close(struct placeholders *ph)
{
	char	*me = user_self();

	if (!strv_contains(&ph->users, me))
		strv_push(&ph->users, me);
	free(me);
	registry_write(ph);
	registry_free(ph);
}

void
placeholders_release(const char *project, int root)
{
	struct placeholders	*ph;
	struct strv		 left = STRV_INIT;
	struct stat		 st;
	char			*cause = NULL, *me, *path;
	int			 own = -1;

	/* No registry: no placeholder in use or left behind (the usual
	   case, and without creating one only to remove it). */
	if ((path = registry_path(project, &cause)) == NULL) {
		free(cause);
		return;
	}
	if (lstat(path, &st) != 0 && errno == ENOENT) {
		free(path);
		return;
	}
	if (root < 0 && (root = own = beneath_root(project, &st,
	    &cause)) < 0) {
		free(cause);
		free(path);
		return;
	}
	if ((ph = registry_open(path, root, &cause)) == NULL) {
		free(cause);
		if (own >= 0)
			close(own);
		return;
	}
	me = user_self();
	for (size_t i = 0; i < ph->users.n; i++)
		if (strcmp(ph->users.v[i], me) != 0)
			strv_push(&left, ph->users.v[i]);
	free(me);
	strv_release(&ph->users);
	ph->users = left;
	if (ph->users.n == 0) {
		/* Deepest first: a path may sit inside another. */
		for (size_t i = ph->nents; i-- > 0;) {
			st.st_dev = ph->ents[i].dev;
			st.st_ino = ph->ents[i].ino;
			if (beneath_remove_empty(root, ph->ents[i].rel,
			    &st) != 0)
				LOG("placeholder '%s' is no longer empty or "
				    "no longer ours: left", ph->ents[i].rel);
			free(ph->ents[i].rel);
		}
		ph->nents = 0;
	}
	registry_write(ph);
	registry_free(ph);
	if (own >= 0)
		close(own);
}
