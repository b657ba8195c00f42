/*
 * test-allowlist-table: the verdicts of tests/policy/semantics.txt (the
 * semantic traps of issue 16 and everyday read-only commands, with
 * generated families) against the shipped rules; the grammar keys added
 * for them (SIZE and COUNT ceilings, values, refused_values, bounded,
 * operand_numbers, runs, project_root) and classification_unforeseen().
 */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "allowlist.h"
#include "buf.h"
#include "optparse.h"
#include "rules.h"
#include "xalloc.h"

/* A family of values: "@set NAME" ... "@end". */
struct family {
	char		*name;
	struct strv	 values;
};

struct table {
	struct family	*fams;
	size_t		 nfams;
};

static char	*tmpdir;

/* The profiles a rule file loaded alone must define for its rules. */
#define PROFILES "\"profiles\": { \"readonly\": { \"project_readonly\": " \
	"true }, \"project\": {} }, "

/* The family called name[0..len), or NULL. */
static const struct family *
table_family(const struct table *t, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < t->nfams; i++)
		if (strlen(t->fams[i].name) == len &&
		    strncmp(t->fams[i].name, name, len) == 0)
			return &t->fams[i];
	return NULL;
}

/* Expand the %NAME% at or after from in text into out (every value). */
static void
table_expand(const struct table *t, const char *text, size_t from,
    struct strv *out)
{
	const struct family	*f = NULL;
	const char		*p = text + from, *q = NULL;
	char			*s;
	size_t			 i, at;

	for (; (p = strchr(p, '%')) != NULL; p++) {
		for (q = p + 1; *q >= 'a' && *q <= 'z'; q++)
			;
		if (*q == '%' && q > p + 1 &&
		    (f = table_family(t, p + 1, q - p - 1)) != NULL)
			break;
	}
	if (p == NULL) {
		strv_push(out, text);
		return;
	}
	for (i = 0; i < f->values.n; i++) {
		at = p - text;
		s = xasprintf("%.*s%s%s", (int)at, text, f->values.v[i], q + 1);
		table_expand(t, s, at + strlen(f->values.v[i]), out);
		free(s);
	}
}

/* Run every line of the table; report all mismatches, then fail. */
static void
test_table(void **state)
{
	struct allowlist	*al;
	struct classification	 c = CLASSIFICATION_INIT;
	struct table		 t = { NULL, 0 };
	struct family		*cur = NULL;
	struct strv		 cmds = STRV_INIT;
	const char		*src = getenv("BWGATE_SRCDIR");
	char			*path, *cause = NULL, *line = NULL, *tab, *want;
	char			*prof;
	size_t			 cap = 0, i, n = 0, bad = 0, lineno = 0;
	ssize_t			 len;
	FILE			*f;
	enum verdict		 v = VERDICT_DENY;

	(void)state;
	al = allowlist_load(NULL, &cause);
	if (al == NULL)
		fail_msg("%s", cause);
	path = xasprintf("%s/tests/policy/semantics.txt", src ? src : "..");
	f = fopen(path, "r");
	assert_non_null(f);
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (cur != NULL) {
			if (strcmp(line, "@end") == 0)
				cur = NULL;
			else
				strv_push(&cur->values, line);
			continue;
		}
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (strncmp(line, "@set ", 5) == 0) {
			t.fams = xreallocarray(t.fams, t.nfams + 1,
			    sizeof *t.fams);
			cur = &t.fams[t.nfams++];
			cur->name = xstrdup(line + 5);
			memset(&cur->values, 0, sizeof cur->values);
			continue;
		}
		if ((tab = strchr(line, '\t')) == NULL)
			fail_msg("%s:%zu: no tab", path, lineno);
		*tab = '\0';
		want = line;
		if ((prof = strchr(want, ':')) != NULL)
			*prof++ = '\0';
		if (strcmp(want, "allow") == 0)
			v = VERDICT_ALLOW;
		else if (strcmp(want, "ask") == 0)
			v = VERDICT_ASK;
		else if (strcmp(want, "deny") == 0)
			v = VERDICT_DENY;
		else if (strcmp(want, "danger") == 0)
			v = VERDICT_DANGER;
		else
			fail_msg("%s:%zu: bad verdict '%s'", path, lineno,
			    want);
		strv_release(&cmds);
		table_expand(&t, tab + 1, 0, &cmds);
		for (i = 0; i < cmds.n; i++, n++) {
			allowlist_classify(al, cmds.v[i], &c);
			if (c.verdict != v || (prof != NULL &&
			    strcmp(c.profile, prof) != 0) ||
			    (c.verdict == VERDICT_ALLOW &&
			    strcmp(c.profile, "readonly") != 0)) {
				print_error("%zu: '%s': expected %s%s%s, got "
				    "%s (profile %s: %s)\n", lineno, cmds.v[i],
				    want, prof ? ":" : "", prof ? prof : "",
				    verdict_name(c.verdict), c.profile,
				    c.reason);
				bad++;
			}
			classification_release(&c);
		}
	}
	fclose(f);
	free(line);
	print_message("# %zu commands from %s\n", n, path);
	assert_true(n >= 1000);
	for (i = 0; i < t.nfams; i++) {
		free(t.fams[i].name);
		strv_release(&t.fams[i].values);
	}
	free(t.fams);
	strv_release(&cmds);
	free(path);
	allowlist_free(al);
	if (bad > 0)
		fail_msg("%zu of %zu commands misclassified", bad, n);
}

