/* test-jsoncheck: what cJSON would cut short or refuse is found in the JSON
   text and named by member (jsoncheck.c); path and string checks; the
   mended copy; bwgate's JSON output mended to UTF-8 (jsonutil.c). */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsoncheck.h"
#include "jsonutil.h"
#include "xalloc.h"

/* The cause for text, or "" when it is clean. */
static char *
check(const char *text)
{
	char	*cause = NULL;

	if (jsoncheck_text(text, strlen(text), NULL, &cause) == 0) {
		assert_null(cause);
		return xstrdup("");
	}
	assert_non_null(cause);
	return cause;
}

#define assert_cause(text, want) do {					\
	char *c_ = check(text);						\
	if (strstr(c_, want) == NULL)					\
		fail_msg("%s: '%s' lacks '%s'", text, c_, want);	\
	free(c_);							\
} while (0)

static void
test_clean(void **state)
{
	(void)state;
	assert_cause("{\"a\":\"x\\n\\t\\u00e9\\ud83d\\ude00\",\"b\":[1,\"\\\\u0000\"]}", "");
	assert_cause("\"\\\\\\\\u0000\"", "");		/* escaped backslashes */
	assert_cause("{\"k\":\"\xc3\xa9\xe1\x83\x9a\"}", "");
}

static void
test_named(void **state)
{
	(void)state;
	assert_cause("{\"tool_input\":{\"command\":\"a\\u0000b\"}}",
	    "field 'tool_input.command' holds a NUL character");
	assert_cause("{\"argv\":[\"x\",\"y\",\"\\ud800\"]}",
	    "field 'argv[2]' holds a lone UTF-16 surrogate");
	assert_cause("{\"a\":{\"b\":[{\"c\":1},{\"d\":\"\\udfff\"}]}}",
	    "field 'a.b[1].d'");
	assert_cause("{\"a\":\"\\ud800x\"}", "lone UTF-16 surrogate");
	assert_cause("{\"a\":\"\\ud800\\u0041\"}", "lone UTF-16 surrogate");
	assert_cause("{\"env\":{\"A\\u0000B\":\"1\"}}",
	    "a key in 'env' holds a NUL character");
	assert_cause("{\"p\":\"a\nb\"}", "field 'p' holds a raw control");
	assert_cause("{\"p\":\"\xff\"}", "field 'p' holds invalid UTF-8");
	assert_cause("{\"p\":\"\xed\xa0\x80\"}", "invalid UTF-8");
	assert_cause("\"\\u0000\"", "field '(top level)'");
	/* the first flaw is named */
	assert_cause("{\"a\":\"\\u0000\",\"b\":\"\\ud800\"}", "field 'a'");
}

static void
test_mended(void **state)
{
	const char	*t = "{\"id\":7,\"c\":\"a\\u0000b\\udc00\"}";
	char		*m = NULL, *cause = NULL;

	(void)state;
	assert_int_equal(jsoncheck_text(t, strlen(t), &m, &cause), -1);
	assert_string_equal(m, "{\"id\":7,\"c\":\"a\\ufffdb\\ufffd\"}");
	free(m);
	free(cause);
	cause = NULL;
	assert_int_equal(jsoncheck_text("{}", 2, &m, &cause), 0);
	assert_string_equal(m, "{}");
	free(m);
}

static void
test_path(void **state)
{
	char	*cause = NULL, *longp;

	(void)state;
	assert_int_equal(jsoncheck_path("cwd", "/a/b \xc3\xa9", &cause), 0);
	assert_int_equal(jsoncheck_path("cwd", "/a\nb", &cause), -1);
	assert_non_null(strstr(cause, "field 'cwd' holds a control character "
	    "(U+000A at byte 2)"));
	free(cause);
	assert_int_equal(jsoncheck_path("p", "/a\x7f", &cause), -1);
	free(cause);
	assert_int_equal(jsoncheck_path("p", "/a\xc2\x9b", &cause), -1);
	assert_non_null(strstr(cause, "U+009B"));
	free(cause);
	assert_int_equal(jsoncheck_path("p", "/\xff", &cause), -1);
	assert_non_null(strstr(cause, "not valid UTF-8"));
	free(cause);
	longp = xmalloc(5000);
	memset(longp, 'a', 4999);
	longp[4999] = '\0';
	assert_int_equal(jsoncheck_path("p", longp, &cause), -1);
	assert_non_null(strstr(cause, "longer than 4095 bytes"));
	free(cause);
	free(longp);
}

static void
test_output_mended(void **state)
{
	cJSON	*j = cJSON_CreateObject();
	char	*s;
	size_t	 n;

	(void)state;
	cJSON_AddStringToObject(j, "r", "unknown option '-\xe1'");
	s = json_line(j);
	assert_string_equal(s, "{\"r\":\"unknown option '-\xef\xbf\xbd'\"}");
	assert_true(utf8_valid(s));
	free(s);
	s = json_mend_utf8(xstrdup("ok \xc3\xa9"), &n);
	assert_int_equal(n, 0);
	assert_string_equal(s, "ok \xc3\xa9");
	free(s);
	cJSON_Delete(j);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_mended),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_output_mended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
