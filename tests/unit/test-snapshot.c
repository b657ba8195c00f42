/* test-snapshot: the change report, on real files in a temporary directory. */
#include "autoconf.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include <cmocka.h>

#include "report.h"
#include "snapshot.h"
#include "xalloc.h"

/* One test's world: a project directory and the options to scan it. */
struct fixture {
	char			*root;
	struct strv		 exclude;
	struct strv		 skip;
	struct snapshot_opts	 opts;
	struct snapshot		*before;
	struct changes		 ch;
};

/*
 * Remove name in dfd and everything below it, relative to descriptors so
 * that paths longer than PATH_MAX and unreadable directories go too.
 */
static void
rm_rf_at(int dfd, const char *name)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	if (unlinkat(dfd, name, 0) == 0 || (errno != EISDIR &&
	    errno != EPERM))
		return;
	fchmodat(dfd, name, 0755, 0);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			rm_rf_at(dirfd(d), de->d_name);
	}
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static int
setup(void **state)
{
	struct fixture	*fx = xcalloc(1, sizeof *fx);
	const char	*tmp = getenv("TMPDIR");

	fx->root = xasprintf("%s/test-snapshot.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(fx->root) == NULL)
		return -1;
	fx->opts.threads = 0;
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;

	rm_rf_at(AT_FDCWD, fx->root);
	snapshot_free(fx->before);
	changes_release(&fx->ch);
	strv_release(&fx->exclude);
	strv_release(&fx->skip);
	free(fx->root);
	free(fx);
	return 0;
}

/* The absolute path of a project-relative one (caller frees). */
static char *
P(struct fixture *fx, const char *rel)
{
	return xasprintf("%s/%s", fx->root, rel);
}

/* Write content to a project file (created or truncated). */
static void
put(struct fixture *fx, const char *rel, const char *content)
{
	char	*p = P(fx, rel);
	int	 fd;

	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)),
	    (ssize_t)strlen(content));
	close(fd);
	free(p);
}

/* mkdir of a project path. */
static void
dir(struct fixture *fx, const char *rel)
{
	char	*p = P(fx, rel);

	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

/* rename(2) of two project paths. */
static void
mv(struct fixture *fx, const char *from, const char *to)
{
	char	*a = P(fx, from), *b = P(fx, to);

	assert_int_equal(rename(a, b), 0);
	free(a);
	free(b);
}

/* unlink(2) or rmdir(2) of a project path. */
static void
rm(struct fixture *fx, const char *rel)
{
	char	*p = P(fx, rel);

	assert_int_equal(remove(p), 0);
	free(p);
}

/* Take a snapshot with the fixture's options (must succeed). */
static struct snapshot *
take(struct fixture *fx)
{
	struct snapshot	*sn;
	char		*cause = NULL;

	fx->opts.exclude = &fx->exclude;
	fx->opts.skip = &fx->skip;
	sn = snapshot_take(fx->root, &fx->opts, &cause);
	if (sn == NULL)
		fail_msg("snapshot_take: %s", cause);
	return sn;
}

/* Remember the state now. */
static void
before(struct fixture *fx)
{
	snapshot_free(fx->before);
	fx->before = take(fx);
}

/* Diff the state now against before() into fx->ch. */
static void
after(struct fixture *fx)
{
	struct snapshot	*sn = take(fx);

	changes_release(&fx->ch);
	memset(&fx->ch, 0, sizeof fx->ch);
	snapshot_diff(fx->before, sn, &fx->ch);
	snapshot_free(sn);
}

/* Assert a list equals the NULL-terminated arguments, in order. */
static void
assert_list(const char *what, const struct strv *sv, ...)
{
	va_list		 ap;
	const char	*s;
	size_t		 i = 0;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)) != NULL) {
		if (i >= sv->n)
			fail_msg("%s: missing '%s' at %zu", what, s, i);
		if (strcmp(sv->v[i], s) != 0)
			fail_msg("%s[%zu]: '%s', expected '%s'", what, i,
			    sv->v[i], s);
		i++;
	}
	va_end(ap);
	if (i != sv->n)
		fail_msg("%s: unexpected '%s' at %zu (of %zu)", what,
		    sv->v[i], i, sv->n);
}

