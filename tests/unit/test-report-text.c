/* test-report-text: the one renderer of change reports (report-text.c):
   directories created or deleted with everything in them as one line,
   limits, attention first, every text through the escape function. */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stdbool.h>

#include "buf.h"
#include "report-text.h"
#include "xalloc.h"

/* An escape that shows it ran: control characters as ^X. */
static char *
test_escape(const char *s)
{
	struct buf	b = BUF_INIT;

	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20) {
			buf_putc(&b, '^');
			buf_putc(&b, (char)(*s + '@'));
		} else
			buf_putc(&b, *s);
	}
	return b.data != NULL ? buf_detach(&b) : xstrdup("");
}

/* A report whose created list is made by the caller. */
static cJSON *
report_with(cJSON *created, cJSON *deleted, cJSON *modified)
{
	cJSON	*rep = cJSON_CreateObject(), *ch = cJSON_CreateObject();

	cJSON_AddItemToObject(ch, "created", created ? created :
	    cJSON_CreateArray());
	cJSON_AddItemToObject(ch, "modified", modified ? modified :
	    cJSON_CreateArray());
	cJSON_AddItemToObject(ch, "deleted", deleted ? deleted :
	    cJSON_CreateArray());
	cJSON_AddItemToObject(ch, "renamed", cJSON_CreateArray());
	cJSON_AddItemToObject(rep, "changes", ch);
	cJSON_AddBoolToObject(rep, "changes_possible", true);
	return rep;
}

static void
test_dir_summary(void **state)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { test_escape, false };
	cJSON			*c = cJSON_CreateArray(), *rep;
	char			 p[64];

	/* Unsorted on purpose; "build-x" sorts between "build" and
	   "build/..." in byte order and is not below it. */
	cJSON_AddItemToArray(c, cJSON_CreateString("build-x"));
	for (int i = 0; i < 4212; i++) {
		snprintf(p, sizeof p, "build/o/f%d.o", i);
		cJSON_AddItemToArray(c, cJSON_CreateString(p));
	}
	cJSON_AddItemToArray(c, cJSON_CreateString("build/o"));
	cJSON_AddItemToArray(c, cJSON_CreateString("build/top"));
	cJSON_AddItemToArray(c, cJSON_CreateString("build"));
	cJSON_AddItemToArray(c, cJSON_CreateString("a.txt"));
	rep = report_with(c, NULL, NULL);
	report_text_build(rep, &o, &t);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.v[0].kind, RL_COUNT);
	assert_string_equal(t.v[0].text, "4217 created, 0 modified, "
	    "0 deleted, 0 renamed");
	assert_string_equal(t.v[1].text, "+ a.txt");
	assert_string_equal(t.v[2].text, "+ build/ (4,213 files)");
	assert_true(t.v[2].summary);
	assert_string_equal(t.v[3].text, "+ build-x");
	report_text_release(&t);

	/* Expanded: every path, in path order. */
	o.expand = true;
	report_text_build(rep, &o, &t);
	assert_int_equal(t.n, 1 + 4217);
	assert_string_equal(t.v[2].text, "+ build");
	assert_string_equal(t.v[3].text, "+ build/o");
	report_text_release(&t);
	cJSON_Delete(rep);
}

static void
test_deleted_modified(void **state)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { test_escape, false };
	const char		*d[] = { "old", "old/a", "old/b", "x" };
	const char		*m[] = { "src", "src/main.c" };
	cJSON			*rep;

	rep = report_with(NULL, cJSON_CreateStringArray(d, 4),
	    cJSON_CreateStringArray(m, 2));
	report_text_build(rep, &o, &t);
	assert_int_equal(t.n, 5);
	assert_string_equal(t.v[1].text, "~ src");
	assert_string_equal(t.v[2].text, "~ src/main.c");
	assert_string_equal(t.v[3].text, "- old/ (2 files)");
	assert_string_equal(t.v[4].text, "- x");
	report_text_release(&t);
	cJSON_Delete(rep);
}