/* Sizes and counts with ceilings. */
static void
test_sizes(void **state)
{
	static const struct {
		const char		*s;
		int			 rc;
		unsigned long long	 v;
	} cases[] = {
		{ "0", 0, 0 }, { "100", 0, 100 }, { "1b", 0, 512 },
		{ "4k", 0, 4096 }, { "4K", 0, 4096 }, { "4KB", 0, 4096 },
		{ "4KiB", 0, 4096 }, { "2M", 0, 2 << 20 },
		{ "1G", 0, 1ULL << 30 }, { "1T", 0, 1ULL << 40 },
		{ "", -1, 0 }, { "G", -1, 0 }, { "-1", -1, 0 },
		{ "1.5G", -1, 0 }, { "50%", -1, 0 }, { "1Gx", -1, 0 },
		{ "1X", -1, 0 }, { "99999999999999999999", -1, 0 },
		{ "16E", -1, 0 }, { "1Q", -1, 0 }, { " 1", -1, 0 },
	};
	unsigned long long	v;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		v = 0;
		if (opt_parse_size(cases[i].s, &v) != cases[i].rc ||
		    (cases[i].rc == 0 && v != cases[i].v))
			fail_msg("opt_parse_size('%s'): %llu", cases[i].s, v);
	}
}

/* Write a rule file into the temporary directory; returns its path. */
static char *
write_rules(const char *name, const char *text)
{
	char	*path = xasprintf("%s/%s", tmpdir, name);
	FILE	*f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
	return path;
}

/* Classify text with al and check the verdict. */
static void
expect(const struct allowlist *al, const char *text, enum verdict v)
{
	struct classification	c = CLASSIFICATION_INIT;

	allowlist_classify(al, text, &c);
	if (c.verdict != v)
		fail_msg("'%s': expected %s, got %s (%s)", text,
		    verdict_name(v), verdict_name(c.verdict), c.reason);
	classification_release(&c);
}

