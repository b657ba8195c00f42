/*
 * sandbox-project: the project mount and what is protected inside it: the
 * project by descriptor (read-write or read-only by profile), then each
 * protected path read-only over itself (a shared placeholder where it does
 * not exist yet, which git inside is told to ignore), built-in ones first,
 * then the configured ones ("!path" lifts a shipped default).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "cleanup.h"
#include "path.h"
#include "placeholder.h"
#include "sandbox.h"
#include "sandbox-int.h"
#include "xalloc.h"

#define add	build_arg
#define add2	build_arg2
#define add3	build_arg3

static int	build_protected_paths(struct build *, char **);
static int	build_git_exclude(struct build *, char **);

/* Always protected inside the project; "/" marks a directory. */
struct protect_entry {
	const char	*path;
	bool		 dir;
	bool		 git;	/* lifted by the git-write profile */
};
/* .git at any depth and under git-write: sandbox-git.c. */
static const struct protect_entry sandbox_protected[] = {
	{ ".bwgate.json", false, false },
	{ SANDBOX_QUARANTINE, true, false },
	{ NULL, false, false }
};

/* An empty file or directory to mount over (shared, see placeholder.h). */
static int
build_placeholder(struct build *b, const char *rel, bool dir, char **cause)
{
	if (b->dry)
		return 0;
	if (placeholders_make(b->ph, rel, dir, cause) != 0)
		return -1;
	strv_push(&b->sb->placeholders, rel);
	return 0;
}

/* Is abs (or an ancestor of it) already mounted read-only below project? */
static bool
covered_by_protected(struct build *b, const char *abs)
{
	for (size_t i = 0; i < b->sb->nmounts; i++) {
		const struct sandbox_mount *m = &b->sb->mounts[i];

		if (m->kind == MOUNT_PROTECTED && path_is_under(abs, m->path))
			return true;
	}
	return false;
}

/* A path bwrap can take as a mount point (with room for its own
   prefix): longer ones are protected by their longest ancestor that
   fits, read-only whole. */
#define BIND_PATH_MAX	(PATH_MAX - 64)

/*
 * Protect one project-relative path. When it is missing, the first missing
 * component gets a placeholder so nothing can be created there. Every look
 * at the project goes through its descriptor (beneath.h).
 */
int
build_protect(struct build *b, const char *rel, bool dir, char **cause)
{
	_cleanup_free_ char	*abs = path_join(b->pol->project, rel);
	_cleanup_free_ char	*first = NULL;
	struct stat		 st;

	if (strlen(abs) >= BIND_PATH_MAX) {
		char	*cut = xstrdup(rel), *slash;
		int	 rc;

		while (strlen(b->pol->project) + 1 + strlen(cut) >=
		    BIND_PATH_MAX && (slash = strrchr(cut, '/')) != NULL)
			*slash = '\0';
		rc = strcmp(cut, rel) == 0 ? (*cause = xasprintf("cannot "
		    "protect '%s': the path is too long", rel), -1) :
		    build_protect(b, cut, true, cause);
		free(cut);
		return rc;
	}
	if (covered_by_protected(b, abs))
		return 0;
	if (beneath_lstat(b->root, rel, &st) == 0) {
		if (b->ph != NULL && placeholders_known(b->ph, rel, &st)) {
			/* Another sandbox's placeholder: share it. */
			strv_push(&b->sb->placeholders, rel);
			return build_bind_rel(b, rel, false, MOUNT_PROTECTED,
			    "protected (absent: nothing may be created)",
			    cause);
		}
		if (S_ISLNK(st.st_mode)) {
			*cause = xasprintf("protected path '%s' is a symbolic "
			    "link: refusing to run with it", abs);
			return -1;
		}
		return build_bind_rel(b, rel, false, MOUNT_PROTECTED,
		    "protected", cause);
	}
	if (errno != ENOENT && errno != ENOTDIR) {
		*cause = errno == ELOOP || errno == EXDEV ?
		    xasprintf("protected path '%s' goes through a symbolic "
		    "link: refusing to run with it", abs) :
		    xasprintf("cannot check '%s': %s", abs, strerror(errno));
		return -1;
	}
	/* Find the first missing component below the project. */
	first = xstrdup(rel);
	for (;;) {
		char *slash = strrchr(first, '/');

		if (slash == NULL) {
			if (fstat(b->root, &st) != 0)
				st.st_mode = 0;
			break;
		}
		*slash = '\0';
		if (beneath_lstat(b->root, first, &st) == 0) {
			*slash = '/';
			break;
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		*cause = xasprintf("cannot protect '%s': a parent is not a "
		    "directory", abs);
		return -1;
	}
	free(abs);
	abs = path_join(b->pol->project, first);
	if (covered_by_protected(b, abs))
		return 0;
	if (build_placeholder(b, first, strcmp(first, rel) != 0 || dir,
	    cause) != 0)
		return -1;
	/* An empty placeholder file would be committed by `git add -A`
	   (git skips empty directories): git inside ignores it. */
	if (strcmp(first, rel) == 0 && !dir)
		strv_pushf(&b->ph_files, "/%s", first);
	return build_bind_rel(b, first, false, MOUNT_PROTECTED,
	    "protected (absent: nothing may be created)", cause);
}

int
build_project(struct build *b, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;
	int				 rc;

	if (build_bind_rel(b, ".", !pol->project_readonly,
	    pol->project_readonly ? MOUNT_RO : MOUNT_RW, pol->project_readonly ?
	    "project, read-only (profile)" : "project", cause) != 0)
		return -1;
	if (!b->dry) {
		struct stat	st;

		if (fstat(b->sb->fds[b->sb->nfds - 1], &st) == 0) {
			b->sb->project_dev = st.st_dev;
			b->sb->project_ino = st.st_ino;
		}
	}
	if (pol->project_readonly)
		return 0;	/* nothing inside can be written anyway */
	if (!b->dry) {
		if ((b->ph = placeholders_open(pol->project, b->root,
		    cause)) == NULL)
			return -1;
		b->sb->ph_project = xstrdup(pol->project);
	}
	rc = build_protected_paths(b, cause);
	if (b->ph != NULL)
		placeholders_close(b->ph);
	b->ph = NULL;
	if (rc == 0)
		rc = build_git_exclude(b, cause);
	strv_release(&b->ph_files);
	return rc;
}

/* Does the list also hold "!rel" (a user lifting a shipped default)? */
static bool
protect_lifted(const struct strv *list, const char *rel)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->v[i][0] == '!' && strcmp(list->v[i] + 1, rel) == 0)
			return true;
	return false;
}