/* Assert the renames equal the NULL-terminated from, to pairs. */
static void
assert_renames(const struct changes *ch, ...)
{
	va_list		 ap;
	const char	*from, *to;
	size_t		 i = 0;

	va_start(ap, ch);
	while ((from = va_arg(ap, const char *)) != NULL) {
		to = va_arg(ap, const char *);
		if (i >= ch->nrenamed)
			fail_msg("renamed: missing '%s' -> '%s'", from, to);
		if (strcmp(ch->renamed[i].from, from) != 0 ||
		    strcmp(ch->renamed[i].to, to) != 0)
			fail_msg("renamed[%zu]: '%s' -> '%s', expected '%s' -> "
			    "'%s'", i, ch->renamed[i].from, ch->renamed[i].to,
			    from, to);
		i++;
	}
	va_end(ap);
	if (i != ch->nrenamed)
		fail_msg("renamed: unexpected '%s' -> '%s'",
		    ch->renamed[i].from, ch->renamed[i].to);
}

/* The report is exactly the given created/modified/deleted lists. */
#define EXPECT(fx, C, M, D) do {					\
	assert_list("created", &(fx)->ch.created, C);			\
	assert_list("modified", &(fx)->ch.modified, M);			\
	assert_list("deleted", &(fx)->ch.deleted, D);			\
} while (0)
#define L(...)	__VA_ARGS__, NULL
#define NONE	NULL

static void
test_empty(void **state)
{
	struct fixture	*fx = *state;

	before(fx);
	after(fx);
	EXPECT(fx, NONE, NONE, NONE);
	assert_renames(&fx->ch, NULL);
	assert_int_equal(snapshot_count(fx->before), 0);
}

static void
test_empty_to_files_and_back(void **state)
{
	struct fixture	*fx = *state;

	before(fx);
	dir(fx, "d");
	put(fx, "d/f", "x");
	put(fx, "g", "y");
	after(fx);
	EXPECT(fx, L("d", "d/f", "g"), NONE, NONE);

	before(fx);
	rm(fx, "d/f");
	rm(fx, "d");
	rm(fx, "g");
	after(fx);
	EXPECT(fx, NONE, NONE, L("d/f", "d", "g"));
	assert_renames(&fx->ch, NULL);
}

static void
test_create(void **state)
{
	struct fixture	*fx = *state;

	put(fx, "old", "old");
	before(fx);
	put(fx, "new", "new");
	after(fx);
	EXPECT(fx, L("new"), NONE, NONE);
	assert_renames(&fx->ch, NULL);
}

static void
test_nested_mkdir(void **state)
{
	struct fixture	*fx = *state;

	dir(fx, "src");
	before(fx);
	dir(fx, "x");
	dir(fx, "x/y");
	put(fx, "x/y/f", "f");
	put(fx, "x-z", "sorts after x's subtree");
	put(fx, "src/new.c", "int x;");
	after(fx);
	/* The existing parent "src" is not modified by a new entry. */
	EXPECT(fx, L("src/new.c", "x", "x/y", "x/y/f", "x-z"), NONE, NONE);
}

static void
test_modify(void **state)
{
	struct fixture	*fx = *state;
	char		*p;
	int		 fd;

	put(fx, "a", "hello");
	put(fx, "b", "untouched");
	before(fx);
	p = P(fx, "a");
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_int_equal(write(fd, " world", 6), 6);
	close(fd);
	free(p);
	after(fx);
	EXPECT(fx, NONE, L("a"), NONE);
}

static void
test_same_size_rewrite(void **state)
{
	struct fixture		*fx = *state;
	const struct snapshot_entry *e;
	struct stat		 st;
	char			*p;
	int			 fd;

	put(fx, "a", "aaaa");
	before(fx);
	/* Immediately, same size: only the nanoseconds can tell. */
	p = P(fx, "a");
	fd = open(p, O_WRONLY | O_CLOEXEC);
	assert_int_equal(pwrite(fd, "bbbb", 4, 0), 4);
	close(fd);
	assert_int_equal(stat(p, &st), 0);
	free(p);
	e = snapshot_find(fx->before, "a");
	assert_non_null(e);
	assert_int_equal(e->size, st.st_size);
	after(fx);
	EXPECT(fx, NONE, L("a"), NONE);
}

static void
test_delete(void **state)
{
	struct fixture	*fx = *state;

	put(fx, "a", "a");
	put(fx, "b", "b");
	before(fx);
	rm(fx, "a");
	after(fx);
	EXPECT(fx, NONE, NONE, L("a"));
	assert_renames(&fx->ch, NULL);
}

