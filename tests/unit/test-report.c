/* test-report: result JSON field names, violation merging, exit statuses,
   and config validation (report.c, config.c). */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "attention.h"
#include "config.h"
#include "jsonutil.h"
#include "report.h"
#include "xalloc.h"

static void
test_result_fields(void **state)
{
	static const char *const fields[] = { "argv", "cwd", "project",
	    "bwrap_argv", "exit_code", "signal", "timed_out", "duration_ms",
	    "stdout", "stderr", "stdout_truncated", "stderr_truncated",
	    "changes", "violations", "sandbox", "warnings", "error", NULL };
	struct result	 r = RESULT_INIT;
	cJSON		*j;

	strv_push(&r.argv, "true");
	r.started = true;
	r.exit_code = 0;
	r.changes_known = true;
	strv_push(&r.changes.created, "a");
	changes_add_rename(&r.changes, "b", "c");
	j = result_json(&r);
	for (const char *const *f = fields; *f != NULL; f++)
		assert_non_null(cJSON_GetObjectItem(j, *f));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j,
	    "changes"), "created")->child->valuestring, "a");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(j, "changes"), "renamed")->child, "to")
	    ->valuestring, "c");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "signal")));
	cJSON_Delete(j);
	result_release(&r);
}

static void
test_signal_and_status(void **state)
{
	struct result	 r = RESULT_INIT;
	cJSON		*j;

	r.started = true;
	r.signal = 9;
	assert_int_equal(result_exit_status(&r), 137);
	j = result_json(&r);
	assert_string_equal(cJSON_GetObjectItem(j, "signal")->valuestring,
	    "SIGKILL");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "exit_code")));
	cJSON_Delete(j);
	r.signal = 0;
	r.exit_code = 3;
	assert_int_equal(result_exit_status(&r), 3);
	r.error = xstrdup("no sandbox");
	assert_int_equal(result_exit_status(&r), 125);
	result_release(&r);
	r.started = false;
	assert_int_equal(result_exit_status(&r), 125);
}

static void
test_invalid_utf8_output(void **state)
{
	struct result	 r = RESULT_INIT;
	cJSON		*j;

	buf_add(&r.out, "a\xff" "b\xc3\xa9", 5);
	j = result_json(&r);
	assert_string_equal(cJSON_GetObjectItem(j, "stdout")->valuestring,
	    "a\xef\xbf\xbd" "b\xc3\xa9");
	cJSON_Delete(j);
	result_release(&r);
}

static void
test_violations_merge(void **state)
{
	struct violations	 vs = { NULL, 0 };
	cJSON			*j;

	violations_add(&vs, "/etc/x", "write", VIOLATION_READ_ONLY, true);
	violations_add(&vs, "/etc/x", "write", VIOLATION_READ_ONLY, true);
	violations_add(&vs, "/etc/x", "delete", VIOLATION_READ_ONLY, false);
	assert_int_equal(vs.n, 2);
	assert_int_equal(vs.v[0].count, 2);
	j = violations_json(&vs);
	assert_string_equal(cJSON_GetObjectItem(j->child, "reason")
	    ->valuestring, "read-only");
	assert_non_null(strstr(cJSON_GetObjectItem(j->child, "hint")
	    ->valuestring, "writable path"));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j->child, "exact")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j->child->next,
	    "exact")));
	cJSON_Delete(j);
	violations_release(&vs);
}