/*
 * Protected only when present: an absent .bwgate.json gets no placeholder
 * (it would show in the project inside, and `git add -A` would commit it).
 * A file the command creates there is not trusted (trust is by hash) and
 * is reported as needing attention.
 */
static bool
protect_if_present(struct build *b, const char *rel)
{
	struct stat	st;

	if (strcmp(rel, ".bwgate.json") != 0 &&
	    strcmp(rel, SANDBOX_QUARANTINE) != 0)
		return false;
	return beneath_lstat(b->root, rel, &st) != 0 && errno == ENOENT;
}

/* The placeholder files as a gitignore file, bound read-only inside;
   the environment points git's core.excludesFile at it. */
static int
build_git_exclude(struct build *b, char **cause)
{
	struct buf	 text = BUF_INIT;
	int		 fd = -1, n;
	char		 num[16];

	if (b->ph_files.n == 0)
		return 0;
	for (size_t i = 0; i < b->ph_files.n; i++) {
		for (const char *p = b->ph_files.v[i]; *p != '\0'; p++) {
			if (strchr("\\*?[!# ", *p) != NULL)
				buf_putc(&text, '\\');
			buf_putc(&text, *p);
		}
		buf_putc(&text, '\n');
	}
	if (!b->dry) {
		fd = memfd_create("bwgate-exclude", MFD_CLOEXEC);
		if (fd < 0 || write(fd, text.data, text.len) !=
		    (ssize_t)text.len || lseek(fd, 0, SEEK_SET) != 0) {
			*cause = xasprintf("cannot write the git excludes: %s",
			    strerror(errno));
			if (fd >= 0)
				close(fd);
			buf_release(&text);
			return -1;
		}
	}
	buf_release(&text);
	n = build_fd(b, fd);
	snprintf(num, sizeof num, "%d", n);
	add3(b, "--ro-bind-data", num, SANDBOX_GIT_EXCLUDE);
	build_mount(b, MOUNT_RO, SANDBOX_GIT_EXCLUDE,
	    "placeholders git ignores");
	return 0;
}

/* The built-in protected paths, then the configured ones. */
static int
build_protected_paths(struct build *b, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;

	if (build_git(b, cause) != 0)
		return -1;
	for (const struct protect_entry *e = sandbox_protected; e->path != NULL;
	    e++) {
		if ((e->git && pol->git_writable) ||
		    protect_if_present(b, e->path))
			continue;
		if (build_protect(b, e->path, e->dir, cause) != 0)
			return -1;
	}
	for (size_t i = 0; i < pol->protected.n; i++) {
		const char	*rel = pol->protected.v[i];
		size_t		 len = strlen(rel);
		_cleanup_free_ char *clean = NULL;

		if (rel[0] == '!' || protect_lifted(&pol->protected, rel))
			continue;	/* "!path" lifts an earlier entry */
		while (*rel == '/')
			rel++;
		len = strlen(rel);
		/* Never dropped silently: the user meant to protect it. */
		if (len == 0 || path_has_dotdot(rel)) {
			*cause = xasprintf("protected path '%s' %s",
			    pol->protected.v[i], len == 0 ? "names the whole "
			    "project (use a read-only profile)" : "contains "
			    "'..' (give a path inside the project)");
			return -1;
		}
		clean = xstrndup(rel, rel[len - 1] == '/' ? len - 1 : len);
		if (build_protect(b, clean, rel[len - 1] == '/', cause) != 0)
			return -1;
	}
	return build_agent_config(b, cause);
}
