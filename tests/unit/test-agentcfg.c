/*
 * test-agentcfg: the agent configuration table (agentcfg.c) accepts only
 * paths inside the project (no '..', not absolute, not empty, depth "any"
 * or "root"), and matches an entry of depth "any" at any depth, one of
 * depth "root" only at the root.
 */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agentcfg.h"
#include "xalloc.h"

static char	*file;

static int
setup(void **state)
{
	char	tmpl[] = "/tmp/bwgate-test-agentcfg.XXXXXX";
	int	fd;

	(void)state;
	assert_true((fd = mkstemp(tmpl)) >= 0);
	close(fd);
	file = xstrdup(tmpl);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(file);
	free(file);
	return 0;
}

/* Load a table with one entry; NULL (and the cause checked) or it. */
static struct agentcfg *
load_one(const char *path, const char *depth, char **cause)
{
	FILE	*f = fopen(file, "w");

	assert_non_null(f);
	fprintf(f, "{\"paths\": [{\"path\": \"%s\", \"depth\": \"%s\", "
	    "\"why\": \"w\"}]}\n", path, depth);
	fclose(f);
	*cause = NULL;
	return agentcfg_load(file, cause);
}

static void
test_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "../outside", "any" }, { "a/../../b", "root" },
		{ "a/..", "any" }, { "/etc/x", "any" }, { "", "any" },
		{ "/", "root" }, { ".claude/", "sometimes" },
	};
	char	*cause;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_null(load_one(bad[i][0], bad[i][1], &cause));
		assert_non_null(cause);
		assert_non_null(strstr(cause, "paths[0]"));
		free(cause);
	}
}

static void
test_match(void **state)
{
	struct agentcfg	*t;
	char		*cause;

	(void)state;
	assert_non_null(t = load_one(".claude/", "any", &cause));
	assert_non_null(agentcfg_match(t, ".claude/settings.json"));
	assert_non_null(agentcfg_match(t, "sub/dir/.claude/settings.json"));
	assert_null(agentcfg_match(t, "sub/claude/x"));
	agentcfg_free(t);
	assert_non_null(t = load_one(".envrc", "root", &cause));
	assert_non_null(agentcfg_match(t, ".envrc"));
	assert_null(agentcfg_match(t, "sub/.envrc"));
	agentcfg_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