/* The new grammar keys in a rule file of their own. */
static void
test_keys(void **state)
{
	struct allowlist	*al;
	char			*path, *cause = NULL;

	(void)state;
	path = write_rules("keys.json", "{ " PROFILES "\"rules\": [\n"
	    "{ \"id\": \"t\", \"command\": \"tool\", \"verdict\": \"allow\",\n"
	    "  \"reason\": \"test\", \"profile\": \"readonly\",\n"
	    "  \"options\": [\"-s|--size=SIZE<=1M\", \"-j=COUNT<=8\",\n"
	    "    \"-m|--mode=ARG\", \"-f|--format=ARG\", \"-n=ARG\"],\n"
	    "  \"values\": { \"-m\": [\"fast\", \"slow\"] },\n"
	    "  \"refused_values\": { \"-f\": { \"match\": [\"*%X*\"],\n"
	    "    \"reason\": \"runs a helper\" } },\n"
	    "  \"bounded\": [\"-n\"], \"runs\": [\"helper\", \"gpg*\"],\n"
	    "  \"match\": [\"tool -s 1M x\", \"tool --mode=fast\"],\n"
	    "  \"no_match\": [\"tool -s 2M x\", \"tool -m other\",\n"
	    "    \"tool -f a%Xb\"] },\n"
	    "{ \"id\": \"num\", \"command\": \"count\", \"verdict\": \"allow\",\n"
	    "  \"reason\": \"test\", \"profile\": \"readonly\",\n"
	    "  \"numeric\": true, \"operand_numbers\": 10 },\n"
	    "{ \"id\": \"root\", \"command\": \"vcs\", \"verdict\": \"allow\",\n"
	    "  \"reason\": \"test\", \"profile\": \"readonly\",\n"
	    "  \"project_root\": true },\n"
	    "{ \"id\": \"cd\", \"command\": \"cd\", \"verdict\": \"allow\",\n"
	    "  \"reason\": \"test\", \"profile\": \"readonly\" },\n"
	    "{ \"id\": \"w\", \"command\": \"wr\", \"verdict\": \"allow\",\n"
	    "  \"reason\": \"test\", \"profile\": \"project\" },\n"
	    "{ \"id\": \"la\", \"command\": \"lsx\", \"verdict\": \"allow\",\n"
	    "  \"reason\": \"test\", \"profile\": \"readonly\" },\n"
	    "{ \"id\": \"lq\", \"command\": \"lsx\", \"verdict\": \"ask\",\n"
	    "  \"reason\": \"one\", \"operands\": { \"max\": 1 } }\n"
	    "] }\n");
	al = allowlist_load_file(path, &cause);
	if (al == NULL)
		fail_msg("%s", cause);
	expect(al, "tool -s 512K -j 8 x", VERDICT_ALLOW);
	expect(al, "tool -s 2M x", VERDICT_ASK);
	expect(al, "tool -j 9 x", VERDICT_ASK);
	expect(al, "tool -j 1K x", VERDICT_ASK);
	expect(al, "tool -m slow", VERDICT_ALLOW);
	expect(al, "tool -m fastest", VERDICT_ASK);
	expect(al, "tool -f %H", VERDICT_ALLOW);
	expect(al, "tool --format='%X'", VERDICT_ASK);
	expect(al, "tool /dev/zero", VERDICT_ASK);
	expect(al, "tool -n 3 /dev/zero", VERDICT_ALLOW);
	expect(al, "tool *.c", VERDICT_ALLOW);
	expect(al, "tool -m *", VERDICT_ASK);
	expect(al, "count 10 -10 +3", VERDICT_ALLOW);
	expect(al, "count 11", VERDICT_ASK);
	expect(al, "count -11", VERDICT_ASK);
	expect(al, "count 1.5", VERDICT_ASK);
	expect(al, "count *", VERDICT_ASK);
	expect(al, "vcs x", VERDICT_ALLOW);
	expect(al, "cd a && vcs x", VERDICT_ASK);
	expect(al, "vcs x; cd a", VERDICT_ASK);
	/* globs only with the read-only profile */
	expect(al, "wr x", VERDICT_ALLOW);
	expect(al, "wr *.c", VERDICT_ASK);
	/* an ask rule sees the glob as written: it stays stricter */
	expect(al, "lsx a b", VERDICT_ALLOW);
	expect(al, "lsx a", VERDICT_ASK);
	expect(al, "lsx *", VERDICT_ASK);
	allowlist_free(al);
	free(path);
}