static void
test_limit_and_more(void **state)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { test_escape, false };
	cJSON			*c = cJSON_CreateArray(), *rep;
	char			 p[32];

	for (int i = 0; i < REPORT_TEXT_MAX + 5; i++) {
		snprintf(p, sizeof p, "f%02d", i);
		cJSON_AddItemToArray(c, cJSON_CreateString(p));
	}
	rep = report_with(c, NULL, NULL);
	report_text_build(rep, &o, &t);
	assert_int_equal(t.n, 1 + REPORT_TEXT_MAX + 1);
	assert_int_equal(t.v[t.n - 1].kind, RL_MORE);
	assert_string_equal(t.v[t.n - 1].text, "... and 5 more (the full "
	    "list: --json)");
	assert_true(report_line_is_path(RL_MORE));
	report_text_release(&t);
	cJSON_Delete(rep);
}

static void
test_attention_escape(void **state)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { test_escape, false };
	const char		*c[] = { "evil\x1b[2Jname" };
	cJSON			*rep, *a, *e;

	rep = report_with(cJSON_CreateStringArray(c, 1), NULL, NULL);
	a = cJSON_AddArrayToObject(rep, "attention");
	cJSON_AddItemToArray(a, cJSON_CreateString("plain\x07 bell"));
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "path", "Makefile");
	cJSON_AddStringToObject(e, "message", "build file changed");
	cJSON_AddItemToArray(a, e);
	e = cJSON_AddArrayToObject(rep, "violations");
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "operation", "create");
	cJSON_AddStringToObject(a, "path", "/etc/\x01x");
	cJSON_AddStringToObject(a, "reason", "read-only");
	cJSON_AddNumberToObject(a, "count", 3);
	cJSON_AddStringToObject(a, "hint", "write inside the project");
	cJSON_AddItemToArray(e, a);
	report_text_build(rep, &o, &t);
	assert_int_equal(t.n, 6);
	assert_int_equal(t.v[0].kind, RL_ATTENTION);
	assert_string_equal(t.v[0].text, "! attention: plain^G bell");
	assert_string_equal(t.v[1].text, "! attention: Makefile: build file changed");
	assert_int_equal(t.v[2].kind, RL_COUNT);
	assert_string_equal(t.v[3].text, "+ evil^[[2Jname");
	assert_string_equal(t.v[4].text, "refused create '/etc/^Ax' "
	    "(read-only) x3");
	assert_string_equal(t.v[5].text, "hint: write inside the project");
	report_text_release(&t);
	cJSON_Delete(rep);

	/* Not an object: nothing. */
	report_text_build(NULL, &o, &t);
	assert_int_equal(t.n, 0);
}

/* What a git-write run did: commit lines (escaped, at most 20, then a
   count), refs as old..new, created, deleted, forced, the index. */