static void
test_rm_rf(void **state)
{
	struct fixture	*fx = *state;
	char		*p;

	dir(fx, "x");
	dir(fx, "x/y");
	put(fx, "x/y/f", "f");
	put(fx, "x/g", "g");
	put(fx, "keep", "k");
	before(fx);
	p = P(fx, "x");
	rm_rf_at(AT_FDCWD, p);
	free(p);
	after(fx);
	/* Children before their parents. */
	EXPECT(fx, NONE, NONE, L("x/g", "x/y/f", "x/y", "x"));
}

static void
test_rename(void **state)
{
	struct fixture	*fx = *state;

	put(fx, "a", "content");
	before(fx);
	mv(fx, "a", "b");
	after(fx);
	EXPECT(fx, NONE, NONE, NONE);
	assert_renames(&fx->ch, L("a", "b"));
}

static void
test_rename_and_modify(void **state)
{
	struct fixture	*fx = *state;

	put(fx, "a", "content");
	before(fx);
	mv(fx, "a", "b");
	put(fx, "b", "new content");
	after(fx);
	/* Still a rename; the new path is modified as well. */
	EXPECT(fx, NONE, L("b"), NONE);
	assert_renames(&fx->ch, L("a", "b"));
}

static void
test_rename_over_existing(void **state)
{
	struct fixture	*fx = *state;

	put(fx, "a", "a");
	put(fx, "b", "b");
	before(fx);
	mv(fx, "a", "b");
	after(fx);
	/* b existed before, so it is modified, never a rename target. */
	EXPECT(fx, NONE, L("b"), L("a"));
	assert_renames(&fx->ch, NULL);
}

static void
test_atomic_save(void **state)
{
	struct fixture	*fx = *state;

	dir(fx, "src");
	put(fx, "src/main.c", "int main;");
	before(fx);
	put(fx, "src/.main.c.swp", "int main(void) { return 0; }");
	mv(fx, "src/.main.c.swp", "src/main.c");
	after(fx);
	EXPECT(fx, NONE, L("src/main.c"), NONE);
	assert_renames(&fx->ch, NULL);
}

static void
test_chmod(void **state)
{
	struct fixture	*fx = *state;
	char		*p;

	put(fx, "script", "#!/bin/sh");
	dir(fx, "d");
	before(fx);
	p = P(fx, "script");
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	p = P(fx, "d");
	assert_int_equal(chmod(p, 0700), 0);
	free(p);
	after(fx);
	EXPECT(fx, NONE, L("d", "script"), NONE);
}

static void
test_type_change(void **state)
{
	struct fixture	*fx = *state;

	put(fx, "x", "file");
	before(fx);
	rm(fx, "x");
	dir(fx, "x");
	put(fx, "x/f", "f");
	after(fx);
	EXPECT(fx, L("x/f"), L("x"), NONE);
}

static void
test_symlink(void **state)
{
	struct fixture	*fx = *state;
	char		*p, *q;

	put(fx, "target", "t");
	before(fx);
	p = P(fx, "link");
	assert_int_equal(symlink("target", p), 0);
	q = P(fx, "root");
	/* Never followed: the tree behind it is not scanned. */
	assert_int_equal(symlink("/", q), 0);
	free(q);
	after(fx);
	EXPECT(fx, L("link", "root"), NONE, NONE);

	/* Retarget in place (ln -sfn makes a new link and renames it). */
	before(fx);
	q = P(fx, "link.tmp");
	assert_int_equal(symlink("elsewhere", q), 0);
	assert_int_equal(rename(q, p), 0);
	free(q);
	after(fx);
	EXPECT(fx, NONE, L("link"), NONE);
	assert_renames(&fx->ch, NULL);

	/* Retarget by unlink and symlink. */
	before(fx);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("target", p), 0);
	after(fx);
	EXPECT(fx, NONE, L("link"), NONE);
	free(p);
}

static void
test_symlink_loop(void **state)
{
	struct fixture	*fx = *state;
	char		*p;

	dir(fx, "d");
	p = P(fx, "d/loop");
	assert_int_equal(symlink("..", p), 0);
	free(p);
	before(fx);
	assert_int_equal(snapshot_count(fx->before), 2);
	assert_non_null(snapshot_find(fx->before, "d/loop"));
	after(fx);
	EXPECT(fx, NONE, NONE, NONE);
}

