/*
 * fuzz-rules: the rules-file parser (rulefile_parse, through
 * json_parse_text, which config, danger and env-ask files share) with an
 * oracle. For each mutated file: it is loaded or refused, never both; a
 * refusal is one line of valid UTF-8 that names the file; a file holding
 * a \u0000 escape or a lone surrogate inside a string (which cJSON would
 * cut short or refuse) is never loaded; what is loaded has rule ids of
 * valid UTF-8.
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer it is a libFuzzer
 * target. Built plainly (as 'make check' does) it runs a deterministic
 * mutation loop (FUZZ_ITERATIONS, default 20000) over a seed corpus, or
 * reads the files named on the command line, and prints TAP.
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "rules.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static long	failures;

/* Does text hold an escape cJSON would cut at (\u0000) or refuse (a lone
   surrogate)? Found independently of jsoncheck: an escape is a 'u' after
   an odd run of backslashes. */
static bool
holds_hostile_escape(const char *t)
{
	for (const char *p = t; (p = strstr(p, "\\u")) != NULL; p++) {
		size_t	run = 0;
		long	v;
		char	hex[5];

		for (const char *q = p; q >= t && *q == '\\'; q--)
			run++;
		if (run % 2 == 0 || strlen(p + 2) < 4)
			continue;
		memcpy(hex, p + 2, 4);
		hex[4] = '\0';
		if (strspn(hex, "0123456789abcdefABCDEF") != 4)
			continue;
		v = strtol(hex, NULL, 16);
		if (v == 0 || (v >= 0xdc00 && v <= 0xdfff))
			return true;
		if (v >= 0xd800 && v <= 0xdbff) {
			long lo = -1;

			if (strncmp(p + 6, "\\u", 2) == 0 &&
			    strlen(p + 8) >= 4) {
				memcpy(hex, p + 8, 4);
				if (strspn(hex, "0123456789abcdefABCDEF") == 4)
					lo = strtol(hex, NULL, 16);
			}
			if (lo < 0xdc00 || lo > 0xdfff)
				return true;
			p += 6;
		}
	}
	return false;
}

static void
bad(const char *what, const char *text, const char *cause)
{
	if (failures++ < 5)
		printf("# FAIL: %s\n# text: %.300s\n# cause: %s\n", what,
		    text, cause != NULL ? cause : "(none)");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rulefile	 rf;
	char		*text, *cause = NULL;
	int		 rc;

	/* A file is read up to its first NUL byte at most (json_load_file
	   refuses one); the parser takes a C string. */
	text = xstrndup((const char *)data, size);
	rulefile_init(&rf);
	rc = rulefile_parse("rules.json", text, &rf, &cause);
	if ((rc == 0) != (cause == NULL))
		bad("loaded and refused, or neither", text, cause);
	else if (rc != 0 && (strchr(cause, '\n') != NULL ||
	    !utf8_valid(cause)))
		bad("the refusal is not one line of UTF-8", text, cause);
	else if (rc != 0 && strstr(cause, "rules.json") == NULL)
		bad("the refusal does not name the file", text, cause);
	else if (rc == 0 && holds_hostile_escape(text))
		bad("a file with \\u0000 or a lone surrogate was loaded", text,
		    NULL);
	else if (rc == 0)
		for (size_t i = 0; i < rf.nrules; i++)
			if (rf.rules[i].id == NULL ||
			    !utf8_valid(rf.rules[i].id))
				bad("a rule id is not UTF-8", text, NULL);
	free(cause);
	rulefile_release(&rf);
	free(text);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"{\"version\":1,\"rules\":[{\"id\":\"ls\",\"command\":[\"ls\"],"
	    "\"verdict\":\"allow\",\"profile\":\"readonly\",\"reason\":"
	    "\"lists\"}]}",
	"{\"version\":1,\"rules\":[{\"id\":\"git-status\",\"command\":"
	    "[\"git\",\"status\"],\"verdict\":\"allow\",\"reason\":\"r\","
	    "\"match\":[\"git status -s\"],\"no_match\":[\"git push\"]}]}",
	"{\"version\":1,\"rules\":[{\"id\":\"rm\",\"command\":[\"rm\"],"
	    "\"verdict\":\"deny\",\"reason\":\"no\"}],\"profiles\":"
	    "{\"p\":{\"network\":false,\"rw\":[\"/tmp\"]}}}",
	"{\"version\":1,\"rules\":[{\"id\":\"\\u00e9t\\u00e9\",\"command\":"
	    "[\"\\ud83d\\ude00\"],\"verdict\":\"ask\",\"reason\":\"\\u0001\"}]}",
};

static const char *const tokens[] = { "\"", "{", "}", "[", "]", ",", ":",
	    "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\xff", "\xc3",
	    "\t", "\n", "\\", "null", "1", "\"id\"", "\"command\"",
	    "\"verdict\"", "\"allow\"", "\"rules\"", "\"profiles\"", "" };

static const struct fuzz_corpus corpus = {
	seeds, sizeof seeds / sizeof *seeds,
	tokens, sizeof tokens / sizeof *tokens
};

int
main(int argc, char **argv)
{
	long	 iterations = fuzz_run(argc, argv, &corpus, 20000,
		    LLVMFuzzerTestOneInput);

	if (iterations < 0)
		return failures > 0;
	if (failures > 0)
		printf("not ok 1 - %ld of %ld mutated rules files broke a "
		    "property\n", failures, iterations);
	else
		printf("ok 1 - %ld mutated rules files: loaded or refused "
		    "naming the file, none with \\u0000 or a lone surrogate "
		    "loaded\n", iterations);
	return failures > 0;
}
#endif
