/* test-gitscan: the scan for nested .git, its refresh from an earlier
   scan (the settling rule included) and its cache file (gitscan*.c). The
   attacks on the real binary are in tests/integration/contain-gitscan.sh;
   here, what cannot be made to happen on purpose: two changes to a
   directory within one tick of the clock. */
#include "autoconf.h"

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "beneath.h"
#include "gitscan.h"
#include "path.h"
#include "sandbox.h"
#include "xalloc.h"

static char	*dir;

static int
setup(void **state)
{
	char	tmpl[] = "/tmp/bwgate-test-gitscan.XXXXXX";
	char	*run;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	run = path_join(dir, "run");
	assert_int_equal(mkdir(run, 0700), 0);
	setenv("XDG_RUNTIME_DIR", run, 1);	/* the cache stays in dir */
	free(run);
	return 0;
}

static int
teardown(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(dir);
	return 0;
}

/* mkdir -p each of the NULL-terminated list below the project. */
static char *
project(const char *const *dirs)
{
	char	*p = path_join(dir, "proj");
	char	*cmd;

	for (; *dirs != NULL; dirs++) {
		cmd = xasprintf("mkdir -p '%s/%s'", p, *dirs);
		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	return p;
}

static bool
has_git(const struct gitscan *gs, const char *rel)
{
	for (size_t i = 0; i < gs->ngit; i++)
		if (strcmp(gs->gits.v[i], rel) == 0)
			return true;
	return false;
}

static void
test_walk(void **state)
{
	const char *const dirs[] = { "a/b/.git/hooks", "a/c", ".git",
	    "node_modules/x/.git", "d/e/f", NULL };
	char		*p = project(dirs);
	int		 root = open(p, O_RDONLY | O_DIRECTORY);
	struct gitscan	*gs = gitscan_walk(root);

	(void)state;
	assert_null(gs->error);
	assert_int_equal(gs->ngit, 3);
	assert_true(has_git(gs, ".git"));
	assert_true(has_git(gs, "a/b/.git"));
	/* node_modules is walked like any other tree. */
	assert_true(has_git(gs, "node_modules/x/.git"));
	/* "", a, a/b, a/c, d, d/e, d/e/f, node_modules, node_modules/x;
	   not inside .git */
	assert_int_equal(gs->ndirs, 9);
	assert_string_equal(gs->dirs[0].rel, "");
	for (size_t i = 1; i < gs->ndirs; i++)
		assert_true(strcmp(gs->dirs[i - 1].rel, gs->dirs[i].rel) < 0);
	assert_true(gitscan_find(gs, "a/c", 3) >= 0);
	assert_true(gitscan_find(gs, "a/cx", 3) >= 0);	/* counted */
	assert_true(gitscan_find(gs, "node_modules", 12) >= 0);
	assert_int_equal(gs->ndeep, 0);
	sandbox_gitscan_free(gs);
	close(root);
	free(p);
}

/* A directory deeper than GITSCAN_MAX_DEPTH is not read: the one holding
   it is marked deep (read-only whole, searched after a run); a .git
   above it is found as any other. */
static void
test_deep(void **state)
{
	const char *const dirs[] = { "x", NULL };
	char		*p = project(dirs);
	char		*cmd;
	int		 root;
	struct gitscan	*gs;
	ssize_t		 k;

	(void)state;
	/* x/d/d/.../d (GITSCAN_MAX_DEPTH + 2 deep), and x/d/.git */
	cmd = xasprintf("cd '%s/x' && for i in $(seq %d); do mkdir d && "
	    "cd d; done && mkdir '%s/x/d/.git'", p, GITSCAN_MAX_DEPTH + 1, p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	root = open(p, O_RDONLY | O_DIRECTORY);
	gs = gitscan_walk(root);
	assert_null(gs->error);
	assert_true(has_git(gs, "x/d/.git"));
	assert_int_equal(gs->ndeep, 1);
	for (k = 0; k < (ssize_t)gs->ndirs && !gs->dirs[k].deep; k++)
		;
	assert_true(k < (ssize_t)gs->ndirs);
	/* the directory at depth GITSCAN_MAX_DEPTH holds the deeper one */
	{
		int	n = 1;

		for (const char *c = gs->dirs[k].rel; *c != '\0'; c++)
			n += *c == '/';
		assert_int_equal(n, GITSCAN_MAX_DEPTH);
	}
	sandbox_gitscan_free(gs);
	close(root);
	free(p);
}

/* Make the earlier scan say dir rel was recorded with its present change
   time, as if read in the same tick as a change made after. */
static void
same_tick(struct gitscan *old, const char *p, const char *rel)
{
	char		*abs = path_join(p, rel);
	struct stat	 st;
	ssize_t		 k = gitscan_find(old, rel, strlen(rel));

	assert_true(k >= 0);
	assert_int_equal(stat(abs, &st), 0);
	old->dirs[k].ctime = st.st_ctim;
	free(abs);
}

static void
test_refresh_settling(void **state)
{
	const char *const dirs[] = { "a/b", "c", NULL };
	char		*p = project(dirs);
	char		*git = path_join(p, "a/b/.git");
	int		 root = open(p, O_RDONLY | O_DIRECTORY);
	struct gitscan	*old = gitscan_walk(root), *now;

	(void)state;
	old->ctime_ok = true;
	assert_int_equal(mkdir(git, 0755), 0);
	same_tick(old, p, "a/b");

	/* Recorded within the settling time of the scan: read again. */
	now = gitscan_refresh(old, root);
	assert_true(has_git(now, "a/b/.git"));
	assert_true(now->read >= 1);
	sandbox_gitscan_free(now);

	/* The same state, as if the earlier scan were long after the change
	   time: taken as it was. This is the trust the rule withholds. */
	old->when.tv_sec += 3600;
	now = gitscan_refresh(old, root);
	assert_false(has_git(now, "a/b/.git"));
	assert_int_equal(now->read, 0);
	sandbox_gitscan_free(now);

	/* Without change times the kernel keeps, every directory is read. */
	old->ctime_ok = false;
	now = gitscan_refresh(old, root);
	assert_true(has_git(now, "a/b/.git"));
	assert_int_equal(now->read, old->ndirs);
	sandbox_gitscan_free(now);

	sandbox_gitscan_free(old);
	close(root);
	free(git);
	free(p);
}

/* A refresh reads what changed and walks whole what is new under it. */
static void
test_refresh_changes(void **state)
{
	const char *const dirs[] = { "a/b", "c/d", "e", NULL };
	char		*p = project(dirs);
	char		*cmd;
	int		 root = open(p, O_RDONLY | O_DIRECTORY);
	struct gitscan	*old = gitscan_walk(root), *now;

	(void)state;
	old->ctime_ok = true;
	old->when.tv_sec += 3600;	/* everything settled */
	cmd = xasprintf("cd '%s' && mkdir -p new/x/y/.git && mv c c2 && "
	    "mkdir -p c2/d/.git && mkdir c && rmdir e", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	now = gitscan_refresh(old, root);
	assert_null(now->error);
	assert_true(has_git(now, "new/x/y/.git"));
	assert_true(has_git(now, "c2/d/.git"));
	assert_int_equal(now->ngit, 2);
	assert_true(gitscan_find(now, "c", 1) >= 0);
	assert_int_equal(gitscan_find(now, "e", 1), -1);
	assert_true(gitscan_find(now, "a/b", 3) >= 0);	/* kept */
	for (size_t i = 1; i < now->ndirs; i++)
		assert_true(strcmp(now->dirs[i - 1].rel, now->dirs[i].rel) < 0);
	sandbox_gitscan_free(now);
	sandbox_gitscan_free(old);
	close(root);
	free(p);
}

/* Names with any byte but '/' and NUL come back as they went. */
static void
test_cache_roundtrip(void **state)
{
	const char *const dirs[] = { "sp ace/.git", "new\nline/x",
	    "\xff\xfe/.git", "d", NULL };
	char		*p = project(dirs);
	char		*file = path_join(dir, "cache");
	int		 root = open(p, O_RDONLY | O_DIRECTORY);
	struct gitscan	*gs = gitscan_walk(root), *back;

	(void)state;
	gitscan_cache_save(file, gs);
	back = gitscan_cache_load(file);
	assert_non_null(back);
	assert_int_equal(back->ndirs, gs->ndirs);
	assert_int_equal(back->ngit, gs->ngit);
	for (size_t i = 0; i < gs->ndirs; i++) {
		assert_string_equal(back->dirs[i].rel, gs->dirs[i].rel);
		assert_int_equal(back->dirs[i].ino, gs->dirs[i].ino);
		assert_int_equal(back->dirs[i].ctime.tv_nsec,
		    gs->dirs[i].ctime.tv_nsec);
	}
	for (size_t i = 0; i < gs->ngit; i++)
		assert_string_equal(back->gits.v[i], gs->gits.v[i]);
	assert_true(has_git(back, "\xff\xfe/.git"));
	assert_int_equal(back->when.tv_sec, gs->when.tv_sec);
	sandbox_gitscan_free(back);
	sandbox_gitscan_free(gs);
	close(root);
	free(file);
	free(p);
}

static void
write_text(const char *file, const char *text)
{
	FILE	*f = fopen(file, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_cache_rejects(void **state)
{
	static const char *const bad[] = {
		"",
		"bwgate-gitscan 1\nw 1 1\nd 1 1 1 1 0 0\n\n",	/* old */
		"bwgate-gitscan 2\nw 1 1\n",			/* no root */
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 1\na\n",	/* not root */
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\nd 1 2 1 1 0 3\na/b\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\nd 1 2 1 1 0 1\nb\n"
		    "d 1 3 1 1 0 1\na\n",			/* order */
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\nd 1 2 1 1 0 2\n..\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\nd 1 2 1 1 0 2\n/a\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\nd 1 2 1 1 0 9\na\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\ng 5 6\nx/.git\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\ng 5 3\nabc\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1000000000 0 0\n\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 3 0\n\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\ng 5 4\n.git\n"
		    "d 1 2 1 1 0 1\na\n",		/* directory after a .git */
		"bwgate-gitscan 2\nw 1 1\nd 99999999999999999999 1 1 1 0 0\n\n",
		"bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n",	/* cut short */
		NULL
	};
	char		*file = path_join(dir, "cache");
	struct gitscan	*gs;

	(void)state;
	write_text(file, "bwgate-gitscan 2\nw 1 1\nd 1 1 1 1 0 0\n\n"
	    "d 1 2 1 1 0 1\na\ng 5 6\na/.git\n");
	assert_non_null(gs = gitscan_cache_load(file));
	sandbox_gitscan_free(gs);
	for (const char *const *b = bad; *b != NULL; b++) {
		write_text(file, *b);
		gs = gitscan_cache_load(file);
		if (gs != NULL)
			fail_msg("accepted: %s", *b);
	}
	free(file);
}

/* How many scans the runtime directory keeps. */
static int
kept_scans(void)
{
	char		*kept = path_join(dir, "run/bwgate");
	DIR		*d = opendir(kept);
	struct dirent	*de;
	int		 files = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		files += strncmp(de->d_name, "gitscan-", 8) == 0;
	closedir(d);
	free(kept);
	return files;
}

/* gitscan_project through the project's descriptor (beneath.h). */
static struct gitscan *
project_scan(const char *p, char **cause)
{
	struct stat	 st;
	struct gitscan	*gs;
	int		 root = beneath_root(p, &st, cause);

	if (root < 0)
		return NULL;
	gs = gitscan_project(p, root, cause);
	close(root);
	return gs;
}

/* gitscan_project keeps the scan and takes the next from it. */
static void
test_project_cache(void **state)
{
	const char *const dirs[] = { "a/.git", "b/c", NULL };
	char		*p = project(dirs);
	char		*cause = NULL, *cmd;
	struct gitscan	*gs;

	(void)state;
	/* A small project is read whole each time: nothing is kept. */
	gs = project_scan(p, &cause);
	assert_non_null(gs);
	sandbox_gitscan_free(gs);
	assert_int_equal(kept_scans(), 0);
	cmd = xasprintf("cd '%s' && mkdir $(seq -f 'many%%g' 300)", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	gs = project_scan(p, &cause);
	assert_non_null(gs);
	assert_int_equal(gs->read, gs->ndirs);	/* no cache yet */
	sandbox_gitscan_free(gs);
	assert_int_equal(kept_scans(), 1);
	gs = project_scan(p, &cause);
	assert_non_null(gs);
	assert_true(has_git(gs, "a/.git"));
	sandbox_gitscan_free(gs);
	assert_null(project_scan("/nonexistent/bwgate", &cause));
	assert_non_null(strstr(cause, "cannot open the project"));
	free(cause);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_settling, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_refresh_changes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cache_roundtrip, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cache_rejects, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_project_cache, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