static void
test_hard_link(void **state)
{
	struct fixture	*fx = *state;
	char		*a, *b;

	put(fx, "a", "shared");
	before(fx);
	a = P(fx, "a");
	b = P(fx, "b");
	assert_int_equal(link(a, b), 0);
	after(fx);
	/* a's link count changed, not a itself. */
	EXPECT(fx, L("b"), NONE, NONE);
	assert_renames(&fx->ch, NULL);

	/* Dropping one of two links: the other is not modified. */
	before(fx);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(rename(b, a), 0);
	after(fx);
	EXPECT(fx, NONE, NONE, L("b"));
	free(a);
	free(b);
}

static void
test_directory_rename(void **state)
{
	struct fixture	*fx = *state;

	dir(fx, "d");
	dir(fx, "d/sub");
	put(fx, "d/f", "f");
	put(fx, "d/sub/g", "g");
	before(fx);
	mv(fx, "d", "e");
	after(fx);
	/* One entry for the directory; its unchanged children are implied. */
	EXPECT(fx, NONE, NONE, NONE);
	assert_renames(&fx->ch, L("d", "e"));
}

static void
test_directory_rename_then_changes(void **state)
{
	struct fixture	*fx = *state;

	dir(fx, "d");
	dir(fx, "d/sub");
	put(fx, "d/f", "f");
	put(fx, "d/gone", "g");
	put(fx, "d/sub/g", "g");
	before(fx);
	mv(fx, "d", "e");
	put(fx, "e/f", "changed");
	put(fx, "e/new", "n");
	rm(fx, "e/gone");
	mv(fx, "e/sub/g", "e/sub/h");
	after(fx);
	EXPECT(fx, L("e/new"), L("e/f"), L("d/gone"));
	assert_renames(&fx->ch, L("d", "e", "d/sub/g", "e/sub/h"));
}

static void
test_git_internals(void **state)
{
	struct fixture	*fx = *state;

	dir(fx, ".git");
	dir(fx, ".git/objects");
	put(fx, ".git/HEAD", "ref: refs/heads/main");
	before(fx);
	assert_null(snapshot_find(fx->before, ".git/HEAD"));
	assert_non_null(snapshot_find(fx->before, ".git"));
	put(fx, ".git/HEAD", "ref: refs/heads/other");
	dir(fx, ".git/objects/ab");
	put(fx, ".git/objects/ab/cdef", "blob");
	rm(fx, ".git/objects/ab/cdef");
	put(fx, ".git/index", "idx");
	/* A submodule's .git is left out the same way. */
	dir(fx, "sub");
	dir(fx, "sub/.git");
	put(fx, "sub/.git/HEAD", "x");
	after(fx);
	EXPECT(fx, L("sub", "sub/.git"), NONE, NONE);
}

static void
test_excluded(void **state)
{
	struct fixture	*fx = *state;

	strv_push(&fx->exclude, "node_modules");
	strv_push(&fx->exclude, "./build/out/");
	dir(fx, "node_modules");
	put(fx, "node_modules/x.js", "x");
	dir(fx, "build");
	dir(fx, "build/out");
	put(fx, "build/out/a.o", "o");
	before(fx);
	assert_null(snapshot_find(fx->before, "node_modules/x.js"));
	assert_null(snapshot_find(fx->before, "build/out/a.o"));
	put(fx, "node_modules/x.js", "changed");
	dir(fx, "node_modules/pkg");
	put(fx, "node_modules/pkg/index.js", "i");
	rm(fx, "build/out/a.o");
	put(fx, "build/out/b.o", "b");
	/* A new excluded tree shows as itself, not its contents. */
	dir(fx, "lib");
	dir(fx, "lib/node_modules");
	put(fx, "lib/node_modules/y.js", "y");
	/* Only the exact relative path "build/out" is excluded. */
	dir(fx, "other");
	dir(fx, "other/out");
	put(fx, "other/out/c.o", "c");
	after(fx);
	EXPECT(fx, L("lib", "lib/node_modules", "other", "other/out",
	    "other/out/c.o"), NONE, NONE);
}