/* Write text to a temporary file; returns its path. */
static char *
tmpfile_with(const char *text)
{
	char	*path = xstrdup("/tmp/test-config.XXXXXX");
	int	 fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void
test_config_valid(void **state)
{
	struct config	 c;
	char		*cause = NULL;
	char		*p = tmpfile_with("{\"sandbox\":{\"protected\":[\"s/\"],"
			    "\"env\":[\"GITHUB_TOKEN\"],\"network\":true},"
			    "\"exclude\":[\"target\"],\"output_limit\":10,"
			    "\"console\":{\"allowed_uids\":[1001]}}");
	struct sandbox_policy pol;

	config_init(&c);
	assert_int_equal(config_load_file(&c, p, &cause), 0);
	assert_string_equal(c.protected.v[0], "s/");
	assert_true(c.network);
	assert_int_equal(c.output_limit, 10);
	assert_int_equal(c.nallowed_uids, 1);
	assert_int_equal(c.allowed_uids[0], 1001);
	sandbox_policy_init(&pol);
	config_apply(&c, &pol);
	assert_true(pol.network);
	assert_true(strv_contains(&pol.env_pass, "GITHUB_TOKEN"));
	sandbox_policy_release(&pol);
	config_release(&c);
	unlink(p);
	free(p);
}

static void
test_config_errors(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"sandbox\":{\"netwrok\":true}}", "unknown key 'sandbox.netwrok'" },
		{ "{\"bogus\":1}", "unknown key 'bogus'" },
		{ "{\"sandbox\":{\"network\":\"yes\"}}", "wrong type" },
		{ "{\"exclude\":[1]}", "wrong type" },
		{ "{\"output_limit\":-1}", "wrong type" },
		{ "{\n\"sandbox\": {,}}", ":2: invalid JSON" },
		{ "[]", "not a JSON object" },
		{ "{\"sandbox\":{\"protected\":[\"ok/\",\"../up\"]}}",
		    "sandbox.protected: '../up' contains '..'" },
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct config	 c;
		char		*cause = NULL, *p = tmpfile_with(bad[i][0]);

		config_init(&c);
		assert_int_equal(config_load_file(&c, p, &cause), -1);
		if (strstr(cause, bad[i][1]) == NULL ||
		    strstr(cause, p) == NULL)
			fail_msg("%s: got '%s'", bad[i][0], cause);
		free(cause);
		config_release(&c);
		unlink(p);
		free(p);
	}
}

/* Attention patterns: exact files, directories with a trailing '/'. */
static void
test_attention_match(void **state)
{
	struct attentions	as = { 0 };
	cJSON			*j;

	assert_true(attention_match(".envrc", ".envrc"));
	assert_false(attention_match("sub/.envrc", ".envrc"));
	assert_false(attention_match(".envrc.bak", ".envrc"));
	assert_true(attention_match(".vscode", ".vscode/"));
	assert_true(attention_match(".vscode/tasks.json", ".vscode/"));
	assert_false(attention_match(".vscodex/a", ".vscode/"));
	assert_true(attention_match(".github/workflows/ci.yml",
	    ".github/workflows/"));
	assert_false(attention_match(".github/other.yml",
	    ".github/workflows/"));
	assert_true(attention_match("a", "./a"));
	assert_false(attention_match("a", ""));
	/* Globs of the protected table, at any depth. */
	assert_true(attention_match("w.code-workspace",
	    "**/*.code-workspace"));
	assert_true(attention_match("a/b/.w.code-workspace",
	    "**/*.code-workspace"));
	assert_false(attention_match("a/w.code-workspace.txt",
	    "**/*.code-workspace"));
	assert_true(attention_match("s/.config/lefthook.yml",
	    "**/.config/lefthook.*"));
	assert_false(attention_match("s/.config/other.yml",
	    "**/.config/lefthook.*"));

	attentions_add(&as, "x", "git", "why");
	attentions_add(&as, "x", "git", "again");
	attentions_add(&as, "x", "hardlink", "why");
	assert_int_equal(as.n, 2);
	attentions_add(&as, "bad\xff", "auto-run", "why");
	j = attentions_json(&as);
	assert_int_equal(cJSON_GetArraySize(j), 3);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 2),
	    "escaped")));
	cJSON_Delete(j);
	attentions_release(&as);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_fields),
		cmocka_unit_test(test_signal_and_status),
		cmocka_unit_test(test_invalid_utf8_output),
		cmocka_unit_test(test_violations_merge),
		cmocka_unit_test(test_attention_match),
		cmocka_unit_test(test_config_valid),
		cmocka_unit_test(test_config_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