static void
test_git(void **state)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { test_escape, false };
	cJSON			*rep = report_with(NULL, NULL, NULL);
	cJSON			*git = cJSON_CreateObject();
	cJSON			*commits = cJSON_CreateArray();
	cJSON			*refs = cJSON_CreateArray(), *e;
	const char		*a = "1111111111111111111111111111111111111111";
	const char		*b = "2222222222222222222222222222222222222222";
	size_t			 ncommit = 0, i;
	char			 id[41];

	(void)state;
	for (int k = 0; k < 25; k++) {
		snprintf(id, sizeof id, "%040d", k);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "id", id);
		cJSON_AddStringToObject(e, "subject", k == 0 ?
		    "evil\033[2J\rbwgate: no changes" : "plain");
		cJSON_AddItemToArray(commits, e);
	}
	cJSON_AddItemToObject(git, "commits", commits);
	cJSON_AddNumberToObject(git, "commits_total", 31);
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", "refs/heads/main");
	cJSON_AddStringToObject(e, "change", "forced");
	cJSON_AddStringToObject(e, "old", a);
	cJSON_AddStringToObject(e, "new", b);
	cJSON_AddItemToArray(refs, e);
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", "refs/tags/v\033x");
	cJSON_AddStringToObject(e, "change", "created");
	cJSON_AddNullToObject(e, "old");
	cJSON_AddStringToObject(e, "new", b);
	cJSON_AddItemToArray(refs, e);
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", "refs/heads/gone");
	cJSON_AddStringToObject(e, "change", "deleted");
	cJSON_AddStringToObject(e, "old", a);
	cJSON_AddNullToObject(e, "new");
	cJSON_AddItemToArray(refs, e);
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", "HEAD");
	cJSON_AddStringToObject(e, "change", "moved");
	cJSON_AddStringToObject(e, "old", "refs/heads/main");
	cJSON_AddStringToObject(e, "new", "refs/heads/x\ny");
	cJSON_AddItemToArray(refs, e);
	cJSON_AddItemToObject(git, "refs", refs);
	cJSON_AddBoolToObject(git, "index_changed", true);
	cJSON_AddItemToObject(rep, "git", git);
	report_text_build(rep, &o, &t);
	for (i = 0; i < t.n; i++) {
		assert_null(strchr(t.v[i].text, '\033'));
		assert_null(strchr(t.v[i].text, '\r'));
		assert_null(strchr(t.v[i].text, '\n'));
		if (t.v[i].kind == RL_GIT &&
		    strncmp(t.v[i].text, "git: commit ", 12) == 0)
			ncommit++;
	}
	assert_int_equal(ncommit, 20);
	for (i = 0; i < t.n && t.v[i].kind != RL_GIT; i++)
		;
	assert_true(i + 25 < t.n + 1);
	assert_string_equal(t.v[i].text, "git: commit 000000000000 "
	    "evil^[[2J^Mbwgate: no changes");
	assert_string_equal(t.v[i + 20].text, "git: ... and 11 more commits");
	assert_string_equal(t.v[i + 21].text, "git: refs/heads/main forced "
	    "111111111111..222222222222 (not a fast-forward)");
	assert_string_equal(t.v[i + 22].text, "git: refs/tags/v^[x created "
	    "at 222222222222");
	assert_string_equal(t.v[i + 23].text, "git: refs/heads/gone deleted "
	    "(was 111111111111)");
	assert_string_equal(t.v[i + 24].text, "git: HEAD moved "
	    "refs/heads/main -> refs/heads/x^Jy");
	assert_string_equal(t.v[i + 25].text, "git: index changed");
	report_text_release(&t);
	/* Expanded: every commit listed, still the count of the rest. */
	o.expand = true;
	report_text_build(rep, &o, &t);
	ncommit = 0;
	for (i = 0; i < t.n; i++)
		if (strncmp(t.v[i].text, "git: commit ", 12) == 0)
			ncommit++;
	assert_int_equal(ncommit, 25);
	report_text_release(&t);
	cJSON_Delete(rep);
}

/* A command's background processes: kept as a service (its id, how to
   stop it, not in this report nor its undo), or killed; one line each,
   one or several. */
static void
test_service(void **state)
{
	struct report_text	 t = REPORT_TEXT_INIT;
	struct report_text_opts	 o = { test_escape, false };
	cJSON			*rep, *sv;
	bool			 kept = false, killed = false;

	rep = report_with(NULL, NULL, NULL);
	sv = cJSON_AddObjectToObject(rep, "service");
	cJSON_AddNumberToObject(sv, "processes", 2);
	cJSON_AddNumberToObject(sv, "id", 7);
	cJSON_AddNumberToObject(rep, "background_killed", 1);
	report_text_build(rep, &o, &t);
	for (size_t i = 0; i < t.n; i++) {
		if (strcmp(t.v[i].text, "2 background processes keep running "
		    "as the project's service 7 (bwgate stop 7): what they "
		    "change from now on is in neither this report nor its "
		    "undo") == 0)
			kept = true;
		if (strcmp(t.v[i].text, "1 background process was killed "
		    "when the command ended: not kept as the project's "
		    "service (only a console keeps them, up to its "
		    "console.max_services)") == 0)
			killed = true;
	}
	assert_true(kept);
	assert_true(killed);
	report_text_release(&t);
	cJSON_Delete(rep);

	/* One process, no console id: no stop hint with a wrong number. */
	rep = report_with(NULL, NULL, NULL);
	sv = cJSON_AddObjectToObject(rep, "service");
	cJSON_AddNumberToObject(sv, "processes", 1);
	report_text_build(rep, &o, &t);
	kept = false;
	for (size_t i = 0; i < t.n; i++)
		if (strcmp(t.v[i].text, "1 background process keeps running "
		    "as the project's service: what it changes from now on "
		    "is in neither this report nor its undo") == 0)
			kept = true;
	assert_true(kept);
	report_text_release(&t);
	cJSON_Delete(rep);
	(void)state;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_summary),
		cmocka_unit_test(test_deleted_modified),
		cmocka_unit_test(test_limit_and_more),
		cmocka_unit_test(test_attention_escape),
		cmocka_unit_test(test_git),
		cmocka_unit_test(test_service),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