static void
test_skip(void **state)
{
	struct fixture	*fx = *state;

	strv_push(&fx->skip, ".bwgate.json");
	strv_push(&fx->skip, "a/placeholder");
	dir(fx, "a");
	before(fx);
	put(fx, ".bwgate.json", "{}");
	dir(fx, "a/placeholder");
	put(fx, "a/placeholder/x", "x");
	put(fx, "a/real", "r");
	after(fx);
	EXPECT(fx, L("a/real"), NONE, NONE);
}

static void
test_burst(void **state)
{
	struct fixture		*fx = *state;
	const struct strv	*c;
	char			 rel[64];
	size_t			 i, j;
	int			 n = 0;

	before(fx);
	for (i = 0; i < 30; i++) {
		snprintf(rel, sizeof rel, "d%02zu", i);
		dir(fx, rel);
		for (j = 0; j < 100; j++) {
			snprintf(rel, sizeof rel, "d%02zu/f%03zu", i, j);
			put(fx, rel, rel);
			n++;
		}
	}
	after(fx);
	c = &fx->ch.created;
	assert_int_equal(c->n, n + 30);
	assert_int_equal(changes_count(&fx->ch), n + 30);
	/* Sorted, each directory right before its own files. */
	for (i = 0; i < 30; i++) {
		snprintf(rel, sizeof rel, "d%02zu", i);
		assert_string_equal(c->v[i * 101], rel);
		for (j = 0; j < 100; j++) {
			snprintf(rel, sizeof rel, "d%02zu/f%03zu", i, j);
			assert_string_equal(c->v[i * 101 + 1 + j], rel);
		}
	}

	/* One thread and two threads see the same tree. */
	fx->opts.threads = 1;
	before(fx);
	fx->opts.threads = 2;
	after(fx);
	assert_int_equal(changes_count(&fx->ch), 0);
	assert_int_equal(snapshot_count(fx->before), n + 30);
}

static void
test_inode_reuse(void **state)
{
	struct fixture			*fx = *state;
	const struct snapshot_entry	*a, *b;
	struct snapshot			*sn;
	struct timespec			 ts = { 0, 20 * 1000 * 1000 };
	char				 rel[32];
	int				 i, reused = 0;

	/*
	 * A file born a little while ago, deleted, and a new file that gets
	 * its inode number (ext4 hands it out again at once): a deletion and
	 * a creation, not a rename. The pause keeps the two birth times
	 * apart on kernels whose timestamps are coarse (one tick).
	 */
	put(fx, "a", "a");
	nanosleep(&ts, NULL);
	before(fx);
	a = snapshot_find(fx->before, "a");
	assert_non_null(a);
	rm(fx, "a");
	for (i = 0; i < 20 && !reused; i++) {
		snprintf(rel, sizeof rel, "b%d", i);
		put(fx, rel, "b");
		sn = take(fx);
		b = snapshot_find(sn, rel);
		assert_non_null(b);
		reused = b->ino == a->ino;
		snapshot_free(sn);
	}
	after(fx);
	assert_int_equal(fx->ch.deleted.n, 1);
	assert_string_equal(fx->ch.deleted.v[0], "a");
	assert_int_equal(fx->ch.created.n, i);
	assert_renames(&fx->ch, NULL);
	if (!reused)
		print_message("# inode of 'a' not reused on this "
		    "filesystem: the reuse case did not occur\n");
}

