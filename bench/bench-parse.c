/*
 * bench-parse: the shell parser's speed. Long inputs of many shapes, valid
 * or not, at 256 KiB and 1 MiB: linear parsing takes about 4x as long for
 * the larger, quadratic 16x (the figure printed is the ratio); and the
 * parse rate of a mix of typical agent commands.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "shparse.h"

/* Seconds since an arbitrary point. */
static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* pre, n copies of piece, suf. */
static char *
repeat(const char *pre, const char *piece, size_t n, const char *suf)
{
	struct buf	b = BUF_INIT;

	buf_puts(&b, pre);
	for (size_t i = 0; i < n; i++)
		buf_puts(&b, piece);
	buf_puts(&b, suf);
	return buf_detach(&b);
}

/* The best of runs parses of in, in seconds. */
static double
best_parse(const char *in, int runs)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL;
	double			 best = 1e9, t0, dt;

	while (runs-- > 0) {
		t0 = now();
		if (sh_parse(in, &s, &cause) != 0) {
			free(cause);
			cause = NULL;
		}
		dt = now() - t0;
		if (dt < best)
			best = dt;
		sh_script_release(&s);
	}
	return best;
}

int
main(void)
{
	static const char *const pieces[] = {
		"ls -l; ", "a|", "echo \"$x\" ", "x", "$((", "$(( ((",
		"((", "\"", "'", "`", "$(", "${", "<<a ", "cat <<a\n",
		"$(( $(( x) ", "a=(", "((((((((((((((((#\n", "$(( #((((\n",
		"\\\n", "for ((", "[[ ", "case x in x) ", "{ ", "$'\\x41",
		"$[", "echo $(( #((((((((((\nls) );\n", "(( #((((\nls) )\n",
		"$(( '((((' ) )\n", "a=$(( \"(\" ))\n", "a | ( b ) & ",
		"cat <<<$x; ", "x=1 ", "> f ", "a;",
	};
	static const char *const mix[] = {
		"ls -la", "git status", "git log --oneline -n 20 -- src/",
		"grep -rn 'TODO' src | head -20", "find . -name '*.c' -newer x",
		"cat README.md", "make -j4 && make check TESTS='a b'",
		"sed -n '1,20p' file.c", "echo \"$HOME\" > /dev/null 2>&1",
		"for f in *.c; do wc -l \"$f\"; done",
	};
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*in, *cause = NULL;
	double			 small, large, worst = 0, t0, dt;
	const char		*worst_piece = "";
	size_t			 k, n, i, count = 200000;

	for (k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
		n = (1024 * 1024) / strlen(pieces[k]);
		in = repeat("", pieces[k], n / 4, "");
		small = best_parse(in, 3);
		free(in);
		in = repeat("", pieces[k], n, "");
		large = best_parse(in, 2);
		free(in);
		if (small > 0 && large / small > worst) {
			worst = large / small;
			worst_piece = pieces[k];
		}
	}
	printf("parse: 1 MiB / 256 KiB time, worst of %zu shapes: %.1fx "
	    "(linear ~4x, quadratic ~16x; shape '", sizeof pieces /
	    sizeof pieces[0], worst);
	for (const char *p = worst_piece; *p != '\0'; p++)
		printf(*p == '\n' ? "\\n" : "%c", *p);
	printf("')\n");

	t0 = now();
	for (i = 0; i < count; i++) {
		if (sh_parse(mix[i % 10], &s, &cause) != 0) {
			fprintf(stderr, "bench-parse: %s\n", cause);
			return 1;
		}
		sh_script_release(&s);
	}
	dt = now() - t0;
	printf("parse: %zu typical commands in %.2fs: %.0f per second\n",
	    count, dt, (double)count / dt);
	return 0;
}