/* Rule files misusing the new keys are refused with the key named. */
static void
test_key_errors(void **state)
{
	static const struct {
		const char	*rule;
		const char	*msg;
	} cases[] = {
		{ "\"options\": [\"-s=SIZE\"]", "need a ceiling" },
		{ "\"options\": [\"-s=ARG<=1G\"]", "need a ceiling" },
		{ "\"options\": [\"-s=COUNT<=1G\"]", "need a ceiling" },
		{ "\"options\": [\"-s=SIZE<=lots\"]", "need a ceiling" },
		{ "\"options\": [\"-s\"], \"values\": { \"-x\": [\"a\"] }",
		    "not in \"options\"" },
		{ "\"options\": [\"-s\"], \"values\": { \"-s\": [\"a\"] }",
		    "takes no value" },
		{ "\"options\": [\"-s=ARG\"], \"values\": { \"-s\": [] }",
		    "non-empty array" },
		{ "\"options\": [\"-s=ARG\"], \"refused_values\": "
		    "{ \"-s\": { \"match\": [\"x\"] } }", "\"reason\"" },
		{ "\"options\": [\"-s=ARG\"], \"refused_values\": "
		    "{ \"-s\": { \"match\": [\"x\"], \"reason\": \"r\", "
		    "\"oops\": 1 } }", "unknown key \"oops\"" },
		{ "\"bounded\": [\"-q\"]", "not in \"options\"" },
		{ "\"operand_numbers\": 0", "whole number from 1" },
		{ "\"operand_numbers\": 1.5", "whole number from 1" },
		{ "\"runs\": \"gpg\"", "an array" },
		{ "\"project_root\": 1", "true or false" },
	};
	struct allowlist	*al;
	char			*path, *text, *cause;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		text = xasprintf("{ \"rules\": [ { \"id\": \"e\", \"command\": "
		    "\"e\", \"verdict\": \"allow\", \"reason\": \"r\", %s } ] "
		    "}\n", cases[i].rule);
		path = write_rules("bad.json", text);
		cause = NULL;
		al = allowlist_load_file(path, &cause);
		if (al != NULL)
			fail_msg("accepted: %s", cases[i].rule);
		if (strstr(cause, cases[i].msg) == NULL ||
		    strstr(cause, "bad.json':") == NULL)
			fail_msg("'%s': cause '%s' lacks '%s'", cases[i].rule,
			    cause, cases[i].msg);
		free(cause);
		free(text);
		free(path);
	}
}

/* Programs an allowed command ran that its rules did not foresee. */
static void
test_unforeseen(void **state)
{
	struct allowlist	*al;
	struct classification	 c = CLASSIFICATION_INIT;
	struct strv		 exec = STRV_INIT, out = STRV_INIT;
	char			*cause = NULL;

	(void)state;
	al = allowlist_load(NULL, &cause);
	assert_non_null(al);
	allowlist_classify(al, "git log --oneline | head -5", &c);
	assert_int_equal(c.verdict, VERDICT_ALLOW);
	assert_true(c.project_root);
	strv_push(&exec, "/usr/bin/git");
	strv_push(&exec, "/usr/bin/head");
	classification_unforeseen(&c, &exec, &out);
	assert_int_equal(out.n, 0);
	strv_push(&exec, "/usr/bin/gpg");
	strv_push(&exec, "/usr/bin/less");
	strv_push(&exec, "gpg");
	classification_unforeseen(&c, &exec, &out);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0], "gpg");
	assert_string_equal(out.v[1], "less");
	strv_release(&out);
	classification_release(&c);
	assert_int_equal(c.runs.n, 0);
	assert_false(c.project_root);

	/* A rule's "runs" patterns are foreseen. */
	{
		char *path = write_rules("runs.json", "{ " PROFILES
		    "\"rules\": [\n"
		    "{ \"id\": \"m\", \"pattern\": \"mk test\", \"verdict\": "
		    "\"allow\", \"reason\": \"r\", \"runs\": [\"cc*\", "
		    "\"ld\"] } ] }\n");
		struct allowlist *al2 = allowlist_load_file(path, &cause);

		assert_non_null(al2);
		allowlist_classify(al2, "mk test", &c);
		assert_int_equal(c.verdict, VERDICT_ALLOW);
		assert_false(c.project_root);
		strv_release(&exec);
		strv_push(&exec, "/usr/bin/mk");
		strv_push(&exec, "/usr/bin/cc1");
		strv_push(&exec, "/usr/bin/ld");
		strv_push(&exec, "/bin/sh");
		classification_unforeseen(&c, &exec, &out);
		assert_int_equal(out.n, 1);
		assert_string_equal(out.v[0], "sh");
		strv_release(&out);
		classification_release(&c);
		allowlist_free(al2);
		free(path);
	}
	strv_release(&exec);
	allowlist_free(al);
}

static int
setup(void **state)
{
	const char	*src = getenv("BWGATE_SRCDIR");
	char		*dir;

	dir = xasprintf("%s/share/bwgate", src != NULL ? src : "..");
	setenv("BWGATE_DATADIR", dir, 1);
	free(dir);
	tmpdir = xstrdup("/tmp/test-allowlist-table.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	dir = xasprintf("%s/config", tmpdir);
	mkdir(dir, 0700);
	setenv("XDG_CONFIG_HOME", dir, 1);
	free(dir);
	*state = NULL;
	return 0;
}

static int
teardown(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", tmpdir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(tmpdir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_key_errors),
		cmocka_unit_test(test_unforeseen),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