static void
test_long_path(void **state)
{
	struct fixture	*fx = *state;
	char		 name[201];
	struct buf	 rel = BUF_INIT;
	int		 fd, nfd, i;

	/* 40 levels of 200-byte names: deeper than PATH_MAX, and deeper
	   than the scanner keeps descriptors open for. */
	memset(name, 'n', 200);
	name[200] = '\0';
	before(fx);
	fd = open(fx->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (i = 0; i < 40; i++) {
		assert_int_equal(mkdirat(fd, name, 0755), 0);
		nfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(nfd >= 0);
		close(fd);
		fd = nfd;
		if (i > 0)
			buf_putc(&rel, '/');
		buf_puts(&rel, name);
	}
	nfd = openat(fd, "leaf", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(nfd >= 0);
	close(nfd);
	close(fd);
	buf_puts(&rel, "/leaf");
	assert_true(rel.len > PATH_MAX);
	after(fx);
	assert_int_equal(fx->ch.created.n, 41);
	assert_string_equal(fx->ch.created.v[40], rel.data);
	assert_int_equal(fx->ch.created.v[39][strlen(
	    fx->ch.created.v[39]) - 1], 'n');

	before(fx);
	assert_int_equal(snapshot_count(fx->before), 41);
	assert_string_equal(snapshot_find(fx->before, rel.data)->path,
	    rel.data);
	buf_release(&rel);
}

static void
test_non_utf8_name(void **state)
{
	struct fixture	*fx = *state;

	before(fx);
	put(fx, "caf\xe9", "latin-1");
	put(fx, "x\xff\xfe", "junk");
	after(fx);
	EXPECT(fx, L("caf\xe9", "x\xff\xfe"), NONE, NONE);
}

/* Drop the capabilities that let root read any directory. */
static int
drop_dac_caps(void)
{
	struct __user_cap_header_struct	hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return -1;
	data[0].effective &= ~((1U << CAP_DAC_OVERRIDE) |
	    (1U << CAP_DAC_READ_SEARCH));
	return syscall(SYS_capset, &hdr, data);
}

/*
 * Check one scan of the tree made by test_unreadable_dir (whole) or of its
 * "open00" subtree; a non-zero return names the failed check.
 */
static int
check_unreadable(const char *root, int whole, int threads)
{
	struct snapshot_opts		 o = SNAPSHOT_OPTS_INIT;
	const struct snapshot_entry	*e, *inner;
	const struct strv		*w;
	struct snapshot			*sn;
	char				*cause = NULL;
	int				 rc = 0;

	o.threads = threads;
	if ((sn = snapshot_take(root, &o, &cause)) == NULL)
		return 1;
	w = snapshot_warnings(sn);
	inner = snapshot_find(sn, whole ? "open00/inner" : "inner");
	if (inner == NULL || !(inner->flags & SNAPSHOT_UNREADABLE))
		rc = 2;
	else if (whole) {
		e = snapshot_find(sn, "closed");
		if (e == NULL || !(e->flags & SNAPSHOT_UNREADABLE))
			rc = 3;
		else if (snapshot_find(sn, "closed/secret") != NULL ||
		    snapshot_find(sn, "open00/inner/g") != NULL)
			rc = 4;
		else if (snapshot_find(sn, "open69/f") == NULL)
			rc = 5;
		else if (w->n != 2 || strstr(w->v[0], "'closed'") == NULL ||
		    strstr(w->v[0], "Permission denied") == NULL ||
		    strstr(w->v[1], "'open00/inner'") == NULL)
			rc = 6;
	} else if (w->n != 1 || strstr(w->v[0], "'inner'") == NULL)
		rc = 7;
	snapshot_free(sn);
	return rc;
}

static void
test_unreadable_dir(void **state)
{
	struct fixture	*fx = *state;
	char		 rel[32], *p;
	pid_t		 pid;
	int		 status, i, rc;

	/* Enough subtrees that the two threads share them as jobs. */
	for (i = 0; i < 70; i++) {
		snprintf(rel, sizeof rel, "open%02d", i);
		dir(fx, rel);
		snprintf(rel, sizeof rel, "open%02d/f", i);
		put(fx, rel, "f");
	}
	dir(fx, "open00/inner");
	put(fx, "open00/inner/g", "g");
	dir(fx, "closed");
	put(fx, "closed/secret", "s");
	p = P(fx, "closed");
	assert_int_equal(chmod(p, 0), 0);
	free(p);
	p = P(fx, "open00/inner");
	assert_int_equal(chmod(p, 0), 0);
	free(p);

	/* In a child, so root can give up its override for the scans. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && drop_dac_caps() != 0)
			_exit(10);
		if ((rc = check_unreadable(fx->root, 1, 1)) != 0)
			_exit(rc);
		if ((rc = check_unreadable(fx->root, 1, 2)) != 0)
			_exit(rc + 10);
		/* A small tree: the directory fails while listed first. */
		p = P(fx, "open00");
		rc = check_unreadable(p, 0, 2);
		_exit(rc == 0 ? 0 : rc + 20);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_missing_root(void **state)
{
	struct fixture	*fx = *state;
	char		*p = P(fx, "nope"), *cause = NULL;

	assert_null(snapshot_take(p, NULL, &cause));
	assert_non_null(cause);
	assert_non_null(strstr(cause, "No such file or directory"));
	assert_non_null(strstr(cause, "/nope'"));
	free(cause);
	free(p);
}

/*
 * snapshot_paths: the report of chosen paths, each recorded before it is
 * changed (as the observer does), equals the full diff; .git internals
 * stand for .git, skipped paths vanish, a renamed tree brings its names.
 */
static void
test_paths(void **state)
{
	struct fixture		*fx = *state;
	struct snapshot_paths	*sp;
	struct changes		 ch;
	char			*cause = NULL;

	put(fx, "keep", "k");
	put(fx, "mod", "m");
	put(fx, "gone", "g");
	dir(fx, "tree");
	dir(fx, "tree/sub");
	put(fx, "tree/sub/f", "f");
	dir(fx, ".git");
	put(fx, ".git/config", "c");
	strv_push(&fx->skip, "ph");
	before(fx);
	fx->opts.exclude = &fx->exclude;
	fx->opts.skip = &fx->skip;
	sp = snapshot_paths_new(fx->root, &fx->opts, &cause);
	assert_non_null(sp);

	snapshot_paths_add(sp, "/new");
	put(fx, "new", "n");
	snapshot_paths_add(sp, "mod");
	put(fx, "mod", "changed");
	snapshot_paths_add(sp, "mod");		/* again: first state kept */
	snapshot_paths_add(sp, "gone");
	rm(fx, "gone");
	snapshot_paths_add_tree(sp, "tree", "moved");
	mv(fx, "tree", "moved");
	snapshot_paths_add(sp, ".git/config");	/* stands for .git */
	put(fx, ".git/config", "c2");
	snapshot_paths_add(sp, "ph");		/* skipped */
	put(fx, "ph", "p");
	snapshot_paths_add(sp, "tmp");		/* created and removed */
	put(fx, "tmp", "t");
	rm(fx, "tmp");
	snapshot_paths_add(sp, "");		/* the root: ignored */
	/* new, mod, gone, tree, moved, tree/sub, moved/sub, tree/sub/f,
	   moved/sub/f, .git, tmp */
	assert_int_equal(snapshot_paths_count(sp), 11);
	/* Which live events the calls account for (the live pane). */
	assert_true(snapshot_paths_claims(sp, "new"));
	assert_true(snapshot_paths_claims(sp, "./mod"));
	assert_true(snapshot_paths_claims(sp, "moved/sub/f"));
	assert_true(snapshot_paths_claims(sp, ".git"));
	assert_true(snapshot_paths_claims(sp, ".git/HEAD"));	/* opaque */
	assert_false(snapshot_paths_claims(sp, "ph"));		/* skipped */
	assert_false(snapshot_paths_claims(sp, "keep"));
	assert_false(snapshot_paths_claims(sp, "new/x"));	/* not a tree */
	assert_false(snapshot_paths_claims(sp, "mo"));
	assert_false(snapshot_paths_claims(sp, ""));
	assert_false(snapshot_paths_claims(NULL, "new"));

	memset(&ch, 0, sizeof ch);
	snapshot_paths_diff(sp, &ch);
	snapshot_paths_free(sp);
	after(fx);
	assert_list("created", &ch.created, "new", NULL);
	assert_list("modified", &ch.modified, "mod", NULL);
	assert_list("deleted", &ch.deleted, "gone", NULL);
	assert_renames(&ch, "tree", "moved", NULL);
	/* The full scan says the same. */
	assert_list("scan created", &fx->ch.created, "new", NULL);
	assert_list("scan modified", &fx->ch.modified, "mod", NULL);
	assert_list("scan deleted", &fx->ch.deleted, "gone", NULL);
	assert_renames(&fx->ch, "tree", "moved", NULL);
	changes_release(&ch);
}

#define T(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_empty),
		T(test_empty_to_files_and_back),
		T(test_create),
		T(test_nested_mkdir),
		T(test_modify),
		T(test_same_size_rewrite),
		T(test_delete),
		T(test_rm_rf),
		T(test_rename),
		T(test_rename_and_modify),
		T(test_rename_over_existing),
		T(test_atomic_save),
		T(test_chmod),
		T(test_type_change),
		T(test_symlink),
		T(test_symlink_loop),
		T(test_hard_link),
		T(test_directory_rename),
		T(test_directory_rename_then_changes),
		T(test_git_internals),
		T(test_excluded),
		T(test_skip),
		T(test_burst),
		T(test_inode_reuse),
		T(test_long_path),
		T(test_non_utf8_name),
		T(test_unreadable_dir),
		T(test_missing_root),
		T(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
