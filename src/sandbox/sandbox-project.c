/*
 * sandbox-project: the project mount and what is protected inside it: the
 * project by descriptor (read-write or read-only by profile), then each
 * protected path that exists read-only over itself (only the kernel keeps
 * a file read-only once it is open), built-in ones first, then the
 * configured ones ("!path" lifts a shipped default). An absent one gets
 * nothing: creating it is refused at the call by the observer
 * (observe-act.c), so the project inside looks exactly as it is.
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
#include "sandbox.h"
#include "sandbox-int.h"
#include "xalloc.h"

#define add	build_arg
#define add2	build_arg2
#define add3	build_arg3

static int	build_protected_paths(struct build *, char **);

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
 * Protect one project-relative path that exists: bound read-only over
 * itself. A missing one needs nothing here: the observer refuses to create
 * it. Every look at the project goes through its descriptor (beneath.h).
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
	(void)dir;
	return 0;	/* absent: refused at the call (observe-act.c) */
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
	rc = build_protected_paths(b, cause);
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

/* The built-in protected paths, then the configured ones. */
static int
build_protected_paths(struct build *b, char **cause)
{
	const struct sandbox_policy	*pol = b->pol;

	if (build_git(b, cause) != 0)
		return -1;
	for (const struct protect_entry *e = sandbox_protected; e->path != NULL;
	    e++) {
		if (e->git && pol->git_writable)
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
