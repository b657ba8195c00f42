/*
 * monitor-watch: the watcher's table from watch descriptor to the
 * directory's current project-relative path, the exclude list, and the
 * walk that watches a tree (each directory watched before it is listed).
 */
#include "autoconf.h"

#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor-watcher.h"
#include "xalloc.h"

/*
 * Split the exclude list as the snapshot reads it: without '/' a component
 * name matched at any depth, with '/' a path relative to the root (a
 * leading "./" and trailing '/' ignored). ".git" is always excluded.
 */
void
exclude_init(struct watcher *w)
{
	const struct strv	*ex = w->o->exclude;
	size_t			 i, len;
	const char		*p;
	char			*s;

	strv_push(&w->ex_names, ".git");
	for (i = 0; ex != NULL && i < ex->n; i++) {
		p = ex->v[i];
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		while (*p == '/')
			p++;
		s = xstrdup(p);
		len = strlen(s);
		while (len > 0 && s[len - 1] == '/')
			s[--len] = '\0';
		if (len == 0 || strcmp(s, ".") == 0)
			free(s);
		else if (strchr(s, '/') != NULL)
			strv_push_owned(&w->ex_paths, s);
		else
			strv_push_owned(&w->ex_names, s);
	}
}

/*
 * Is this entry excluded (not to be watched or looked into)? Its parent was
 * watched, so only its own name and its whole path need checking.
 */
bool
excluded(struct watcher *w, const char *rel)
{
	const char	*name = strrchr(rel, '/');
	size_t		 i;

	name = name != NULL ? name + 1 : rel;
	for (i = 0; i < w->ex_names.n; i++) {
		if (strcmp(name, w->ex_names.v[i]) == 0)
			return (true);
	}
	for (i = 0; i < w->ex_paths.n; i++) {
		if (strcmp(rel, w->ex_paths.v[i]) == 0)
			return (true);
	}
	return (false);
}

/* dir/name, or name when dir is the root (""). */
char *
rel_join(const char *dir, const char *name)
{
	size_t	 dlen = strlen(dir), nlen = strlen(name);
	char	*s;

	if (dlen == 0)
		return (xstrndup(name, nlen));
	s = xmalloc(dlen + nlen + 2);
	memcpy(s, dir, dlen);
	s[dlen] = '/';
	memcpy(s + dlen + 1, name, nlen + 1);
	return (s);
}

/* The absolute path of rel, in scratch storage valid until the next call. */
const char *
abs_path(struct watcher *w, const char *rel)
{
	w->abs.len = w->rootlen;
	w->abs.data[w->abs.len] = '\0';
	if (*rel != '\0') {
		buf_putc(&w->abs, '/');
		buf_puts(&w->abs, rel);
	}
	return (w->abs.data);
}

/* Is path equal to dir (of length len) or below it? dir "" is the root. */
bool
has_prefix_dir(const char *path, const char *dir, size_t len)
{
	if (len == 0)
		return (true);
	return (strncmp(path, dir, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/'));
}

/* An integer from a /proc file, or -1. */
int
read_int(const char *path)
{
	char	buf[32];
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	return (atoi(buf));
}

/*
 * Watch one directory and remember its path. Returns 0, or -1 when it is
 * not watched (gone, unreadable, or the watch limit is reached).
 *
 * By path, not through the door (beneath.h): what the live monitor sees
 * is shown while a command runs and decides nothing; the report and undo
 * look through the door (doc/HACKING.md).
 */
int
watch_add(struct watcher *w, const char *rel)
{
	int	wd, max, ns;
	size_t	n;
	bool	capped = false;	/* our cap, not the kernel's limit */

	if (w->watch_full)
		return (-1);
	if (w->o->max_watches > 0 && w->nwatches >= w->o->max_watches) {
		wd = -1;
		errno = ENOSPC;
		capped = true;
	} else
		wd = inotify_add_watch(w->inofd, abs_path(w, rel), WATCH_MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return (-1);	/* gone already: its delete follows */
		if (errno == ENOSPC) {
			w->watch_full = true;
			if (capped && w->o->budget > 0) {
				mwarn(w, true, "live events incomplete: this "
				    "run's inotify watch cap reached (%d, a "
				    "quarter of the user's %d, so other runs "
				    "and tools keep theirs); the change report "
				    "is still exact", w->o->max_watches,
				    w->o->budget);
				return (-1);
			}
			if (capped) {
				mwarn(w, true, "live events incomplete: "
				    "inotify watch limit reached (test limit "
				    "BWGATE_MONITOR_MAX_WATCHES=%d); the "
				    "change report is still exact",
				    w->o->max_watches);
				return (-1);
			}
			/* In a user namespace its own limit may be lower. */
			max = read_int("/proc/sys/fs/inotify/max_user_watches");
			ns = read_int("/proc/sys/user/max_inotify_watches");
			if (ns > 0 && (max <= 0 || ns < max)) {
				mwarn(w, true, "live events incomplete: "
				    "inotify watch limit reached "
				    "(user.max_inotify_watches=%d); the change "
				    "report is still exact", ns);
				return (-1);
			}
			mwarn(w, true, "live events incomplete: inotify watch "
			    "limit reached (fs.inotify.max_user_watches=%d); "
			    "the change report is still exact", max);
			return (-1);
		}
		if (!w->warned_watch) {
			w->warned_watch = true;
			mwarn(w, true, "live events incomplete: cannot watch "
			    "'%s': %s", *rel != '\0' ? rel : ".",
			    strerror(errno));
		}
		return (-1);
	}
	if ((size_t)wd >= w->nwdpath) {
		n = w->nwdpath == 0 ? 1024 : w->nwdpath;
		while (n <= (size_t)wd)
			n *= 2;
		w->wdpath = xreallocarray(w->wdpath, n, sizeof *w->wdpath);
		memset(w->wdpath + w->nwdpath, 0,
		    (n - w->nwdpath) * sizeof *w->wdpath);
		w->nwdpath = n;
	}
	if (w->wdpath[wd] == NULL)
		w->nwatches++;
	else if (strcmp(w->wdpath[wd], rel) == 0)
		return (0);
	free(w->wdpath[wd]);
	w->wdpath[wd] = xstrdup(rel);
	return (0);
}

/*
 * Watch a directory and everything below it, each directory watched before
 * it is listed. With emit, every entry found is reported as created (the
 * directory itself was reported by the caller).
 */
void
watch_tree(struct watcher *w, const char *top, bool emit)
{
	struct strv	 stack = STRV_INIT;
	struct entry	*e;
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*rel, *child;
	bool		 is_dir, watched;

	strv_push(&stack, top);
	while (stack.n > 0) {
		rel = stack.v[--stack.n];
		stack.v[stack.n] = NULL;
		watched = watch_add(w, rel) == 0;
		if (!watched && !emit) {
			free(rel);
			continue;
		}
		if ((d = opendir(abs_path(w, rel))) == NULL) {
			free(rel);
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			if (de->d_type == DT_UNKNOWN) {
				if (fstatat(dirfd(d), de->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) != 0)
					continue;
				is_dir = S_ISDIR(st.st_mode);
			} else
				is_dir = de->d_type == DT_DIR;
			child = rel_join(rel, de->d_name);
			if (emit) {
				out_record(w, MREC_CREATED,
				    is_dir ? MREC_DIR : 0, 1, now_wall(),
				    child, NULL);
				e = ent_get(w, child);
				e->created = now_mono();
				e->dup_until = e->created + DUP_KEEP_MS;
				e->is_dir = is_dir;
			}
			if (is_dir && !excluded(w, child))
				strv_push_owned(&stack, child);
			else
				free(child);
		}
		closedir(d);
		free(rel);
	}
	strv_release(&stack);
}

/* Stop watching a directory that left the project, and all below it. */
void
watch_remove_under(struct watcher *w, const char *prefix)
{
	size_t	i, len = strlen(prefix);

	for (i = 0; i < w->nwdpath; i++) {
		if (w->wdpath[i] == NULL ||
		    !has_prefix_dir(w->wdpath[i], prefix, len))
			continue;
		inotify_rm_watch(w->inofd, (int)i);
		free(w->wdpath[i]);
		w->wdpath[i] = NULL;
		w->nwatches--;
	}
}

/* A watched directory was renamed: rename it and everything below. */
void
watch_rename_under(struct watcher *w, const char *from, const char *to)
{
	size_t	 i, len = strlen(from);
	char	*s;

	for (i = 0; i < w->nwdpath; i++) {
		if (w->wdpath[i] == NULL ||
		    !has_prefix_dir(w->wdpath[i], from, len))
			continue;
		s = xasprintf("%s%s", to, w->wdpath[i] + len);
		free(w->wdpath[i]);
		w->wdpath[i] = s;
	}
}

